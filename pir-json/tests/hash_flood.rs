//! Issue 18: a JSON program whose int64 attributes are crafted to collide under the interner's
//! old, unseeded hash (FxHash, slot = the hash's low bits) made reading quadratic: every value
//! probed past all earlier ones. The interner's hash is now seeded per table, and a table whose
//! probes grow long is rebuilt with new seeds. These tests build such a program (from a
//! generator, not a committed file) and check the reading context's hash table stays shallow.
//! The timing claim (crafted vs random file of the same size) is in BENCHMARKS.md, measured
//! with `cargo run --release -p pir-json --example hash_flood`.

mod common;

use std::hash::BuildHasher;

use pir_runtime::phi::{DataType, Place};
use pir_runtime::{AttrKey, Builder, IrContext, Program};

/// FxHash's multiplier (rustc-hash 2).
const K: u64 = 0xf135_7aea_2e62_a9c5;

/// The inverse of `k` modulo 2^64 (Newton's iteration; `k` odd).
fn inverse(k: u64) -> u64 {
    let mut inv = k;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(k.wrapping_mul(inv)));
    }
    inv
}

/// The `j`-th crafted value: the old interner hashed `AttrKey::Int64(v)` as
/// `rotl(((0 + 2) * K + v) * K, 26)` and took the low bits as the slot; this makes the product
/// `j`, so the slot is 0 in every table of up to 2^26 slots.
fn crafted(j: u64) -> i64 {
    j.wrapping_mul(inverse(K))
        .wrapping_sub(2u64.wrapping_mul(K)) as i64
}

/// The slot the old interner gave `AttrKey::Int64(v)` in a table of `2^bits` slots.
fn old_slot(v: i64, bits: u32) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(AttrKey::Int64(v)) & ((1 << bits) - 1)
}

/// A program of `ops` `pd_op.full_int_array` ops, each holding `per_op` values of `value(i)`.
fn program(
    ctx: &std::sync::Arc<IrContext>,
    ops: usize,
    per_op: usize,
    value: impl Fn(u64) -> i64,
) -> Program {
    let mut prog = Program::new(ctx);
    let mut b = Builder::at_end(&mut prog);
    let t = ctx.dense_tensor_type(DataType::Int64, &[per_op as i64]);
    for o in 0..ops {
        let items: Vec<_> = (0..per_op)
            .map(|k| ctx.i64_attr(value((o * per_op + k) as u64 + 1)))
            .collect();
        let attrs = [
            ("dtype", ctx.dtype_attr(DataType::Int64)),
            ("place", ctx.place_attr(Place::cpu())),
            ("value", ctx.array_attr(&items)),
        ];
        b.create_by_name("pd_op.full_int_array", &[], &attrs, &[Some(t)])
            .expect("full_int_array");
    }
    prog
}

#[test]
fn the_generator_makes_a_real_flood_for_the_old_hash() {
    for j in 1..1000 {
        assert_eq!(old_slot(crafted(j), 20), 0, "value {j}");
    }
    // Random-looking numbers, distinct.
    let mut vs: Vec<i64> = (1..1000).map(crafted).collect();
    vs.sort_unstable();
    vs.dedup();
    assert_eq!(vs.len(), 999);
    assert!(vs.iter().all(|v| v.unsigned_abs() > 1 << 20));
}

#[test]
fn reading_a_flood_of_crafted_int64_attributes_keeps_probes_short() {
    let writer = common::ctx();
    let json = pir_json::write_program(&program(&writer, 200, 100, crafted));
    let ctx = common::ctx();
    let before = ctx.interner_stats().1;
    let prog = pir_json::read_program(&ctx, &json).expect("reads");
    let after = ctx.interner_stats().1;
    // The 20,000 values, and an array and a dictionary per op.
    let new = after.values - before.values;
    assert!(
        (20_000..=20_000 + 3 * 200).contains(&new),
        "{new} new values: {after:?}"
    );
    // With the old hash all 20,000 values shared one home slot: probes of up to 20,000.
    assert!(after.longest_probe < 64, "{after:?}");
    assert!(after.mean_probe_x100 < 200, "{after:?}");
    assert_eq!(
        prog.to_string(),
        program(&ctx, 200, 100, crafted).to_string()
    );
}
