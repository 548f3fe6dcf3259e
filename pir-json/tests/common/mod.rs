//! Shared helpers: where Paddle's fixtures are, a context with the pd_op dialect, a readable
//! line diff.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use pir_runtime::IrContext;

/// The Paddle 3.3.1 programs of `paddle-ref/pir_json/`: the saved `.json` and Paddle's print of
/// the program read back.
pub const FIXTURES: [(&str, &str); 3] = [
    ("small_cnn.json", "small_cnn_roundtrip_pir.txt"),
    (
        "small_linear_relu.json",
        "small_linear_relu_roundtrip_pir.txt",
    ),
    ("static_adam.json", "static_adam_pir.txt"),
];

/// `$PIR_PADDLE_REF/pir_json` (fallback `$PIR_PADDLE_YAML/../paddle-ref/pir_json`), or `None`
/// after printing why the test is skipped.
pub fn pir_json_dir(test: &str) -> Option<PathBuf> {
    let base = match std::env::var_os("PIR_PADDLE_REF") {
        Some(d) => PathBuf::from(d),
        None => match std::env::var_os("PIR_PADDLE_YAML") {
            Some(d) => PathBuf::from(d).join("..").join("paddle-ref"),
            None => {
                eprintln!(
                    "NOTICE: {test}: neither PIR_PADDLE_REF nor PIR_PADDLE_YAML is set; \
                     skipping the comparison with Paddle's JSON programs"
                );
                return None;
            }
        },
    };
    let dir = base.join("pir_json");
    if !dir.is_dir() {
        eprintln!(
            "NOTICE: {test}: {} does not exist; skipping the comparison with Paddle's JSON programs",
            dir.display()
        );
        return None;
    }
    Some(dir)
}

/// Reads a fixture file.
pub fn read(dir: &std::path::Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("reading {name}: {e}"))
}

/// A context with the project's pd_op dialect.
pub fn ctx() -> Arc<IrContext> {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).expect("register pd_op");
    ctx
}

/// Panics with a line diff when `actual != expected`.
pub fn assert_same_text(what: &str, actual: &str, expected: &str) {
    if actual == expected {
        return;
    }
    let a: Vec<&str> = actual.split('\n').collect();
    let e: Vec<&str> = expected.split('\n').collect();
    let mut report = String::new();
    let mut shown = 0;
    for i in 0..a.len().max(e.len()) {
        let (x, y) = (a.get(i), e.get(i));
        if x != y {
            report.push_str(&format!(
                "line {}:\n  expected: {}\n  actual:   {}\n",
                i + 1,
                y.map_or("<missing>", |s| s),
                x.map_or("<missing>", |s| s)
            ));
            if let (Some(x), Some(y)) = (x, y) {
                let col = x.bytes().zip(y.bytes()).take_while(|(p, q)| p == q).count();
                report.push_str(&format!("  first difference at byte {col}\n"));
            }
            shown += 1;
            if shown == 8 {
                report.push_str("  ...\n");
                break;
            }
        }
    }
    panic!(
        "{what}: output differs from the expected text ({} vs {} bytes)\n{report}",
        actual.len(),
        expected.len()
    );
}

