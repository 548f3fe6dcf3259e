//! Translation of the tensor-array ops and the backward control-flow forms, on small legacy
//! programs built here, by Paddle 3.3.1's rules (`op_translator.cc`: `WriteArrayOpTranscriber`,
//! `LodArrayLengthOpTranscriber`, `ReadArrayOpTranscriber`, `SelectOutputOpTranscriber`;
//! `program_translator.cc`: `PreAnalysisForCond`, `TranslateIfOperation` with `for_bwd`,
//! `CreateUndefinedVariable`, `unsupported_ops = {while_grad}`).

mod common;

use common::{op, slot, var};
use pir_translator::{proto, Translator};
use prost::Message;

use proto::var_type::Type as T;

fn array_var(name: &str, dtype: T, dims: &[i64]) -> proto::VarDesc {
    proto::VarDesc {
        name: Some(name.into()),
        r#type: Some(proto::VarType {
            r#type: Some(T::DenseTensorArray as i32),
            tensor_array: Some(proto::var_type::DenseTensorArrayDesc {
                tensor: Some(proto::var_type::TensorDesc {
                    data_type: Some(dtype as i32),
                    dims: dims.to_vec(),
                }),
                legacy_lod_level: None,
            }),
            ..Default::default()
        }),
        stop_gradient: Some(true),
        ..Default::default()
    }
}

fn block_attr(name: &str, idx: i32) -> proto::op_desc::Attr {
    proto::op_desc::Attr {
        name: Some(name.into()),
        r#type: Some(proto::AttrType::Block as i32),
        block_idx: Some(idx),
        ..Default::default()
    }
}

fn blocks(blocks: Vec<(Vec<proto::VarDesc>, Vec<proto::OpDesc>)>) -> Vec<u8> {
    let parents: Vec<i32> = (0..blocks.len() as i32).map(|i| i.min(1) - 1).collect();
    blocks_with_parents(blocks, &parents)
}

/// Blocks with the given parent indices (a grad sub-block's parent is the forward
/// sub-block, as `append_backward` makes it).
fn blocks_with_parents(
    blocks: Vec<(Vec<proto::VarDesc>, Vec<proto::OpDesc>)>,
    parents: &[i32],
) -> Vec<u8> {
    proto::ProgramDesc {
        blocks: blocks
            .into_iter()
            .enumerate()
            .map(|(i, (vars, ops))| proto::BlockDesc {
                idx: Some(i as i32),
                parent_idx: Some(parents[i]),
                vars,
                ops,
                forward_block_idx: None,
            })
            .collect(),
        ..Default::default()
    }
    .encode_to_vec()
}

fn translate(bytes: &[u8]) -> String {
    let t = Translator::with_pd_op().unwrap();
    let tr = t.translate_bytes(bytes).unwrap();
    pir_runtime::verify(&tr.program).unwrap();
    tr.program.to_string()
}

/// The lines of `text` with the op names, in order.
fn op_names(text: &str) -> Vec<&str> {
    text.lines().filter_map(|l| l.split('"').nth(1)).collect()
}

