//! Interning: identity, thread safety, allocation-free lookups.

use std::sync::Arc;

use pir_runtime::phi::{DataLayout, DataType, Place};
use pir_runtime::types::TensorKey;
use pir_runtime::{IrContext, TypeKey};

#[test]
fn same_value_same_handle_different_value_different_handle() {
    let ctx = IrContext::new();
    let a = ctx.dense_tensor_type(DataType::Float32, &[-1, 3]);
    assert_eq!(a, ctx.dense_tensor_type(DataType::Float32, &[-1, 3]));
    assert_ne!(a, ctx.dense_tensor_type(DataType::Float32, &[-1, 4]));
    assert_ne!(a, ctx.dense_tensor_type(DataType::Float64, &[-1, 3]));
    assert_ne!(a, ctx.selected_rows_type(DataType::Float32, &[-1, 3]));
    let nhwc = ctx.intern_type(TypeKey::DenseTensor(TensorKey {
        layout: DataLayout::Nhwc,
        ..TensorKey::new(DataType::Float32, &[-1, 3])
    }));
    assert_ne!(a, nhwc, "layout is part of the type");
    assert_eq!(ctx.vector_type(&[a, a]), ctx.vector_type(&[a, a]));
    assert_ne!(ctx.vector_type(&[a]), ctx.vector_type(&[a, a]));

    assert_eq!(ctx.f32_attr(0.5), ctx.f32_attr(0.5));
    assert_ne!(
        ctx.f32_attr(0.0),
        ctx.f32_attr(-0.0),
        "floats intern by bits"
    );
    assert_ne!(ctx.f32_attr(1.0), ctx.f64_attr(1.0));
    assert_ne!(ctx.i32_attr(1), ctx.i64_attr(1));
    assert_eq!(ctx.place_attr(Place::cpu()), ctx.place_attr(Place::cpu()));
    let d1 = ctx.dict_attr(&[("b", ctx.i32_attr(1)), ("a", ctx.bool_attr(true))]);
    let d2 = ctx.dict_attr(&[("a", ctx.bool_attr(true)), ("b", ctx.i32_attr(1))]);
    assert_eq!(d1, d2, "dictionaries are sorted before interning");
    assert_eq!(d1.display(&ctx).to_string(), "{a:true,b:1}");
    let dup = ctx.dict_attr(&[("a", ctx.i32_attr(1)), ("a", ctx.i32_attr(2))]);
    assert_eq!(
        dup.display(&ctx).to_string(),
        "{a:2}",
        "the last value of a repeated name wins"
    );
}

#[test]
fn eight_threads_interning_the_same_values_get_identical_handles() {
    let ctx = IrContext::new();
    let per_thread: Vec<Vec<(pir_runtime::Type, pir_runtime::Attribute)>> =
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|t| {
                    let ctx = Arc::clone(&ctx);
                    s.spawn(move || {
                        // Each thread walks the same values in a different order.
                        let mut out = vec![None; 2000];
                        // Multipliers coprime with 2000 make each order a permutation.
                        const MUL: [usize; 8] = [1, 3, 7, 9, 11, 13, 17, 19];
                        for k in 0..2000usize {
                            let i = (k * MUL[t] + t * 7) % 2000;
                            let ty = ctx.dense_tensor_type(DataType::Float32, &[i as i64, 3]);
                            let at = ctx.str_attr(&format!("name_{i}"));
                            out[i] = Some((ty, at));
                        }
                        out.into_iter().map(Option::unwrap).collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
    for other in &per_thread[1..] {
        assert_eq!(&per_thread[0], other);
    }
    let distinct: std::collections::HashSet<_> = per_thread[0].iter().map(|p| p.0).collect();
    assert_eq!(distinct.len(), 2000);
}
