//! Initial gradients (Paddle's `ir_backward.grad(outputs, inputs, grad_outputs=...)`).
//!
//! There is no reference program with `grad_outputs` in `paddle-ref`, so the expected
//! programs follow the rules of Paddle 3.3.1's `prepare_grad_outputs`: a given gradient
//! replaces the seed `full` + `full_like(output, 1.0)` (no op is created for it), a `None`
//! entry still gets the seed, the other results of an output's defining op get
//! `full_like(result, 0.0)`, and the given gradient's defining op joins the backward ops.
//! A gradient whose shape differs from its output's, or a `grad_outputs` of another length
//! than `outputs`, is an error.

use pir_runtime::{IrContext, Program, Value};

use op_defs::pd_op::context;

const DATA_X: &str = "(%0) = \"pd_op.data\" () {dtype:float32,name:\"x\",place:Place(undefined:0),shape:[2,3],stop_gradient:[false]} : () -> tensor<2x3xf32>";
const DATA_DY: &str = "(%1) = \"pd_op.data\" () {dtype:float32,name:\"dy\",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>";

fn program(ctx: &std::sync::Arc<IrContext>, body: &[&str]) -> Program {
    let text = format!("{{\n    {}\n}}\n", body.join("\n    "));
    pir_runtime::parser::parse_program(ctx, &text).unwrap()
}

/// The result of the `n`-th op of the top-level block.
fn result(prog: &Program, n: usize) -> Value {
    let op = prog.block_ops(prog.block()).nth(n).unwrap();
    prog.op(op).result(0)
}

#[test]
fn a_given_gradient_replaces_the_seed() {
    let ctx = context();
    let tanh =
        "(%2) = \"pd_op.tanh\" (%0) {stop_gradient:[false]} : (tensor<2x3xf32>) -> tensor<2x3xf32>";
    let mut prog = program(&ctx, &[DATA_X, DATA_DY, tanh]);
    let (x, dy, y) = (result(&prog, 0), result(&prog, 1), result(&prog, 2));
    let grads =
        pir_autodiff::grad_with_grad_outputs(&mut prog, &[y], &[x], &[Some(dy)], &[]).unwrap();
    let expected = format!(
        "{{\n    {DATA_X}\n    {DATA_DY}\n    {tanh}\n    (%3) = \"pd_op.tanh_grad\" (%2, %1) \
         {{stop_gradient:[false]}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n}}\n"
    );
    assert_eq!(prog.to_string(), expected);
    assert_eq!(grads, [Some(result(&prog, 3))]);
    pir_runtime::verify(&prog).unwrap();
}

#[test]
fn a_none_entry_gets_the_seed_and_a_given_one_does_not() {
    let ctx = context();
    // y1 = tanh(x), y2 = relu(x): the seed for y1, dy for y2, the grads summed for x.
    let y1 =
        "(%2) = \"pd_op.tanh\" (%0) {stop_gradient:[false]} : (tensor<2x3xf32>) -> tensor<2x3xf32>";
    let y2 =
        "(%3) = \"pd_op.relu\" (%0) {stop_gradient:[false]} : (tensor<2x3xf32>) -> tensor<2x3xf32>";
    let mut prog = program(&ctx, &[DATA_X, DATA_DY, y1, y2]);
    let (x, dy) = (result(&prog, 0), result(&prog, 1));
    let (y1, y2) = (result(&prog, 2), result(&prog, 3));
    pir_autodiff::grad_with_grad_outputs(&mut prog, &[y1, y2], &[x], &[None, Some(dy)], &[])
        .unwrap();
    let text = prog.to_string();
    let names: Vec<&str> = text.lines().filter_map(|l| l.split('"').nth(1)).collect();
    // Inverse topological order: the sinks in program order (tanh, relu), then x's sum.
    assert_eq!(
        names,
        [
            "pd_op.data",
            "pd_op.data",
            "pd_op.tanh",
            "pd_op.relu",
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.tanh_grad",
            "pd_op.relu_grad",
            "builtin.combine",
            "pd_op.add_n",
        ],
        "{text}"
    );
    assert!(text.contains("\"pd_op.full_like\" (%2, %4)"), "{text}");
    assert!(text.contains("\"pd_op.relu_grad\" (%3, %1)"), "{text}");
    assert!(text.contains("\"pd_op.tanh_grad\" (%2, %5)"), "{text}");
    pir_runtime::verify(&prog).unwrap();
}

#[test]
fn grad_outputs_that_do_not_fit_are_errors() {
    let ctx = context();
    let tanh =
        "(%2) = \"pd_op.tanh\" (%0) {stop_gradient:[false]} : (tensor<2x3xf32>) -> tensor<2x3xf32>";
    let mut prog = program(&ctx, &[DATA_X, DATA_DY, tanh]);
    let (x, dy, y) = (result(&prog, 0), result(&prog, 1), result(&prog, 2));
    let before = prog.to_string();
    let e = pir_autodiff::grad_with_grad_outputs(&mut prog, &[y], &[x], &[None, Some(dy)], &[])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "grad_outputs[1]: grad_outputs has 2 entries, outputs 1: they must have the same length"
    );
    let small = "(%1) = \"pd_op.data\" () {dtype:float32,name:\"dy\",place:Place(undefined:0),shape:[3],stop_gradient:[true]} : () -> tensor<3xf32>";
    let mut prog2 = program(&ctx, &[DATA_X, small, tanh]);
    let (x, dy, y) = (result(&prog2, 0), result(&prog2, 1), result(&prog2, 2));
    let e =
        pir_autodiff::grad_with_grad_outputs(&mut prog2, &[y], &[x], &[Some(dy)], &[]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "grad_outputs[0]: the shape of grad_outputs[0] (tensor<3xf32>) should be the same as \
         the shape of outputs[0] (tensor<2x3xf32>)"
    );
    // Nothing was appended on error.
    assert_eq!(prog.to_string(), before);
}
