//! One `- op :` / `- backward_op :` entry, checked and parsed into Paddle's "parsed yaml" form
//! (what `parse_utils.parse_op_entry` produces), with the line of every key kept for messages.
//!
//! [`parse_entry`] reads the entry's name and kind, checks its keys, parses `args` and `output`
//! (which the other keys refer to), then hands every other key to its parser in [`KEYS`], in
//! the order the entry writes them, and finally checks the parameter lists. Each parser reports
//! its own errors; adding a key is adding a row and a function.

use crate::schema::OpKind;
use crate::yaml::args::{self, Arg, ArgError, Output, Signature};
use crate::yaml::error::{Diag, SpecErrorKind};
use crate::yaml::kernel::{parse_infer_meta, parse_kernel, InferMeta, Kernel};
use crate::yaml::reader::{Node, NodeKind};

/// Parses one top-level key's value into the entry (reporting its problems).
type KeyParser = fn(&mut Ctx<'_>, &mut OpEntry, &str, &Node<'_>);

/// Top-level keys accepted in an op entry, with their parsers: `check_op_config`'s
/// `base_key_set` (parse_utils.py) plus the keys `op_gen.py` reads directly (`custom_verify`,
/// `infer_shaped_type_op_interface`) and the oneDNN extra-yaml keys it reads (`extra_args`,
/// `data_format_tensors`, `is_onednn_only`, `dynamic_fallback`).
const KEYS: &[(&str, KeyParser)] = &[
    ("op", parsed_first),
    ("backward_op", parsed_first),
    ("forward", parse_forward),
    ("args", parsed_first),
    ("output", parsed_first),
    ("infer_meta", parse_infer_meta),
    ("kernel", parse_kernel),
    ("backward", parse_backward),
    ("invoke", parse_invoke),
    ("inplace", parse_inplace_view),
    ("view", parse_inplace_view),
    ("optional", parse_optional),
    ("intermediate", parse_intermediate),
    ("no_need_buffer", parse_no_need_buffer),
    ("data_transform", parse_data_transform),
    ("composite", parse_composite),
    ("support_dygraph_mode", parse_flag),
    ("support_tensor", parse_support_tensor),
    ("traits", parse_traits_interfaces),
    ("interfaces", parse_traits_interfaces),
    ("custom_verify", parse_custom_verify),
    ("infer_shaped_type_op_interface", keep_as_written),
    ("extra_args", keep_as_written),
    ("data_format_tensors", keep_as_written),
    ("is_onednn_only", parse_flag),
    ("dynamic_fallback", parse_flag),
];

/// The suffix Paddle's generator gives sparse ops (`op_gen.py`: `key_suffix = '_sp'`).
pub(crate) const SPARSE_SUFFIX: &str = "_sp";

/// Whether a file is one of Paddle's sparse op files: `op_gen.py` (`parse_op_type`) decides
/// by the file name, `sparse_ops` / `sparse_backward`.
pub(crate) fn is_sparse_file(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    stem == "sparse_ops" || stem == "sparse_backward"
}

/// Keys of `data_transform` (parse_utils.py).
pub(crate) const DATA_TRANSFORM_KEYS: &[&str] = &["skip_transform", "support_trans_dtype"];

