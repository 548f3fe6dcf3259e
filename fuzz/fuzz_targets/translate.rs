//! Arbitrary bytes through the whole pipeline: decode, translate into the pd_op dialect, and —
//! when that succeeds — verify, type-check and print. Every stage must return a result or an
//! error, never panic; a translated program that does not verify is a bug too.
#![no_main]

use std::sync::OnceLock;

use pir_translator::Translator;

fn translator() -> &'static Translator {
    static T: OnceLock<Translator> = OnceLock::new();
    T.get_or_init(|| Translator::with_pd_op().expect("pd_op registers"))
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let t = translator();
    if let Ok(legacy) = pir_translator::LegacyProgram::decode(data) {
        let _ = t.unknown_ops(&legacy);
    }
    if let Ok(tr) = t.translate_bytes(data) {
        if let Err(e) = pir_runtime::verify(&tr.program) {
            // Results left without a type are what Paddle's translator writes too; anything
            // else the translator must refuse (`TranslateError::NotVerified`).
            if !e.0.iter().all(|x| x.message().contains("<<NULL TYPE>>")) {
                panic!("a translated program does not verify: {e}");
            }
        }
        let _ = pir_runtime::check_types(&tr.program);
        let _ = tr.program.to_string();
    }
});
