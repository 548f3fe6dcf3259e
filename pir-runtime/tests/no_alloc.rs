//! Lookups of interned values never allocate.
//!
//! The allocation counter is global to the process, so this binary runs without libtest's
//! harness (`harness = false`): libtest's own threads (output capture, timeouts) allocate now and
//! then, which made the count flaky on a loaded machine.

use std::alloc::System;

use pir_runtime::phi::DataType;
use pir_runtime::{AttrKey, IrContext};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

// Counts allocations of this test binary (stats_alloc wraps the system allocator).
#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn main() {
    lookups_of_interned_values_do_not_allocate();
    println!("no_alloc: interned lookups allocate nothing: ok");
}

fn lookups_of_interned_values_do_not_allocate() {
    let ctx = IrContext::new();
    let dims = [-1i64, 3, 224, 224];
    let t = ctx.dense_tensor_type(DataType::Float32, &dims);
    let v = ctx.vector_type(&[t, t]);
    let s = ctx.str_attr("NCHW");
    let one = ctx.i32_attr(1);
    let arr = ctx.array_attr(&[one, one]);
    let ia = ctx.int_array_attr(&[2, 4]);
    let dict = ctx.dict_attr(&[("groups", one), ("strides", arr)]);

    let region = Region::new(GLOBAL);
    for _ in 0..1000 {
        assert_eq!(ctx.dense_tensor_type(DataType::Float32, &dims), t);
        assert_eq!(ctx.vector_type(&[t, t]), v);
        assert_eq!(ctx.str_attr("NCHW"), s);
        assert_eq!(ctx.array_attr(&[one, one]), arr);
        assert_eq!(ctx.int_array_attr(&[2, 4]), ia);
        assert_eq!(ctx.dict_attr(&[("strides", arr), ("groups", one)]), dict);
        assert_eq!(ctx.lookup_attr(AttrKey::Int32(1)), Some(one));
        assert_eq!(
            ctx.scalar_type(DataType::Int64),
            ctx.scalar_type(DataType::Int64)
        );
    }
    let change = region.change();
    assert_eq!(
        change.allocations, 0,
        "interning already-interned values allocated"
    );
    assert_eq!(change.reallocations, 0);
}
