//! The side-by-side benchmark's interning steps on pir-runtime alone, for instruction counts
//! and profiles (BENCHMARKS.md, issue 16); builds in seconds, unlike `op-defs`' `steps`:
//!
//! ```text
//! cargo build --release -p pir-runtime --example intern_steps
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/intern_steps newtype 100000
//! ```
//!
//! Steps: `newtype` (N new tensor types `[-1, 3, 224, w]`), `newtype-cold` (the same in ten
//! parts, 8 MiB of other memory written between parts, untimed: the side-by-side benchmark
//! runs pliron's part between two of ours, which leaves our tables out of the cache; its "CPU"
//! figure is the wall-clock time of the timed parts, thread CPU time being too coarse here),
//! `newtype-small` (N new types whose dims fit the first short encoding, as most real shapes do),
//! `lookup` (N lookups among 4,096 interned tensor types, scrambled), `attr-lookup` (the same
//! among 4,096 short string attributes: the generic `intern_attr` path). Instructions per op are the difference between runs with
//! two values of N, divided by the difference of N. Thread CPU time per op is printed too.

use std::hint::black_box;
use std::time::Instant;

use pir_runtime::phi::DataType;
use pir_runtime::IrContext;

/// This thread's CPU time in ns (Linux: `/proc/thread-self/schedstat`), or 0 elsewhere: on a
/// busy machine, wall-clock time mostly measures the wait for a core.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let step = args.next().unwrap_or_default();
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let reps: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let mut other = vec![0u64; 1 << 20];
    for _ in 0..reps {
        let ctx = IrContext::new();
        let start;
        let mut cpu;
        match step.as_str() {
            "newtype-cold" => {
                start = Instant::now();
                cpu = 0;
                for part in 0..10 {
                    for x in other.iter_mut().step_by(8) {
                        *x = x.wrapping_add(1);
                    }
                    black_box(&other);
                    let c = Instant::now();
                    for w in part * n / 10 + 1..=(part + 1) * n / 10 {
                        let dims = [-1, 3, 224, black_box(w as i64)];
                        black_box(ctx.dense_tensor_type(DataType::Float32, &dims));
                    }
                    cpu += c.elapsed().as_nanos() as u64;
                }
                // Reported below as `cpu_ns() - cpu`.
                cpu = cpu_ns() - cpu;
            }
            "newtype" => {
                start = Instant::now();
                cpu = cpu_ns();
                for w in 1..=n {
                    let dims = [-1, 3, 224, black_box(w as i64)];
                    black_box(ctx.dense_tensor_type(DataType::Float32, &dims));
                }
            }
            "newtype-small" => {
                // New types whose dims all fit the first short encoding (up to 8,190), as most
                // of a real program's shapes do: [-1, 3, 1 + w / 4096, 1 + w % 4096].
                start = Instant::now();
                cpu = cpu_ns();
                for w in 0..n {
                    let (hi, lo) = (black_box(w / 4096) as i64, (w % 4096) as i64);
                    let dims = [-1, 3, 1 + hi, 1 + lo];
                    black_box(ctx.dense_tensor_type(DataType::Float32, &dims));
                }
            }
            "lookup" => {
                const HOT: usize = 4096;
                let pick = |i: usize| (i.wrapping_mul(2_654_435_761) >> 7) % HOT;
                for w in 0..HOT {
                    ctx.dense_tensor_type(DataType::Float32, &[-1, 3, 224, 1 + w as i64]);
                }
                start = Instant::now();
                cpu = cpu_ns();
                for i in 0..n {
                    let w = black_box(pick(i));
                    black_box(ctx.dense_tensor_type(
                        black_box(DataType::Float32),
                        &[-1, 3, 224, 1 + w as i64],
                    ));
                }
            }
            "attr-lookup" => {
                // N lookups among 4,096 interned short string attributes (the generic
                // `intern_attr` path), scrambled like `lookup`.
                const HOT: usize = 4096;
                let pick = |i: usize| (i.wrapping_mul(2_654_435_761) >> 7) % HOT;
                let names: Vec<String> = (0..HOT).map(|w| format!("a{w:04}")).collect();
                for name in &names {
                    ctx.str_attr(name);
                }
                start = Instant::now();
                cpu = cpu_ns();
                for i in 0..n {
                    let w = black_box(pick(i));
                    black_box(ctx.str_attr(black_box(&names[w])));
                }
            }
            other => {
                eprintln!(
                    "unknown step {other:?}: newtype, newtype-cold, newtype-small, lookup, \
                     attr-lookup"
                );
                std::process::exit(2);
            }
        }
        let cpu = cpu_ns() - cpu;
        println!(
            "{step}: {:.1} ns/op CPU, {:.1} wall",
            cpu as f64 / n as f64,
            start.elapsed().as_nanos() as f64 / n as f64
        );
    }
}
