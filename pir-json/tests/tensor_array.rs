//! The tensor-array type (`paddle::dialect::DenseTensorArrayType`) through text and JSON, in
//! a program of the hand-written array ops: Paddle prints `pd_op.tensor_array<f32>` (element
//! type only) and serialises `{"#":"1.t_dense_tensor_array","D":[dtype, dims, layout]}`, so
//! JSON keeps the element dims that text drops.

mod common;

use common::{assert_same_bytes, assert_same_text, ctx};
use op_defs::pd_op::{
    ArrayLengthOp, ArrayReadOp, ArrayToTensorOp, ArrayToTensorOpAttrs, ArrayWrite_Op,
    CreateArrayOp, CreateArrayOpAttrs,
};
use pir_json::{read_program, write_program};
use pir_runtime::phi::{DataLayout, DataType};
use pir_runtime::{builtin, Builder, Program};

fn array_program(ctx: &std::sync::Arc<pir_runtime::IrContext>) -> Program {
    let mut prog = Program::new(ctx);
    let mut b = Builder::at_end(&mut prog);
    let x_ty = ctx.dense_tensor_type(DataType::Float32, &[2, 3]);
    let x = builtin::parameter(&mut b, "x", x_ty).unwrap();
    let arr = CreateArrayOp::build(&mut b, CreateArrayOpAttrs::new(DataType::Float32)).unwrap();
    let arr = arr.out(b.program());
    let w = ArrayWrite_Op::build(&mut b, arr, x, 0).unwrap();
    let w = w.out(b.program());
    ArrayLengthOp::build(&mut b, w).unwrap();
    ArrayReadOp::build(&mut b, w, 0).unwrap();
    let attrs = ArrayToTensorOpAttrs {
        axis: 0,
        use_stack: true,
    };
    ArrayToTensorOp::build(&mut b, w, attrs).unwrap();
    pir_runtime::verify(&prog).unwrap();
    prog
}

/// The type of the first result of the `i`-th top-level op.
fn result_type(prog: &Program, i: usize) -> pir_runtime::Type {
    let op = prog.block_ops(prog.block()).nth(i).expect("the op exists");
    prog.value_type(prog.op(op).result(0))
        .expect("a typed result")
}

#[test]
fn tensor_arrays_print_parse_and_round_trip_through_json() {
    let ctx = ctx();
    let prog = array_program(&ctx);
    let text = prog.to_string();
    for line in [
        "\"pd_op.create_array\" () {dtype:float32} : () -> pd_op.tensor_array<f32>",
        "\"pd_op.array_length\" (%3) {} : (pd_op.tensor_array<f32>) -> tensor<1xi64>",
        "\"pd_op.array_to_tensor\" (%3) {axis:0,use_stack:true} : (pd_op.tensor_array<f32>) -> \
         tensor<-1x2x3xf32>, tensor<-1xi32>",
    ] {
        assert!(text.contains(line), "missing {line}\nin\n{text}");
    }
    // Text: the parser reads the type back (without element dims, which Paddle does not print).
    let parsed = pir_runtime::parser::parse_program(&ctx, &text).unwrap();
    assert_same_text("printed after parsing", &parsed.to_string(), &text);
    let t = result_type(&parsed, 1);
    assert_eq!(
        t,
        ctx.dense_tensor_array_type(DataType::Float32, &[], DataLayout::Nchw)
    );

    // JSON: Paddle's form, with the element dims, and the same program back.
    let json = write_program(&prog);
    for needle in [
        r##"{"#":"1.create_array","##,
        r##"{"#":"1.t_dense_tensor_array","D":[{"#":"0.t_f32"},[0],"NCHW"]}"##,
        r##"{"#":"1.t_dense_tensor_array","D":[{"#":"0.t_f32"},[2,3],"NCHW"]}"##,
    ] {
        assert!(json.contains(needle), "missing {needle}\nin {json}");
    }
    let back = read_program(&common::ctx(), &json).unwrap();
    pir_runtime::verify(&back).unwrap();
    // (The writer gives the parameter Paddle's default parameter attributes; the rest is equal.)
    let ops_only = |s: &str| -> String {
        s.lines()
            .filter(|l| !l.contains("builtin.parameter"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_same_text(
        "printed after JSON",
        &ops_only(&back.to_string()),
        &ops_only(&text),
    );
    assert_same_bytes("written again", &write_program(&back), &json);
    let written = result_type(&back, 3);
    assert_eq!(
        written,
        back.ctx()
            .dense_tensor_array_type(DataType::Float32, &[2, 3], DataLayout::Nchw)
    );
}

#[test]
fn a_malformed_tensor_array_type_is_a_located_error() {
    let ctx = ctx();
    let json = write_program(&array_program(&ctx));
    let bad = json.replacen(
        r##"[{"#":"0.t_f32"},[0],"NCHW"]"##,
        r##"[{"#":"0.t_f32"},[0]]"##,
        1,
    );
    assert_ne!(bad, json);
    let err = read_program(&ctx, &bad).unwrap_err().to_string();
    assert!(
        err.contains("create_array") && err.contains("[dtype, dims, layout]"),
        "{err}"
    );
}
