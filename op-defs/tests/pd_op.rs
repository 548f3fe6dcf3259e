//! The generated `pd_op` dialect against its yaml and against real PaddlePaddle 3.3.1.
//!
//! * every op of `ops-yaml/` registers, and the op set is exactly the expected one;
//! * the yaml also loads at run time through `pir_spec::yaml::load_op_set` (what the CLI does)
//!   and gives the same GetOpInfo as the compiled dialect;
//! * GetOpInfo of every op Paddle's reference lists (`paddle-ref/op_info_dev.json`) matches it
//!   field by field (inputs, attributes, outputs, runtime info), traits and interfaces too up to
//!   the documented differences;
//! * every `pd_op` op printed in Paddle's reference programs is defined, with the same operand,
//!   result and attribute lists.
//!
//! The reference data is read from `$PIR_PADDLE_REF` (the `paddle-ref` directory or
//! `op_info_dev.json` itself) or `$PIR_PADDLE_YAML/../paddle-ref`; without either the tests that
//! need it print a notice and pass.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use op_defs::pd_op::{self, PdOpDialect, PdOpYamlDialect};
use pir_runtime::interfaces::OpYamlInfo;
use pir_runtime::{Dialect, IrContext, OpDef};
use pir_spec::yaml::{load_op_set, YamlSource};
use pir_spec::{OpInfoTuple, OpKind, OpSchema};
use serde_json::Value;

