//! Shared by the conformance tests: where the reference is, the documented differences between
//! the shared yaml snapshot and the yaml Paddle 3.3.1 was generated from, and the field-by-field
//! comparison with `op_info_dev.json`.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pir_spec::yaml::paddle;
use pir_spec::OpSchema;
use serde_json::Value;

/// Entries whose yaml in the snapshot differs from the yaml Paddle 3.3.1 was generated from,
/// with the difference (the reference value is what 3.3.1 reports). Checked below: each of
/// these really differs, and nothing else does.
pub const YAML_DRIFT: &[(&str, &str)] = &[
    ("bicubic_interp_grad", "`float[] scale` in the snapshot; 3.3.1 has `double[] scale` (ArrayAttribute<DoubleAttribute>)"),
    ("bilinear_interp_grad", "`float[] scale` in the snapshot; 3.3.1 has `double[] scale`"),
    ("nearest_interp", "`float[] scale` in the snapshot; 3.3.1 has `double[] scale`"),
    ("nearest_interp_grad", "`float[] scale` in the snapshot; 3.3.1 has `double[] scale`"),
    ("c_concat", "the snapshot's c_concat has no `backward :` (c_concat_grad names it as forward but is not claimed), so x has no grad semantic; 3.3.1 declares the backward"),
    ("det", "`infer_meta.func : UnchangedInferMeta` in the snapshot; 3.3.1 uses DetInferMeta"),
    ("gather_grad", "the snapshot's gather_grad has no backward op (composite only); 3.3.1's has one, which makes out_grad grad-semantic"),
    ("group_norm", "`float epsilon` in the snapshot; 3.3.1 has `double epsilon`"),
    ("histogram", "`int min, int max` in the snapshot; 3.3.1 has `float min, float max`"),
    ("index_elementwise_put_with_tensor_grad", "the snapshot has no `no_need_buffer : x, value` and no backward op; 3.3.1 has both"),
    ("kthvalue", "`int k` in the snapshot; 3.3.1 has `int64_t k`"),
    ("kthvalue_grad", "`int k` in the snapshot; 3.3.1 has `int64_t k`"),
    ("leaky_relu_", "`float negative_slope` in the snapshot; 3.3.1 has `double negative_slope`"),
    ("lerp", "no `kernel.data_type` in the snapshot; 3.3.1 has `data_type : x`"),
    ("lerp_", "no `kernel.data_type` in the snapshot; 3.3.1 has `data_type : x`"),
    ("logit_", "`float eps` in the snapshot; 3.3.1 has `double eps`"),
    ("logit_grad", "`float eps` in the snapshot; 3.3.1 has `double eps`"),
    ("max", "`infer_meta.func : ReduceIntArrayAxisInferMeta` in the snapshot; 3.3.1 uses StrictReduceIntArrayAxisInferMeta"),
    ("pad3d", "`float pad_value` in the snapshot; 3.3.1 has `double pad_value`"),
    ("pad3d_grad", "`float pad_value` in the snapshot; 3.3.1 has `double pad_value`"),
    ("pool2d", "`int[] strides, int[] paddings` in the snapshot; 3.3.1 has `int64_t[]`"),
    ("pool3d", "`int[] kernel_size, strides, paddings` in the snapshot; 3.3.1 has `int64_t[]`"),
    ("softplus", "`float beta, float threshold` in the snapshot; 3.3.1 has `double`"),
    ("view_shape", "the snapshot uses StridedUnChangedInferMeta(input), `no_need_buffer : input` and a view_shape_grad it does not define; 3.3.1 uses ViewShapeInferMeta(input, dims) and defines the backward"),
];