/// `write_to_array` into an unmapped array first makes `pd_op.create_array` of the array's
/// element type (unmapped: the write's result defines the variable); `lod_array_length`
/// and `read_from_array` read the written array.
#[test]
fn tensor_array_ops() {
    let vars = vec![
        var("x", T::Fp32, &[2, 3], true),
        var("i", T::Int64, &[1], true),
        array_var("arr", T::Fp32, &[2, 3]),
        var("n", T::Int64, &[1], true),
        var("y", T::Fp32, &[2, 3], true),
    ];
    let ops = vec![
        op(
            "write_to_array",
            vec![slot("I", &["i"]), slot("X", &["x"])],
            vec![slot("Out", &["arr"])],
            vec![],
        ),
        op(
            "lod_array_length",
            vec![slot("X", &["arr"])],
            vec![slot("Out", &["n"])],
            vec![],
        ),
        op(
            "read_from_array",
            vec![slot("I", &["i"]), slot("X", &["arr"])],
            vec![slot("Out", &["y"])],
            vec![],
        ),
    ];
    let text = translate(&blocks(vec![(vars, ops)]));
    assert_eq!(
        op_names(&text),
        [
            "pd_op.data",
            "pd_op.data",
            "pd_op.create_array",
            "pd_op.array_write_",
            "pd_op.array_length",
            "pd_op.array_read"
        ],
        "{text}"
    );
    let line = |name: &str| {
        text.lines()
            .find(|l| l.contains(&format!("\"{name}\"")))
            .unwrap()
            .trim()
            .to_string()
    };
    // The data ops: `x` (%0) and `i` (%1), each put at the front in discovery order (`I`
    // before `X`). Operands: the array made just before, then X, then I.
    assert_eq!(
        line("pd_op.create_array"),
        "(%2) = \"pd_op.create_array\" () {dtype:float32,stop_gradient:[true]} : () -> pd_op.tensor_array<f32>",
        "{text}"
    );
    assert!(
        line("pd_op.array_write_").contains("(%2, %0, %1)"),
        "{text}"
    );
    assert!(
        line("pd_op.array_write_").ends_with("-> pd_op.tensor_array<f32>"),
        "{text}"
    );
    assert!(line("pd_op.array_length").contains("(%3)"), "{text}");
    assert!(
        line("pd_op.array_read").ends_with("(%3, %1) {persistable:[false],stop_gradient:[true]} : (pd_op.tensor_array<f32>, tensor<1xi64>) -> tensor<2x3xf32>"),
        "{text}"
    );
}

/// An array variable read before any op writes it is made by `pd_op.create_array` at the
/// program's front (`CreateUndefinedVariable`), not by `pd_op.data`.
#[test]
fn undefined_array_is_created() {
    let vars = vec![
        array_var("arr", T::Fp32, &[4]),
        var("n", T::Int64, &[1], true),
    ];
    let ops = vec![op(
        "lod_array_length",
        vec![slot("X", &["arr"])],
        vec![slot("Out", &["n"])],
        vec![],
    )];
    let text = translate(&blocks(vec![(vars, ops)]));
    assert_eq!(
        op_names(&text),
        ["pd_op.create_array", "pd_op.array_length"],
        "{text}"
    );
    assert!(text.contains("\"pd_op.array_length\" (%0)"), "{text}");
}

/// `select_output(Mask, X) -> Out[2]`: both results take X's type.
#[test]
fn select_output() {
    let vars = vec![
        var("m", T::Int32, &[1], true),
        var("x", T::Fp32, &[3], true),
        var("a", T::Fp32, &[-1], true),
        var("b", T::Fp32, &[-1], true),
    ];
    let ops = vec![op(
        "select_output",
        vec![slot("Mask", &["m"]), slot("X", &["x"])],
        vec![slot("Out", &["a", "b"])],
        vec![],
    )];
    let text = translate(&blocks(vec![(vars, ops)]));
    assert!(
        text.contains(
            "\"pd_op.select_output\" (%1, %0) {persistable:[false,false],stop_gradient:[true,true]} : (tensor<1xi32>, tensor<3xf32>) -> tensor<3xf32>, tensor<3xf32>"
        ),
        "{text}"
    );
}