/// Every class the dialect must contain: the required forward ops, their in-place twins and
/// extra-kernel classes, the backward ops (with their own twins) Paddle 3.3.1 defines, and the
/// ops Paddle writes by hand (`op_defs::manual`).
const EXPECTED: &[&str] = &[
    "adam_",
    "adam_dense_param_sparse_grad_",
    "adamw_",
    "add",
    "add_",
    "add_double_grad",
    "add_double_grad_",
    "add_grad",
    "add_grad_",
    "add_n",
    "add_n_",
    "add_n_array",
    "add_triple_grad",
    "add_triple_grad_",
    "argmax",
    "array_length",
    "array_pop",
    "array_read",
    "array_to_tensor",
    "array_write_",
    "assert",
    "assign",
    "assign_",
    "assign_array",
    "assign_array_",
    "assign_grad",
    "assign_out_",
    "batch_norm",
    "batch_norm_",
    "batch_norm_double_grad",
    "batch_norm_double_grad_",
    "batch_norm_grad",
    "cast",
    "cast_",
    "cast_grad",
    "concat",
    "concat_double_grad",
    "concat_grad",
    "conv2d",
    "conv2d_grad",
    "conv2d_grad_grad",
    "create_array",
    "create_array_like",
    "cross_entropy_with_softmax",
    "cross_entropy_with_softmax_",
    "cross_entropy_with_softmax_grad",
    "cross_entropy_with_softmax_grad_",
    "data",
    "divide",
    "divide_",
    "divide_double_grad",
    "divide_double_grad_",
    "divide_grad",
    "dropout",
    "dropout_",
    "dropout_grad",
    "embedding",
    "embedding_grad",
    "embedding_sparse_grad",
    "expand",
    "feed",
    "fetch",
    "flatten",
    "flatten_",
    "flatten_grad",
    "flatten_grad_",
    "full",
    "full_int_array",
    "full_like",
    "fused_gemm_epilogue",
    "fused_gemm_epilogue_grad",
    "gather",
    "gather_double_grad",
    "gather_grad",
    "gaussian",
    "gelu",
    "gelu_grad",
    "greater_than",
    "greater_than_",
    "increment",
    "increment_",
    "layer_norm",
    "layer_norm_grad",
    "less_than",
    "less_than_",
    "matmul",
    "matmul_double_grad",
    "matmul_grad",
    "matmul_triple_grad",
    "max",
    "max_grad",
    "mean",
    "mean_double_grad",
    "mean_grad",
    "memcpy_d2h_multi_io",
    "meshgrid",
    "meshgrid_grad",
    "momentum_",
    "momentum_dense_param_sparse_grad_",
    "multiply",
    "multiply_",
    "multiply_double_grad",
    "multiply_double_grad_",
    "multiply_grad",
    "multiply_sr",
    "multiply_sr_",
    "multiply_triple_grad",
    "pool2d",
    "pool2d_double_grad",
    "pool2d_grad",
    "relu",
    "relu_",
    "relu_double_grad",
    "relu_double_grad_",
    "relu_grad",
    "relu_grad_",
    "reshape",
    "reshape_",
    "reshape_double_grad",
    "reshape_double_grad_",
    "reshape_grad",
    "reshape_grad_",
    "scale",
    "scale_",
    "scale_grad",
    "scale_sr",
    "scale_sr_",
    "sgd_",
    "sgd_dense_param_sparse_grad_",
    "sgd_sparse_param_sparse_grad_",
    "shape_broadcast",
    "sigmoid",
    "sigmoid_",
    "sigmoid_double_grad",
    "sigmoid_double_grad_",
    "sigmoid_grad",
    "sigmoid_grad_",
    "sigmoid_triple_grad",
    "sigmoid_triple_grad_",
    "slice",
    "slice_array",
    "slice_array_dense",
    "slice_double_grad",
    "slice_grad",
    "softmax",
    "softmax_",
    "softmax_grad",
    "sparse_weight_embedding",
    "sparse_weight_embedding_grad",
    "sparse_weight_embedding_sparse_grad",
    "split",
    "split_grad",
    "split_with_num",
    "split_with_num_grad",
    "squeeze",
    "squeeze_",
    "squeeze_double_grad",
    "squeeze_grad",
    "squeeze_grad_",
    "stack",
    "stack_double_grad",
    "stack_grad",
    "subtract",
    "subtract_",
    "subtract_double_grad",
    "subtract_double_grad_",
    "subtract_grad",
    "subtract_grad_",
    "sum",
    "sum_double_grad",
    "sum_grad",
    "tanh",
    "exp",
    "exp_",
    "sqrt",
    "sqrt_",
    "tanh_",
    "tanh_double_grad",
    "tanh_double_grad_",
    "tanh_grad",
    "exp_grad",
    "exp_grad_",
    "sqrt_grad",
    "sqrt_grad_",
    "sqrt_double_grad",
    "sqrt_double_grad_",
    "tanh_grad_",
    "tanh_triple_grad",
    "tanh_triple_grad_",
    "tensor_to_array",
    "transpose",
    "transpose_",
    "transpose_double_grad",
    "transpose_grad",
    "unbind",
    "unbind_grad",
    "uniform",
    "unsqueeze",
    "unsqueeze_",
    "unsqueeze_double_grad",
    "unsqueeze_grad",
    "unsqueeze_grad_",
    "where",
    "where_",
    "where_double_grad",
    "where_grad",
    // Ops Paddle 3.3.1 defines that the shared yaml snapshot lacks (or lacks their in-place
    // class), as `pir_autodiff`'s one-op backward programs use them.
    "all_reduce",
    "all_reduce_",
    "baddbmm",
    "baddbmm_",
    "baddbmm_grad",
    "c_identity",
    "c_identity_",
    "c_softmax_with_cross_entropy",
    "c_softmax_with_cross_entropy_grad",
    "c_softmax_with_cross_entropy_grad_",
    "fused_bias_residual_layernorm",
    "masked_fill",
    "masked_fill_",
    "masked_fill_grad",
    "masked_fill_grad_",
    "masked_fill_double_grad",
    "mp_allreduce_sum",
    "mp_allreduce_sum_",
    "mp_allreduce_sum_grad",
    "nansum",
    "nansum_grad",
    "reduce",
    "reduce_",
    "shape64",
    "shape64_sr",
    "square",
    "square_",
    "square_sr",
    "square_sr_",
    "square_grad",
    "square_grad_",
    "square_double_grad",
    "square_double_grad_",
    "std",
    "std_grad",
    "variance",
];

