//! Paddle's text form, printed and parsed back (issue 13), in one run so the two compare:
//! chains of 100,000 and 1,000,000 `pd_op.relu` ops (the runtime benchmark's chain, with a
//! registered `pd_op` op; two sizes to show the time per op does not grow) and ResNet-50's
//! forward program (batch 8, built by the typed builders).
//! Run: `cargo bench -p op-defs --bench text`. Throughput is per op.

use std::hint::black_box;
use std::sync::Arc;

use divan::counter::ItemsCount;
use divan::Bencher;
use op_defs::pd_op::*;
use pir_runtime::phi::{DataType, Place};
use pir_runtime::{parser, Builder, IrContext, Program};

fn main() {
    divan::main();
}

fn setup() -> Arc<IrContext> {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    ctx
}

/// `pd_op.data` then `n` `pd_op.relu` ops, each using the previous result (created with
/// explicit result types, as the runtime benchmark's chain).
fn chain(ctx: &Arc<IrContext>, n: usize) -> Program {
    let mut prog = Program::with_capacity(ctx, n + 1);
    let mut b = Builder::at_end(&mut prog);
    let attrs = DataOpAttrs {
        name: "x",
        shape: &[-1, 3, 224, 224],
        dtype: DataType::Float32,
        place: Place::default(),
    };
    let mut v = DataOp::build(&mut b, attrs).unwrap().out(b.program());
    let t = b.program().value_type(v);
    let empty = ctx.empty_dict();
    for _ in 0..n {
        let op = b
            .create_with(<ReluOp as pir_runtime::Op>::DEF, &[Some(v)], empty, &[t], 0)
            .unwrap();
        v = b.program().op(op).result(0);
    }
    prog
}

fn resnet50(ctx: &Arc<IrContext>) -> Program {
    op_defs::models::resnet50(ctx, 8).unwrap()
}

fn bench_print(bencher: Bencher<'_, '_>, prog: &Program) {
    bencher
        .counter(ItemsCount::new(prog.num_ops() - 1))
        .bench_local(|| black_box(prog.to_string()));
}

fn bench_parse(bencher: Bencher<'_, '_>, ctx: &Arc<IrContext>, prog: &Program) {
    let text = prog.to_string();
    assert_eq!(parser::parse_program(ctx, &text).unwrap().to_string(), text);
    bencher
        .counter(ItemsCount::new(prog.num_ops() - 1))
        .bench_local(|| black_box(parser::parse_program(ctx, &text).unwrap()));
}

#[divan::bench(args = [100_000, 1_000_000], sample_count = 10, sample_size = 1)]
fn chain_print(bencher: Bencher<'_, '_>, n: usize) {
    let ctx = setup();
    bench_print(bencher, &chain(&ctx, n));
}

#[divan::bench(args = [100_000, 1_000_000], sample_count = 10, sample_size = 1)]
fn chain_parse(bencher: Bencher<'_, '_>, n: usize) {
    let ctx = setup();
    bench_parse(bencher, &ctx, &chain(&ctx, n));
}

#[divan::bench(sample_count = 100)]
fn resnet50_print(bencher: Bencher<'_, '_>) {
    let ctx = setup();
    bench_print(bencher, &resnet50(&ctx));
}

#[divan::bench(sample_count = 100)]
fn resnet50_parse(bencher: Bencher<'_, '_>) {
    let ctx = setup();
    bench_parse(bencher, &ctx, &resnet50(&ctx));
}