/// `conditional_block` + `conditional_block_grad` paired by their `Scope`: the forward `if`
/// gets a `cf.stack_create` before it and pushes, at the end of its then block, the
/// variables its sub-block defines that the grad's sub-block reads; the grad's `if` pops them
/// first in its then block and yields its `Input@GRAD` outputs.
#[test]
fn conditional_block_grad_carries_values_on_a_stack() {
    let vars0 = vec![
        var("x", T::Fp32, &[4], false),
        var("c", T::Bool, &[1], true),
        var("out", T::Fp32, &[4], false),
        var("out@GRAD", T::Fp32, &[4], false),
        var("x@GRAD", T::Fp32, &[4], false),
        proto::VarDesc {
            name: Some("scope".into()),
            r#type: Some(proto::VarType {
                r#type: Some(T::StepScopes as i32),
                ..Default::default()
            }),
            ..Default::default()
        },
    ];
    let ops0 = vec![
        op(
            "conditional_block",
            vec![slot("Cond", &["c"]), slot("Input", &["x"])],
            vec![slot("Out", &["out"]), slot("Scope", &["scope"])],
            vec![block_attr("sub_block", 1)],
        ),
        op(
            "conditional_block_grad",
            vec![
                slot("Cond", &["c"]),
                slot("Input", &["x"]),
                slot("Out", &["out"]),
                slot("Out@GRAD", &["out@GRAD"]),
                slot("Scope", &["scope"]),
            ],
            vec![slot("Input@GRAD", &["x@GRAD"])],
            vec![block_attr("sub_block", 2)],
        ),
    ];
    // Block 1: t = relu(x); out = assign(t). Block 2 reads t (defined in block 1).
    let vars1 = vec![var("t", T::Fp32, &[4], false)];
    let ops1 = vec![
        op(
            "relu",
            vec![slot("X", &["x"])],
            vec![slot("Out", &["t"])],
            vec![],
        ),
        op(
            "assign",
            vec![slot("X", &["t"])],
            vec![slot("Out", &["out"])],
            vec![],
        ),
    ];
    let ops2 = vec![op(
        "relu_grad",
        vec![slot("Out", &["t"]), slot("Out@GRAD", &["out@GRAD"])],
        vec![slot("X@GRAD", &["x@GRAD"])],
        vec![],
    )];
    let bytes = blocks_with_parents(
        vec![(vars0, ops0), (vars1, ops1), (vec![], ops2)],
        &[-1, 0, 1],
    );
    let text = translate(&bytes);
    assert_eq!(
        op_names(&text),
        [
            "pd_op.data",
            "pd_op.data",
            "pd_op.data",
            "cf.stack_create",
            "pd_op.if",
            "pd_op.relu",
            "pd_op.assign",
            "cf.tuple_push",
            "cf.yield",
            "pd_op.full",
            "cf.yield",
            "pd_op.if",
            "cf.tuple_pop",
            "pd_op.relu_grad",
            "cf.yield",
            "pd_op.full",
            "cf.yield",
        ],
        "{text}"
    );
    assert!(
        text.contains("(%stack_0, %inlet_0, %outlet_0) = \"cf.stack_create\" () {} : () -> cf.stack, cf.inlet, cf.outlet"),
        "{text}"
    );
    // The forward pushes relu's result (t), the grad pops it and feeds relu_grad with it.
    let push = text.lines().find(|l| l.contains("cf.tuple_push")).unwrap();
    let relu = text.lines().find(|l| l.contains("\"pd_op.relu\"")).unwrap();
    let t = relu
        .trim()
        .split(')')
        .next()
        .unwrap()
        .trim_start_matches('(');
    assert!(push.contains(&format!("(%inlet_0, {t})")), "{text}");
    let pop = text.lines().find(|l| l.contains("cf.tuple_pop")).unwrap();
    assert!(
        pop.contains("(%outlet_0) {} : (cf.outlet) -> tensor<4xf32>"),
        "{text}"
    );
    let popped = pop
        .trim()
        .split(')')
        .next()
        .unwrap()
        .trim_start_matches('(');
    let grad = text
        .lines()
        .find(|l| l.contains("pd_op.relu_grad"))
        .unwrap();
    assert!(grad.contains(&format!("({popped}, ")), "{text}");
}

/// `while_grad` stays refused, as Paddle 3.3.1's `unsupported_ops` refuses it.
#[test]
fn while_grad_is_refused() {
    let vars = vec![var("x", T::Fp32, &[4], false)];
    let ops = vec![op("while_grad", vec![slot("X", &["x"])], vec![], vec![])];
    let t = Translator::with_pd_op().unwrap();
    let err = t.translate_bytes(&blocks(vec![(vars, ops)])).unwrap_err();
    assert!(
        err.to_string().contains("`while_grad` is not supported"),
        "{err}"
    );
}
