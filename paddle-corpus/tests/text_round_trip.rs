//! The parser against every program Paddle 3.3.1 printed in `paddle-ref`: each must read back
//! and print byte-identical (`print(parse(text)) == text`), or be pending because it uses an op
//! no dialect of this build defines yet (control flow, the kernel dialect, Paddle's hand-written
//! ops, ops of yaml files the generated dialect does not load); every pending file is listed
//! with the op and the reason. Where Paddle saved the same program as JSON (`ops/programs/`),
//! the parsed program must also equal the one `pir-json` reads from the JSON — the attribute
//! kinds the parser takes from the op definitions are the ones Paddle stored.
//!
//! The dialect is the one generated from Paddle's `ops.yaml` / `backward.yaml` (when built with
//! `PIR_PADDLE_YAML`), completed by the project's own `pd_op` ops it lacks (`add`, `matmul`, ...,
//! from Paddle's `static_ops.yaml`). Without `PIR_PADDLE_REF` / `PIR_PADDLE_YAML` the test
//! prints a notice and passes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use pir_runtime::op_support::attribute_fits;
use pir_runtime::parser::{self, ParseErrorKind};
use pir_runtime::pir_spec::AttrKind;
use pir_runtime::{AttrData, Attribute, IrContext, Program, TypeData};

use pir_paddle_corpus::context;

fn paddle_ref() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PIR_PADDLE_REF") {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("PIR_PADDLE_YAML").map(|p| PathBuf::from(p).join("../paddle-ref"))
}

fn files_in(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        panic!("{} is missing from the reference data", dir.display());
    };
    let mut v: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&keep))
        .collect();
    v.sort();
    v
}

/// Every Paddle print the issue lists.
fn reference_files(root: &Path) -> Vec<PathBuf> {
    let txt = |n: &str| n.ends_with(".txt");
    let translated = |n: &str| n.ends_with("_translated_pir.txt");
    let mut files = Vec::new();
    files.extend(files_in(&root.join("text"), txt));
    files.extend(files_in(&root.join("ops/programs"), txt));
    files.extend(files_in(&root.join("ops/vjp"), txt));
    files.extend(files_in(&root.join("programs/control_flow"), txt));
    files.extend(files_in(&root.join("programs/backward"), txt));
    files.extend(files_in(&root.join("programs/passes"), txt));
    files.extend(files_in(&root.join("legacy"), translated));
    files.extend(files_in(&root.join("programs/legacy"), translated));
    files.extend(files_in(&root.join("pir_json"), txt));
    files
}

/// Why op `name` is not in this build's dialects.
fn reason(name: &str, manual: &BTreeSet<String>, yaml: &BTreeMap<String, String>) -> String {
    let short = name.strip_prefix("pd_op.").unwrap_or(name);
    if name.ends_with("_kernel)") {
        "kernel dialect (phi/legacy kernel ops are not defined yet)".into()
    } else if name.starts_with("cf.") || ["if", "while", "pylayer"].contains(&short) {
        "control flow (pd_op.if / pd_op.while / pd_op.pylayer / cf ops are not defined yet)".into()
    } else if manual.contains(name) {
        "a hand-written Paddle op (manual_op.h / control_flow_op.h), not generated from yaml".into()
    } else if let Some(file) = yaml.get(short) {
        format!("defined in paddle-yaml/{file}, which the generated dialect does not load")
    } else {
        "not in the shared yaml snapshot nor a hand-written op (Paddle 3.3.1 has it, the snapshot \
         predates it)"
            .into()
    }
}

