//! `std`, `masked_fill(_)`, `variance`, `all_reduce(_)`, `reduce(_)` and
//! `fused_bias_residual_layernorm`: ops Paddle 3.3.1 has that the shared yaml snapshot lacks,
//! which `ops-yaml/` declares. Each declaration is pinned here against every piece of 3.3.1
//! evidence in `$PIR_PADDLE_REF` (`paddle-ref/`):
//!
//! * `ops/programs/<op>.txt`: Paddle's print of the one-op program parses with the compiled
//!   `pd_op` dialect, verifies, type-checks clean (every op checked) and prints back identically;
//! * `ops/programs/<op>.json`: the attributes, their order (Paddle writes them in yaml argument
//!   order) and IR kinds are the schema's; operands Paddle leaves null are optional ones;
//! * `ops/MANIFEST.json`: operand and result names, and the infer-meta function's name
//!   (`infer_meta_func`, what 3.3.1's GetOpInfo reports);
//! * `ops/vjp/<op>.{txt,json}`: the program with its backward reproduces the same way, and the
//!   grad op's operands and attributes are the schema's; an op without a backward has no vjp
//!   program there (and, for variance, no grad kernel);
//! * `phi_kernels_cpu.json`: the kernels named exist;
//! * masked_fill's broadcasting, from a public PIR dump of a detection model
//!   (`pd_op.masked_fill: (1x45640x4xf32) <- (1x-1x4xf32, 1x45640x1xb, xf32)`, Paddle version not
//!   stated there) and of a sequence model (`(5x126xi64) <- (5x126xi64, 5x126xb, xi64)`).
//!
//! Without `$PIR_PADDLE_REF` the reference checks print a notice and pass.

use std::path::PathBuf;
use std::sync::Arc;

use op_defs::pd_op::context;
use pir_runtime::{check_types, parser, verify, IrContext, Program};
use pir_spec::{AttrKind, OpSchema};
use serde_json::Value;

fn paddle_ref(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("PIR_PADDLE_REF").map(PathBuf::from);
    if dir.is_none() {
        eprintln!("NOTICE: PIR_PADDLE_REF is not set; skipping {test}.");
    }
    dir
}

