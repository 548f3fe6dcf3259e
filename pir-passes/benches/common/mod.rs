//! Inputs shared by the pass benchmarks.

use std::sync::Arc;

use pir_runtime::phi::DataType;
use pir_runtime::{Builder, IrContext, Program};

/// A context with the `pd_op` dialect.
pub fn setup() -> Arc<IrContext> {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    ctx
}

/// `n` rounds of: `a = relu(x)`, `b = relu(x)` (a duplicate for CSE), `tanh(a)` (dead, for
/// DCE), `x = add(a, b)`; then a `fetch` of the last `x`. About `4n` ops.
pub fn dce_cse_program(ctx: &Arc<IrContext>, n: usize) -> Program {
    let mut prog = Program::with_capacity(ctx, 4 * n + 2);
    let t = ctx.dense_tensor_type(DataType::Float32, &[-1, 64]);
    let stop = ctx.array_attr(&[ctx.bool_attr(true)]);
    let attrs = ctx.dict_attr(&[("stop_gradient", stop)]);
    let def = |name: &str| ctx.op_def(name).unwrap();
    let (relu, tanh, add, data) = (
        def("pd_op.relu"),
        def("pd_op.tanh"),
        def("pd_op.add"),
        def("pd_op.data"),
    );
    let mut b = Builder::at_end(&mut prog);
    let d = b.create_with(data, &[], attrs, &[Some(t)], 0).unwrap();
    let mut x = b.program().op(d).result(0);
    for _ in 0..n {
        let a = b
            .create_with(relu, &[Some(x)], attrs, &[Some(t)], 0)
            .unwrap();
        let a = b.program().op(a).result(0);
        let c = b
            .create_with(relu, &[Some(x)], attrs, &[Some(t)], 0)
            .unwrap();
        let c = b.program().op(c).result(0);
        b.create_with(tanh, &[Some(a)], attrs, &[Some(t)], 0)
            .unwrap();
        let s = b
            .create_with(add, &[Some(a), Some(c)], attrs, &[Some(t)], 0)
            .unwrap();
        x = b.program().op(s).result(0);
    }
    let fetch_attrs = ctx.dict_attr(&[("name", ctx.str_attr("out")), ("col", ctx.i32_attr(0))]);
    b.create_with(def("pd_op.fetch"), &[Some(x)], fetch_attrs, &[Some(t)], 0)
        .unwrap();
    prog
}