/// One parsed op entry.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OpEntry {
    /// Index of the source file.
    pub(crate) file: usize,
    /// Line of the entry's first key.
    pub(crate) line: u32,
    /// The entry's key among all entries: its name, plus `_sp` for a sparse entry (Paddle's
    /// `op_info_items` key).
    pub(crate) name: String,
    /// The name as written in the yaml (Paddle's `op['name']`, used for op_compat and its lists).
    pub(crate) origin: String,
    /// From `sparse_ops.yaml` / `sparse_backward.yaml`.
    pub(crate) sparse: bool,
    pub(crate) kind: OpKind,
    pub(crate) inputs: Vec<Arg>,
    pub(crate) attrs: Vec<Arg>,
    pub(crate) outputs: Vec<Output>,
    pub(crate) input_optional: Vec<bool>,
    pub(crate) input_no_need_buffer: Vec<bool>,
    pub(crate) output_optional: Vec<bool>,
    pub(crate) output_intermediate: Vec<bool>,
    pub(crate) infer_meta: Option<InferMeta>,
    pub(crate) kernel: Option<Kernel>,
    /// `(output, input)` pairs in yaml order.
    pub(crate) inplace: Option<Vec<(String, String)>>,
    pub(crate) view: Option<Vec<(String, String)>>,
    /// `invoke` as written, and the invoked function.
    pub(crate) invoke: Option<(String, String)>,
    pub(crate) backward: Option<String>,
    pub(crate) forward: Option<Signature>,
    pub(crate) has_composite: bool,
    pub(crate) support_tensor: Vec<String>,
    pub(crate) traits: Vec<String>,
    pub(crate) interfaces: Vec<String>,
    pub(crate) custom_verify: bool,
    pub(crate) skip_transform: Vec<String>,
    pub(crate) is_onednn_only: bool,
    pub(crate) dynamic_fallback: bool,
    /// Keys kept as written (`composite`, `infer_meta.spmd_rule`, ...).
    pub(crate) extra: Vec<(String, String)>,
    /// Line of each top-level key.
    /// Line of each top-level key Paddle accepts (the name from [`KEYS`]: no copy per key).
    pub(crate) key_lines: Vec<(&'static str, u32)>,
    pub(crate) doc: String,
}

impl OpEntry {
    /// The line of a top-level key, or the entry's line.
    pub(crate) fn line_of(&self, key: &str) -> u32 {
        self.key_lines
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(self.line, |(_, l)| *l)
    }

    /// Whether Paddle treats this as a "base op" (kernel/infer_meta/inplace/view are used):
    /// neither `invoke` nor a `composite` without a `kernel` (parse_utils.py).
    pub(crate) fn is_base_op(&self) -> bool {
        self.invoke.is_none() && !(self.has_composite && self.kernel.is_none())
    }

    /// Marks an entry of a sparse file: it and the ops it names (`backward`, `forward`) take
    /// Paddle's `_sp` key suffix, so sparse `abs` and dense `abs` are different ops.
    pub(crate) fn mark_sparse(&mut self) {
        self.sparse = true;
        self.name.push_str(SPARSE_SUFFIX);
        if let Some(b) = &mut self.backward {
            b.push_str(SPARSE_SUFFIX);
        }
        if let Some(f) = &mut self.forward {
            f.name.push_str(SPARSE_SUFFIX);
        }
    }

    pub(crate) fn has_input(&self, name: &str) -> bool {
        self.inputs.iter().any(|a| a.name == name)
    }

    pub(crate) fn has_attr(&self, name: &str) -> bool {
        self.attrs.iter().any(|a| a.name == name)
    }

    pub(crate) fn has_output(&self, name: &str) -> bool {
        self.outputs.iter().any(|o| o.name == name)
    }
}

