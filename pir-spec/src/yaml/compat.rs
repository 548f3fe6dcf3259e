//! `op_compat.yaml`: legacy (fluid) names of ops and their arguments, the `scalar:` /
//! `int_array:` entries that decide mutable attributes, and the legacy `extra:` attributes.

use std::collections::HashMap;

use crate::schema::CompatMutable;
use crate::yaml::args;
use crate::yaml::entry::{as_written, is_ident, Ctx};
use crate::yaml::error::{Diag, SpecErrorKind};
use crate::yaml::reader::{Node, NodeKind};

/// Keys of an op_compat.yaml entry.
///
/// ```
/// assert!(pir_spec::yaml::compat::COMPAT_KEYS.contains(&"int_array"));
/// ```
pub const COMPAT_KEYS: &[&str] = &[
    "op",
    "backward",
    "inputs",
    "outputs",
    "attrs",
    "scalar",
    "int_array",
    "extra",
    "complex_promote",
    "manual_signature",
    "drop_empty_grad",
    "get_expected_kernel_type",
];

/// Keys of one `scalar:` / `int_array:` item.
///
/// ```
/// assert!(pir_spec::yaml::compat::COMPAT_MUTABLE_KEYS.contains(&"tensors_name"));
/// ```
pub const COMPAT_MUTABLE_KEYS: &[&str] =
    &["data_type", "tensor_name", "tensors_name", "support_tensor"];

/// Keys of `extra:`.
///
/// ```
/// assert_eq!(pir_spec::yaml::compat::COMPAT_EXTRA_KEYS, ["attrs", "inputs", "outputs"]);
/// ```
pub const COMPAT_EXTRA_KEYS: &[&str] = &["attrs", "inputs", "outputs"];

/// One parsed op_compat.yaml entry.
///
/// ```
/// use pir_spec::yaml::{load_op_set, YamlSource};
/// let ops = "- op : add\n  args : (Tensor x, Tensor y)\n  output : Tensor(out)\n";
/// let compat = "- op : add (elementwise_add)\n  backward : add_grad (elementwise_add_grad)\n  inputs :\n    {x : X, y : Y}\n  outputs :\n    out : Out\n";
/// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }],
///     Some(YamlSource { path: "op_compat.yaml", text: compat })).unwrap();
/// let entry = &set.compat_entries()[0];
/// assert_eq!(entry.op, "add");
/// assert_eq!(entry.legacy.as_deref(), Some("elementwise_add"));
/// assert_eq!(entry.backward[0], ("add_grad".to_string(), Some("elementwise_add_grad".to_string())));
/// assert_eq!(entry.inputs, vec![("x".to_string(), "X".to_string()), ("y".to_string(), "Y".to_string())]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CompatEntry {
    /// 1-based line of the entry.
    pub line: u32,
    /// The op's (phi) name.
    pub op: String,
    /// The legacy (fluid) name, when written as `op : name (legacy)`.
    pub legacy: Option<String>,
    /// Backward ops: `(name, legacy name)`.
    pub backward: Vec<(String, Option<String>)>,
    /// `(name, legacy name)` of inputs.
    pub inputs: Vec<(String, String)>,
    /// `(name, legacy name)` of outputs.
    pub outputs: Vec<(String, String)>,
    /// `(name, legacy name)` of attributes.
    pub attrs: Vec<(String, String)>,
    /// `scalar:` items.
    pub scalar: Vec<CompatMutable>,
    /// `int_array:` items.
    pub int_array: Vec<CompatMutable>,
    /// `extra: attrs` as written (`bool use_mkldnn = false`).
    pub extra_attrs: Vec<String>,
    /// `extra: inputs`.
    pub extra_inputs: Vec<String>,
    /// `extra: outputs`.
    pub extra_outputs: Vec<String>,
    /// `complex_promote` (legacy input names).
    pub complex_promote: Vec<String>,
    /// `manual_signature` (op names).
    pub manual_signature: Vec<String>,
    /// `drop_empty_grad` (grad output names).
    pub drop_empty_grad: Vec<String>,
    /// `get_expected_kernel_type`: `(op, function)`.
    pub get_expected_kernel_type: Vec<(String, String)>,
}

impl CompatEntry {
    /// Whether `name` is this entry's op or one of its backward ops (Paddle's `get_compat`).
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let compat = "- op : sum (reduce_sum)\n  backward : sum_grad (reduce_sum_grad)\n";
    /// let set = load_op_set("pd_op", &[], Some(YamlSource { path: "c.yaml", text: compat })).unwrap();
    /// let e = &set.compat_entries()[0];
    /// assert!(e.covers("sum") && e.covers("sum_grad") && !e.covers("reduce_sum"));
    /// ```
    pub fn covers(&self, name: &str) -> bool {
        self.op == name || self.backward.iter().any(|(b, _)| b == name)
    }