/// Trait/interface differences from the reference, each explained (`+` ours only, `-` the
/// reference only). GetOpInfo itself has no documented difference for reference ops.
const KNOWN_TRAIT_DIFFS: &[(&str, &str, &str)] = &[];

fn op_defs() -> &'static [&'static OpDef] {
    <PdOpDialect as Dialect>::op_defs()
}

fn schema(def: &OpDef) -> &'static OpSchema {
    def.schema.expect("generated ops carry their schema")
}

fn op_info(def: &OpDef) -> OpInfoTuple {
    def.interface::<OpYamlInfo>()
        .unwrap_or_else(|| panic!("{} has no OpYamlInfoInterface", def.name))
        .get_op_info()
}

/// GetOpInfo in the reference JSON's shape.
fn info_json(t: &OpInfoTuple) -> Value {
    let mut v = serde_json::to_value(t).expect("a GetOpInfo tuple serialises");
    // op_info_dev.json keys its entries by op name: the names are not part of an entry.
    if let Some(m) = v.as_object_mut() {
        m.remove("op_name");
        m.remove("origin_name");
    }
    v
}

/// The `paddle-ref` directory, from `$PIR_PADDLE_REF` or `$PIR_PADDLE_YAML/../paddle-ref`.
fn paddle_ref_dir(what: &str) -> Option<PathBuf> {
    let dir = match (
        std::env::var_os("PIR_PADDLE_REF"),
        std::env::var_os("PIR_PADDLE_YAML"),
    ) {
        (Some(r), _) => {
            let r = PathBuf::from(r);
            if r.extension().is_some_and(|e| e == "json") {
                r.parent().map(Path::to_path_buf).unwrap_or_default()
            } else {
                r
            }
        }
        (None, Some(y)) => PathBuf::from(y).join("..").join("paddle-ref"),
        (None, None) => {
            eprintln!(
                "NOTICE: neither PIR_PADDLE_REF nor PIR_PADDLE_YAML is set; skipping {what}. \
                 Set PIR_PADDLE_REF to the paddle-ref directory (../shared/paddle-ref) to run it."
            );
            return None;
        }
    };
    if !dir.join("op_info_dev.json").is_file() {
        eprintln!(
            "NOTICE: {} has no op_info_dev.json; skipping {what}.",
            dir.display()
        );
        return None;
    }
    Some(dir)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn names(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn every_op_registers_and_the_op_set_is_the_expected_one() {
    let ctx = IrContext::new();
    pd_op::register(&ctx).expect("the pd_op dialect registers");
    let defs = op_defs();
    for def in defs {
        let got = ctx
            .op_def(def.name)
            .unwrap_or_else(|| panic!("{} is not registered", def.name));
        assert!(
            std::ptr::eq(got, *def),
            "{} registered twice differently",
            def.name
        );
        assert_eq!(def.dialect, "pd_op");
        assert_eq!(schema(def).name, def.name);
    }
    // Registering again is a no-op.
    pd_op::register(&ctx).expect("registering twice is a no-op");

    let ours: BTreeSet<&str> = defs
        .iter()
        .map(|d| d.name.strip_prefix("pd_op.").unwrap_or(d.name))
        .collect();
    assert_eq!(ours.len(), defs.len(), "op names are unique");
    let expected: BTreeSet<&str> = EXPECTED.iter().copied().collect();
    let missing: Vec<_> = expected.difference(&ours).collect();
    let extra: Vec<_> = ours.difference(&expected).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:?}, unexpected {extra:?}"
    );

    // Counts by kind of class.
    let (mut fwd, mut bwd, mut twins, mut kernels) = (0, 0, 0, 0);
    for def in defs {
        let s = schema(def);
        let origin = s.origin_name.as_ref();
        let name = s.op_name.as_ref();
        if name == origin {
            match s.kind {
                OpKind::Forward => fwd += 1,
                OpKind::Backward => bwd += 1,
            }
        } else if name == format!("{origin}_") {
            twins += 1;
        } else {
            kernels += 1;
        }
    }
    println!(
        "pd_op: {} ops registered = {fwd} forward + {bwd} backward yaml entries, {twins} in-place \
         twins, {kernels} extra-kernel classes",
        defs.len()
    );
    assert_eq!(fwd + bwd + twins + kernels, defs.len());

    // Typed builds need the named infer-meta function (op_defs::infer_meta); report the gaps.
    let needed: BTreeSet<&str> = defs
        .iter()
        .map(|d| schema(d).runtime.infer_meta_func.as_ref())
        .filter(|f| !f.is_empty())
        .collect();
    let missing: Vec<&str> = needed
        .iter()
        .copied()
        .filter(|f| op_defs::infer_meta::REGISTRY.get(f).is_none())
        .collect();
    println!(
        "infer-meta: {} functions named, {} not in op_defs::infer_meta::REGISTRY yet: {missing:?}",
        needed.len(),
        missing.len()
    );
}