/// Traits and interfaces Paddle's generator takes only from yaml `traits :` / `interfaces :`
/// (op_gen.py copies them verbatim and never adds them itself). A difference in one of these
/// is a difference between the snapshot's yaml and 3.3.1's: e.g. 3.3.1's ops.yaml gives `abs`
/// `traits: pir::UnaryElementWiseTrait` and `interfaces : ...,
/// paddle::dialect::LayoutTransformationInterface` (see PaddlePaddle/Paddle's 2025 ops.yaml,
/// mirrored at Manfredss/Paddle-MPS-Dev 0c0320f7), the snapshot only InferSymbolicShapeInterface.
pub const YAML_ONLY: &[&str] = &[
    "UnaryElementWiseTrait",
    "BinaryElementWiseTrait",
    "ForwardOnlyTrait",
    "SideEffectTrait",
    "LayoutTransformationInterface",
    "InferSymbolicShapeInterface",
    "ParseKernelKeyInterface",
];

/// Other trait/interface differences, each explained.
pub const KNOWN_TRAIT_DIFFS: &[(&str, &str, &str)] = &[
    // (op, "+Name" ours only / "-Name" reference only, reason)
    ("ones", "+InferMetaInterface", "op_infermeta_func_gen.py looks the invoked op (`full`) up in the same op_info_items chunk; 3.3.1 splits ops.yaml into op_cc_split_num chunks, and `full` is in another chunk, so Paddle omits the interface"),
    ("zeros", "+InferMetaInterface", "invoke of `full` in another op_cc_split_num chunk (see `ones`)"),
    ("zeros_like", "+InferMetaInterface", "invoke of `full_like` in another op_cc_split_num chunk (see `ones`)"),
    ("put_along_axis_grad", "+VjpInterface", "3.3.1's vjp_interface_black_list has put_along_axis_grad (its double grad is composite-only); the newest list available (08a9ca06) does not"),
    ("elu_grad", "-DecompVjpInterface", "3.3.1's decomp_vjp list has elu_grad; the newest available list (0ab6998c) does not"),
    ("index_add_grad", "-DecompVjpInterface", "3.3.1's decomp_vjp list has index_add_grad; the newest available list (0ab6998c) does not"),
    ("index_put_grad", "-DecompVjpInterface", "3.3.1's decomp_vjp list has index_put_grad; the newest available list (0ab6998c) does not"),
    ("c_concat", "-VjpInterface", "yaml drift: 3.3.1 declares `backward : c_concat_grad` (see YAML_DRIFT)"),
    ("gather_grad", "-VjpInterface", "yaml drift: 3.3.1's gather_grad has a backward op (see YAML_DRIFT)"),
    ("view_shape", "-CacheGradOpSymbolicShapeInterface", "yaml drift: 3.3.1 defines view_shape_grad (see YAML_DRIFT)"),
];

pub fn locate() -> Option<(PathBuf, PathBuf)> {
    let Ok(yaml) = std::env::var("PIR_PADDLE_YAML") else {
        eprintln!(
            "NOTICE: PIR_PADDLE_YAML is not set; skipping the Paddle conformance test. \
             Set it to the paddle-yaml directory (../shared/paddle-yaml) to run it."
        );
        return None;
    };
    let yaml = PathBuf::from(yaml);
    let reference = match std::env::var("PIR_PADDLE_REF") {
        Ok(r) => {
            let r = PathBuf::from(r);
            if r.extension().is_some_and(|e| e == "json") {
                r
            } else {
                r.join("op_info_dev.json")
            }
        }
        Err(_) => yaml.join("..").join("paddle-ref").join("op_info_dev.json"),
    };
    if !reference.exists() {
        eprintln!(
            "NOTICE: reference {} not found (set PIR_PADDLE_REF); skipping the Paddle conformance test.",
            reference.display()
        );
        return None;
    }
    Some((yaml, reference))
}