/// Renders a node as written (for `extra`): scalars verbatim, lists as `[a, b]`.
pub(crate) fn as_written(node: &Node<'_>) -> String {
    match &node.kind {
        NodeKind::Scalar { value, .. } => value.to_string(),
        NodeKind::Seq(items) => {
            let inner: Vec<String> = items.iter().map(as_written).collect();
            format!("[{}]", inner.join(", "))
        }
        NodeKind::Map(entries) => {
            let inner: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}: {}", as_written(k), as_written(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// Error context for one entry.
pub(crate) struct Ctx<'a> {
    pub(crate) file: &'a str,
    pub(crate) op: Option<&'a str>,
    pub(crate) diag: &'a mut Diag,
}

impl Ctx<'_> {
    pub(crate) fn err(&mut self, line: u32, kind: SpecErrorKind, msg: impl Into<String>) {
        self.diag.push(self.file, line, self.op, kind, msg);
    }

    fn arg_errors(&mut self, line: u32, errors: Vec<ArgError>, what: &str) {
        for e in errors {
            let msg = format!("in `{what}`: {}", e.message);
            self.err(line, e.kind, msg);
        }
    }

    /// A scalar value's text, or an error.
    pub(crate) fn scalar<'n>(
        &mut self,
        key: &str,
        node: &'n Node<'n>,
        expected: &str,
    ) -> Option<&'n str> {
        match &node.kind {
            NodeKind::Scalar { value, .. } if !node.is_null() => Some(value),
            _ => {
                self.err(
                    node.line,
                    SpecErrorKind::BadValue,
                    format!("`{key}` is {}; expected {expected}", node.shape()),
                );
                None
            }
        }
    }

    /// A list of names, written as a yaml list (`[a, b]`) or a comma-separated string.
    pub(crate) fn name_list(&mut self, key: &str, node: &Node<'_>) -> Option<Vec<String>> {
        let mut out = Vec::new();
        match &node.kind {
            NodeKind::Seq(items) => {
                for item in items {
                    let text = self.scalar(key, item, "a name")?;
                    out.push(text.trim().to_string());
                }
            }
            NodeKind::Scalar { .. } if node.is_null() => {}
            NodeKind::Scalar { value, .. } => match args::split_list(value) {
                Ok(items) => out.extend(items.into_iter().map(str::to_string)),
                Err(e) => {
                    self.err(node.line, e.kind, format!("in `{key}`: {}", e.message));
                    return None;
                }
            },
            NodeKind::Map(_) => {
                self.err(
                    node.line,
                    SpecErrorKind::BadValue,
                    format!("`{key}` is a map; expected names such as `a, b` or `[a, b]`"),
                );
                return None;
            }
        }
        for n in &out {
            if !is_qualified_ident(n) {
                self.err(
                    node.line,
                    SpecErrorKind::BadValue,
                    format!("`{n}` in `{key}` is not a valid name"),
                );
                return None;
            }
        }
        Some(out)
    }

    fn bool_value(&mut self, key: &str, node: &Node<'_>) -> Option<bool> {
        let text = self.scalar(key, node, "`true` or `false`")?;
        match text.trim().to_ascii_lowercase().as_str() {
            "true" => Some(true),
            "false" => Some(false),
            other => {
                self.err(
                    node.line,
                    SpecErrorKind::BadValue,
                    format!("`{key}` is `{other}`; expected `true` or `false`"),
                );
                None
            }
        }
    }

    /// Checks a map's keys against `allowed`; returns its entries.
    pub(crate) fn map<'n>(
        &mut self,
        key: &str,
        node: &'n Node<'n>,
        allowed: &[&str],
    ) -> Option<&'n [(Node<'n>, Node<'n>)]> {
        let NodeKind::Map(entries) = &node.kind else {
            self.err(
                node.line,
                SpecErrorKind::BadValue,
                format!(
                    "`{key}` is {}; expected a map with keys {}",
                    node.shape(),
                    allowed.join(", ")
                ),
            );
            return None;
        };
        let mut seen: Vec<&str> = Vec::new();
        for (k, _) in entries {
            let name = k.as_str().unwrap_or("");
            if seen.contains(&name) {
                self.err(
                    k.line,
                    SpecErrorKind::Duplicate,
                    format!("key `{key}.{name}` appears twice"),
                );
            }
            seen.push(name);
            if !allowed.contains(&name) {
                self.err(
                    k.line,
                    SpecErrorKind::UnknownKey,
                    format!(
                        "unknown key `{key}.{name}`; `{key}` accepts {}",
                        allowed.join(", ")
                    ),
                );
            }
        }
        Some(entries)
    }
}

pub(crate) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub(crate) fn is_qualified_ident(s: &str) -> bool {
    !s.is_empty() && s.split("::").all(is_ident)
}

/// Doc comment: the `#` lines directly above `line` (1-based).
pub(crate) fn doc_above(lines: &[&str], line: u32) -> String {
    let mut idx = (line as usize).saturating_sub(1);
    let mut doc: Vec<&str> = Vec::new();
    while idx > 0 {
        let l = lines.get(idx - 1).map_or("", |l| l.trim());
        let Some(text) = l.strip_prefix('#') else {
            break;
        };
        doc.push(text.strip_prefix(' ').unwrap_or(text).trim_end());
        idx -= 1;
    }
    doc.reverse();
    doc.join("\n")
}

/// Parses `func (args)`; returns the function name.
fn parse_call(text: &str) -> Option<String> {
    let t = text.trim();
    let open = t.find('(')?;
    let name = t[..open].trim();
    if !is_ident(name) || !t.ends_with(')') {
        return None;
    }
    Some(name.to_string())
}

