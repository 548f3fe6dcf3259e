//! Pass benchmarks (issue 14): DCE + CSE on a program of about 1,000,000 ops, and
//! `conv2d_bn_fuse_pass` then `pd_op_to_kernel` on ResNet-50 (op-defs' builder, batch 8).
//! Run: `cargo bench -p pir-passes --bench passes`. Throughput is per op of the input.

use std::sync::Arc;

use divan::counter::ItemsCount;
use divan::Bencher;
use pir_passes::passes::{
    CommonSubexpressionElimination, Conv2dBnFuse, DeadCodeElimination, PdOpToKernel,
};
use pir_passes::{IrModule, Pass};
use pir_runtime::phi::DataType;
use pir_runtime::{Builder, IrContext, Program};

fn main() {
    divan::main();
}

fn setup() -> Arc<IrContext> {
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

#[divan::bench(sample_count = 5, sample_size = 1)]
fn dce_cse_1m_ops(bencher: Bencher<'_, '_>) {
    let ctx = setup();
    let n = 250_000;
    bencher
        .counter(ItemsCount::new(4 * n + 2))
        .with_inputs(|| IrModule::from(dce_cse_program(&ctx, n)))
        .bench_local_values(|mut m| {
            CommonSubexpressionElimination.run(&mut m).unwrap();
            DeadCodeElimination.run(&mut m).unwrap();
            m
        });
}

#[divan::bench(sample_count = 20, sample_size = 1)]
fn resnet50_conv2d_bn_fuse(bencher: Bencher<'_, '_>) {
    let ctx = setup();
    bencher
        .counter(ItemsCount::new(447usize))
        .with_inputs(|| IrModule::from(op_defs::models::resnet50(&ctx, 8).unwrap()))
        .bench_local_values(|mut m| {
            Conv2dBnFuse.run(&mut m).unwrap();
            m
        });
}

#[divan::bench(sample_count = 20, sample_size = 1)]
fn resnet50_conv2d_bn_fuse_and_lowering(bencher: Bencher<'_, '_>) {
    let ctx = setup();
    let lower = PdOpToKernel::default();
    bencher
        .counter(ItemsCount::new(447usize))
        .with_inputs(|| IrModule::from(op_defs::models::resnet50(&ctx, 8).unwrap()))
        .bench_local_values(|mut m| {
            Conv2dBnFuse.run(&mut m).unwrap();
            lower.run(&mut m).unwrap();
            m
        });
}

/// Only builds the 1M-op program: subtracting its CPU time from `dce_cse_1m_ops`'s gives the
/// passes' CPU time when the machine is loaded (BENCHMARKS.md).
#[divan::bench(sample_count = 5, sample_size = 1)]
fn build_1m_ops_only(bencher: Bencher<'_, '_>) {
    let ctx = setup();
    let n = 250_000;
    bencher
        .with_inputs(|| IrModule::from(dce_cse_program(&ctx, n)))
        .bench_local_values(|m| m);
}
