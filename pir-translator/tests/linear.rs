//! Translation stays linear in the program on shapes that made it quadratic: many nested
//! blocks (the per-block `stop_gradient`/`persistable` passes walked every block's parent chain
//! for every variable), an op with thousands of outputs or of inputs and outputs (result
//! mapping, in-place detection and `set_parameter` checks compared every pair), and thousands
//! of unknown op types (the report searched its list per op). The programs are generated here.
//! The tests check results; a quadratic translator would pass them after minutes.

mod common;

use common::{op, program, slot, var};
use pir_translator::proto::var_type::Type as VT;
use pir_translator::proto::{self, op_desc, AttrType};
use pir_translator::{LegacyProgram, TranslateError, Translator};
use prost::Message;

fn int_attr(name: &str, v: i32) -> op_desc::Attr {
    op_desc::Attr {
        name: Some(name.into()),
        r#type: Some(AttrType::Int as i32),
        i: Some(v),
        ..Default::default()
    }
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

fn refs(names: &[String]) -> Vec<&str> {
    names.iter().map(String::as_str).collect()
}

#[test]
fn a_program_of_100k_nested_blocks_translates() {
    let bytes = program(
        vec![
            var("x", VT::Fp32, &[2], false),
            var("y", VT::Fp32, &[2], true),
        ],
        vec![op(
            "relu",
            vec![slot("X", &["x"])],
            vec![slot("Out", &["y"])],
            vec![],
        )],
    );
    let mut desc = proto::ProgramDesc::decode(bytes.as_slice()).unwrap();
    desc.blocks.extend((1..100_000).map(|i| proto::BlockDesc {
        idx: Some(i),
        parent_idx: Some(i - 1),
        ..Default::default()
    }));
    let legacy = LegacyProgram::decode(&desc.encode_to_vec()).unwrap();
    let t = Translator::with_pd_op().unwrap();
    let text = t.translate(&legacy).unwrap().program.to_string();
    // Every block finds `y` in block 0: its flags are block 0's declaration's.
    assert!(
        text.contains("\"pd_op.relu\" (%0) {persistable:[false],stop_gradient:[true]}"),
        "{text}"
    );
}

#[test]
fn a_split_into_20k_outputs_translates() {
    let n = 20_000;
    let outs = names("out", n);
    let mut vars = vec![var("x", VT::Fp32, &[n as i64], false)];
    vars.extend(outs.iter().map(|o| var(o, VT::Fp32, &[1], false)));
    let bytes = program(
        vars,
        vec![op(
            "split",
            vec![slot("X", &["x"])],
            vec![slot("Out", &refs(&outs))],
            vec![int_attr("num", n as i32), int_attr("axis", 0)],
        )],
    );
    let t = Translator::with_pd_op().unwrap();
    let tr = t.translate_bytes(&bytes).unwrap();
    let mapped = tr
        .variables
        .iter()
        .filter(|(v, _)| v.starts_with("out"))
        .count();
    assert_eq!(mapped, n);
}

#[test]
fn an_op_with_10k_inputs_and_outputs_is_checked_in_linear_time() {
    let n = 10_000;
    let (ins, outs) = (names("in", n), names("out", n));
    let vars = ins
        .iter()
        .chain(&outs)
        .map(|v| var(v, VT::Fp32, &[1], true))
        .collect();
    // With any output also an input the op would be in place; none is.
    let bytes = program(
        vars,
        vec![op(
            "concat",
            vec![slot("X", &refs(&ins))],
            vec![slot("Out", &refs(&outs))],
            vec![int_attr("axis", 0)],
        )],
    );
    let legacy = LegacyProgram::decode(&bytes).unwrap();
    assert!(!pir_translator::is_inplace(&legacy.global_block().ops[0]));
    let t = Translator::with_pd_op().unwrap();
    assert!(t.unknown_ops(&legacy).is_empty());
    // `pd_op.concat` of the data inputs, its one result defining the first output.
    let tr = t.translate(&legacy).unwrap();
    let p = &tr.program;
    let out0 = &tr.variables.iter().find(|(v, _)| v == "out0").unwrap().1;
    assert_eq!(
        p.op(p.defining_op(out0[0].value).unwrap()).name(),
        "pd_op.concat"
    );
    assert_eq!(p.to_string().matches("\"pd_op.data\"").count(), n);
}

#[test]
fn twenty_thousand_unknown_op_types_are_reported_at_once() {
    let n = 20_000;
    let ops = (0..n)
        .map(|i| op(&format!("unknown_{i}"), vec![], vec![], vec![]))
        .collect();
    let legacy = LegacyProgram::decode(&program(vec![], ops)).unwrap();
    let report = Translator::with_pd_op().unwrap().unknown_ops(&legacy);
    assert_eq!(report.ops.len(), n);
    assert_eq!(report.ops[n - 1].op_type, format!("unknown_{}", n - 1));
    assert_eq!(report.ops[n - 1].positions, [(0, n - 1)]);
    let err = TranslateError::UnknownOps(report);
    assert!(err.to_string().starts_with("20000 op type(s)"));
}
