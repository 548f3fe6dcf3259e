//! Runs one step of the side-by-side benchmark on pir-rs alone, for instruction counts
//! (BENCHMARKS.md, issue 16):
//!
//! ```text
//! cargo build --release -p op-defs --example steps
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/steps relu 110000
//! ```
//!
//! Steps: `generic` (`create_with` chain of `pd_op.relu`), `relu` (`ReluOp::build` chain),
//! `conv` (`Conv2dOp::build` chain, 3x3, 16 channels), `print`, `verify`, `erase` (each after a
//! generic chain), `lookup` (N lookups among 4,096 interned tensor types, scrambled), `newtype`
//! (N new tensor types). A step's instructions per op are the difference between runs with two
//! values of N, divided by the difference of N (print, verify and erase: minus the generic run).
//! Wall-clock time per op is printed too. `phases` runs the side-by-side's pir-rs sequence (a
//! generic chain, a typed chain, printing the first) five times and prints each phase's time on
//! a CPU and minor page faults (Linux).

use std::hint::black_box;
use std::time::Instant;

use op_defs::pd_op::{Conv2dOp, Conv2dOpAttrs, DataOp, DataOpAttrs, ReluOp};
use pir_runtime::phi::{DataType, Place};
use pir_runtime::{Builder, IrContext, Op, Program, Value};

fn data(b: &mut Builder<'_>, name: &str, shape: &[i64]) -> Value {
    let attrs = DataOpAttrs {
        name,
        shape,
        dtype: DataType::Float32,
        place: Place::default(),
    };
    DataOp::build(b, attrs).expect("data").out(b.program())
}

/// A chain of `n` relu ops after a data op, generic (`create_with`) or typed.
fn chain(prog: &mut Program, n: usize, typed: bool) {
    let mut b = Builder::at_end(prog);
    let mut v = data(&mut b, "x", &[-1, 3, 224, 224]);
    let ty = b.program().value_type(v);
    let empty = b.ctx().empty_dict();
    for _ in 0..n {
        v = if typed {
            ReluOp::build(&mut b, v).expect("relu").out(b.program())
        } else {
            let op = b
                .create_with(ReluOp::DEF, &[Some(v)], empty, &[ty], 0)
                .expect("relu");
            b.program().op(op).result(0)
        };
    }
    black_box(v);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let step = args.next().unwrap_or_default();
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).expect("pd_op registers");
    let mut prog = Program::new(&ctx);
    let start = Instant::now();
    match step.as_str() {
        "generic" | "relu" => chain(&mut prog, n, step == "relu"),
        "print" | "verify" | "erase" => {
            chain(&mut prog, n, false);
            let t = Instant::now();
            match step.as_str() {
                "print" => drop(black_box(prog.to_string())),
                "verify" => pir_runtime::verify(black_box(&prog)).expect("verifies"),
                _ => {
                    let block = prog.block();
                    while let Some(op) = prog.last_op(block) {
                        prog.erase_op(op).expect("erasable");
                    }
                }
            }
            println!(
                "{step}: {:.1} ns/op",
                t.elapsed().as_nanos() as f64 / n as f64
            );
            return;
        }
        "conv" => {
            let mut b = Builder::at_end(&mut prog);
            let mut v = data(&mut b, "x", &[-1, 16, 56, 56]);
            let w = data(&mut b, "w", &[16, 16, 3, 3]);
            let attrs = Conv2dOpAttrs {
                paddings: &[1, 1],
                ..Default::default()
            };
            for _ in 0..n {
                v = Conv2dOp::build(&mut b, v, w, attrs)
                    .expect("conv2d")
                    .out(b.program());
            }
            black_box(v);
        }
        "phases" => {
            // The side-by-side's pir-rs sequence, per repetition: generic chain, typed chain
            // (dropped), print; on-CPU time (user and system, so page faults count, as in
            // the side-by-side's thread CPU clock) and minor page faults of each phase.
            for rep in 0..5 {
                let mut prog = Program::new(&ctx);
                let f0 = minor_faults();
                let t = cpu_ns();
                chain(&mut prog, n, false);
                let (g, gf) = (cpu_ns() - t, minor_faults() - f0);
                let mut prog2 = Program::new(&ctx);
                let f0 = minor_faults();
                let t = cpu_ns();
                chain(&mut prog2, n, true);
                let (ty, tf) = (cpu_ns() - t, minor_faults() - f0);
                drop(prog2);
                let f0 = minor_faults();
                let t = cpu_ns();
                let s = black_box(prog.to_string());
                let (p, pf) = (cpu_ns() - t, minor_faults() - f0);
                drop(s);
                let per = |d: u64| d as f64 / n as f64;
                println!(
                    "rep {rep}: generic {:.1} ns/op ({gf} faults), typed {:.1} ({tf}), print {:.1} ({pf})",
                    per(g),
                    per(ty),
                    per(p)
                );
            }
            return;
        }
        "lookup" => {
            const HOT: usize = 4096;
            let pick = |i: usize| (i.wrapping_mul(2_654_435_761) >> 7) % HOT;
            for w in 0..HOT {
                ctx.dense_tensor_type(DataType::Float32, &[-1, 3, 224, 1 + w as i64]);
            }
            let t = Instant::now();
            for i in 0..n {
                let w = black_box(pick(i));
                black_box(
                    ctx.dense_tensor_type(
                        black_box(DataType::Float32),
                        &[-1, 3, 224, 1 + w as i64],
                    ),
                );
            }
            println!("lookup: {:.1} ns", t.elapsed().as_nanos() as f64 / n as f64);
            return;
        }
        "newtype" => {
            for w in 1..=n {
                let dims = [-1, 3, 224, black_box(w as i64)];
                black_box(ctx.dense_tensor_type(DataType::Float32, &dims));
            }
        }
        other => {
            eprintln!("unknown step {other:?}: generic, relu, conv, print, verify, erase, lookup, newtype");
            std::process::exit(2);
        }
    }
    println!(
        "{step}: {:.1} ns/op",
        start.elapsed().as_nanos() as f64 / n as f64
    );
}

/// The process's minor page faults so far (Linux; 0 elsewhere).
fn minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Field 10 (minflt), counted after the command name's closing parenthesis.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    after
        .split_whitespace()
        .nth(7)
        .and_then(|f| f.parse().ok())
        .unwrap_or(0)
}

/// The thread's time on a CPU so far, in ns (Linux's scheduler statistics; 0 elsewhere).
fn cpu_ns() -> u64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    stat.split_whitespace()
        .next()
        .and_then(|f| f.parse().ok())
        .unwrap_or(0)
}