fn parse_pairs(text: &str) -> Result<Vec<(String, String)>, String> {
    let cleaned: String = text.chars().filter(|c| *c != '(' && *c != ')').collect();
    let mut pairs: Vec<(String, String)> = Vec::new();
    for item in cleaned.split(',') {
        let item = item.trim();
        let Some((input, output)) = item.split_once("->") else {
            return Err(format!(
                "cannot parse `{item}`; expected `(input -> output)` pairs separated by commas"
            ));
        };
        let (input, output) = (input.trim(), output.trim());
        if !is_ident(input) || !is_ident(output) {
            return Err(format!(
                "cannot parse `{item}`; expected `(input -> output)` with two names"
            ));
        }
        if pairs.iter().any(|(o, _)| o == output) {
            return Err(format!("output `{output}` appears in two pairs"));
        }
        pairs.push((output.to_string(), input.to_string()));
    }
    Ok(pairs)
}

/// The result of parsing one entry.
pub(crate) enum Parsed {
    /// A usable entry.
    Ok(Box<OpEntry>),
    /// An entry with errors (already reported): its name is known, so other entries that
    /// refer to it are not reported again.
    Broken {
        name: String,
        file: usize,
        line: u32,
    },
    /// An entry whose name could not be read.
    Unnamed,
}

/// Parses one entry map. Errors go to `diag`.
pub(crate) fn parse_entry(
    file_idx: usize,
    file: &str,
    lines: &[&str],
    node: &Node<'_>,
    diag: &mut Diag,
) -> Parsed {
    let Some(head) = parse_head(file, node, diag) else {
        return Parsed::Unnamed;
    };
    let errors_before = diag.errors.len();
    let mut cx = Ctx {
        file,
        op: Some(&head.name),
        diag,
    };
    let mut entry = OpEntry::new(file_idx, &head, lines);
    check_keys(&mut cx, head.map);
    // The last occurrence of a key counts (see the loop below).
    let get = |key: &str| {
        head.map
            .iter()
            .rev()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    };
    let signature_errors = cx.diag.errors.len();
    parse_args(&mut cx, &mut entry, get("args"));
    parse_outputs(&mut cx, &mut entry, get("output"));
    if cx.diag.errors.len() > signature_errors {
        // The other keys name arguments and outputs that could not be read: checking them
        // would only repeat the error as "unknown name"s.
        return Parsed::Broken {
            name: entry.name,
            file: file_idx,
            line: entry.line,
        };
    }
    for (i, (k, v)) in head.map.iter().enumerate() {
        let key = k.as_str().unwrap_or("");
        // A repeated key: the last one wins, as in PyYAML, which Paddle's generator reads
        // with (Paddle's own static_ops.yaml repeats `interfaces` on `unique`).
        if head.map[i + 1..]
            .iter()
            .any(|(later, _)| later.as_str() == Some(key))
        {
            continue;
        }
        if let Some((_, parse)) = KEYS.iter().find(|(name, _)| *name == key) {
            parse(&mut cx, &mut entry, key, v);
        }
    }
    check_params(&mut cx, &entry);
    if cx.diag.errors.len() > errors_before {
        return Parsed::Broken {
            name: entry.name,
            file: file_idx,
            line: entry.line,
        };
    }
    Parsed::Ok(Box::new(entry))
}

/// An entry's map, with its name, kind and first line.
struct Head<'n> {
    map: &'n [(Node<'n>, Node<'n>)],
    name: String,
    kind: OpKind,
    line: u32,
}

/// The entry's map, name and kind, read first so every later message can name the op.
fn parse_head<'n>(file: &str, node: &'n Node<'n>, diag: &mut Diag) -> Option<Head<'n>> {
    let NodeKind::Map(map) = &node.kind else {
        diag.push(
            file,
            node.line,
            None,
            SpecErrorKind::Syntax,
            format!(
                "an op entry is {}; expected a map starting with `- op :` or `- backward_op :`",
                node.shape()
            ),
        );
        return None;
    };
    let line = map.first().map_or(node.line, |(k, _)| k.line);
    let get = |key: &str| {
        map.iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    };
    let (kind, name_node) = match (get("op"), get("backward_op")) {
        (Some(n), None) => (OpKind::Forward, n),
        (None, Some(n)) => (OpKind::Backward, n),
        (Some(_), Some(_)) => {
            diag.push(
                file,
                line,
                None,
                SpecErrorKind::BadValue,
                "an entry has both `op` and `backward_op`; expected exactly one",
            );
            return None;
        }
        (None, None) => {
            diag.push(
                file,
                line,
                None,
                SpecErrorKind::MissingKey,
                "an entry has neither `op` nor `backward_op`; expected `- op : name` or `- backward_op : name`",
            );
            return None;
        }
    };
    let name = match name_node.as_str().map(str::trim) {
        Some(n) if is_ident(n) => n.to_string(),
        _ => {
            diag.push(
                file,
                name_node.line,
                None,
                SpecErrorKind::BadValue,
                format!(
                    "op name `{}` is not a valid name (letters, digits and `_`)",
                    as_written(name_node)
                ),
            );
            return None;
        }
    };
    Some(Head {
        map,
        name,
        kind,
        line,
    })
}

