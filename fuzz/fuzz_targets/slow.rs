//! Every reader on arbitrary bytes, timed: an input that takes more than a second is reported
//! as a crash (super-linear time on a small hostile input, issue 18). The first byte picks the
//! reader (legacy `ProgramDesc` decode and translate, the JSON reader, the text parser), the
//! rest is its input; whatever is read is verified and printed inside the timed section too.
//! Run with `-max_len` small enough that a linear pass is far below the limit (the README's
//! commands use 65,536 bytes), and with libFuzzer's own `-timeout` above the limit so this
//! target's message, which names the reader, is the one reported.
//!
//! The time measured is the CPU time of the fuzzed thread (`CLOCK_THREAD_CPUTIME_ID`), not the
//! wall clock: on a shared, loaded machine a 10 ms input can wait seconds for a core, which
//! wall-clock timing reported as a slow input. The readers run on this thread only, so its CPU
//! time is the work the input caused. libFuzzer's wall-clock `-timeout` stays the backstop for
//! a real hang (e.g. a blocked thread that uses no CPU).
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use rustix::time::{clock_gettime, ClockId};

use pir_runtime::{parser, IrContext};
use pir_translator::Translator;

/// The limit, `PIR_FUZZ_SLOW_MS` milliseconds if set (a loaded machine may need more).
fn limit() -> Duration {
    static L: OnceLock<Duration> = OnceLock::new();
    *L.get_or_init(|| {
        let ms = std::env::var("PIR_FUZZ_SLOW_MS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1000);
        Duration::from_millis(ms)
    })
}

/// CPU time used so far by the calling thread. `rustix` (already the workspace's crate for this
/// clock, in `pir-passes`' CPU-time benchmark) wraps `clock_gettime` safely: no `unsafe` here.
fn thread_cpu_time() -> Duration {
    let t = clock_gettime(ClockId::ThreadCPUTime);
    // The kernel's values are never negative; 0 stands in if one ever were.
    let secs = u64::try_from(t.tv_sec).unwrap_or(0);
    let nanos = u32::try_from(t.tv_nsec).unwrap_or(0);
    Duration::new(secs, nanos)
}

fn translator() -> &'static Translator {
    static T: OnceLock<Translator> = OnceLock::new();
    T.get_or_init(|| Translator::with_pd_op().expect("pd_op registers"))
}

fn read(kind: u8, data: &[u8]) {
    match kind % 3 {
        0 => {
            if let Ok(legacy) = pir_translator::LegacyProgram::decode(data) {
                let _ = translator().unknown_ops(&legacy);
            }
            if let Ok(tr) = translator().translate_bytes(data) {
                let _ = pir_runtime::verify(&tr.program);
                let _ = tr.program.to_string();
            }
        }
        1 => {
            let Ok(text) = std::str::from_utf8(data) else {
                return;
            };
            let ctx = IrContext::new();
            op_defs::pd_op::register(&ctx).expect("pd_op registers");
            if let Ok(p) = pir_json::read_program(&ctx, text) {
                let _ = pir_runtime::verify(&p);
                let _ = p.to_string();
            }
        }
        _ => {
            let Ok(text) = std::str::from_utf8(data) else {
                return;
            };
            let ctx = IrContext::new();
            op_defs::pd_op::register(&ctx).expect("pd_op registers");
            if let Ok(p) = parser::parse_module(&ctx, text) {
                let _ = pir_runtime::verify(&p.program);
                let _ = p.to_string();
            }
        }
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    // Warm the one-time setup (the translator's tables) outside the timed section.
    translator();
    let start = thread_cpu_time();
    read(kind, rest);
    let took = thread_cpu_time().saturating_sub(start);
    let reader = ["decode+translate", "json", "text parser"][usize::from(kind % 3)];
    assert!(
        took <= limit(),
        "slow input: the {reader} took {took:?} of CPU time on {} bytes (limit {:?})",
        rest.len(),
        limit()
    );
});
