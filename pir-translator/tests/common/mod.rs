//! Helpers shared by the translator tests: the fixture directory and small hand-built legacy
//! programs.
#![allow(dead_code)]

use std::path::PathBuf;

use pir_translator::{proto, LegacyProgram};
use prost::Message;

/// `$PIR_PADDLE_REF/legacy` or `$PIR_PADDLE_YAML/../paddle-ref/legacy`, printing a notice and
/// returning `None` when neither is set.
pub fn legacy_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("PIR_PADDLE_REF") {
        Some(r) => Some(PathBuf::from(r).join("legacy")),
        None => std::env::var_os("PIR_PADDLE_YAML")
            .map(|y| PathBuf::from(y).join("../paddle-ref/legacy")),
    }
    .filter(|d| d.is_dir());
    if dir.is_none() {
        eprintln!(
            "notice: PIR_PADDLE_REF / PIR_PADDLE_YAML not set (or no legacy/ fixtures there); \
             skipping the tests on Paddle's legacy fixtures"
        );
    }
    dir
}

/// Fixture `name` decoded.
pub fn fixture(name: &str) -> Option<LegacyProgram> {
    let bytes = std::fs::read(legacy_dir()?.join(format!("{name}.pdmodel"))).unwrap();
    Some(LegacyProgram::decode(&bytes).unwrap())
}

/// A dense tensor variable.
pub fn var(
    name: &str,
    dtype: proto::var_type::Type,
    dims: &[i64],
    stop_gradient: bool,
) -> proto::VarDesc {
    proto::VarDesc {
        name: Some(name.into()),
        r#type: Some(proto::VarType {
            r#type: Some(proto::var_type::Type::DenseTensor as i32),
            dense_tensor: Some(proto::var_type::DenseTensorDesc {
                tensor: Some(proto::var_type::TensorDesc {
                    data_type: Some(dtype as i32),
                    dims: dims.to_vec(),
                }),
                legacy_lod_level: None,
            }),
            ..Default::default()
        }),
        stop_gradient: Some(stop_gradient),
        ..Default::default()
    }
}

/// An op input or output parameter.
pub fn slot(parameter: &str, args: &[&str]) -> proto::op_desc::Var {
    proto::op_desc::Var {
        parameter: Some(parameter.into()),
        arguments: args.iter().map(|a| a.to_string()).collect(),
    }
}

/// A FLOAT attribute.
pub fn float_attr(name: &str, v: f32) -> proto::op_desc::Attr {
    proto::op_desc::Attr {
        name: Some(name.into()),
        r#type: Some(proto::AttrType::Float as i32),
        f: Some(v),
        ..Default::default()
    }
}

/// An op.
pub fn op(
    ty: &str,
    inputs: Vec<proto::op_desc::Var>,
    outputs: Vec<proto::op_desc::Var>,
    attrs: Vec<proto::op_desc::Attr>,
) -> proto::OpDesc {
    proto::OpDesc {
        r#type: Some(ty.into()),
        inputs,
        outputs,
        attrs,
        is_target: None,
    }
}

/// A one-block program of `vars` and `ops`, encoded.
pub fn program(vars: Vec<proto::VarDesc>, ops: Vec<proto::OpDesc>) -> Vec<u8> {
    proto::ProgramDesc {
        blocks: vec![proto::BlockDesc {
            idx: Some(0),
            parent_idx: Some(-1),
            vars,
            ops,
            forward_block_idx: None,
        }],
        ..Default::default()
    }
    .encode_to_vec()
}
