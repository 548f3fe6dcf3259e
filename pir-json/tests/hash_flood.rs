//! Issue 18: a JSON program whose int64 attributes are crafted to collide under the interner's
//! old, unseeded hash (FxHash, slot = the hash's low bits) made reading quadratic: every value
//! probed past all earlier ones. The interner's hash is now seeded per table, and a table whose
//! probes grow long is rebuilt with new seeds. These tests build such a program (from a
//! generator, not a committed file) and check the reading context's hash table stays shallow.
//! The timing claim (crafted vs random file of the same size) is in BENCHMARKS.md, measured
//! with `cargo run --release -p pir-json --example big_programs`.

mod common;
#[path = "common/flood.rs"]
mod flood;

use std::hash::BuildHasher;

use flood::{crafted, full_int_arrays as program};
use pir_runtime::AttrKey;

/// The slot the old interner gave `AttrKey::Int64(v)` in a table of `2^bits` slots.
fn old_slot(v: i64, bits: u32) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(AttrKey::Int64(v)) & ((1 << bits) - 1)
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