pub fn read(dir: &Path, name: &str) -> String {
    let p = dir.join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// Our GetOpInfo tuple in the reference JSON's shape.
pub fn info_json(op: &OpSchema) -> Value {
    let t = &op.op_info_tuple();
    let mut v = serde_json::to_value(t).expect("a GetOpInfo tuple serialises");
    // op_info_dev.json keys its entries by op name: the names are not part of an entry.
    if let Some(m) = v.as_object_mut() {
        m.remove("op_name");
        m.remove("origin_name");
    }
    v
}

/// One of our ops as the comparison sees it.
pub struct Ours {
    /// GetOpInfo in the reference's JSON shape ([`info_json`]).
    pub info: Value,
    /// Trait names.
    pub traits: BTreeSet<String>,
    /// Interface names.
    pub interfaces: BTreeSet<String>,
}

/// The reference files: `op_info_dev.json` (ops.yaml + backward.yaml classes) and, beside it,
/// `op_info_dev_more.json` (the classes of the six further generator files).
pub fn reference_files(dev: &Path) -> Vec<PathBuf> {
    let mut files = vec![dev.to_path_buf()];
    let more = dev.with_file_name("op_info_dev_more.json");
    if dev.file_name().is_some_and(|n| n == "op_info_dev.json") && more.exists() {
        files.push(more);
    } else {
        eprintln!(
            "NOTICE: {} not found; the classes of the further generator files are not checked",
            more.display()
        );
    }
    files
}

/// Compares every entry of the reference files with `lookup(full_name)`; panics with the
/// differences that are not documented above. Ops Paddle writes by hand
/// (`paddle::PD_MANUAL_OPS`) must not be generated: op-defs declares them.
pub fn check_against_paddle(label: &str, reference: &Path, lookup: impl Fn(&str) -> Option<Ours>) {
    let mut entries: Vec<Value> = Vec::new();
    for file in reference_files(reference) {
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
        let v: Value = serde_json::from_str(&text).expect("reference JSON");
        entries.extend(v.as_array().expect("reference is a list").iter().cloned());
    }
    let mut manual = 0usize;

    let fields = ["inputs", "attributes", "outputs", "runtime_info"];
    let mut info_ok = 0usize;
    let mut drift_seen = Vec::new();
    let mut unexpected = Vec::new();
    let mut ti_ok = 0usize;
    let mut ti_rules_ok = 0usize;
    let mut ti_explained: Vec<String> = Vec::new();
    let mut ti_unexplained: Vec<String> = Vec::new();
    let mut field_ok = [0usize; 4];

    for r in &entries {
        let full = r["op_name"].as_str().expect("op_name");
        let short = full.strip_prefix("pd_op.").unwrap_or(full);
        if paddle::PD_MANUAL_OPS.contains(&short) {
            if lookup(full).is_some() {
                unexpected.push(format!(
                    "{full}: Paddle writes it by hand (PD_MANUAL_OP_LIST); the yaml must not generate it"
                ));
            }
            manual += 1;
            continue;
        }
        let Some(op) = lookup(full) else {
            unexpected.push(format!("{full}: not generated"));
            continue;
        };

        // GetOpInfo, field by field.
        let ours = &op.info;
        let diff: Vec<&str> = fields
            .iter()
            .copied()
            .filter(|f| ours[*f] != r[*f])
            .collect();
        for (i, f) in fields.iter().enumerate() {
            if ours[*f] == r[*f] {
                field_ok[i] += 1;
            }
        }
        let drift = YAML_DRIFT.iter().find(|(n, _)| *n == short);
        match (diff.is_empty(), drift) {
            (true, None) => info_ok += 1,
            (true, Some(_)) => unexpected.push(format!(
                "{full}: listed in YAML_DRIFT but matches now; remove it from the list"
            )),
            (false, Some(_)) => drift_seen.push(short.to_string()),
            (false, None) => {
                let mut msg = format!("{full}: GetOpInfo differs in {diff:?}");
                for f in &diff {
                    msg.push_str(&format!(
                        "\n    {f} ours: {}\n    {f} ref : {}",
                        ours[*f], r[*f]
                    ));
                }
                unexpected.push(msg);
            }
        }

        // Traits and interfaces.
        let our_t = op.traits.clone();
        let our_i = op.interfaces.clone();
        let ref_t = names(&r["traits"]);
        let ref_i = names(&r["interfaces"]);
        if our_t == ref_t && our_i == ref_i {
            ti_ok += 1;
            ti_rules_ok += 1;
            continue;
        }
        // The same comparison without the names only yaml can declare: how well the
        // generator's own rules are reproduced.
        let rules = |v: &BTreeSet<String>| -> BTreeSet<String> {
            v.iter()
                .filter(|n| !YAML_ONLY.contains(&n.as_str()))
                .cloned()
                .collect()
        };
        if rules(&our_t) == rules(&ref_t) && rules(&our_i) == rules(&ref_i) {
            ti_rules_ok += 1;
        }
        let mut deltas: Vec<String> = Vec::new();
        for x in our_t.difference(&ref_t).chain(our_i.difference(&ref_i)) {
            deltas.push(format!("+{x}"));
        }
        for x in ref_t.difference(&our_t).chain(ref_i.difference(&our_i)) {
            deltas.push(format!("-{x}"));
        }
        let mut unexplained = Vec::new();
        for d in &deltas {
            let name = &d[1..];
            let ok = YAML_ONLY.contains(&name)
                || KNOWN_TRAIT_DIFFS
                    .iter()
                    .any(|(op, delta, _)| *op == short && delta == d);
            if !ok {
                unexplained.push(d.clone());
            }
        }
        if unexplained.is_empty() {
            ti_explained.push(format!("{short} {deltas:?}"));
        } else {
            ti_unexplained.push(format!(
                "{full}: unexplained {unexplained:?} (all: {deltas:?})"
            ));
        }
    }

    let total = entries.len();
    println!(
        "{label}: Paddle 3.3.1 conformance over {total} reference ops ({manual} hand-written in Paddle, checked in op-defs)"
    );
    println!(
        "  GetOpInfo: {info_ok}/{total} match exactly; {} documented yaml-drift entries differ as expected ({:.1}% of the rest match)",
        drift_seen.len(),
        100.0 * info_ok as f64 / (total - drift_seen.len()).max(1) as f64
    );
    for (f, n) in fields.iter().zip(field_ok) {
        println!("    {f}: {n}/{total}");
    }
    println!(
        "  traits + interfaces: {ti_ok}/{total} match exactly; {} differ for documented reasons, {} unexplained",
        ti_explained.len(),
        ti_unexplained.len()
    );
    println!(
        "    ignoring the names only yaml declares ({}): {ti_rules_ok}/{total}",
        YAML_ONLY.join(", ")
    );
    for (op, delta, why) in KNOWN_TRAIT_DIFFS {
        println!("    known: {op} {delta}: {why}");
    }
    for line in ti_explained.iter().take(15) {
        println!("    explained: {line}");
    }
    for d in YAML_DRIFT
        .iter()
        .filter(|(n, _)| !drift_seen.iter().any(|s| s == n))
    {
        if !entries
            .iter()
            .any(|r| r["op_name"].as_str() == Some(&format!("pd_op.{}", d.0)))
        {
            unexpected.push(format!(
                "YAML_DRIFT names `{}`, which is not in the reference",
                d.0
            ));
        }
    }
    for line in ti_unexplained.iter().take(20) {
        println!("  TRAITS/INTERFACES: {line}");
    }
    for line in unexpected.iter().take(20) {
        println!("  GETOPINFO: {line}");
    }
    assert!(
        unexpected.is_empty(),
        "{} GetOpInfo differences outside the documented yaml drift (first shown above)",
        unexpected.len()
    );
    assert_eq!(
        info_ok + drift_seen.len() + manual,
        total,
        "every entry is either matched or documented"
    );
    assert!(
        ti_unexplained.is_empty(),
        "{} trait/interface differences without a documented reason (shown above)",
        ti_unexplained.len()
    );
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