#[test]
fn yaml_loads_at_run_time_like_the_compiled_dialect() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ops-yaml");
    let ops = read(&dir.join("ops.yaml"));
    let backward = read(&dir.join("backward.yaml"));
    let compat = read(&dir.join("op_compat.yaml"));
    let set = load_op_set(
        "pd_op",
        &[
            YamlSource {
                path: "ops.yaml",
                text: &ops,
            },
            YamlSource {
                path: "backward.yaml",
                text: &backward,
            },
        ],
        Some(YamlSource {
            path: "op_compat.yaml",
            text: &compat,
        }),
    )
    .unwrap_or_else(|e| panic!("ops-yaml/ must load without errors:\n{e}"));
    // The hand-written ops are not in the yaml; the generated ones are exactly the yaml's.
    let generated = PdOpYamlDialect::op_defs();
    assert_eq!(set.len(), generated.len());
    for def in op_defs::manual::OPS {
        assert!(
            set.get(def.name).is_none(),
            "ops-yaml/ makes a class {}",
            def.name
        );
    }
    for def in generated {
        let loaded = set
            .get(def.name)
            .unwrap_or_else(|| panic!("{} is not in the run-time op set", def.name));
        assert_eq!(
            loaded.op_info_tuple(),
            op_info(def),
            "{}: GetOpInfo differs",
            def.name
        );
        assert_eq!(loaded.traits, schema(def).traits, "{}", def.name);
        assert_eq!(loaded.interfaces, schema(def).interfaces, "{}", def.name);
    }
    // The legacy names the translator needs.
    for (legacy, op) in [
        ("elementwise_add", "add"),
        ("elementwise_add_grad", "add_grad"),
        ("reshape2", "reshape"),
        ("reshape2_grad", "reshape_grad"),
        ("flatten_contiguous_range", "flatten"),
        ("reduce_mean", "mean"),
        ("reduce_mean_grad", "mean_grad"),
        ("softmax_with_cross_entropy", "cross_entropy_with_softmax"),
        (
            "softmax_with_cross_entropy_grad",
            "cross_entropy_with_softmax_grad",
        ),
        ("fill_constant", "full"),
        ("gaussian_random", "gaussian"),
        ("uniform_random", "uniform"),
        ("unsqueeze2", "unsqueeze"),
        ("sgd", "sgd_"),
        ("matmul_v2", "matmul"),
        ("batch_norm", "batch_norm"),
        ("conv2d_grad", "conv2d_grad"),
    ] {
        let classes: Vec<&str> = set
            .by_legacy_name(legacy)
            .iter()
            .map(|o| o.op_name.as_ref())
            .collect();
        assert!(
            classes.contains(&op),
            "legacy {legacy} maps to {classes:?}, expected {op}"
        );
    }
}