    /// The legacy names of op `name` (this entry's op or one of its backward ops) as the
    /// op's schema carries them ([`CompatSpec`](crate::CompatSpec)): what Paddle's `OpNameNormalizer` knows of
    /// every op, hand-written ones included.
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let compat = "- op : fetch (fetch_v2)\n  inputs : {x : X}\n  outputs : {out : Out}\n";
    /// let set = load_op_set("pd_op", &[], Some(YamlSource { path: "c.yaml", text: compat })).unwrap();
    /// let spec = set.compat_entries()[0].spec("fetch");
    /// assert_eq!(spec.legacy_name.as_deref(), Some("fetch_v2"));
    /// assert_eq!(spec.inputs[0], ("x".into(), "X".into()));
    /// ```
    pub fn spec(&self, name: &str) -> crate::CompatSpec {
        super::lower::compat_spec(self, name)
    }

    /// The legacy name of `name` (this entry's op or one of its backward ops) if one is written.
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let compat = "- op : sum (reduce_sum)\n  backward : sum_grad (reduce_sum_grad), sum_double_grad\n";
    /// let set = load_op_set("pd_op", &[], Some(YamlSource { path: "c.yaml", text: compat })).unwrap();
    /// let e = &set.compat_entries()[0];
    /// assert_eq!(e.legacy_name_of("sum_grad"), Some("reduce_sum_grad"));
    /// assert_eq!(e.legacy_name_of("sum_double_grad"), None);
    /// ```
    pub fn legacy_name_of(&self, name: &str) -> Option<&str> {
        if self.op == name {
            return self.legacy.as_deref();
        }
        self.backward
            .iter()
            .find(|(b, _)| b == name)
            .and_then(|(_, l)| l.as_deref())
    }
}

/// Parses `name` or `name (legacy)`.
fn parse_name_pair(text: &str) -> Option<(String, Option<String>)> {
    let t = text.trim();
    match t.split_once('(') {
        None => is_ident(t).then(|| (t.to_string(), None)),
        Some((phi, rest)) => {
            let phi = phi.trim();
            let legacy = rest.strip_suffix(')')?.trim();
            (is_ident(phi) && is_ident(legacy)).then(|| (phi.to_string(), Some(legacy.to_string())))
        }
    }
}

fn string_map(cx: &mut Ctx<'_>, key: &str, node: &Node<'_>) -> Vec<(String, String)> {
    let NodeKind::Map(entries) = &node.kind else {
        cx.err(
            node.line,
            SpecErrorKind::Compat,
            format!(
                "`{key}` is {}; expected a map `name : LegacyName`",
                node.shape()
            ),
        );
        return Vec::new();
    };
    let mut out: Vec<(String, String)> = Vec::new();
    for (k, v) in entries {
        let name = k.as_str().unwrap_or("").trim().to_string();
        let Some(legacy) = v.as_str().filter(|_| !v.is_null()) else {
            cx.err(
                v.line,
                SpecErrorKind::Compat,
                format!("`{key}.{name}` is {}; expected a legacy name", v.shape()),
            );
            continue;
        };
        let legacy = legacy.trim();
        if !is_ident(&name) || legacy.is_empty() {
            cx.err(
                k.line,
                SpecErrorKind::Compat,
                format!("`{key}` item `{name} : {legacy}` is not `name : LegacyName`"),
            );
            continue;
        }
        if out.iter().any(|(n, _)| *n == name) {
            cx.err(
                k.line,
                SpecErrorKind::Compat,
                format!("`{key}.{name}` appears twice"),
            );
            continue;
        }
        out.push((name, legacy.to_string()));
    }
    out
}

fn string_list(cx: &mut Ctx<'_>, key: &str, node: &Node<'_>) -> Vec<String> {
    match &node.kind {
        NodeKind::Seq(items) => items
            .iter()
            .filter_map(|i| {
                let s = cx.scalar(key, i, "a string");
                s.map(|s| s.trim().to_string())
            })
            .collect(),
        NodeKind::Scalar { value, .. } if !node.is_null() => match args::split_list(value) {
            Ok(items) => items.into_iter().map(str::to_string).collect(),
            Err(e) => {
                cx.err(
                    node.line,
                    SpecErrorKind::Compat,
                    format!("in `{key}`: {}", e.message),
                );
                Vec::new()
            }
        },
        _ => {
            cx.err(
                node.line,
                SpecErrorKind::Compat,
                format!("`{key}` is {}; expected a list `[a, b]`", node.shape()),
            );
            Vec::new()
        }
    }
}

