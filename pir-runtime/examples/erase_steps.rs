//! The side-by-side benchmark's erase, print and verify steps on pir-runtime alone, for
//! instruction counts (BENCHMARKS.md, issue 18's cost of handle identity); builds in seconds,
//! unlike `op-defs`' `steps`:
//!
//! ```text
//! cargo build --release -p pir-runtime --example erase_steps
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/erase_steps erase 100000
//! ```
//!
//! Steps: `build` (a chain of N one-operand `builtin.combine` ops, each using the previous
//! result), `erase` (then erase them all, last first), `print`, `verify`. Instructions per op:
//! the difference between runs with two values of N, divided by the difference of N, minus
//! the `build` step's.

use std::hint::black_box;

use pir_runtime::phi::DataType;
use pir_runtime::{builtin, Builder, IrContext, Program};

fn main() {
    let mut args = std::env::args().skip(1);
    let step = args.next().unwrap_or_default();
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let ctx = IrContext::new();
    let mut prog = Program::new(&ctx);
    let ty = Some(ctx.dense_tensor_type(DataType::Float32, &[-1, 3, 224, 224]));
    let empty = ctx.empty_dict();
    {
        let mut b = Builder::at_end(&mut prog);
        let first = b
            .create_with(&builtin::COMBINE_DEF, &[], empty, &[ty], 0)
            .expect("first");
        let mut v = b.program().op(first).result(0);
        for _ in 0..n {
            let op = b
                .create_with(&builtin::COMBINE_DEF, &[Some(v)], empty, &[ty], 0)
                .expect("combine");
            v = b.program().op(op).result(0);
        }
        black_box(v);
    }
    match step.as_str() {
        "erase" => {
            let block = prog.block();
            while let Some(op) = prog.last_op(block) {
                prog.erase_op(op).expect("erasable");
            }
        }
        "print" => drop(black_box(prog.to_string())),
        "verify" => drop(black_box(pir_runtime::verify(black_box(&prog)))),
        _ => {}
    }
}
