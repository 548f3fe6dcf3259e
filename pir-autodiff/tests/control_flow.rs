//! The backward of `pd_op.if`. `paddle-ref` has no program with a control-flow backward, so
//! the expected programs are derived from the rules of Paddle 3.3.1's `ir_backward.py`
//! (`append_backward_ops`, `append_yield`, `get_real_op_inputs`) and `IfOp::Vjp`:
//!
//! - an `if`'s real inputs are its condition then the outside values its branches use, in
//!   order of first use; all but the condition carry gradients;
//! - its gradient is a `pd_op.if` on the same condition with one result per real input that
//!   wants a gradient, typed as the input, built with no `stop_gradient` attribute;
//! - each branch is differentiated on a copy of the state (what a branch yields has the
//!   gradient of the `if`'s result) and ends with `cf.yield` of one gradient per input:
//!   `full` + `full_like(input, 0.0)` where the branch does not use it;
//! - a branch with only its `cf.yield` has no grad op (Paddle raises "has no grad op").
//!
//! Paddle passes the forward values a backward branch reads through `cf.stack_create` /
//! `cf.tuple_push` / `cf.tuple_pop`; until those ops exist here, such a branch is a clear
//! error (second test).

use pir_runtime::{IrContext, Program, Value};

fn context() -> std::sync::Arc<IrContext> {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    ctx
}

fn parse(ctx: &std::sync::Arc<IrContext>, text: &str) -> Program {
    pir_runtime::parser::parse_program(ctx, text).unwrap()
}

fn result(prog: &Program, n: usize) -> Value {
    let op = prog.block_ops(prog.block()).nth(n).unwrap();
    prog.op(op).result(0)
}

const DATA: &str = "    (%0) = \"pd_op.data\" () {dtype:float32,name:\"x\",place:Place(undefined:0),shape:[4],stop_gradient:[false]} : () -> tensor<4xf32>
    (%1) = \"pd_op.data\" () {dtype:float32,name:\"z\",place:Place(undefined:0),shape:[4],stop_gradient:[false]} : () -> tensor<4xf32>
    (%2) = \"pd_op.data\" () {dtype:bool,name:\"c\",place:Place(undefined:0),shape:[],stop_gradient:[true]} : () -> tensor<b>
";

const SUM: &str = "    (%6) = \"pd_op.full_int_array\" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[]} : () -> tensor<0xi64>
    (%7) = \"pd_op.sum\" (%3, %6) {dtype:Undefined,keepdim:false,stop_gradient:[false]} : (tensor<4xf32>, tensor<0xi64>) -> tensor<f32>
";

#[test]
fn an_if_is_differentiated_branch_by_branch() {
    let ctx = context();
    let text = format!(
        "{{\n{DATA}    (%3) = \"pd_op.if\" (%2) {{stop_gradient:[false]}} -> tensor<4xf32> {{
        (%4) = \"pd_op.assign\" (%0) {{stop_gradient:[false]}} : (tensor<4xf32>) -> tensor<4xf32>
        () = \"cf.yield\" (%4) {{}} : (tensor<4xf32>) -> 
    }} else {{
        (%5) = \"pd_op.assign\" (%1) {{stop_gradient:[false]}} : (tensor<4xf32>) -> tensor<4xf32>
        () = \"cf.yield\" (%5) {{}} : (tensor<4xf32>) -> 
    }}
{SUM}}}\n"
    );
    let mut prog = parse(&ctx, &text);
    let (x, z) = (result(&prog, 0), result(&prog, 1));
    let loss = result(&prog, 5);
    let grads = pir_autodiff::grad(&mut prog, &[loss], &[x, z], &[]).unwrap();
    let out = prog.to_string();
    let names: Vec<&str> = out.lines().filter_map(|l| l.split('"').nth(1)).collect();
    assert_eq!(
        names,
        [
            "pd_op.data",
            "pd_op.data",
            "pd_op.data",
            "pd_op.if",
            "pd_op.assign",
            "cf.yield",
            "pd_op.assign",
            "cf.yield",
            "pd_op.full_int_array",
            "pd_op.sum",
            // The seed and sum's gradient.
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.sum_grad",
            // The if's gradient: x's and z's.
            "pd_op.if",
            // then: assign's gradient of x; zeros for z, which the branch does not use.
            "pd_op.assign",
            "pd_op.full",
            "pd_op.full_like",
            "cf.yield",
            // else: assign's gradient of z first, then zeros for x.
            "pd_op.assign",
            "pd_op.full",
            "pd_op.full_like",
            "cf.yield",
        ],
        "{out}"
    );
    for line in [
        "(%10) = \"pd_op.sum_grad\" (%3, %9, %6)",
        "(%11, %12) = \"pd_op.if\" (%2) {} -> tensor<4xf32>, tensor<4xf32> {",
        "        (%13) = \"pd_op.assign\" (%10) {stop_gradient:[false]}",
        "        (%15) = \"pd_op.full_like\" (%1, %14)",
        "        () = \"cf.yield\" (%13, %15) {}",
        "        (%16) = \"pd_op.assign\" (%10) {stop_gradient:[false]}",
        "        (%18) = \"pd_op.full_like\" (%0, %17)",
        "        () = \"cf.yield\" (%18, %16) {}",
    ] {
        assert!(out.contains(line), "missing `{line}` in\n{out}");
    }
    assert_eq!(grads, [Some(result(&prog, 9)), Some(result_n(&prog, 9, 1))]);
    pir_runtime::verify(&prog).unwrap();
}