impl OpEntry {
    /// An entry with nothing parsed yet but its name, kind, key lines and doc comment.
    fn new(file: usize, head: &Head<'_>, lines: &[&str]) -> OpEntry {
        OpEntry {
            file,
            line: head.line,
            name: head.name.clone(),
            origin: head.name.clone(),
            sparse: false,
            kind: head.kind,
            inputs: Vec::new(),
            attrs: Vec::new(),
            outputs: Vec::new(),
            input_optional: Vec::new(),
            input_no_need_buffer: Vec::new(),
            output_optional: Vec::new(),
            output_intermediate: Vec::new(),
            infer_meta: None,
            kernel: None,
            inplace: None,
            view: None,
            invoke: None,
            backward: None,
            forward: None,
            has_composite: false,
            support_tensor: Vec::new(),
            traits: Vec::new(),
            interfaces: Vec::new(),
            custom_verify: false,
            skip_transform: Vec::new(),
            is_onednn_only: false,
            dynamic_fallback: false,
            extra: Vec::new(),
            key_lines: head
                .map
                .iter()
                .filter_map(|(k, _)| {
                    let key = KEYS.iter().find(|(name, _)| Some(*name) == k.as_str())?.0;
                    Some((key, k.line))
                })
                .collect(),
            doc: doc_above(lines, head.line),
        }
    }
}

/// Unknown top-level keys. (A repeated key is not an error: the last one wins, see
/// [`parse_entry`].)
fn check_keys(cx: &mut Ctx<'_>, map: &[(Node<'_>, Node<'_>)]) {
    for (k, _) in map {
        let key = k.as_str().unwrap_or("");
        if !KEYS.iter().any(|(name, _)| *name == key) {
            let names: Vec<&str> = KEYS.iter().map(|(name, _)| *name).collect();
            cx.err(
                k.line,
                SpecErrorKind::UnknownKey,
                format!(
                    "unknown key `{key}`; Paddle's generator accepts {}",
                    names.join(", ")
                ),
            );
        }
    }
}

/// `args : (Tensor x, int axis = -1)`: tensor inputs and attributes (required).
fn parse_args(cx: &mut Ctx<'_>, entry: &mut OpEntry, node: Option<&Node<'_>>) {
    let Some(node) = node else {
        cx.err(
            entry.line,
            SpecErrorKind::MissingKey,
            "missing `args`; expected `args : (Tensor x, ...)`",
        );
        return;
    };
    let Some(text) = cx.scalar("args", node, "`(Type name, ...)`") else {
        return;
    };
    match args::parse_args(text) {
        Ok(list) => {
            for a in list {
                if a.ty.is_tensor() {
                    entry.inputs.push(a);
                } else {
                    entry.attrs.push(a);
                }
            }
        }
        Err(errs) => cx.arg_errors(node.line, errs, "args"),
    }
}

