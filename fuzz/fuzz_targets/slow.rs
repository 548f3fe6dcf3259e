//! Every reader on arbitrary bytes, timed: an input that takes more than a second is reported
//! as a crash (super-linear time on a small hostile input, issue 18). The first byte picks the
//! reader (legacy `ProgramDesc` decode and translate, the JSON reader, the text parser), the
//! rest is its input; whatever is read is verified and printed inside the timed section too.
//! Run with `-max_len` small enough that a linear pass is far below the limit (the README's
//! commands use 65,536 bytes), and with libFuzzer's own `-timeout` above the limit so this
//! target's message, which names the reader, is the one reported.
#![no_main]

use std::sync::OnceLock;
use std::time::{Duration, Instant};

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
            let Ok(text) = std::str::from_utf8(data) else { return };
            let ctx = IrContext::new();
            op_defs::pd_op::register(&ctx).expect("pd_op registers");
            if let Ok(p) = pir_json::read_program(&ctx, text) {
                let _ = pir_runtime::verify(&p);
                let _ = p.to_string();
            }
        }
        _ => {
            let Ok(text) = std::str::from_utf8(data) else { return };
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
    let start = Instant::now();
    read(kind, rest);
    let took = start.elapsed();
    let reader = ["decode+translate", "json", "text parser"][usize::from(kind % 3)];
    assert!(
        took <= limit(),
        "slow input: the {reader} took {took:?} on {} bytes (limit {:?})",
        rest.len(),
        limit()
    );
});
