//! The printer against Paddle 3.3.1's own output (`paddle-ref/text/tiny_3op_pir.txt`), with the
//! program built from explicit result types (no infer-meta, no generated dialect).
//!
//! The reference data is read in place from `$PIR_PADDLE_REF` or `$PIR_PADDLE_YAML/../paddle-ref`;
//! without either the test prints a notice and passes.

use std::path::PathBuf;

use pir_runtime::op_def::OpDef;
use pir_runtime::phi::{DataType, Place};
use pir_runtime::{Builder, IrContext, Program};

fn paddle_ref() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PIR_PADDLE_REF") {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("PIR_PADDLE_YAML").map(|p| PathBuf::from(p).join("../paddle-ref"))
}

static DATA: OpDef = OpDef::new("pd_op.data", "pd_op");
static RELU: OpDef = OpDef::new("pd_op.relu", "pd_op");
static TANH: OpDef = OpDef::new("pd_op.tanh", "pd_op");

#[test]
fn tiny_3op_program_prints_byte_identical_to_paddle() {
    let Some(dir) = paddle_ref() else {
        eprintln!("notice: PIR_PADDLE_REF / PIR_PADDLE_YAML not set; skipping the comparison with Paddle's output");
        return;
    };
    let expected =
        std::fs::read_to_string(dir.join("text/tiny_3op_pir.txt")).expect("tiny_3op_pir.txt");

    let ctx = IrContext::new();
    let mut prog = Program::new(&ctx);
    let t = ctx.dense_tensor_type(DataType::Float32, &[-1, 3, 224, 224]);
    let sg = ctx.bool_array_attr(&[true]);
    let mut b = Builder::at_end(&mut prog);
    let data_attrs = ctx.dict_attr(&[
        ("name", ctx.str_attr("x")),
        ("shape", ctx.int_array_attr(&[-1, 3, 224, 224])),
        ("dtype", ctx.dtype_attr(DataType::Float32)),
        ("place", ctx.place_attr(Place::default())),
        ("stop_gradient", sg),
    ]);
    let sg_only = ctx.dict_attr(&[("stop_gradient", sg)]);
    let x = b
        .create_with(&DATA, &[], data_attrs, &[Some(t)], 0)
        .unwrap();
    let x = b.program().op(x).result(0);
    let y = b
        .create_with(&RELU, &[Some(x)], sg_only, &[Some(t)], 0)
        .unwrap();
    let y = b.program().op(y).result(0);
    b.create_with(&TANH, &[Some(y)], sg_only, &[Some(t)], 0)
        .unwrap();

    assert_eq!(prog.to_string(), expected);
}