/// `output : Tensor(out), ...` (required; may be empty), whose names must differ from the
/// arguments'. Sizes the per-input and per-output flags the other keys set.
fn parse_outputs(cx: &mut Ctx<'_>, entry: &mut OpEntry, node: Option<&Node<'_>>) {
    match node {
        None => cx.err(
            entry.line,
            SpecErrorKind::MissingKey,
            "missing `output`; expected `output : Tensor(out)`",
        ),
        Some(node) if node.is_null() => {}
        Some(node) => {
            if let Some(text) = cx.scalar("output", node, "`Tensor(name), ...`") {
                match args::parse_outputs(text) {
                    Ok(outs) => entry.outputs = outs,
                    Err(errs) => cx.arg_errors(node.line, errs, "output"),
                }
            }
        }
    }
    let dup_io: Vec<String> = entry
        .outputs
        .iter()
        .filter(|o| entry.has_input(&o.name) || entry.has_attr(&o.name))
        .map(|o| o.name.clone())
        .collect();
    for n in dup_io {
        let line = entry.line_of("output");
        cx.err(
            line,
            SpecErrorKind::Duplicate,
            format!("output `{n}` has the same name as an argument"),
        );
    }
    entry.input_optional = vec![false; entry.inputs.len()];
    entry.input_no_need_buffer = vec![false; entry.inputs.len()];
    entry.output_optional = vec![false; entry.outputs.len()];
    entry.output_intermediate = vec![false; entry.outputs.len()];
}

/// `op`, `backward_op`, `args`, `output`: parsed before the other keys.
fn parsed_first(_: &mut Ctx<'_>, _: &mut OpEntry, _: &str, _: &Node<'_>) {}

/// Keys kept as written, without effect on the generated classes.
fn keep_as_written(_: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    flatten_into(&mut entry.extra, key, v);
}

/// `optional : a, b`: tensor inputs or outputs that may be absent.
fn parse_optional(cx: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    let expected = io_names(entry);
    mark_names(
        cx,
        key,
        v,
        "is neither a tensor input nor an output",
        expected,
        |n| {
            if let Some(i) = entry.inputs.iter().position(|a| a.name == n) {
                entry.input_optional[i] = true;
            } else if let Some(i) = entry.outputs.iter().position(|o| o.name == n) {
                entry.output_optional[i] = true;
            } else {
                return false;
            }
            true
        },
    );
}

/// `intermediate : xshape`: outputs.
fn parse_intermediate(cx: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    let expected = names_of(entry.outputs.iter().map(|o| o.name.as_str()));
    mark_names(cx, key, v, "is not an output", expected, |n| {
        let i = entry.outputs.iter().position(|o| o.name == n);
        i.map(|i| entry.output_intermediate[i] = true).is_some()
    });
}

/// `no_need_buffer : x`: tensor inputs.
fn parse_no_need_buffer(cx: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    let expected = names_of(entry.inputs.iter().map(|a| a.name.as_str()));
    mark_names(cx, key, v, "is not a tensor input", expected, |n| {
        let i = entry.inputs.iter().position(|a| a.name == n);
        i.map(|i| entry.input_no_need_buffer[i] = true).is_some()
    });
}

/// A list of names, each marked by `mark`; one it does not know is reported as "`key` names
/// `n`, which {`is_not`}; expected one of {`expected`}".
fn mark_names(
    cx: &mut Ctx<'_>,
    key: &str,
    v: &Node<'_>,
    is_not: &str,
    expected: String,
    mut mark: impl FnMut(&str) -> bool,
) {
    let Some(names) = cx.name_list(key, v) else {
        return;
    };
    for n in names {
        if !mark(&n) {
            cx.err(
                v.line,
                SpecErrorKind::UnknownName,
                format!("`{key}` names `{n}`, which {is_not}; expected one of {expected}"),
            );
        }
    }
}

/// `inplace : (x -> out)` / `view : (x -> out)`: pairs of a tensor input and an output.
fn parse_inplace_view(cx: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    let Some(text) = cx.scalar(key, v, "`(input -> output), ...`") else {
        return;
    };
    let pairs = match parse_pairs(text) {
        Ok(pairs) => pairs,
        Err(msg) => {
            cx.err(
                v.line,
                SpecErrorKind::BadValue,
                format!("in `{key}`: {msg}"),
            );
            return;
        }
    };
    let mut ok = true;
    for (out, input) in &pairs {
        if !entry.has_input(input) {
            ok = false;
            cx.err(
                v.line,
                SpecErrorKind::UnknownName,
                format!(
                    "`{key}` pair `({input} -> {out})` names `{input}`, which is not a tensor input; expected one of {}",
                    names_of(entry.inputs.iter().map(|a| a.name.as_str()))
                ),
            );
        }
        if !entry.has_output(out) {
            ok = false;
            cx.err(
                v.line,
                SpecErrorKind::UnknownName,
                format!(
                    "`{key}` pair `({input} -> {out})` names `{out}`, which is not an output; expected one of {}",
                    names_of(entry.outputs.iter().map(|o| o.name.as_str()))
                ),
            );
        }
    }
    if ok {
        if key == "inplace" {
            entry.inplace = Some(pairs);
        } else {
            entry.view = Some(pairs);
        }
    }
}

