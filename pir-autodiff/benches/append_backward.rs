//! `append_backward` on ResNet-50's forward program (446 ops built by the typed builders of
//! `op_defs::models::resnet50`, batch 8, plus `mean` as the loss). Run:
//! `cargo bench -p pir-autodiff --bench append_backward`. Paddle 3.3.1's Python
//! `append_backward` on the same network is measured by `scripts/paddle_append_backward.py`
//! (see BENCHMARKS.md).

use std::hint::black_box;

use divan::Bencher;
use op_defs::pd_op::{MeanOp, MeanOpAttrs};
use pir_runtime::{Builder, IrContext, Program, Value};

fn main() {
    divan::main();
}

/// ResNet-50 forward with `mean(logits)` appended; returns the program and the loss.
fn forward(ctx: &std::sync::Arc<IrContext>) -> (Program, Value) {
    let mut prog = op_defs::models::resnet50(ctx, 8).unwrap();
    let last = prog.last_op(prog.block()).unwrap();
    let logits = prog.op(last).result(0);
    let mut b = Builder::at_end(&mut prog);
    let loss = MeanOp::build(&mut b, logits, &[], MeanOpAttrs { keepdim: false })
        .unwrap()
        .out(b.program());
    // The loss takes its `stop_gradient` from its input, as Paddle's builder sets it.
    let op = prog.defining_op(loss).unwrap();
    pir_autodiff::stop_gradient::set_default(&mut prog, op).unwrap();
    (prog, loss)
}

#[divan::bench(sample_count = 50, sample_size = 1)]
fn resnet50_append_backward(bencher: Bencher<'_, '_>) {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    let (prog, _) = forward(&ctx);
    eprintln!("forward: {} ops", prog.block_len(prog.block()));
    {
        let (mut p, loss) = forward(&ctx);
        let pairs = pir_autodiff::append_backward(&mut p, loss).unwrap();
        pir_runtime::verify(&p).unwrap();
        eprintln!(
            "after append_backward: {} ops, {} parameters with a gradient",
            p.block_len(p.block()),
            pairs.iter().filter(|(_, g)| g.is_some()).count()
        );
    }
    bencher
        .with_inputs(|| forward(&ctx))
        .bench_local_values(|(mut prog, loss)| {
            black_box(pir_autodiff::append_backward(&mut prog, loss).unwrap());
            prog
        });
}
