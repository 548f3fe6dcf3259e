//! Pass benchmarks (issue 14): DCE + CSE on a program of about 1,000,000 ops, and
//! `conv2d_bn_fuse_pass` then `pd_op_to_kernel` on ResNet-50 (op-defs' builder, batch 8).
//! Run: `cargo bench -p pir-passes --bench passes`. Throughput is per op of the input.

mod common;

use common::{dce_cse_program, setup};
use divan::counter::ItemsCount;
use divan::Bencher;
use pir_passes::passes::{
    CommonSubexpressionElimination, Conv2dBnFuse, DeadCodeElimination, PdOpToKernel,
};
use pir_passes::{IrModule, Pass};

fn main() {
    divan::main();
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