/// `invoke : f(args)`: the op is another op called with these arguments.
fn parse_invoke(cx: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    let Some(text) = cx.scalar(key, v, "`function(args)`") else {
        return;
    };
    match parse_call(text) {
        Some(func) => entry.invoke = Some((text.trim().to_string(), func)),
        None => cx.err(
            v.line,
            SpecErrorKind::BadValue,
            format!("cannot parse `invoke : {text}`; expected `function(args)`"),
        ),
    }
}

/// `composite : f(args)`: a composite rule (kept as written).
fn parse_composite(cx: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    let Some(text) = cx.scalar(key, v, "`function(args)`") else {
        return;
    };
    if parse_call(text).is_none() {
        cx.err(
            v.line,
            SpecErrorKind::BadValue,
            format!("cannot parse `composite : {text}`; expected `function(args)`"),
        );
    }
    entry.has_composite = true;
    entry.extra.push((key.to_string(), text.trim().to_string()));
}

/// `backward : op_grad`: the backward op's name.
fn parse_backward(cx: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    let Some(text) = cx.scalar(key, v, "the backward op's name") else {
        return;
    };
    let t = text.trim();
    if is_ident(t) {
        entry.backward = Some(t.to_string());
    } else {
        cx.err(
            v.line,
            SpecErrorKind::BadValue,
            format!("`backward : {t}` is not one op name"),
        );
    }
}

/// `forward : op (args) -> outputs`: a backward op's forward signature (kept as written; on a
/// forward op it is only kept).
fn parse_forward(cx: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    let Some(text) = cx.scalar(key, v, "`name (args) -> outputs`") else {
        return;
    };
    if entry.kind == OpKind::Backward {
        match args::parse_signature(text) {
            Ok(sig) => entry.forward = Some(sig),
            Err(errs) => cx.arg_errors(v.line, errs, "forward"),
        }
    }
    entry.extra.push((key.to_string(), text.trim().to_string()));
}

/// `support_tensor : [a]`: `Scalar` and `IntArray` attributes that may arrive as tensors.
fn parse_support_tensor(cx: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    let Some(names) = cx.name_list(key, v) else {
        return;
    };
    for n in &names {
        match entry.attrs.iter().find(|a| &a.name == n) {
            Some(a) if a.ty.is_scalar() || a.ty == args::YamlType::IntArray => {}
            Some(a) => cx.err(
                v.line,
                SpecErrorKind::BadValue,
                format!(
                    "`support_tensor` names `{n}` of type `{}`; only `Scalar` and `IntArray` attributes can be passed as tensors",
                    a.ty.spelling()
                ),
            ),
            None => cx.err(
                v.line,
                SpecErrorKind::UnknownName,
                format!("`support_tensor` names `{n}`, which is not an attribute"),
            ),
        }
    }
    entry.support_tensor = names;
}

/// `traits : a, b` / `interfaces : a, b`: names as written (checked when lowered).
fn parse_traits_interfaces(cx: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    let Some(names) = cx.name_list(key, v) else {
        return;
    };
    if key == "traits" {
        entry.traits = names;
    } else {
        entry.interfaces = names;
    }
}

/// `custom_verify : true`: no generated signature check.
fn parse_custom_verify(cx: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    if let Some(b) = cx.bool_value(key, v) {
        entry.custom_verify = b;
        entry.extra.push((key.to_string(), b.to_string()));
    }
}

/// Boolean keys kept as written; `is_onednn_only` and `dynamic_fallback` also set flags.
fn parse_flag(cx: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    if let Some(b) = cx.bool_value(key, v) {
        match key {
            "is_onednn_only" => entry.is_onednn_only = b,
            "dynamic_fallback" => entry.dynamic_fallback = b,
            _ => {}
        }
        entry.extra.push((key.to_string(), b.to_string()));
    }
}

