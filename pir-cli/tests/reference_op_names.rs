//! Every op name in Paddle 3.3.1's reference outputs (`$PIR_PADDLE_REF`: printed programs,
//! PIR JSON, translated legacy programs, the backward programs, the MANIFEST files, pass and
//! lowering dumps) is an op `pir` knows, with the `pd_op` classes of Paddle's yaml
//! (`$PIR_PADDLE_YAML`) loaded at run time behind the compiled dialect, as `pir` does. Names
//! are read from the text form's quoted `"dialect.op"` tokens and from the JSON form's op tags
//! (`"#": "1.relu"`: dialect 0 builtin, 1 pd_op, 2 cf; `a_`/`t_` tags are attributes and types)
//! and strings. The ops that stay unknown are listed with the evidence of why.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Op names the reference uses that no definition the project has can be checked against.
const UNKNOWN: &[(&str, &str)] = &[(
    "pd_op.view_shape_grad",
    "3.3.1's backward of view_shape (ops/vjp/view_shape.txt: operands input and out_grad, \
     attribute dims, result input's type; kernel view_shape_grad in phi_kernels_cpu.json). The \
     snapshot's view_shape names it but its backward.yaml lacks it, and the indexed versions of \
     Paddle's backward.yaml (013ec81a) predate it: its infer-meta is not visible anywhere, and \
     the forward it belongs to differs from the snapshot's (ViewShapeInferMeta in 3.3.1)",
)];

const DIALECTS: [&str; 6] = [
    "pd_op",
    "builtin",
    "cf",
    "pd_kernel",
    "onednn_op",
    "custom_op",
];

/// `dialect.op` names quoted in `text` (`"pd_op.relu"`).
fn quoted_names(text: &str, found: &mut BTreeSet<String>) {
    for piece in text.split('"').skip(1).step_by(2) {
        if let Some((d, op)) = piece.split_once('.') {
            let op_chars = op.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if DIALECTS.contains(&d) && !op.is_empty() && op_chars {
                found.insert(piece.to_string());
            }
        }
    }
}

/// Op names in a Paddle JSON value: op tags and names quoted inside strings.
fn json_names(v: &serde_json::Value, found: &mut BTreeSet<String>) {
    use serde_json::Value::{Array, Object, String as Str};
    match v {
        Object(m) => {
            if let Some(Str(tag)) = m.get("#") {
                if let Some((d, op)) = tag.split_once('.') {
                    let dialect = match d {
                        "0" => Some("builtin"),
                        "1" => Some("pd_op"),
                        "2" => Some("cf"),
                        _ => None,
                    };
                    let attr_or_type = op.starts_with("a_") || op.starts_with("t_");
                    if let (Some(dialect), false) = (dialect, attr_or_type) {
                        found.insert(format!("{dialect}.{op}"));
                    }
                }
            }
            m.values().for_each(|x| json_names(x, found));
        }
        Array(a) => a.iter().for_each(|x| json_names(x, found)),
        // MANIFEST strings hold op names bare (`"pd_op.relu"`) or in printed lines.
        Str(s) => quoted_names(&format!("\"{s}\" {s}"), found),
        _ => {}
    }
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every op name in the reference, with one file that uses it.
fn reference_names(root: &Path) -> BTreeMap<String, PathBuf> {
    let mut all = Vec::new();
    files(root, &mut all);
    all.sort();
    let mut names = BTreeMap::new();
    for path in all {
        let mut found = BTreeSet::new();
        match path.extension().and_then(|e| e.to_str()) {
            Some("txt" | "md") => {
                quoted_names(&std::fs::read_to_string(&path).unwrap(), &mut found)
            }
            Some("json") => {
                let text = std::fs::read_to_string(&path).unwrap();
                let v: serde_json::Value = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                json_names(&v, &mut found);
            }
            _ => {}
        }
        for n in found {
            names.entry(n).or_insert_with(|| path.clone());
        }
    }
    names
}

#[test]
fn every_op_name_in_the_reference_is_known() {
    let (Some(yaml), Some(root)) = (
        std::env::var_os("PIR_PADDLE_YAML"),
        std::env::var_os("PIR_PADDLE_REF"),
    ) else {
        eprintln!("NOTICE: PIR_PADDLE_YAML or PIR_PADDLE_REF is not set; skipping the op names.");
        return;
    };
    let dialect = op_defs::yaml_dialect::load(Path::new(&yaml)).expect("the yaml folder loads");
    let ctx = pir_runtime::IrContext::new();
    op_defs::yaml_dialect::register(&ctx, &dialect).unwrap();
    let names = reference_names(Path::new(&root));
    assert!(names.len() > 800, "only {} op names found", names.len());
    // The readers see both forms: ops of the one-op programs, cf ops of control flow.
    for n in [
        "pd_op.relu",
        "pd_op.fused_bias_residual_layernorm",
        "cf.yield",
        "builtin.combine",
    ] {
        assert!(names.contains_key(n), "{n} not found");
    }
    let unknown: BTreeMap<&str, &PathBuf> = names
        .iter()
        .filter(|(n, _)| ctx.op_def(n).is_none())
        .map(|(n, p)| (n.as_str(), p))
        .collect();
    eprintln!(
        "{} op names in the reference, {} unknown: {:?}",
        names.len(),
        unknown.len(),
        unknown
    );
    let listed: BTreeSet<&str> = UNKNOWN.iter().map(|(n, _)| *n).collect();
    let found: BTreeSet<&str> = unknown.keys().copied().collect();
    assert_eq!(
        found, listed,
        "unknown op names differ from the listed ones"
    );
}

#[test]
fn names_are_read_from_both_forms() {
    let mut found = BTreeSet::new();
    quoted_names(
        r#"(%1) = "pd_op.relu" (%0) {name:"x.y"} : () -> tensor<f32> "pd_op.bad-name""#,
        &mut found,
    );
    let json: serde_json::Value = serde_json::from_str(
        r##"{"#": "1.tanh", "A": [{"#": "0.a_bool"}, {"#": "2.yield"}], "text": "\"pd_op.exp\" (%1)"}"##,
    )
    .unwrap();
    json_names(&json, &mut found);
    let found: Vec<&str> = found.iter().map(String::as_str).collect();
    assert_eq!(found, ["cf.yield", "pd_op.exp", "pd_op.relu", "pd_op.tanh"]);
}