fn mutables(cx: &mut Ctx<'_>, key: &str, node: &Node<'_>) -> Vec<CompatMutable> {
    let NodeKind::Map(entries) = &node.kind else {
        cx.err(
            node.line,
            SpecErrorKind::Compat,
            format!(
                "`{key}` is {}; expected a map `attr : {{data_type : ..., tensor_name : ...}}`",
                node.shape()
            ),
        );
        return Vec::new();
    };
    let mut out: Vec<CompatMutable> = Vec::new();
    for (k, v) in entries {
        let name = k.as_str().unwrap_or("").trim().to_string();
        if !is_ident(&name) {
            cx.err(
                k.line,
                SpecErrorKind::Compat,
                format!("`{key}` item `{name}` is not an attribute name"),
            );
            continue;
        }
        if out.iter().any(|m| m.name == name) {
            cx.err(
                k.line,
                SpecErrorKind::Compat,
                format!("`{key}.{name}` appears twice"),
            );
            continue;
        }
        let NodeKind::Map(fields) = &v.kind else {
            cx.err(
                v.line,
                SpecErrorKind::Compat,
                format!(
                    "`{key}.{name}` is {}; expected a map with keys {}",
                    v.shape(),
                    COMPAT_MUTABLE_KEYS.join(", ")
                ),
            );
            continue;
        };
        out.push(mutable(cx, key, name, fields));
    }
    out
}

/// The mutable attribute `name` of the `key` map from its `fields` (unknown or malformed
/// fields are reported and left out).
fn mutable(
    cx: &mut Ctx<'_>,
    key: &str,
    name: String,
    fields: &[(Node<'_>, Node<'_>)],
) -> CompatMutable {
    let mut m = CompatMutable {
        name: name.clone().into(),
        data_type: None,
        tensor_name: None,
        tensors_name: None,
        support_tensor: false,
    };
    for (fk, fv) in fields {
        let field = fk.as_str().unwrap_or("");
        let full = format!("{key}.{name}.{field}");
        match field {
            "support_tensor" => match fv.as_str().map(|s| s.trim().to_ascii_lowercase()) {
                Some(s) if s == "true" => m.support_tensor = true,
                Some(s) if s == "false" => m.support_tensor = false,
                _ => cx.err(
                    fv.line,
                    SpecErrorKind::Compat,
                    format!(
                        "`{full}` is `{}`; expected `true` or `false`",
                        as_written(fv)
                    ),
                ),
            },
            "data_type" | "tensor_name" | "tensors_name" => {
                let Some(text) = fv.as_str().filter(|_| !fv.is_null()).map(str::trim) else {
                    cx.err(
                        fv.line,
                        SpecErrorKind::Compat,
                        format!("`{full}` is {}; expected a name", fv.shape()),
                    );
                    continue;
                };
                let value = Some(text.to_string().into());
                match field {
                    "data_type" => m.data_type = value,
                    "tensor_name" => m.tensor_name = value,
                    _ => m.tensors_name = value,
                }
            }
            other => cx.err(
                fk.line,
                SpecErrorKind::Compat,
                format!(
                    "unknown key `{other}` in `{key}.{name}`; expected {}",
                    COMPAT_MUTABLE_KEYS.join(", ")
                ),
            ),
        }
    }
    m
}

/// Parses op_compat.yaml: every entry that parses without error.
pub(crate) fn parse_compat(
    file: &str,
    root: Option<&Node<'_>>,
    diag: &mut Diag,
) -> Vec<CompatEntry> {
    let Some(root) = root else {
        return Vec::new();
    };
    let NodeKind::Seq(items) = &root.kind else {
        diag.push(
            file,
            root.line,
            None,
            SpecErrorKind::Syntax,
            format!(
                "op_compat.yaml is {}; expected a list of `- op : ...` entries",
                root.shape()
            ),
        );
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| parse_compat_entry(file, item, diag))
        .collect()
}