/// `data_transform : {skip_transform : [x], support_trans_dtype : [y]}`: tensor inputs.
fn parse_data_transform(cx: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    let Some(m) = cx.map(key, v, DATA_TRANSFORM_KEYS) else {
        return;
    };
    for (mk, mv) in m {
        let sub = mk.as_str().unwrap_or("");
        let full = format!("data_transform.{sub}");
        let Some(names) = cx.name_list(&full, mv) else {
            continue;
        };
        for n in &names {
            if !entry.has_input(n) {
                cx.err(
                    mv.line,
                    SpecErrorKind::UnknownName,
                    format!(
                        "`{full}` names `{n}`, which is not a tensor input; expected one of {}",
                        names_of(entry.inputs.iter().map(|a| a.name.as_str()))
                    ),
                );
            }
        }
        if sub == "skip_transform" {
            entry.skip_transform = names.clone();
        }
        entry.extra.push((full, names.join(", ")));
    }
}

fn flatten_into(extra: &mut Vec<(String, String)>, key: &str, node: &Node<'_>) {
    match &node.kind {
        NodeKind::Map(entries) => {
            for (k, v) in entries {
                flatten_into(extra, &format!("{key}.{}", k.as_str().unwrap_or("")), v);
            }
        }
        _ => extra.push((key.to_string(), as_written(node))),
    }
}

fn names_of<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    if v.is_empty() {
        "(none)".to_string()
    } else {
        v.join(", ")
    }
}

fn io_names(entry: &OpEntry) -> String {
    names_of(
        entry
            .inputs
            .iter()
            .map(|a| a.name.as_str())
            .chain(entry.outputs.iter().map(|o| o.name.as_str())),
    )
}

/// A constant in a `param` list (`[x, y, False, False]` in sparse_ops.yaml's matmul): Paddle
/// passes it through to the C++ call, so it names no argument.
pub(crate) fn is_literal_param(p: &str) -> bool {
    matches!(p, "True" | "False" | "None")
        || p.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | '"' | '\''))
}

/// Names in `infer_meta.param`, `kernel.param`, `kernel.data_type` and `kernel.backend` must be
/// arguments of the op (outputs are allowed in `param` lists: some backward InferMetas take
/// them).
fn check_params(cx: &mut Ctx<'_>, entry: &OpEntry) {
    let is_arg = |n: &str| entry.has_input(n) || entry.has_attr(n);
    let mut bad: Vec<(String, String)> = Vec::new();
    if let Some(im) = &entry.infer_meta {
        for p in im.param.iter().flatten() {
            if !is_literal_param(p) && !is_arg(p) && !entry.has_output(p) {
                bad.push((
                    "infer_meta".into(),
                    format!("`infer_meta.param` names `{p}`"),
                ));
            }
        }
    }
    if let Some(k) = &entry.kernel {
        for p in k.param.iter().flatten() {
            if !is_literal_param(p) && !is_arg(p) && !entry.has_output(p) {
                bad.push(("kernel".into(), format!("`kernel.param` names `{p}`")));
            }
        }
        for c in &k.data_type {
            let n = c.strip_prefix("complex:").unwrap_or(c);
            if !n.contains("::") && !is_arg(n) {
                bad.push(("kernel".into(), format!("`kernel.data_type` names `{n}`")));
            }
        }
        for c in &k.backend {
            if !is_arg(c) {
                bad.push(("kernel".into(), format!("`kernel.backend` names `{c}`")));
            }
        }
    }
    for (key, what) in bad {
        let line = entry.line_of(&key);
        cx.err(
            line,
            SpecErrorKind::UnknownName,
            format!(
                "{what}, which is not an argument of the op; expected one of {}",
                names_of(
                    entry
                        .inputs
                        .iter()
                        .chain(entry.attrs.iter())
                        .map(|a| a.name.as_str())
                )
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_grammar() {
        assert_eq!(
            parse_pairs("(x -> out), (y -> y_out)").unwrap(),
            vec![("out".into(), "x".into()), ("y_out".into(), "y".into())]
        );
        assert_eq!(parse_pairs("(x->out)").unwrap().len(), 1);
        assert!(parse_pairs("(x out)").is_err());
        assert!(parse_pairs("(x -> out), (y -> out)").is_err());
    }

    #[test]
    fn doc_comments() {
        let lines = ["# first", "# second", "- op : a"];
        assert_eq!(doc_above(&lines, 3), "first\nsecond");
        assert_eq!(doc_above(&lines, 1), "");
    }
}