#[test]
fn get_op_info_matches_paddle_3_3_1() {
    let Some(dir) = paddle_ref_dir("the GetOpInfo comparison with Paddle 3.3.1") else {
        return;
    };
    let reference: Value = serde_json::from_str(&read(&dir.join("op_info_dev.json")))
        .expect("op_info_dev.json is JSON");
    let by_name: BTreeMap<&str, &Value> = reference
        .as_array()
        .expect("the reference is a list")
        .iter()
        .map(|e| (e["op_name"].as_str().expect("op_name"), e))
        .collect();

    let fields = ["inputs", "attributes", "outputs", "runtime_info"];
    let mut compared = 0usize;
    let mut field_ok = [0usize; 4];
    let mut mismatches = Vec::new();
    let mut absent = Vec::new();
    let mut ti_exact = 0usize;
    let mut ti_unexplained = Vec::new();
    for def in op_defs() {
        let Some(r) = by_name.get(def.name) else {
            absent.push(def.name.strip_prefix("pd_op.").unwrap_or(def.name));
            continue;
        };
        compared += 1;
        let ours = info_json(&op_info(def));
        for (i, f) in fields.iter().enumerate() {
            if ours[*f] == r[*f] {
                field_ok[i] += 1;
            } else {
                mismatches.push(format!(
                    "{}: {f} differs\n    ours: {}\n    ref : {}",
                    def.name, ours[*f], r[*f]
                ));
            }
        }
        // The reference reads traits and interfaces from Paddle's generated header, which has
        // no hand-written class: it lists none for them, which says nothing about the class.
        if op_defs::manual::OPS.iter().any(|m| std::ptr::eq(*m, *def)) {
            continue;
        }
        let s = schema(def);
        let our_t: BTreeSet<String> = s.traits.iter().map(|t| t.to_string()).collect();
        let our_i: BTreeSet<String> = s.interfaces.iter().map(|t| t.to_string()).collect();
        let (ref_t, ref_i) = (names(&r["traits"]), names(&r["interfaces"]));
        let short = def.name.strip_prefix("pd_op.").unwrap_or(def.name);
        let mut deltas = Vec::new();
        for x in our_t.difference(&ref_t).chain(our_i.difference(&ref_i)) {
            deltas.push(format!("+{x}"));
        }
        for x in ref_t.difference(&our_t).chain(ref_i.difference(&our_i)) {
            deltas.push(format!("-{x}"));
        }
        if deltas.is_empty() {
            ti_exact += 1;
        }
        for d in deltas {
            if !KNOWN_TRAIT_DIFFS
                .iter()
                .any(|(op, delta, _)| *op == short && *delta == d)
            {
                ti_unexplained.push(format!("{short} {d}"));
            }
        }
    }

    println!(
        "GetOpInfo vs Paddle 3.3.1 (op_info_dev.json): {compared} of our {} ops are in the \
         reference; {} match in all four fields",
        op_defs().len(),
        compared
            - mismatches
                .iter()
                .map(|m| m.split(':').next())
                .collect::<BTreeSet<_>>()
                .len()
    );
    for (f, n) in fields.iter().zip(field_ok) {
        println!("    {f}: {n}/{compared}");
    }
    println!("  traits + interfaces: {ti_exact}/{compared} identical");
    for (op, delta, why) in KNOWN_TRAIT_DIFFS {
        println!("    known: {op} {delta}: {why}");
    }
    println!(
        "  {} of our ops are absent from the reference (checked against the printed programs \
         and Paddle 3.3.1 itself instead): {}",
        absent.len(),
        absent.join(" ")
    );
    for m in &mismatches {
        println!("  MISMATCH {m}");
    }
    for t in &ti_unexplained {
        println!("  TRAITS/INTERFACES {t}");
    }
    assert!(
        mismatches.is_empty(),
        "{} GetOpInfo field mismatches",
        mismatches.len()
    );
    assert!(
        ti_unexplained.is_empty(),
        "unexplained trait/interface differences"
    );
    assert!(compared > 0, "no op compared: wrong reference file?");
}