/// Why a print that does not parse is pending, and what it needs; `None` if it should parse.
///
/// - An op no dialect here defines: see [`reason`].
/// - A type no dialect here defines: the kernel dialect's `cpu_tensor<...>`, `undefined_tensor<...>`.
/// - An operand or result count that differs from the op's definition, for an op whose
///   snapshot yaml is known to differ from Paddle 3.3.1's: `op_info_dev*.json` list only the ops
///   whose yaml agrees with 3.3.1, so an op missing there with another arity in Paddle's own
///   print is evidence of the drift (3.3.1's `adam_` has a `moment2_max` input and an
///   `amsgrad` attribute the snapshot lacks).
fn pending_reason(
    e: &parser::ParseError,
    manual: &BTreeSet<String>,
    yaml: &BTreeMap<String, String>,
    agreeing: &BTreeSet<String>,
) -> Option<(String, String)> {
    let op = e.op.clone().unwrap_or_default();
    let op_name = op.trim_matches('`').to_string();
    match &e.kind {
        ParseErrorKind::UnknownOp { name } => Some((
            reason(name, manual, yaml),
            format!("first unknown op `{name}`"),
        )),
        ParseErrorKind::UnknownType { name } if name.ends_with("_tensor") => Some((
            "kernel dialect types (`cpu_tensor<...>`, `undefined_tensor<...>`) are not defined yet"
                .into(),
            format!("type `{name}` in op {op}"),
        )),
        ParseErrorKind::OperandCount {
            expected, found, ..
        }
        | ParseErrorKind::ResultCount {
            expected, found, ..
        } if !agreeing.contains(&op_name) => Some((
            "the snapshot's yaml of the op differs from Paddle 3.3.1's (the op is not in \
                 op_info_dev*.json, which lists the ops whose yaml agrees)"
                .into(),
            format!(
                "op {op}: {expected} in the snapshot's definition, {found} in Paddle's print ({e})"
            ),
        )),
        _ => None,
    }
}

/// The ops whose yaml in the snapshot agrees with Paddle 3.3.1 (`op_info_dev*.json`).
fn ops_agreeing_with_paddle(root: &Path) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for file in ["op_info_dev.json", "op_info_dev_more.json"] {
        let text = std::fs::read_to_string(root.join(file)).expect("op info reference");
        let v: serde_json::Value = serde_json::from_str(&text).expect("op info json");
        for e in v.as_array().expect("a list") {
            if let Some(n) = e["op_name"].as_str() {
                names.insert(n.to_string());
            }
        }
    }
    names
}

/// Ops defined by the yaml files the generated dialect does not load, by file.
fn unloaded_yaml_ops(yaml_dir: &Path) -> BTreeMap<String, String> {
    let mut ops = BTreeMap::new();
    for file in [
        "inconsistent/static_ops.yaml",
        "inconsistent/static_backward.yaml",
        "inconsistent/update_ops.yaml",
        "fused_backward.yaml",
        "sparse_ops.yaml",
        "sparse_backward.yaml",
    ] {
        let Ok(text) = std::fs::read_to_string(yaml_dir.join(file)) else {
            continue;
        };
        for line in text.lines() {
            let name = line
                .strip_prefix("- op :")
                .or_else(|| line.strip_prefix("- backward_op :"));
            if let Some(n) = name {
                let n = n.split('(').next().unwrap_or("").trim();
                ops.entry(n.to_string()).or_insert_with(|| file.to_string());
            }
        }
    }
    ops
}

fn manual_ops(root: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(root.join("op_info_manual.json")).expect("manual ops");
    let v: serde_json::Value = serde_json::from_str(&text).expect("manual ops json");
    v.as_array()
        .expect("a list")
        .iter()
        .filter_map(|e| e["op_name"].as_str().map(str::to_string))
        .collect()
}

/// The first line where `a` and `b` differ.
fn first_diff_line(a: &str, b: &str) -> String {
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}:\n  paddle: {x}\n  ours:   {y}", i + 1);
        }
    }
    format!(
        "lengths differ ({} vs {} lines, trailing newline {} vs {})",
        a.lines().count(),
        b.lines().count(),
        a.ends_with('\n'),
        b.ends_with('\n')
    )
}

