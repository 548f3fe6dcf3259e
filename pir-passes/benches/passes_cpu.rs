//! CPU time of the passes alone (issue 14): each run builds its input first, untimed, then
//! reads the thread's CPU clock (`CLOCK_THREAD_CPUTIME_ID`) and the
//! wall clock around each pass. The machine is shared, so CPU time is the figure compared with
//! Paddle's `time.process_time`; the wall time is printed beside it.
//!
//! Run: `cargo bench -p pir-passes --bench passes_cpu`. `PASSES_CPU_ONLY=<workload>` runs one
//! workload (`dce_cse_1m`, `resnet50_fuse`, `resnet50_fuse_lower`), `PASSES_CPU_RUNS=<n>` sets
//! the runs (for `valgrind --tool=callgrind`, use 1 and set `PASSES_CPU_NO_CLOCK=1`).

mod common;

use std::time::{Duration, Instant};

use common::{dce_cse_program, setup};
use pir_passes::passes::{
    CommonSubexpressionElimination, Conv2dBnFuse, DeadCodeElimination, PdOpToKernel,
};
use pir_passes::{IrModule, Pass};

/// CPU time this thread has used (zero with `PASSES_CPU_NO_CLOCK` set: rustix's vDSO lookup
/// does not run under valgrind).
fn thread_cpu() -> Duration {
    static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *OFF.get_or_init(|| std::env::var_os("PASSES_CPU_NO_CLOCK").is_some()) {
        return Duration::ZERO;
    }
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// CPU and wall time of `f`.
fn timed(f: impl FnOnce()) -> (Duration, Duration) {
    let (c, w) = (thread_cpu(), Instant::now());
    f();
    (thread_cpu() - c, w.elapsed())
}

struct Workload {
    name: &'static str,
    runs: usize,
    /// Ops in the input, for the per-op figure.
    ops: usize,
    build: Box<dyn Fn() -> IrModule>,
    passes: Vec<Box<dyn Pass>>,
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn report(name: &str, ops: usize, mut cpu: Vec<Duration>, mut wall: Vec<Duration>) {
    cpu.sort();
    wall.sort();
    let med = |v: &[Duration]| v[v.len() / 2];
    println!(
        "{name:<40} cpu min {:>12}  median {:>12} ({:.3} µs/op) | wall min {:>12}  median {:>12}",
        ms(cpu[0]),
        ms(med(&cpu)),
        med(&cpu).as_secs_f64() * 1e6 / ops as f64,
        ms(wall[0]),
        ms(med(&wall)),
    );
}

fn main() {
    let ctx = setup();
    let only = std::env::var("PASSES_CPU_ONLY").ok();
    let runs: Option<usize> = std::env::var("PASSES_CPU_RUNS")
        .ok()
        .and_then(|s| s.parse().ok());
    let n = 250_000;
    let workloads = [
        Workload {
            name: "dce_cse_1m",
            runs: 5,
            ops: 4 * n + 2,
            build: Box::new({
                let ctx = ctx.clone();
                move || IrModule::from(dce_cse_program(&ctx, n))
            }),
            passes: vec![
                Box::new(CommonSubexpressionElimination),
                Box::new(DeadCodeElimination),
            ],
        },
        Workload {
            name: "resnet50_fuse",
            runs: 50,
            ops: 447,
            build: Box::new({
                let ctx = ctx.clone();
                move || IrModule::from(op_defs::models::resnet50(&ctx, 8).unwrap())
            }),
            passes: vec![Box::new(Conv2dBnFuse)],
        },
        Workload {
            name: "resnet50_fuse_lower",
            runs: 50,
            ops: 447,
            build: Box::new({
                let ctx = ctx.clone();
                move || IrModule::from(op_defs::models::resnet50(&ctx, 8).unwrap())
            }),
            passes: vec![Box::new(Conv2dBnFuse), Box::new(PdOpToKernel::default())],
        },
    ];
    for w in &workloads {
        if only.as_deref().is_some_and(|o| o != w.name) {
            continue;
        }
        let runs = runs.unwrap_or(w.runs);
        let (mut build_cpu, mut build_wall) = (Vec::new(), Vec::new());
        let mut per_pass = vec![(Vec::new(), Vec::new()); w.passes.len()];
        let (mut cpu, mut wall) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let mut m = None;
            let (c, t) = timed(|| m = Some((w.build)()));
            build_cpu.push(c);
            build_wall.push(t);
            let mut m = m.expect("built");
            let (mut total_c, mut total_w) = (Duration::ZERO, Duration::ZERO);
            for (p, acc) in w.passes.iter().zip(&mut per_pass) {
                let (c, t) = timed(|| {
                    p.run(&mut m).unwrap();
                });
                acc.0.push(c);
                acc.1.push(t);
                total_c += c;
                total_w += t;
            }
            cpu.push(total_c);
            wall.push(total_w);
            drop(m);
        }
        report(
            &format!("{} (build, untimed)", w.name),
            w.ops,
            build_cpu,
            build_wall,
        );
        for (p, (c, t)) in w.passes.iter().zip(per_pass) {
            report(&format!("  {}", p.name()), w.ops, c, t);
        }
        report(&format!("{} (passes)", w.name), w.ops, cpu, wall);
    }
}