/// One op line of a printed program.
struct PrintedOp {
    name: String,
    results: usize,
    operands: usize,
    attrs: Vec<String>,
}

/// Splits `s` at top-level `sep`, outside brackets and double quotes.
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quoted, mut start) = (0i32, false, 0usize);
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if quoted {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => quoted = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            '[' | '(' | '{' | '<' => depth += 1,
            ']' | ')' | '}' | '>' => depth -= 1,
            _ if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out.into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// The text between the bracket at `open` and its match (quotes respected).
fn bracketed(s: &str, open: usize) -> Option<&str> {
    let bytes = s.as_bytes();
    let (o, c) = (bytes[open], if bytes[open] == b'(' { b')' } else { b'}' });
    let (mut depth, mut quoted) = (0i32, false);
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        if quoted {
            if b == b'"' && bytes[i - 1] != b'\\' {
                quoted = false;
            }
            continue;
        }
        if b == b'"' {
            quoted = true;
        } else if b == o {
            depth += 1;
        } else if b == c {
            depth -= 1;
            if depth == 0 {
                return Some(&s[open + 1..i]);
            }
        }
    }
    None
}

/// Parses `(RESULTS) = "pd_op.NAME" (OPERANDS) {ATTRS} : ...`.
fn parse_printed(line: &str) -> Option<PrintedOp> {
    let line = line.trim_start();
    if !line.starts_with('(') {
        return None;
    }
    let results = bracketed(line, 0)?;
    let rest = line[results.len() + 2..].strip_prefix(" = \"")?;
    let (name, rest) = rest.split_once('"')?;
    let name = name.strip_prefix("pd_op.")?.to_string();
    let rest = rest.strip_prefix(' ')?;
    let operands = bracketed(rest, 0)?;
    let after = rest[operands.len() + 2..].trim_start();
    let attrs = if after.starts_with('{') {
        bracketed(after, 0)?
    } else {
        ""
    };
    Some(PrintedOp {
        name,
        results: split_top(results, ',').len(),
        operands: split_top(operands, ',').len(),
        attrs: split_top(attrs, ',')
            .into_iter()
            .map(|kv| kv.split(':').next().unwrap_or(kv).to_string())
            .collect(),
    })
}

/// Attributes every op may carry in a printed program besides its own.
const PROGRAM_ATTRS: &[&str] = &["stop_gradient", "persistable", "struct_name"];
/// Legacy attributes the ProgramTranslator copies onto some translated ops.
const TRANSLATOR_ATTRS: &[(&str, &[&str])] =
    &[("split", &["mkldnn_data_type", "onednn_data_type"])];
/// Control flow has its own printers and is not part of this dialect.
const CONTROL_FLOW: &[&str] = &["if", "while"];

