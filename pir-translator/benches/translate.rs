//! Translation speed on a ResNet-50-shaped legacy inference program (see `resnet50.rs`): 176
//! compute ops plus `feed`/`fetch` → 453 PIR ops. Paddle 3.3.1's `translate_to_pir` takes
//! 27 ms for ResNet-50's 176 legacy ops; the target here is ≤ 2 ms, decoding included.
//!
//! `cargo bench -p pir-translator --bench translate`

#[path = "../../pir-legacy/benches/resnet50.rs"]
mod resnet50;

use divan::{black_box, Bencher};
use pir_translator::{LegacyProgram, Translator};

fn main() {
    divan::main();
}

/// Bytes → `LegacyProgram` → PIR `Program` (what `pir translate` does, printing aside).
#[divan::bench]
fn decode_and_translate(bencher: Bencher<'_, '_>) {
    let bytes = resnet50::resnet50_pdmodel();
    let translator = Translator::with_pd_op().unwrap();
    bencher.bench_local(|| translator.translate_bytes(black_box(&bytes)).unwrap());
}

/// Decoding alone.
#[divan::bench]
fn decode(bencher: Bencher<'_, '_>) {
    let bytes = resnet50::resnet50_pdmodel();
    bencher.bench_local(|| LegacyProgram::decode(black_box(&bytes)).unwrap());
}

/// Translation of the decoded program alone.
#[divan::bench]
fn translate(bencher: Bencher<'_, '_>) {
    let legacy = LegacyProgram::decode(&resnet50::resnet50_pdmodel()).unwrap();
    let translator = Translator::with_pd_op().unwrap();
    bencher.bench_local(|| translator.translate(black_box(&legacy)).unwrap());
}

/// Creating the translator (registering the dialect and reading its op_compat names); done
/// once per process.
#[divan::bench]
fn translator_setup() -> Translator {
    Translator::with_pd_op().unwrap()
}
