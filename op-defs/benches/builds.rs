//! Typed builds with infer-meta (issue: InferMeta). Run: `cargo bench -p op-defs --bench builds`.
//! Paddle 3.3.1's C++ `Builder::Build<ReluOp>` takes 4,857 ns per op on the reference machine.

use std::hint::black_box;

use divan::counter::ItemsCount;
use divan::Bencher;
use op_defs::pd_op::*;
use pir_runtime::phi::{DataType, Place};
use pir_runtime::{Builder, IrContext, Program};

const N: usize = 10_000;

fn main() {
    divan::main();
}

fn setup() -> std::sync::Arc<IrContext> {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    ctx
}

/// A chain of `N` relu ops, each built with `ReluOp::build` (UnchangedInferMeta).
#[divan::bench(sample_count = 30, sample_size = 1)]
fn relu_chain(bencher: Bencher<'_, '_>) {
    let ctx = setup();
    bencher
        .counter(ItemsCount::new(N))
        .with_inputs(|| {
            let mut prog = Program::with_capacity(&ctx, N + 1);
            let mut b = Builder::at_end(&mut prog);
            let attrs = DataOpAttrs {
                name: "x",
                shape: &[-1, 3, 224, 224],
                dtype: DataType::Float32,
                place: Place::default(),
            };
            let x = DataOp::build(&mut b, attrs).unwrap().out(b.program());
            (prog, x)
        })
        .bench_local_values(|(mut prog, x)| {
            let mut b = Builder::at_end(&mut prog);
            let mut v = x;
            for _ in 0..N {
                v = ReluOp::build(&mut b, v).unwrap().out(b.program());
            }
            black_box(v);
            prog
        });
}

/// A chain of `N` conv2d ops (3×3, 16→16 channels, padding 1), each built with
/// `Conv2dOp::build` (ConvInferMeta, six attributes).
#[divan::bench(sample_count = 30, sample_size = 1)]
fn conv2d_chain(bencher: Bencher<'_, '_>) {
    let ctx = setup();
    bencher
        .counter(ItemsCount::new(N))
        .with_inputs(|| {
            let mut prog = Program::with_capacity(&ctx, N + 2);
            let mut b = Builder::at_end(&mut prog);
            let attrs = DataOpAttrs {
                name: "x",
                shape: &[-1, 16, 56, 56],
                dtype: DataType::Float32,
                place: Place::default(),
            };
            let x = DataOp::build(&mut b, attrs).unwrap().out(b.program());
            let w = DataOp::build(
                &mut b,
                DataOpAttrs {
                    name: "w",
                    shape: &[16, 16, 3, 3],
                    ..attrs
                },
            )
            .unwrap()
            .out(b.program());
            (prog, x, w)
        })
        .bench_local_values(|(mut prog, x, w)| {
            let mut b = Builder::at_end(&mut prog);
            let mut v = x;
            let attrs = Conv2dOpAttrs {
                paddings: &[1, 1],
                ..Default::default()
            };
            for _ in 0..N {
                v = Conv2dOp::build(&mut b, v, w, attrs)
                    .unwrap()
                    .out(b.program());
            }
            black_box(v);
            prog
        });
}

/// ResNet-50's forward (446 ops) built with typed builders, from an empty program.
#[divan::bench(sample_count = 30)]
fn resnet50_forward(bencher: Bencher<'_, '_>) {
    let ctx = setup();
    bencher
        .counter(ItemsCount::new(446usize))
        .bench_local(|| op_defs::models::resnet50(&ctx, -1).unwrap());
}

/// The demo's small CNN training step (38 ops: forward, backward, SGD).
#[divan::bench(sample_count = 30)]
fn small_cnn_train_step(bencher: Bencher<'_, '_>) {
    let ctx = setup();
    bencher.bench_local(|| op_defs::models::small_cnn_train(&ctx).unwrap());
}