#[test]
fn every_paddle_print_reads_back_byte_identical_or_is_pending() {
    let Some(root) = paddle_ref() else {
        eprintln!("notice: PIR_PADDLE_REF / PIR_PADDLE_YAML not set; skipping the round trip of Paddle's prints");
        return;
    };
    let yaml_dir = root.join("../paddle-yaml");
    let manual = manual_ops(&root);
    let yaml = unloaded_yaml_ops(&yaml_dir);
    let agreeing = ops_agreeing_with_paddle(&root);
    let ctx = context();
    let files = reference_files(&root);
    assert!(
        files.len() > 500,
        "found only {} reference prints",
        files.len()
    );

    let mut passed = 0;
    let mut failures = Vec::new();
    let mut pending: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for path in &files {
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(path).expect("reference print");
        match parser::parse_module(&ctx, &text) {
            Ok(parsed) => {
                let printed = parsed.to_string();
                if printed == text {
                    passed += 1;
                } else {
                    failures.push(format!(
                        "{rel}: prints differently, {}",
                        first_diff_line(&text, &printed)
                    ));
                }
            }
            Err(e) => match pending_reason(&e, &manual, &yaml, &agreeing) {
                Some((why, what)) => pending.entry(why).or_default().push((rel, what)),
                None => failures.push(format!("{rel}: {e}")),
            },
        }
    }
    let num_pending: usize = pending.values().map(Vec::len).sum();
    println!(
        "text round trip: {} files, {passed} byte-identical, {num_pending} pending, {} failed",
        files.len(),
        failures.len()
    );
    for (why, list) in &pending {
        println!("pending ({}): {why}", list.len());
        for (file, op) in list {
            println!("    {file}: {op}");
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} prints did not round-trip:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    assert_eq!(passed + num_pending, files.len());
}

/// Why attribute `parsed` (read from the print) may differ from `json` (what Paddle stored),
/// for an attribute the op's schema declares as `kind`; `None` if it may not. Both must print
/// the same in any case.
fn explained(
    ctx: &IrContext,
    kind: Option<AttrKind>,
    json: Attribute,
    parsed: Attribute,
) -> Option<&'static str> {
    if json.display(ctx).to_string() != parsed.display(ctx).to_string() {
        return None;
    }
    if same_kinds(ctx, json, parsed) {
        return Some("a float printed with 6 significant digits reads back rounded");
    }
    match kind {
        Some(AttrKind::Scalar) => Some("a Scalar's numeric kind is not printed"),
        // 3.3.1's repeat_interleave_with_tensor_index has an int64 `output_size` the
        // snapshot's yaml does not declare.
        None => Some("an attribute the snapshot's schema does not declare is read by its syntax"),
        Some(k)
            if !attribute_fits(ctx, k, json.data(ctx))
                && attribute_fits(ctx, k, parsed.data(ctx)) =>
        {
            Some("Paddle stored another kind than the snapshot's yaml declares (yaml drift)")
        }
        _ => None,
    }
}

/// Whether two attributes are of the same kinds, element by element.
fn same_kinds(ctx: &IrContext, a: Attribute, b: Attribute) -> bool {
    match (a.data(ctx), b.data(ctx)) {
        (AttrData::Array(x), AttrData::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same_kinds(ctx, *p, *q))
        }
        (x, y) => std::mem::discriminant(x) == std::mem::discriminant(y),
    }
}

