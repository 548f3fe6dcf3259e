//! Writes the JSON programs BENCHMARKS.md measures reading with (issue 18):
//!
//! - `big.json`: ResNet-50's forward program (446 ops) repeated until the file is at least
//!   `MB` megabytes (default 28), value ids renumbered per copy;
//! - `flood.json` / `random.json`: 4.4 MB of `pd_op.full_int_array` ops whose int64 values are
//!   crafted to collide under the interner's old unseeded FxHash, or random.
//!
//! `cargo run --release -p pir-json --example big_programs -- OUT_DIR [MB]`, then e.g.
//! `/usr/bin/time -v target/release/pir verify OUT_DIR/big.json`.

use std::path::PathBuf;

use pir_runtime::IrContext;
use serde_json::Value;

#[path = "../tests/common/flood.rs"]
mod flood;

/// Adds `offset` to every positive value id (`"%"`) under `v`.
fn renumber(v: &mut Value, offset: i64) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                match x {
                    Value::Number(n) if k == "%" => {
                        if let Some(id) = n.as_i64().filter(|&id| id > 0) {
                            *x = Value::from(id + offset);
                        }
                    }
                    _ => renumber(x, offset),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| renumber(x, offset)),
        _ => {}
    }
}

fn big(ctx: &std::sync::Arc<IrContext>, min_bytes: usize) -> String {
    let one = pir_json::write_program(&op_defs::models::resnet50(ctx, -1).expect("resnet50"));
    let mut doc: Value = serde_json::from_str(&one).expect("our own JSON");
    let ops = doc["program"]["regions"][0]["blocks"][0]["ops"]
        .as_array()
        .expect("ops")
        .clone();
    let copies = min_bytes / one.len() + 1;
    let mut all = Vec::with_capacity(ops.len() * copies);
    for c in 0..copies {
        for op in &ops {
            let mut op = op.clone();
            renumber(&mut op, c as i64 * 1_000_000);
            all.push(op);
        }
    }
    doc["program"]["regions"][0]["blocks"][0]["ops"] = Value::Array(all);
    serde_json::to_string(&doc).expect("serialises")
}

/// `ops` `pd_op.full_int_array` ops of `per_op` values each, as JSON.
fn ints(
    ctx: &std::sync::Arc<IrContext>,
    ops: usize,
    per_op: usize,
    value: fn(u64) -> i64,
) -> String {
    pir_json::write_program(&flood::full_int_arrays(ctx, ops, per_op, value))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| ".".into()));
    let mb: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(28);
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).expect("pd_op registers");
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, &text).expect("writes");
        println!("{}: {:.1} MB", path.display(), text.len() as f64 / 1e6);
    };
    write("big.json", big(&ctx, mb << 20));
    // 200 values an op: about 4.4 MB for 106,000 values.
    write("flood.json", ints(&ctx, 530, 200, flood::crafted));
    let random = |j: u64| {
        let mut x = j.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        x ^= x >> 29;
        x.wrapping_mul(0xbf58_476d_1ce4_e5b9) as i64
    };
    write("random.json", ints(&ctx, 530, 200, random));
}