#[test]
fn printed_reference_programs_use_our_ops_with_the_same_signatures() {
    let Some(dir) = paddle_ref_dir("the check against Paddle's printed programs") else {
        return;
    };
    let mut files = Vec::new();
    for (sub, suffix) in [
        ("text", ".txt"),
        ("legacy", "_translated_pir.txt"),
        ("pir_json", "_pir.txt"),
    ] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(suffix))
            {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(
        !files.is_empty(),
        "no printed programs under {}",
        dir.display()
    );

    let infos: BTreeMap<&str, OpInfoTuple> = op_defs()
        .iter()
        .map(|d| (d.name.strip_prefix("pd_op.").unwrap_or(d.name), op_info(d)))
        .collect();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    for file in &files {
        let text = read(file);
        for (n, line) in text.lines().enumerate() {
            if !line.contains("\"pd_op.") {
                continue;
            }
            let at = format!("{}:{}", file.display(), n + 1);
            let printed_name = line
                .split_once("\"pd_op.")
                .and_then(|(_, r)| r.split_once('"'))
                .map_or("", |(name, _)| name);
            if CONTROL_FLOW.contains(&printed_name) {
                continue;
            }
            let Some(op) = parse_printed(line) else {
                problems.push(format!("{at}: cannot parse `{}`", line.trim()));
                continue;
            };
            *seen.entry(op.name.clone()).or_default() += 1;
            let Some(info) = infos.get(op.name.as_str()) else {
                problems.push(format!("{at}: pd_op.{} is not defined", op.name));
                continue;
            };
            if op.operands != info.inputs.len() {
                problems.push(format!(
                    "{at}: pd_op.{} printed with {} operands, ours has {} inputs",
                    op.name,
                    op.operands,
                    info.inputs.len()
                ));
            }
            if op.results != info.outputs.len() {
                problems.push(format!(
                    "{at}: pd_op.{} printed with {} results, ours has {} outputs",
                    op.name,
                    op.results,
                    info.outputs.len()
                ));
            }
            let extra: &[&str] = TRANSLATOR_ATTRS
                .iter()
                .find(|(o, _)| *o == op.name)
                .map_or(&[], |(_, a)| a);
            let printed: BTreeSet<&str> = op
                .attrs
                .iter()
                .map(String::as_str)
                .filter(|a| !PROGRAM_ATTRS.contains(a) && !extra.contains(a))
                .collect();
            let ours: BTreeSet<&str> = info.attributes.iter().map(|a| a.name.as_str()).collect();
            if printed != ours {
                problems.push(format!(
                    "{at}: pd_op.{} printed attributes {printed:?}, ours {ours:?}",
                    op.name
                ));
            }
        }
    }
    println!(
        "{} pd_op ops in {} printed programs ({} lines) checked: {}",
        seen.len(),
        files.len(),
        seen.values().sum::<usize>(),
        seen.keys().cloned().collect::<Vec<_>>().join(" ")
    );
    for p in &problems {
        println!("  {p}");
    }
    assert!(
        problems.is_empty(),
        "{} problems (shown above)",
        problems.len()
    );
}

#[test]
fn typed_builds_print_like_paddle() {
    use op_defs::pd_op::{DataOp, DataOpAttrs, ReluOp, TanhOp};
    use pir_runtime::phi::{DataType, Place};
    use pir_runtime::{verify, Builder, Program};

    let ctx = std::sync::Arc::new(IrContext::new());
    pd_op::register(&ctx).unwrap();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let attrs = DataOpAttrs::new("x", &[-1, 3, 224, 224], DataType::Float32, Place::default());
    let x = DataOp::build(&mut b, attrs).expect("data builds (DataInferMeta)");
    let xv = x.out(b.program());
    let relu = ReluOp::build(&mut b, xv).expect("relu builds (UnchangedInferMeta)");
    let rv = relu.out(b.program());
    let tanh = TanhOp::build(&mut b, rv).expect("tanh builds");
    // The Python API marks every value it creates `stop_gradient`.
    let sg = ctx.array_attr(&[ctx.bool_attr(true)]);
    for op in [x.op(), relu.op(), tanh.op()] {
        prog.set_attribute(op, "stop_gradient", sg).unwrap();
    }
    verify(&prog).unwrap();
    let text = prog.to_string();
    assert!(text.contains("\"pd_op.relu\" (%0)"), "{text}");

    // Byte for byte what Paddle 3.3.1 prints for the same program.
    let Some(dir) = paddle_ref_dir("the comparison with tiny_3op_pir.txt") else {
        return;
    };
    assert_eq!(text, read(&dir.join("text").join("tiny_3op_pir.txt")));
    assert_eq!(ReluOp::NAME, "pd_op.relu");
}