/// Makes the parsed one-block program `parsed` agree with `json` where their difference is
/// explained (see [`explained`], and Paddle printing an unset output's dims as `0` while it
/// stores `[]`), counting each reason; leaves other differences for `first_difference`.
fn normalize(json: &Program, parsed: &mut Program, reasons: &mut BTreeMap<&'static str, usize>) {
    let ctx = json.ctx().clone();
    let pairs: Vec<_> = json
        .block_ops(json.block())
        .zip(parsed.block_ops(parsed.block()))
        .collect();
    for (x, y) in pairs {
        let (ox, oy) = (json.op(x), parsed.op(y));
        if ox.def() != oy.def() || ox.num_results() != oy.num_results() {
            return;
        }
        if ox.attributes() != oy.attributes() {
            let schema = ox.def().schema;
            let kind_of = |name: &str| {
                schema.and_then(|s| s.attributes.iter().find(|a| a.name == name).map(|a| a.kind))
            };
            let (ex, ey) = (ox.attribute_entries(), oy.attribute_entries());
            let all = ex.len() == ey.len()
                && ex.iter().zip(ey).all(|((n1, a1), (n2, a2))| {
                    n1 == n2
                        && (a1 == a2
                            || explained(&ctx, kind_of(n1), *a1, *a2)
                                .map(|r| *reasons.entry(r).or_default() += 1)
                                .is_some())
                });
            if all {
                let dict = ox.attributes();
                parsed.set_attributes(y, dict).expect("a live op");
            }
        }
        let results: Vec<_> = json.op(x).results().zip(parsed.op(y).results()).collect();
        for (v, w) in results {
            let (tv, tw) = (json.value_type(v), parsed.value_type(w));
            // Also inside a vector (`einsum`'s unset `inner_cache`, `vec[tensor<0xf32>,...]`).
            let unset_pair = |a: pir_runtime::Type, b: pir_runtime::Type| match (
                a.as_dense_tensor(&ctx),
                b.as_dense_tensor(&ctx),
            ) {
                (Some(a), Some(b)) => a.dims.is_empty() && b.dims[..] == [0] && a.dtype == b.dtype,
                _ => false,
            };
            let unset = match (tv, tw) {
                (Some(a), Some(b)) => match (a.data(&ctx), b.data(&ctx)) {
                    (TypeData::Vector(x), TypeData::Vector(y)) => {
                        x.len() == y.len()
                            && x.iter().zip(y.iter()).any(|(&p, &q)| unset_pair(p, q))
                            && x.iter()
                                .zip(y.iter())
                                .all(|(&p, &q)| p == q || unset_pair(p, q))
                    }
                    _ => unset_pair(a, b),
                },
                _ => false,
            };
            if unset {
                *reasons
                    .entry("Paddle prints an unset output's dims as `0x` but stores `[]`")
                    .or_default() += 1;
                parsed.set_value_type(w, tv);
            }
        }
    }
}

#[test]
fn parsed_one_op_programs_equal_the_same_programs_read_from_paddles_json() {
    let Some(root) = paddle_ref() else {
        eprintln!("notice: PIR_PADDLE_REF / PIR_PADDLE_YAML not set; skipping the comparison with Paddle's JSON");
        return;
    };
    let ctx = context();
    let dir = root.join("ops/programs");
    let mut compared = 0;
    let mut identical = 0;
    let mut reasons = BTreeMap::new();
    let mut failures = Vec::new();
    for txt in files_in(&dir, |n| n.ends_with(".txt")) {
        let json_path = txt.with_extension("json");
        let (Ok(text), Ok(json)) = (
            std::fs::read_to_string(&txt),
            std::fs::read_to_string(&json_path),
        ) else {
            continue;
        };
        let name = txt
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let (Ok(mut parsed), Ok(read)) = (
            parser::parse_program(&ctx, &text),
            pir_json::read_program(&ctx, &json),
        ) else {
            // Programs with ops this build does not define are pending in the round-trip test.
            continue;
        };
        compared += 1;
        if parser::first_difference(&read, &parsed).is_none() {
            identical += 1;
            continue;
        }
        normalize(&read, &mut parsed, &mut reasons);
        if let Some(d) = parser::first_difference(&read, &parsed) {
            failures.push(format!("{name}: {d}"));
        }
    }
    println!("compared {compared} parsed prints with their JSON: {identical} identical");
    for (why, n) in &reasons {
        println!("    {n} difference(s): {why}");
    }
    assert!(compared > 200, "only {compared} programs were compared");
    assert!(
        failures.is_empty(),
        "{} parsed programs differ from their JSON:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