/// One compat entry: its `op : name (legacy)` head, then each key.
fn parse_compat_entry(file: &str, item: &Node<'_>, diag: &mut Diag) -> Option<CompatEntry> {
    let NodeKind::Map(map) = &item.kind else {
        diag.push(
            file,
            item.line,
            None,
            SpecErrorKind::Compat,
            format!(
                "a compat entry is {}; expected a map starting with `- op :`",
                item.shape()
            ),
        );
        return None;
    };
    let line = map.first().map_or(item.line, |(k, _)| k.line);
    let Some((_, op_node)) = map.iter().find(|(k, _)| k.as_str() == Some("op")) else {
        diag.push(
            file,
            line,
            None,
            SpecErrorKind::Compat,
            "compat entry without `op`; expected `- op : name (legacy_name)`",
        );
        return None;
    };
    let op_text = op_node.as_str().unwrap_or("").trim().to_string();
    let Some((op, legacy)) = parse_name_pair(&op_text) else {
        diag.push(
            file,
            op_node.line,
            Some(&op_text),
            SpecErrorKind::Compat,
            "cannot parse the op name; expected `name` or `name (legacy_name)`",
        );
        return None;
    };
    let before = diag.errors.len();
    let mut cx = Ctx {
        file,
        op: Some(&op),
        diag,
    };
    let mut e = CompatEntry {
        line,
        op: op.clone(),
        legacy,
        backward: Vec::new(),
        inputs: Vec::new(),
        outputs: Vec::new(),
        attrs: Vec::new(),
        scalar: Vec::new(),
        int_array: Vec::new(),
        extra_attrs: Vec::new(),
        extra_inputs: Vec::new(),
        extra_outputs: Vec::new(),
        complex_promote: Vec::new(),
        manual_signature: Vec::new(),
        drop_empty_grad: Vec::new(),
        get_expected_kernel_type: Vec::new(),
    };
    let mut seen: Vec<&str> = Vec::new();
    for (k, v) in map {
        let key = k.as_str().unwrap_or("");
        if seen.contains(&key) {
            cx.err(
                k.line,
                SpecErrorKind::Compat,
                format!("key `{key}` appears twice"),
            );
            continue;
        }
        seen.push(key);
        parse_compat_key(&mut cx, &mut e, k, v);
    }
    check_int_array_data_types(&mut cx, &e);
    (cx.diag.errors.len() == before).then_some(e)
}

/// One key of a compat entry.
fn parse_compat_key(cx: &mut Ctx<'_>, e: &mut CompatEntry, k: &Node<'_>, v: &Node<'_>) {
    let key = k.as_str().unwrap_or("");
    match key {
        "op" => {}
        "backward" => parse_compat_backward(cx, e, v),
        "inputs" => e.inputs = string_map(cx, key, v),
        "outputs" => e.outputs = string_map(cx, key, v),
        "attrs" => e.attrs = string_map(cx, key, v),
        "scalar" => e.scalar = mutables(cx, key, v),
        "int_array" => e.int_array = mutables(cx, key, v),
        "extra" => parse_compat_extra(cx, e, v),
        "complex_promote" => e.complex_promote = string_list(cx, key, v),
        "manual_signature" => e.manual_signature = string_list(cx, key, v),
        "drop_empty_grad" => e.drop_empty_grad = string_list(cx, key, v),
        "get_expected_kernel_type" => e.get_expected_kernel_type = string_map(cx, key, v),
        other => cx.err(
            k.line,
            SpecErrorKind::UnknownKey,
            format!(
                "unknown key `{other}` in a compat entry; expected {}",
                COMPAT_KEYS.join(", ")
            ),
        ),
    }
}

/// `backward : name (legacy), name`.
fn parse_compat_backward(cx: &mut Ctx<'_>, e: &mut CompatEntry, v: &Node<'_>) {
    let Some(text) = cx.scalar("backward", v, "`name (legacy), name`") else {
        return;
    };
    for part in text.split(',') {
        match parse_name_pair(part) {
            Some(p) => e.backward.push(p),
            None => cx.err(
                v.line,
                SpecErrorKind::Compat,
                format!(
                    "cannot parse backward op `{}`; expected `name` or `name (legacy_name)`",
                    part.trim()
                ),
            ),
        }
    }
}

/// `extra : {attrs : [...], inputs : [...], outputs : [...]}`: legacy-only arguments.
fn parse_compat_extra(cx: &mut Ctx<'_>, e: &mut CompatEntry, v: &Node<'_>) {
    let Some(fields) = cx.map("extra", v, COMPAT_EXTRA_KEYS) else {
        return;
    };
    for (fk, fv) in fields {
        let sub = fk.as_str().unwrap_or("");
        let list = string_list(cx, &format!("extra.{sub}"), fv);
        match sub {
            "attrs" => {
                for a in &list {
                    check_extra_attr(cx, fv.line, a);
                }
                e.extra_attrs = list;
            }
            "inputs" => e.extra_inputs = list,
            "outputs" => e.extra_outputs = list,
            _ => {}
        }
    }
}

