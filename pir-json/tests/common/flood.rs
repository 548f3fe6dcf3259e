//! The hash-flood generator (issue 18), shared by `tests/hash_flood.rs` and
//! `examples/big_programs.rs` (`#[path]`): int64 values crafted to collide under the interner's
//! old unseeded FxHash, and programs of `pd_op.full_int_array` ops that hold them.

use std::sync::Arc;

use pir_runtime::phi::{DataType, Place};
use pir_runtime::{Builder, IrContext, Program};

/// FxHash's multiplier (rustc-hash 2).
pub const K: u64 = 0xf135_7aea_2e62_a9c5;

/// The inverse of `k` modulo 2^64 (Newton's iteration; `k` odd).
pub fn inverse(k: u64) -> u64 {
    let mut inv = k;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(k.wrapping_mul(inv)));
    }
    inv
}

/// The `j`-th crafted value: the old interner hashed `AttrKey::Int64(v)` as
/// `rotl(((0 + 2) * K + v) * K, 26)` and took the low bits as the slot; this makes the product
/// `j`, so the slot is 0 in every table of up to 2^26 slots.
pub fn crafted(j: u64) -> i64 {
    j.wrapping_mul(inverse(K))
        .wrapping_sub(2u64.wrapping_mul(K)) as i64
}

/// A program of `ops` `pd_op.full_int_array` ops, each holding `per_op` values of `value(i)`
/// (`i` from 1).
pub fn full_int_arrays(
    ctx: &Arc<IrContext>,
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
