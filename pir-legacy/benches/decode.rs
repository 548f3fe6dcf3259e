//! Decoding speed: a ResNet-50-shaped inference program (see `resnet50.rs`), and a program of
//! 100,000 blocks each the parent of the next (1 MB; the parent-chain check must stay linear:
//! target < 0.5 s).
//!
//! `cargo bench -p pir-legacy --bench decode`

mod resnet50;

use divan::{black_box, Bencher};
use pir_legacy::{proto, LegacyProgram};
use prost::Message;

fn main() {
    divan::main();
}

/// `.pdmodel` bytes → `LegacyProgram`.
#[divan::bench]
fn resnet50(bencher: Bencher<'_, '_>) {
    let bytes = resnet50::resnet50_pdmodel();
    bencher.bench_local(|| LegacyProgram::decode(black_box(&bytes)).unwrap());
}

/// `n` empty blocks, block `i`'s parent being `i - 1`.
pub fn block_chain(n: usize) -> Vec<u8> {
    proto::ProgramDesc {
        blocks: (0..n as i32)
            .map(|i| proto::BlockDesc {
                idx: Some(i),
                parent_idx: Some(i - 1),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
    .encode_to_vec()
}

/// 100,000 chained blocks.
#[divan::bench(sample_count = 10)]
fn block_chain_100k(bencher: Bencher<'_, '_>) {
    let bytes = block_chain(100_000);
    bencher.bench_local(|| LegacyProgram::decode(black_box(&bytes)).unwrap());
}