/// Result `i` of the `n`-th top-level op.
fn result_n(prog: &Program, n: usize, i: usize) -> Value {
    let op = prog.block_ops(prog.block()).nth(n).unwrap();
    prog.op(op).result(i)
}

#[test]
fn a_branch_whose_backward_reads_its_forward_values_needs_the_cf_pipe() {
    // `scale`'s gradient reads the branch's `full` (its scale operand).
    let ctx = context();
    let text = format!(
        "{{\n{DATA}    (%3) = \"pd_op.if\" (%2) {{stop_gradient:[false]}} -> tensor<4xf32> {{
        (%4) = \"pd_op.full\" () {{dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:2}} : () -> tensor<1xf32>
        (%5) = \"pd_op.scale\" (%0, %4) {{bias:0,bias_after_scale:true,stop_gradient:[false]}} : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
        () = \"cf.yield\" (%5) {{}} : (tensor<4xf32>) -> 
    }} else {{
        (%6) = \"pd_op.assign\" (%1) {{stop_gradient:[false]}} : (tensor<4xf32>) -> tensor<4xf32>
        () = \"cf.yield\" (%6) {{}} : (tensor<4xf32>) -> 
    }}
{}}}\n",
        SUM.replace("%7", "%8").replace("%6", "%7")
    );
    let mut prog = parse(&ctx, &text);
    let (x, z) = (result(&prog, 0), result(&prog, 1));
    let loss = result(&prog, 5);
    let e = pir_autodiff::grad(&mut prog, &[loss], &[x, z], &[]).unwrap_err();
    assert!(
        e.to_string()
            .contains("cf.stack_create / cf.tuple_push / cf.tuple_pop"),
        "{e}"
    );
}

#[test]
fn a_branch_with_only_its_yield_has_no_grad_op() {
    let ctx = context();
    let text = format!(
        "{{\n{DATA}    (%3) = \"pd_op.if\" (%2) {{stop_gradient:[false]}} -> tensor<4xf32> {{
        () = \"cf.yield\" (%0) {{}} : (tensor<4xf32>) -> 
    }} else {{
        () = \"cf.yield\" (%1) {{}} : (tensor<4xf32>) -> 
    }}
{}}}\n",
        SUM.replace("%6", "%4").replace("%7", "%5")
    );
    let mut prog = parse(&ctx, &text);
    let (x, z) = (result(&prog, 0), result(&prog, 1));
    let loss = result(&prog, 5);
    let e = pir_autodiff::grad(&mut prog, &[loss], &[x, z], &[]).unwrap_err();
    assert!(e.to_string().contains("cf.yield"), "{e}");
    assert!(e.to_string().contains("has no grad op"), "{e}");
}
