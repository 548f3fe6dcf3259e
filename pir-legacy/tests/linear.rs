//! Decoding stays linear in the input on the shapes that used to make it quadratic: a long chain
//! of nested blocks (each the parent of the next; 100,000 of them took 14 s), and blocks, ops
//! and variables with very many entries of which the last repeats a name. The programs are
//! generated here, no large file is committed.
//!
//! The tests check results, not time (the `decode` bench times the 100k chain); a quadratic
//! decoder would still pass them, after minutes instead of a fraction of a second.

use pir_legacy::proto::{self, op_desc, var_desc, AttrType};
use pir_legacy::{AttrValue, DecodeError, LegacyProgram};
use prost::Message;

/// `n` blocks, block `i`'s parent being `i - 1`; block 0 declares `x`.
fn block_chain(n: usize) -> proto::ProgramDesc {
    let mut blocks: Vec<proto::BlockDesc> = (0..n as i32)
        .map(|i| proto::BlockDesc {
            idx: Some(i),
            parent_idx: Some(i - 1),
            ..Default::default()
        })
        .collect();
    blocks[0].vars.push(proto::VarDesc {
        name: Some("x".into()),
        r#type: Some(proto::VarType {
            r#type: Some(proto::var_type::Type::FeedMinibatch as i32),
            ..Default::default()
        }),
        ..Default::default()
    });
    proto::ProgramDesc {
        blocks,
        ..Default::default()
    }
}

fn decode(desc: &proto::ProgramDesc) -> Result<LegacyProgram, DecodeError> {
    LegacyProgram::decode(&desc.encode_to_vec())
}

#[test]
fn a_chain_of_100k_blocks_decodes() {
    let n = 100_000;
    let desc = block_chain(n);
    assert!(desc.encoded_len() > 900_000, "about 1 MB");
    let program = decode(&desc).unwrap();
    assert_eq!(program.blocks.len(), n);
    assert_eq!(program.blocks[0].parent, None);
    assert!(program
        .blocks
        .iter()
        .skip(1)
        .all(|b| b.parent == Some(b.idx - 1)));
    // The deepest block sees block 0's variable through its ancestors.
    assert_eq!(
        program
            .find_var_recursive(n - 1, "x")
            .map(|v| v.name.as_str()),
        Some("x")
    );
}

#[test]
fn a_loop_at_the_end_of_a_long_chain_is_found_and_named() {
    let n = 100_000;
    // The whole chain is one loop: block 0's parent is the last block.
    let mut desc = block_chain(n);
    desc.blocks[0].parent_idx = Some(n as i32 - 1);
    assert_eq!(
        decode(&desc).unwrap_err().to_string(),
        "block 0: parent chain is cyclic"
    );
    // A sound chain, then two blocks parented on each other: the first of them is named.
    let mut desc = block_chain(n);
    desc.blocks[n - 2].parent_idx = Some(n as i32 - 1);
    assert_eq!(
        decode(&desc).unwrap_err().to_string(),
        format!("block {}: parent chain is cyclic", n - 2)
    );
}

fn float_attr(name: String, value: f32) -> op_desc::Attr {
    op_desc::Attr {
        name: Some(name),
        r#type: Some(AttrType::Float as i32),
        f: Some(value),
        ..Default::default()
    }
}

fn one_op_program(op: proto::OpDesc, vars: Vec<proto::VarDesc>) -> proto::ProgramDesc {
    proto::ProgramDesc {
        blocks: vec![proto::BlockDesc {
            idx: Some(0),
            parent_idx: Some(-1),
            vars,
            ops: vec![op],
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn an_op_with_50k_attributes_keeps_first_positions_and_last_values() {
    let n = 50_000;
    let mut attrs: Vec<op_desc::Attr> = (0..n).map(|i| float_attr(format!("a{i}"), 0.0)).collect();
    // Every attribute again, with another value: the last copy wins, in the first position.
    attrs.extend((0..n).map(|i| float_attr(format!("a{i}"), i as f32)));
    let op = proto::OpDesc {
        r#type: Some("many".into()),
        attrs,
        ..Default::default()
    };
    let program = decode(&one_op_program(op, vec![])).unwrap();
    let op = &program.global_block().ops[0];
    assert_eq!(op.attrs.len(), n);
    assert_eq!(op.attrs[7].name, "a7");
    assert_eq!(op.attr("a7"), Some(&AttrValue::Float(7.0)));
    assert_eq!(
        op.attr(&format!("a{}", n - 1)),
        Some(&AttrValue::Float((n - 1) as f32))
    );
}

#[test]
fn an_op_with_50k_input_slots_and_a_repeated_parameter_is_an_error() {
    let n = 50_000;
    let slot = |i: usize| op_desc::Var {
        parameter: Some(format!("In{i}")),
        arguments: vec![],
    };
    let mut inputs: Vec<op_desc::Var> = (0..n).map(slot).collect();
    let op = |inputs| proto::OpDesc {
        r#type: Some("many".into()),
        inputs,
        ..Default::default()
    };
    let program = decode(&one_op_program(op(inputs.clone()), vec![])).unwrap();
    assert_eq!(program.global_block().ops[0].inputs.len(), n);
    inputs.push(slot(n / 2));
    assert_eq!(
        decode(&one_op_program(op(inputs), vec![]))
            .unwrap_err()
            .to_string(),
        format!(
            "block 0, op 0 (`many`): duplicate input parameter `In{}`",
            n / 2
        )
    );
}

fn var(name: String) -> proto::VarDesc {
    proto::VarDesc {
        name: Some(name),
        r#type: Some(proto::VarType {
            r#type: Some(proto::var_type::Type::FetchList as i32),
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[test]
fn a_block_of_50k_variables_and_a_repeated_name_is_an_error() {
    let n = 50_000;
    let mut vars: Vec<proto::VarDesc> = (0..n).map(|i| var(format!("v{i}"))).collect();
    let op = proto::OpDesc {
        r#type: Some("noop".into()),
        ..Default::default()
    };
    let program = decode(&one_op_program(op.clone(), vars.clone())).unwrap();
    assert_eq!(program.global_block().vars.len(), n);
    vars.push(var("v3".into()));
    assert_eq!(
        decode(&one_op_program(op, vars)).unwrap_err().to_string(),
        format!("block 0, var {n} (`v3`): duplicate variable `v3`")
    );
}

#[test]
fn a_variable_with_50k_attributes_and_a_repeated_name_is_an_error() {
    let n = 50_000;
    let attr = |i: usize| var_desc::Attr {
        name: Some(format!("a{i}")),
        r#type: Some(AttrType::Int as i32),
        i: Some(i as i32),
        ..Default::default()
    };
    let mut x = var("x".into());
    x.attrs = (0..n).map(attr).collect();
    let op = proto::OpDesc {
        r#type: Some("noop".into()),
        ..Default::default()
    };
    let program = decode(&one_op_program(op.clone(), vec![x.clone()])).unwrap();
    assert_eq!(program.global_block().vars[0].attrs.len(), n);
    x.attrs.push(attr(1));
    assert_eq!(
        decode(&one_op_program(op, vec![x]))
            .unwrap_err()
            .to_string(),
        format!("block 0, var 0 (`x`), attribute {n} (`a1`): duplicate variable attribute `a1`")
    );
}
