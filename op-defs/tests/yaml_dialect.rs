//! The `pd_op` dialect defined at run time from `ops-yaml/` (`pir_runtime::yaml_dialect`)
//! against the one compiled from the same files (`op_defs::pd_op`): every class has the same
//! definition, and programs built with the compiled typed builders parse, verify, type-check
//! and print the same in a context holding only the run-time classes.

#[path = "common/def_compare.rs"]
mod def_compare;

use std::path::Path;

use op_defs::pd_op::PdOpDialect;
use pir_runtime::yaml_dialect::YamlDialect;
use pir_runtime::{Dialect, IrContext};

fn runtime_dialect() -> YamlDialect {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../ops-yaml"));
    YamlDialect::load(dir, "pd_op", &op_defs::infer_meta::REGISTRY)
        .and_then(YamlDialect::complete)
        .expect("ops-yaml loads")
}

#[test]
fn every_class_is_defined_as_the_macro_defines_it() {
    let rt = runtime_dialect();
    let compiled = PdOpDialect::op_defs();
    let mut problems = Vec::new();
    for r in rt.op_defs() {
        match compiled.iter().find(|c| c.name == r.name) {
            Some(c) => problems.extend(def_compare::differences(c, r)),
            None => problems.push(format!("{}: not compiled", r.name)),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The compiled dialect has, besides the yaml's classes, only hand-written ones
    // (`#[pir_op]`, defined in Rust files).
    for c in compiled {
        if rt.op_def(c.name).is_none() {
            let file = c
                .schema
                .and_then(|s| s.source.as_ref())
                .map(|l| l.file.to_string());
            assert!(
                file.as_deref().is_some_and(|f| f.ends_with(".rs")),
                "{}: {file:?}",
                c.name
            );
        }
    }
    assert!(rt.len() > 150, "{}", rt.len());
    // The comparison sees differences: two different classes differ.
    assert!(!def_compare::differences(rt.op_defs()[0], rt.op_defs()[1]).is_empty());
}

#[test]
fn compiled_ops_win_over_yaml_ones_of_the_same_name() {
    let rt = runtime_dialect();
    let ctx = IrContext::new();
    assert_eq!(op_defs::yaml_dialect::register(&ctx, &rt).unwrap(), 0);
    for d in PdOpDialect::op_defs() {
        assert!(std::ptr::eq(ctx.op_def(d.name).unwrap(), *d), "{}", d.name);
    }
}

/// A context with builtin and the run-time classes only.
fn runtime_context(rt: &YamlDialect) -> std::sync::Arc<IrContext> {
    let ctx = IrContext::new();
    assert_eq!(rt.register(&ctx).unwrap(), rt.len());
    ctx
}

#[test]
fn programs_read_verify_type_check_and_print_alike_with_run_time_classes() {
    let rt = runtime_dialect();
    let compiled_ctx = IrContext::new();
    op_defs::pd_op::register(&compiled_ctx).unwrap();
    let programs = [
        op_defs::models::small_cnn_train(&compiled_ctx).unwrap(),
        op_defs::models::resnet50(&compiled_ctx, -1).unwrap(),
    ];
    for prog in &programs {
        let text = prog.to_string();
        let ctx = runtime_context(&rt);
        let parsed = pir_runtime::parser::parse_module(&ctx, &text)
            .unwrap()
            .program;
        // Every op of the parsed program is a run-time class.
        let mut pd_ops = 0;
        parsed.walk(parsed.module_op(), &mut |op| {
            let def = parsed.op(op).def();
            if def.dialect == "pd_op" {
                assert!(std::ptr::eq(def, rt.op_def(def.name).unwrap()));
                pd_ops += 1;
            }
        });
        assert!(pd_ops > 30);
        pir_runtime::verify(&parsed).unwrap();
        let report = pir_runtime::check_types(&parsed);
        assert!(report.is_clean(), "{report}");
        assert_eq!(report.unchecked.len(), 0, "{report}");
        assert_eq!(parsed.to_string(), text);
    }
}

#[test]
fn a_wrong_result_type_is_found_by_check_types_on_run_time_classes() {
    let rt = runtime_dialect();
    let compiled_ctx = IrContext::new();
    op_defs::pd_op::register(&compiled_ctx).unwrap();
    let text = op_defs::models::small_cnn_train(&compiled_ctx)
        .unwrap()
        .to_string();
    let ctx = runtime_context(&rt);
    let mut parsed = pir_runtime::parser::parse_module(&ctx, &text)
        .unwrap()
        .program;
    // The first relu's result recorded with a wrong dtype.
    let mut relu = None;
    parsed.walk(parsed.module_op(), &mut |op| {
        if relu.is_none() && parsed.op(op).name() == "pd_op.relu" {
            relu = Some(parsed.op(op).result(0));
        }
    });
    let relu = relu.unwrap();
    parsed.set_value_type(
        relu,
        Some(ctx.dense_tensor_type(pir_runtime::phi::DataType::Int32, &[-1, 8, 32, 32])),
    );
    let report = pir_runtime::check_types(&parsed);
    // The relu itself, and the ops reading it (whose recorded f32 results now infer to i32).
    let names: Vec<&str> = report.differences.iter().map(|d| d.op_name).collect();
    assert_eq!(
        names,
        [
            "pd_op.relu",
            "pd_op.pool2d",
            "pd_op.pool2d_grad",
            "pd_op.relu_grad"
        ],
        "{report}"
    );
}

#[test]
fn a_class_yaml_cannot_define_is_a_located_error() {
    let dir = std::env::temp_dir().join(format!("op-defs-yaml-dialect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // ConvInferMeta's parameters are (input, filter, strides, ...): one tensor does not fit.
    std::fs::write(
        dir.join("ops.yaml"),
        "- op : my_conv\n  args : (Tensor x)\n  output : Tensor(out)\n  infer_meta :\n    \
         func : ConvInferMeta\n  kernel :\n    func : conv\n",
    )
    .unwrap();
    let d = YamlDialect::load(&dir, "pd_op", &op_defs::infer_meta::REGISTRY).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(d.is_empty());
    assert_eq!(d.skipped().len(), 1);
    assert_eq!(d.skipped()[0].op, "pd_op.my_conv");
    let m = d.complete().unwrap_err().to_string();
    assert!(m.starts_with("1 op class(es) cannot be defined:"), "{m}");
    assert!(m.contains("ops.yaml:1: op `my_conv`"), "{m}");
    assert!(m.contains("ConvInferMeta"), "{m}");
}
