//! The run-time yaml dialect (issue 11 §3): loading a folder of Paddle's generator yaml into
//! `pd_op` op definitions, in two steps (read and lower the yaml to `OpSchema`s; the whole
//! load, which also builds every `OpDef`), and registering it in a fresh context.
//!
//! Reads `$PIR_PADDLE_YAML` (Paddle's folder), else the project's `ops-yaml/`.
//! Run: `PIR_PADDLE_YAML=../shared/paddle-yaml cargo bench -p op-defs --bench yaml_dialect`.
//! Each sample leaks its definitions (they are `'static`), hence the few samples.

use std::path::PathBuf;

use pir_runtime::IrContext;
use pir_spec::yaml::folder::YamlFolder;

fn main() {
    eprintln!("yaml folder: {}", folder().display());
    divan::main();
}

fn folder() -> PathBuf {
    std::env::var_os("PIR_PADDLE_YAML")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../ops-yaml")))
}

/// Read the files and lower them to `OpSchema`s (pir-spec alone).
#[divan::bench(sample_count = 20, sample_size = 1)]
fn read_and_lower() -> usize {
    let set = YamlFolder::read(&folder()).unwrap().load("pd_op").unwrap();
    set.ops.len()
}

/// The whole load: read, lower, define every class (`op_defs::yaml_dialect::load`).
#[divan::bench(sample_count = 20, sample_size = 1)]
fn load_folder() -> usize {
    op_defs::yaml_dialect::load(&folder()).unwrap().len()
}

/// Register a loaded dialect in a fresh context (after the compiled `pd_op`).
#[divan::bench(sample_count = 20, sample_size = 1)]
fn register(bencher: divan::Bencher<'_, '_>) {
    let dialect = op_defs::yaml_dialect::load(&folder()).unwrap();
    bencher.bench_local(|| {
        let ctx = IrContext::new();
        op_defs::yaml_dialect::register(&ctx, &dialect).unwrap()
    });
}