fn read(root: &std::path::Path, rel: &str) -> String {
    let p = root.join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

fn json(root: &std::path::Path, rel: &str) -> Value {
    serde_json::from_str(&read(root, rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn schema(ctx: &IrContext, name: &str) -> &'static OpSchema {
    ctx.op_def(&format!("pd_op.{name}"))
        .unwrap_or_else(|| panic!("pd_op.{name} is not defined"))
        .schema
        .expect("a yaml op has a schema")
}

/// Parses `text`, checks that it verifies, that `check_types` checks all `ops` ops without a
/// difference, and that it prints back as `text`.
fn reproduce(ctx: &Arc<IrContext>, text: &str, ops: usize, what: &str) -> Program {
    let prog = parser::parse_program(ctx, text).unwrap_or_else(|e| panic!("{what}: {e}"));
    verify(&prog).unwrap_or_else(|e| panic!("{what}: verify: {e}"));
    let report = check_types(&prog);
    assert!(report.is_clean(), "{what}: {report}");
    assert!(report.unchecked.is_empty(), "{what}: {report}");
    assert_eq!(report.checked, ops, "{what}: {report}");
    assert_eq!(prog.to_string(), text, "{what}: the print differs");
    prog
}

/// The `check_types` report of `text` (parsed, not verified).
fn types_report(ctx: &Arc<IrContext>, text: &str) -> pir_runtime::TypeCheckReport {
    check_types(&parser::parse_program(ctx, text).expect("parses"))
}

/// The tag Paddle's JSON writes for an attribute of this IR kind.
fn json_tag(kind: AttrKind) -> &'static str {
    match kind {
        AttrKind::Bool => "0.a_bool",
        AttrKind::Int32 => "0.a_i32",
        AttrKind::Int64 => "0.a_i64",
        AttrKind::Float => "0.a_f32",
        AttrKind::Double => "0.a_f64",
        AttrKind::Str => "0.a_str",
        AttrKind::Int64Array => "0.a_array of 0.a_i64",
        AttrKind::IntArray => "1.a_intarray",
        other => panic!("no JSON tag listed for {other:?}"),
    }
}

/// `(name, tag)` of every attribute of the schema, in order.
fn schema_attrs(s: &OpSchema) -> Vec<(String, String)> {
    s.attributes
        .iter()
        .map(|a| (a.name.to_string(), json_tag(a.kind).to_string()))
        .collect()
}

/// `(name, tag)` of the attributes of the first op `op` (e.g. `1.std`) in a Paddle JSON program,
/// in the file's order; an array is tagged with its element tag.
fn json_attrs(program: &Value, op: &str) -> Vec<(String, String)> {
    let ops = program["program"]["regions"][0]["blocks"][0]["ops"]
        .as_array()
        .expect("ops");
    let op = ops
        .iter()
        .find(|o| o["#"] == op)
        .unwrap_or_else(|| panic!("no {op} in the program"));
    op["A"]
        .as_array()
        .expect("attributes")
        .iter()
        .map(|a| {
            let at = &a["AT"];
            let mut tag = at["#"].as_str().unwrap().to_string();
            if tag == "0.a_array" {
                let elem = at["D"][0]["#"].as_str().unwrap_or("empty");
                tag = format!("{tag} of {elem}");
            }
            (a["N"].as_str().unwrap().to_string(), tag)
        })
        .collect()
}

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("a list of names")
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

fn input_names(s: &OpSchema) -> Vec<String> {
    s.inputs.iter().map(|i| i.name.to_string()).collect()
}

fn output_names(s: &OpSchema) -> Vec<String> {
    s.outputs.iter().map(|o| o.name.to_string()).collect()
}

/// The MANIFEST.json record of `case_id`.
fn case(manifest: &Value, case_id: &str) -> Value {
    manifest["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["case_id"] == case_id)
        .unwrap_or_else(|| panic!("no case {case_id}"))
        .clone()
}

fn has_cpu_kernel(root: &std::path::Path, kernel: &str) -> bool {
    json(root, "phi_kernels_cpu.json")["kernels"]
        .get(kernel)
        .is_some_and(|k| k.as_array().is_some_and(|a| !a.is_empty()))
}

#[test]
fn std_is_declared_as_paddle_3_3_1_has_it() {
    let Some(root) = paddle_ref("std_is_declared_as_paddle_3_3_1_has_it") else {
        return;
    };
    let ctx = context();
    // Two cases: axis [1] on 3x4xf32 gives 3xf32; axis [0,2] kept on -1x4x5xf64 gives 1x4x1xf64.
    reproduce(
        &ctx,
        &read(&root, "ops/programs/std.txt"),
        4,
        "programs/std.txt",
    );
    let std = schema(&ctx, "std");
    let program = json(&root, "ops/programs/std.json");
    let attrs = json_attrs(&program, "1.std");
    assert_eq!(
        attrs,
        [
            ("axis", "0.a_array of 0.a_i64"),
            ("keepdim", "0.a_bool"),
            ("unbiased", "0.a_bool"),
            ("correction", "0.a_f64"),
        ]
        .map(|(n, t)| (n.to_string(), t.to_string()))
    );
    assert_eq!(schema_attrs(std), attrs, "std's attributes");
    let manifest = json(&root, "ops/MANIFEST.json");
    for id in ["std/0", "std/1"] {
        let c = case(&manifest, id);
        assert_eq!(input_names(std), names(&c["input_names"]), "{id}");
        assert_eq!(output_names(std), names(&c["output_names"]), "{id}");
        assert_eq!(std.runtime.infer_meta_func.as_ref(), c["infer_meta_func"]);
    }
    assert_eq!(std.backward.as_deref(), Some("std_grad"));

    // The backward: std_grad(x, out, out_grad) with std's attributes gives x's type.
    reproduce(&ctx, &read(&root, "ops/vjp/std.txt"), 8, "vjp/std.txt");
    let grad = schema(&ctx, "std_grad");
    assert_eq!(input_names(grad), ["x", "out", "out_grad"]);
    assert_eq!(output_names(grad), ["x_grad"]);
    let vjp = json(&root, "ops/vjp/std.json");
    assert_eq!(schema_attrs(grad), json_attrs(&vjp, "1.std_grad"));
    assert!(has_cpu_kernel(&root, &std.runtime.kernel_func));
    assert!(has_cpu_kernel(&root, &grad.runtime.kernel_func));

    // The checks can fail: a wrong recorded type is reported.
    let wrong = read(&root, "ops/programs/std.txt").replace(
        "(tensor<3x4xf32>) -> tensor<3xf32>",
        "(tensor<3x4xf32>) -> tensor<3x1xf32>",
    );
    let report = types_report(&ctx, &wrong);
    assert_eq!(report.differences.len(), 1, "{report}");
}

/// A one-op `masked_fill` program on data of these types, its result recorded as `out`.
fn masked_fill_program(x: (&str, &str), mask: &str, value: &str, out: &str) -> String {
    let data = |n: usize, dtype: &str, shape: &str, ty: &str| {
        format!(
            "    (%{n}) = \"pd_op.data\" () {{dtype:{dtype},name:\"v{n}\",place:Place(undefined:0),\
             shape:[{shape}],stop_gradient:[true]}} : () -> {ty}\n"
        )
    };
    let dims = |ty: &str| {
        let inner = ty.trim_start_matches("tensor<").trim_end_matches('>');
        let mut parts: Vec<&str> = inner.split('x').collect();
        parts.pop();
        parts.join(",")
    };
    format!(
        "{{\n{}{}{}    (%3) = \"pd_op.masked_fill\" (%0, %1, %2) {{stop_gradient:[true]}} : \
         ({}, {mask}, {value}) -> {out}\n}}\n",
        data(0, x.1, &dims(x.0), x.0),
        data(1, "bool", &dims(mask), mask),
        data(2, x.1, &dims(value), value),
        x.0,
    )
}

#[test]
fn masked_fill_is_declared_as_paddle_3_3_1_has_it() {
    let ctx = context();
    // Broadcasting of x and mask (public PIR dumps; the cases need no reference files).
    let cases = [
        (
            ("tensor<1x-1x4xf32>", "float32"),
            "tensor<1x45640x1xb>",
            "tensor<f32>",
            "tensor<1x45640x4xf32>",
        ),
        (
            ("tensor<1x45640x4xf32>", "float32"),
            "tensor<1x-1x1xb>",
            "tensor<f32>",
            "tensor<1x45640x4xf32>",
        ),
        (
            ("tensor<5x126xi64>", "int64"),
            "tensor<5x126xb>",
            "tensor<i64>",
            "tensor<5x126xi64>",
        ),
    ];
    for (x, mask, value, out) in cases {
        let text = masked_fill_program(x, mask, value, out);
        reproduce(&ctx, &text, 4, &format!("masked_fill {x:?} {mask}"));
    }
    // A result recorded without the broadcast is reported, and shapes that do not broadcast
    // are refused.
    let text = masked_fill_program(
        ("tensor<1x-1x4xf32>", "float32"),
        "tensor<1x45640x1xb>",
        "tensor<f32>",
        "tensor<1x-1x4xf32>",
    );
    assert_eq!(types_report(&ctx, &text).differences.len(), 1);
    let text = masked_fill_program(
        ("tensor<2x3xf32>", "float32"),
        "tensor<4x3xb>",
        "tensor<f32>",
        "tensor<2x3xf32>",
    );
    let report = types_report(&ctx, &text);
    assert!(!report.is_clean(), "{report}");
    assert!(report.to_string().contains("cannot broadcast"), "{report}");

    let Some(root) = paddle_ref("masked_fill_is_declared_as_paddle_3_3_1_has_it") else {
        return;
    };
    reproduce(
        &ctx,
        &read(&root, "ops/programs/masked_fill_.txt"),
        4,
        "programs/masked_fill_.txt",
    );
    let manifest = json(&root, "ops/MANIFEST.json");
    let c = case(&manifest, "masked_fill_/0");
    for name in ["masked_fill", "masked_fill_"] {
        let s = schema(&ctx, name);
        assert_eq!(input_names(s), names(&c["input_names"]), "{name}");
        assert_eq!(output_names(s), names(&c["output_names"]), "{name}");
        assert!(s.attributes.is_empty(), "{name}");
        assert_eq!(s.runtime.infer_meta_func.as_ref(), c["infer_meta_func"]);
        assert_eq!(s.backward.as_deref(), Some("masked_fill_grad"));
        assert!(has_cpu_kernel(&root, &s.runtime.kernel_func), "{name}");
    }
    let inplace = &schema(&ctx, "masked_fill_").runtime.inplace;
    assert_eq!(
        inplace
            .iter()
            .map(|(o, i)| (o.as_ref(), i.as_ref()))
            .collect::<Vec<_>>(),
        [("out", "x")]
    );
    let program = json(&root, "ops/programs/masked_fill_.json");
    assert!(json_attrs(&program, "1.masked_fill_").is_empty());

    // The backward: masked_fill_grad(x, mask, value, out_grad) -> x_grad, value_grad.
    reproduce(
        &ctx,
        &read(&root, "ops/vjp/masked_fill_.txt"),
        10,
        "vjp/masked_fill_.txt",
    );
    let grad = schema(&ctx, "masked_fill_grad");
    assert_eq!(input_names(grad), ["x", "mask", "value", "out_grad"]);
    assert_eq!(output_names(grad), ["x_grad", "value_grad"]);
    assert!(has_cpu_kernel(&root, &grad.runtime.kernel_func));
}

/// masked_fill's backward entries are the snapshot's, unchanged: every class they make is
/// defined exactly as the snapshot's yaml defines it at run time.
#[test]
fn masked_fill_grad_is_the_snapshots() {
    let Some(yaml) = std::env::var_os("PIR_PADDLE_YAML").map(PathBuf::from) else {
        eprintln!(
            "NOTICE: PIR_PADDLE_YAML is not set; skipping masked_fill_grad_is_the_snapshots."
        );
        return;
    };
    let snapshot = pir_runtime::yaml_dialect::YamlDialect::load(
        &yaml,
        "pd_op",
        &op_defs::infer_meta::REGISTRY,
    )
    .and_then(pir_runtime::yaml_dialect::YamlDialect::complete)
    .expect("the snapshot loads");
    let ctx = context();
    for name in [
        "pd_op.masked_fill_grad",
        "pd_op.masked_fill_grad_",
        "pd_op.masked_fill_double_grad",
    ] {
        let ours = ctx.op_def(name).expect("declared in ops-yaml");
        let theirs = snapshot.op_def(name).expect("in the snapshot");
        // The schemas differ only in where they are written and their doc comment.
        let diff: Vec<String> = def_compare::differences(ours, theirs)
            .into_iter()
            .filter(|d| !d.starts_with(&format!("{name}: schema:")))
            .collect();
        assert!(diff.is_empty(), "{}", diff.join("\n"));
        let bare = |s: &OpSchema| {
            let mut s = s.clone();
            s.source = None;
            s.doc = "".into();
            format!("{s:?}")
        };
        assert_eq!(
            bare(ours.schema.unwrap()),
            bare(theirs.schema.unwrap()),
            "{name}"
        );
    }
}

/// The `(output, input)` in-place pairs of a schema.
fn inplace_pairs(s: &OpSchema) -> Vec<(&str, &str)> {
    s.runtime
        .inplace
        .iter()
        .map(|(o, i)| (o.as_ref(), i.as_ref()))
        .collect()
}

fn strs(list: &[impl AsRef<str>]) -> Vec<&str> {
    list.iter().map(AsRef::as_ref).collect()
}

/// Checks the schema of `name` against the MANIFEST.json records of `cases` (operand and
/// result names, infer-meta name) and the attributes of its first op in `programs/<prog>.json`.
fn check_against_manifest(
    root: &std::path::Path,
    ctx: &IrContext,
    name: &str,
    prog: &str,
    cases: &[&str],
) {
    let s = schema(ctx, name);
    let manifest = json(root, "ops/MANIFEST.json");
    for id in cases {
        let c = case(&manifest, id);
        assert_eq!(input_names(s), names(&c["input_names"]), "{name} {id}");
        assert_eq!(output_names(s), names(&c["output_names"]), "{name} {id}");
        assert_eq!(
            s.runtime.infer_meta_func.as_ref(),
            c["infer_meta_func"],
            "{name} {id}"
        );
    }
    let program = json(root, &format!("ops/programs/{prog}.json"));
    let attrs = json_attrs(&program, &format!("1.{prog}"));
    assert_eq!(schema_attrs(s), attrs, "{name}'s attributes");
    assert!(has_cpu_kernel(root, &s.runtime.kernel_func), "{name}");
}

/// Whether `ops/vjp/` holds a backward program of `op`.
fn has_vjp_program(root: &std::path::Path, op: &str) -> bool {
    root.join(format!("ops/vjp/{op}.txt")).exists()
        || json(root, "ops/vjp/MANIFEST.json")
            .to_string()
            .contains(&format!("pd_op.{op}\""))
}

#[test]
fn variance_is_declared_as_paddle_3_3_1_has_it() {
    let Some(root) = paddle_ref("variance_is_declared_as_paddle_3_3_1_has_it") else {
        return;
    };
    let ctx = context();
    // axis [1] on 3x4xf32 gives 3xf32; axis [0,2] kept on -1x4x5xf64 gives 1x4x1xf64.
    let text = read(&root, "ops/programs/variance.txt");
    reproduce(&ctx, &text, 4, "programs/variance.txt");
    let program = json(&root, "ops/programs/variance.json");
    assert_eq!(
        json_attrs(&program, "1.variance"),
        [("axis", "0.a_array of 0.a_i64"), ("keepdim", "0.a_bool")]
            .map(|(n, t)| (n.to_string(), t.to_string()))
    );
    check_against_manifest(
        &root,
        &ctx,
        "variance",
        "variance",
        &["variance/0", "variance/1"],
    );
    // No backward: no grad kernel is registered and no vjp program exists.
    let s = schema(&ctx, "variance");
    assert_eq!(s.backward, None);
    assert!(!has_cpu_kernel(&root, "variance_grad"));
    assert!(!has_vjp_program(&root, "variance"));
    assert!(
        has_vjp_program(&root, "std"),
        "the look-up finds an op that has one"
    );
    // The checks can fail: a result recorded without the reduction is reported.
    let wrong = text.replace(
        "(tensor<3x4xf32>) -> tensor<3xf32>",
        "(tensor<3x4xf32>) -> tensor<3x4xf32>",
    );
    assert_eq!(types_report(&ctx, &wrong).differences.len(), 1);
}

#[test]
fn all_reduce_and_reduce_are_declared_as_paddle_3_3_1_has_them() {
    let Some(root) = paddle_ref("all_reduce_and_reduce_are_declared_as_paddle_3_3_1_has_them")
    else {
        return;
    };
    let ctx = context();
    for (op, attrs, kernel_param) in [
        (
            "all_reduce",
            &["ring_id", "reduce_type"][..],
            &["x", "reduce_type"][..],
        ),
        (
            "reduce",
            &["ring_id", "root_id", "reduce_type"],
            &["x", "root_id", "reduce_type"],
        ),
    ] {
        // 4x3xf32 in, 4x3xf32 out.
        let text = read(&root, &format!("ops/programs/{op}.txt"));
        reproduce(&ctx, &text, 2, op);
        let program = json(&root, &format!("ops/programs/{op}.json"));
        let expected: Vec<(String, String)> = attrs
            .iter()
            .map(|n| (n.to_string(), "0.a_i32".to_string()))
            .collect();
        assert_eq!(json_attrs(&program, &format!("1.{op}")), expected, "{op}");
        check_against_manifest(&root, &ctx, op, op, &[&format!("{op}/0")]);
        // Both classes share the schema but for the in-place pair; the infer-meta takes x
        // alone and the kernel the attributes of its phi signature.
        for name in [op.to_string(), format!("{op}_")] {
            let s = schema(&ctx, &name);
            assert_eq!(strs(&s.runtime.infer_meta_param), ["x"], "{name}");
            assert_eq!(strs(&s.runtime.kernel_param), kernel_param, "{name}");
            assert_eq!(s.backward, None, "{name}");
        }
        assert_eq!(
            inplace_pairs(schema(&ctx, &format!("{op}_"))),
            [("out", "x")]
        );
        assert!(!has_vjp_program(&root, op), "{op}");
        // The in-place class verifies the same program.
        let inplace = text.replace(&format!("\"pd_op.{op}\""), &format!("\"pd_op.{op}_\""));
        reproduce(&ctx, &inplace, 2, &format!("{op}_"));
        // A result of another shape is reported.
        let wrong = text.replace(
            "(tensor<4x3xf32>) -> tensor<4x3xf32>",
            "(tensor<4x3xf32>) -> tensor<3x4xf32>",
        );
        assert_ne!(wrong, text);
        assert_eq!(types_report(&ctx, &wrong).differences.len(), 1, "{op}");
    }
}

#[test]
fn fused_bias_residual_layernorm_is_declared_as_paddle_3_3_1_has_it() {
    let Some(root) = paddle_ref("fused_bias_residual_layernorm_is_declared_as_paddle_3_3_1_has_it")
    else {
        return;
    };
    let ctx = context();
    let op = "fused_bias_residual_layernorm";
    // x 4x8xf32, no bias or residual, weight and bias 8xf32: out and residual_out 4x8xf32,
    // mean and variance 4xf32.
    let text = read(&root, &format!("ops/programs/{op}.txt"));
    reproduce(&ctx, &text, 4, op);
    let program = json(&root, &format!("ops/programs/{op}.json"));
    assert_eq!(
        json_attrs(&program, &format!("1.{op}")),
        [
            ("epsilon", "0.a_f32"),
            ("residual_alpha", "0.a_f32"),
            ("begin_norm_axis", "0.a_i32"),
            ("quant_scale", "0.a_f32"),
            ("quant_round_type", "0.a_i32"),
            ("quant_max_bound", "0.a_f32"),
            ("quant_min_bound", "0.a_f32"),
        ]
        .map(|(n, t)| (n.to_string(), t.to_string()))
    );
    check_against_manifest(&root, &ctx, op, op, &[&format!("{op}/0")]);
    let s = schema(&ctx, op);
    // The operands Paddle left null (`{"%": 0}` in the JSON) are optional ones.
    let ops = program["program"]["regions"][0]["blocks"][0]["ops"]
        .as_array()
        .unwrap();
    let fused = ops.iter().find(|o| o["#"] == format!("1.{op}")).unwrap();
    for (i, operand) in fused["I"].as_array().unwrap().iter().enumerate() {
        if operand["%"] == 0 {
            assert!(
                s.inputs[i].optional,
                "operand {i} is null in Paddle's program"
            );
        }
    }
    let optional: Vec<&str> = s
        .inputs
        .iter()
        .filter(|i| i.optional)
        .map(|i| i.name.as_ref())
        .collect();
    assert_eq!(optional, ["bias", "residual", "norm_weight", "norm_bias"]);
    assert!(s.outputs[1].optional && s.outputs.iter().filter(|o| o.optional).count() == 1);
    assert_eq!(strs(&s.runtime.kernel_key_dtype), ["x"]);
    assert_eq!(s.backward, None);
    assert!(!has_vjp_program(&root, op));
    // Wrong statistics are reported: mean recorded with x's dims.
    let wrong = text.replace(
        "tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>",
        "tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>",
    );
    assert_ne!(wrong, text);
    assert_eq!(types_report(&ctx, &wrong).differences.len(), 1);
}

#[path = "common/def_compare.rs"]
mod def_compare;