/// op_gen.py reads `data_type` of every mutable int_array item.
fn check_int_array_data_types(cx: &mut Ctx<'_>, e: &CompatEntry) {
    for m in &e.int_array {
        let mutable = m.support_tensor || m.tensor_name.is_some() || m.tensors_name.is_some();
        if mutable && m.data_type.is_none() {
            cx.err(
                e.line,
                SpecErrorKind::Compat,
                format!(
                    "`int_array.{}` has no `data_type`; expected `data_type : int` or `int64_t`",
                    m.name
                ),
            );
        }
    }
}

/// `extra: attrs` items are legacy attribute declarations `Type name = default`, where the
/// default is any C++ expression (`phi::backends::gpu::GetDefaultConvWorkspaceSizeLimitMB()`),
/// so only the type and name are checked.
fn check_extra_attr(cx: &mut Ctx<'_>, line: u32, decl: &str) {
    let Some((head, default)) = decl.split_once('=') else {
        cx.err(
            line,
            SpecErrorKind::Compat,
            format!("`extra.attrs` item `{decl}` has no default; expected `Type name = default`"),
        );
        return;
    };
    let mut words = head.split_whitespace();
    match (words.next(), words.next(), words.next()) {
        (Some(ty), Some(name), None) if is_ident(name) && !default.trim().is_empty() => {
            if args::YamlType::parse(ty).is_none_or(|t| t.is_tensor()) {
                cx.err(
                    line,
                    SpecErrorKind::Compat,
                    format!("`extra.attrs` item `{decl}` has unknown attribute type `{ty}`"),
                );
            }
        }
        _ => cx.err(
            line,
            SpecErrorKind::Compat,
            format!("cannot parse `extra.attrs` item `{decl}`; expected `Type name = default`"),
        ),
    }
}

/// Paddle's `OpCompatParser.get_compat`: the first entry whose op or backward list names the op.
#[derive(Debug, Default)]
pub(crate) struct CompatIndex {
    by_name: HashMap<String, usize>,
}

impl CompatIndex {
    pub(crate) fn new(entries: &[CompatEntry]) -> CompatIndex {
        let mut by_name = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            by_name.entry(e.op.clone()).or_insert(i);
            for (b, _) in &e.backward {
                by_name.entry(b.clone()).or_insert(i);
            }
        }
        CompatIndex { by_name }
    }

    pub(crate) fn get(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_pairs() {
        assert_eq!(
            parse_name_pair("add (elementwise_add)"),
            Some(("add".into(), Some("elementwise_add".into())))
        );
        assert_eq!(
            parse_name_pair("argmin(arg_min)"),
            Some(("argmin".into(), Some("arg_min".into())))
        );
        assert_eq!(parse_name_pair(" abs "), Some(("abs".into(), None)));
        assert_eq!(parse_name_pair("a (b"), None);
        assert_eq!(parse_name_pair("a b"), None);
    }

    /// An op written twice in op_compat.yaml (as Paddle's `repeat_interleave` is): the schema's
    /// argument names are both entries' merged, the later replacing a name the earlier maps
    /// (`op_compat_gen.py`'s `dict.update`); the first entry's `extra` stays.
    #[test]
    fn duplicate_entries_merge_their_argument_names() {
        use crate::yaml::{load_op_set, YamlSource};
        let ops = "- op : rep\n  args : (Tensor x, int repeats, int axis)\n  output : Tensor(out)\n  infer_meta :\n    func : UnchangedInferMeta\n    param : [x]\n  kernel :\n    func : rep\n";
        let compat = "- op : rep\n  inputs :\n    x : X\n  attrs :\n    repeats : Repeats\n  extra :\n    attrs : [bool use_mkldnn = false]\n\n- op : rep\n  inputs :\n    x : Input\n  attrs :\n    {repeats : Repeats, axis : dim}\n";
        let set = load_op_set(
            "pd_op",
            &[YamlSource {
                path: "ops.yaml",
                text: ops,
            }],
            Some(YamlSource {
                path: "op_compat.yaml",
                text: compat,
            }),
        )
        .unwrap();
        let c = set.get("rep").unwrap().compat.clone().unwrap();
        let pairs = |v: &[(crate::Str, crate::Str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert_eq!(pairs(&c.inputs), [("x".into(), "Input".into())]);
        assert_eq!(
            pairs(&c.attrs),
            [
                ("repeats".to_string(), "Repeats".to_string()),
                ("axis".into(), "dim".into())
            ]
        );
        assert_eq!(c.extra_attrs.len(), 1);
    }
}