/// Panics showing the first difference (with context) when two one-line documents differ.
pub fn assert_same_bytes(what: &str, actual: &str, expected: &str) {
    if actual == expected {
        return;
    }
    let at = actual
        .bytes()
        .zip(expected.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let around = |s: &str| {
        let mut lo = at.saturating_sub(100);
        while !s.is_char_boundary(lo) {
            lo -= 1;
        }
        let mut hi = (at + 100).min(s.len());
        while !s.is_char_boundary(hi) {
            hi += 1;
        }
        s[lo..hi].to_string()
    };
    panic!(
        "{what}: first difference at byte {at} ({} vs {} bytes)\n  expected: ...{}...\n  actual:   ...{}...",
        actual.len(),
        expected.len(),
        around(expected),
        around(actual)
    );
}

use pir_runtime::attributes::AttrKey;
use pir_runtime::op_def::OpDef;
use pir_runtime::phi::{AllocationType, DataLayout, DataType, Place};
use pir_runtime::types::{TensorKey, TypeKey};
use pir_runtime::{Builder, Program};

/// An op with regions, in the `test` dialect (Paddle's dialect id `-1`).
pub static REGION_OP: OpDef = OpDef::new("test.region_op", "test");
/// A terminator for its blocks.
pub static YIELD_OP: OpDef = OpDef::new("test.yield", "test");
static TEST_OPS: [&OpDef; 2] = [&REGION_OP, &YIELD_OP];

/// [`ctx`] plus the `test` dialect.
pub fn ctx_with_test_dialect() -> Arc<IrContext> {
    let ctx = ctx();
    ctx.register_ops("test", &TEST_OPS)
        .expect("register test ops");
    ctx
}

/// A program using every type and attribute kind the IR has, null operands and results,
/// nested regions with several blocks and block arguments, and values used across blocks.
pub fn everything_program(ctx: &Arc<IrContext>) -> Program {
    let mut prog = Program::new(ctx);
    let f32_2x3 = ctx.intern_type(TypeKey::DenseTensor(TensorKey {
        dtype: DataType::Float32,
        dims: &[2, 3],
        layout: DataLayout::Nhwc,
        lod: &[vec![0, 1, 2], vec![]],
        offset: 5,
    }));
    let rows = ctx.selected_rows_type(DataType::Float16, &[-1, 8]);
    let array = ctx.dense_tensor_array_type(DataType::Int64, &[4], DataLayout::Nchw);
    let custom = ctx.intern_type(TypeKey::Custom("test", "box", &[ctx.i32_attr(3)]));
    let vec_t = ctx.vector_type(&[f32_2x3, ctx.dense_tensor_type(DataType::Bool, &[])]);

    let every_dtype: Vec<_> = DataType::ALL.iter().map(|&d| ctx.dtype_attr(d)).collect();
    let every_scalar_type: Vec<_> = DataType::ALL
        .iter()
        .map(|&d| ctx.type_attr(ctx.scalar_type(d)))
        .collect();
    let every_layout: Vec<_> = DataLayout::ALL
        .iter()
        .map(|&l| ctx.layout_attr(l))
        .collect();
    let attrs = [
        ("a_bool", ctx.bool_attr(true)),
        ("a_i32", ctx.i32_attr(i32::MIN)),
        ("a_i64", ctx.i64_attr(i64::MAX)),
        ("a_index", ctx.index_attr(-7)),
        ("a_f32", ctx.f32_attr(1e-5)),
        ("a_f32_tiny", ctx.f32_attr(1e-45)),
        ("a_f32_nan", ctx.f32_attr(f32::NAN)),
        ("a_f32_neg_zero", ctx.f32_attr(-0.0)),
        ("a_f64", ctx.f64_attr(0.1)),
        ("a_f64_big", ctx.f64_attr(1.7976931348623157e308)),
        ("a_f64_inf", ctx.f64_attr(f64::INFINITY)),
        ("a_f64_neg_inf", ctx.f64_attr(f64::NEG_INFINITY)),
        ("a_c64", ctx.intern_attr(AttrKey::Complex64(1.5, -2.0))),
        ("a_c128", ctx.intern_attr(AttrKey::Complex128(0.1, 1e300))),
        (
            "a_c128_not_finite",
            ctx.intern_attr(AttrKey::Complex128(f64::NEG_INFINITY, f64::NAN)),
        ),
        (
            "a_str",
            ctx.str_attr("quote \" backslash \\ newline \n tab \t bell \u{7} é 漢"),
        ),
        (
            "a_array",
            ctx.array_attr(&[ctx.array_attr(&[]), ctx.str_attr("")]),
        ),
        ("a_type", ctx.type_attr(rows)),
        ("a_custom_type", ctx.type_attr(custom)),
        ("a_intarray", ctx.int_array_attr(&[-1, 0, i64::MIN])),
        ("a_dtypes", ctx.array_attr(&every_dtype)),
        ("a_scalar_types", ctx.array_attr(&every_scalar_type)),
        ("a_layouts", ctx.array_attr(&every_layout)),
        ("a_place_gpu", ctx.place_attr(Place::gpu(1))),
        (
            "a_place_custom",
            ctx.place_attr(Place {
                kind: AllocationType::Custom,
                device: -3,
            }),
        ),
        (
            "a_dict",
            ctx.dict_attr(&[("z", ctx.bool_attr(false)), ("a", ctx.empty_dict())]),
        ),
        ("stop_gradient", ctx.bool_array_attr(&[true, false])),
    ];

    let mut b = Builder::at_end(&mut prog);
    // A parameter as Paddle's PIR API makes it (all the flags the compressed form holds).
    let flag = |v: bool| ctx.bool_array_attr(&[v]);
    let param = b
        .create_by_name(
            "builtin.parameter",
            &[],
            &[
                ("is_distributed", flag(false)),
                ("is_parameter", flag(true)),
                ("need_clip", flag(true)),
                ("parameter_name", ctx.str_attr("w")),
                ("persistable", flag(true)),
                ("stop_gradient", flag(false)),
                ("trainable", flag(true)),
            ],
            &[Some(f32_2x3)],
        )
        .unwrap();
    let w = b.program().op(param).result(0);
    let region_op = b
        .create_with(
            &REGION_OP,
            &[Some(w), None],
            ctx.dict_attr(&attrs),
            &[Some(vec_t), None, Some(array)],
            2,
        )
        .unwrap();
    let (r0, r1) = {
        let op = b.program().op(region_op);
        (op.region(0), op.region(1))
    };
    let p = b.program_mut();
    let b0 = p.add_block(r0);
    let a0 = p.add_block_arg(b0, Some(array));
    let a1 = p.add_block_arg(b0, Some(custom));
    let b1 = p.add_block(r0);
    let b2 = p.add_block(r1);
    let a2 = p.add_block_arg(b2, None);
    let mut inner = Builder::at_block_end(p, b0);
    let c = pir_runtime::builtin::combine(&mut inner, &[w, w]).unwrap();
    inner
        .create_with(
            &YIELD_OP,
            &[Some(a0), Some(a1), Some(c), Some(w), None],
            ctx.empty_dict(),
            &[],
            0,
        )
        .unwrap();
    let mut inner = Builder::at_block_end(p, b1);
    inner
        .create_with(&YIELD_OP, &[], ctx.empty_dict(), &[], 0)
        .unwrap();
    let mut inner = Builder::at_block_end(p, b2);
    let nested = inner
        .create_with(&REGION_OP, &[Some(a2)], ctx.empty_dict(), &[Some(rows)], 1)
        .unwrap();
    let nested_region = inner.program().op(nested).region(0);
    let _ = inner.program_mut().add_block(nested_region);
    let mut b = Builder::at_end(&mut prog);
    let v = b.program().op(region_op).result(0);
    let parts = pir_runtime::builtin::split(&mut b, v).unwrap();
    let relu = b
        .create_by_name(
            "pd_op.relu",
            &[Some(parts[0])],
            &[
                ("stop_gradient", ctx.bool_array_attr(&[false])),
                ("struct_name", ctx.str_attr("/M/")),
            ],
            &[Some(f32_2x3)],
        )
        .unwrap();
    let out = b.program().op(relu).result(0);
    pir_runtime::builtin::shadow_output(&mut b, out, "out").unwrap();
    prog
}
