//! One `- op :` / `- backward_op :` entry, checked and parsed into Paddle's "parsed yaml" form
//! (what `parse_utils.parse_op_entry` produces), with the line of every key kept for messages.

use crate::schema::{OpKind, TensorKind};
use crate::yaml::args::{self, Arg, ArgError, Output, Signature};
use crate::yaml::error::{Diag, SpecErrorKind};
use crate::yaml::reader::{Node, NodeKind};

/// Top-level keys accepted in an op entry: `check_op_config`'s `base_key_set` (parse_utils.py)
/// plus the keys `op_gen.py` reads directly (`custom_verify`, `infer_shaped_type_op_interface`)
/// and the oneDNN extra-yaml keys it reads (`extra_args`, `data_format_tensors`,
/// `is_onednn_only`, `dynamic_fallback`).
pub(crate) const OP_KEYS: &[&str] = &[
    "op",
    "backward_op",
    "forward",
    "args",
    "output",
    "infer_meta",
    "kernel",
    "backward",
    "invoke",
    "inplace",
    "view",
    "optional",
    "intermediate",
    "no_need_buffer",
    "data_transform",
    "composite",
    "support_dygraph_mode",
    "support_tensor",
    "traits",
    "interfaces",
    "custom_verify",
    "infer_shaped_type_op_interface",
    "extra_args",
    "data_format_tensors",
    "is_onednn_only",
    "dynamic_fallback",
];

/// `check_op_config`'s `infer_meta_key_set`.
pub(crate) const INFER_META_KEYS: &[&str] =
    &["func", "param", "spmd_rule", "local_shape", "global_shape"];

/// `check_op_config`'s `kernel_key_set`.
pub(crate) const KERNEL_KEYS: &[&str] = &[
    "func",
    "param",
    "data_type",
    "layout",
    "backend",
    "force_backend",
];

/// Keys of `data_transform` (parse_utils.py).
pub(crate) const DATA_TRANSFORM_KEYS: &[&str] = &["skip_transform", "support_trans_dtype"];

/// The tensor kind named in a kernel dispatch signature, and whether it is a `vec::` list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DispatchKind {
    pub(crate) tensor: TensorKind,
    pub(crate) vector: bool,
}

/// One kernel function, with its `{dense, selected_rows -> dense}` signature if written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct KernelFunc {
    pub(crate) name: String,
    pub(crate) dispatch: Option<(Vec<DispatchKind>, Vec<DispatchKind>)>,
}

/// The `kernel :` map.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Kernel {
    pub(crate) funcs: Vec<KernelFunc>,
    pub(crate) param: Option<Vec<String>>,
    /// Candidates, `complex(x)` written as `complex:x`.
    pub(crate) data_type: Vec<String>,
    pub(crate) backend: Vec<String>,
}

/// The `infer_meta :` map.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct InferMeta {
    pub(crate) func: String,
    pub(crate) param: Option<Vec<String>>,
}

/// One parsed op entry.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OpEntry {
    /// Index of the source file.
    pub(crate) file: usize,
    /// Line of the entry's first key.
    pub(crate) line: u32,
    pub(crate) name: String,
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
    pub(crate) key_lines: Vec<(String, u32)>,
    pub(crate) doc: String,
}

impl OpEntry {
    /// The line of a top-level key, or the entry's line.
    pub(crate) fn line_of(&self, key: &str) -> u32 {
        self.key_lines
            .iter()
            .find(|(k, _)| k == key)
            .map_or(self.line, |(_, l)| *l)
    }

    /// Whether Paddle treats this as a "base op" (kernel/infer_meta/inplace/view are used):
    /// neither `invoke` nor a `composite` without a `kernel` (parse_utils.py).
    pub(crate) fn is_base_op(&self) -> bool {
        self.invoke.is_none() && !(self.has_composite && self.kernel.is_none())
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
pub(crate) fn as_written(node: &Node) -> String {
    match &node.kind {
        NodeKind::Scalar { value, .. } => value.clone(),
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
        node: &'n Node,
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
    pub(crate) fn name_list(&mut self, key: &str, node: &Node) -> Option<Vec<String>> {
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

    fn bool_value(&mut self, key: &str, node: &Node) -> Option<bool> {
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
        node: &'n Node,
        allowed: &[&str],
    ) -> Option<&'n [(Node, Node)]> {
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

fn is_qualified_ident(s: &str) -> bool {
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

fn parse_kernel_funcs(text: &str) -> Result<Vec<KernelFunc>, String> {
    let mut funcs = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if rest.is_empty() {
            break;
        }
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end == 0 {
            return Err(format!(
                "unexpected `{}`; expected kernel names, each optionally followed by `{{inputs -> outputs}}`",
                rest.chars().next().unwrap_or(' ')
            ));
        }
        let name = &rest[..end];
        rest = rest[end..].trim_start();
        let mut dispatch = None;
        if let Some(r) = rest.strip_prefix('{') {
            let Some(close) = r.find('}') else {
                return Err(format!("missing `}}` after kernel `{name}`"));
            };
            let sig = &r[..close];
            let Some((ins, outs)) = sig.split_once("->") else {
                return Err(format!(
                    "dispatch signature `{{{sig}}}` of kernel `{name}` has no `->`; expected `{{dense, selected_rows -> dense}}`"
                ));
            };
            let kinds = |s: &str| -> Result<Vec<DispatchKind>, String> {
                s.split(',')
                    .map(|k| {
                        let k = k.trim();
                        let (vector, base) = match k.strip_prefix("vec::") {
                            Some(b) => (true, b),
                            None => (false, k),
                        };
                        let tensor = match base {
                            "dense" => TensorKind::Dense,
                            "selected_rows" => TensorKind::SelectedRows,
                            "sparse_coo" => TensorKind::SparseCoo,
                            "sparse_csr" => TensorKind::SparseCsr,
                            _ => {
                                return Err(format!(
                                    "invalid tensor type `{k}` in the dispatch signature of kernel `{name}`; expected dense, selected_rows, sparse_coo, sparse_csr, vec::sparse_coo or vec::sparse_csr"
                                ))
                            }
                        };
                        if vector && !matches!(tensor, TensorKind::SparseCoo | TensorKind::SparseCsr) {
                            return Err(format!("invalid tensor type `{k}` in the dispatch signature of kernel `{name}`"));
                        }
                        Ok(DispatchKind { tensor, vector })
                    })
                    .collect()
            };
            dispatch = Some((kinds(ins)?, kinds(outs)?));
            rest = r[close + 1..].trim_start();
        }
        funcs.push(KernelFunc {
            name: name.to_string(),
            dispatch,
        });
    }
    if funcs.is_empty() {
        return Err("no kernel function named".into());
    }
    Ok(funcs)
}

fn candidates(text: &str) -> Vec<String> {
    let sep = if text.contains('>') { '>' } else { ',' };
    text.split(sep)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
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
    node: &Node,
    diag: &mut Diag,
) -> Parsed {
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
        return Parsed::Unnamed;
    };
    let entry_line = map.first().map_or(node.line, |(k, _)| k.line);
    let get = |key: &str| {
        map.iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    };

    // Name and kind first, so every later message can name the op.
    let (kind, name_node) = match (get("op"), get("backward_op")) {
        (Some(n), None) => (OpKind::Forward, n),
        (None, Some(n)) => (OpKind::Backward, n),
        (Some(_), Some(_)) => {
            diag.push(
                file,
                entry_line,
                None,
                SpecErrorKind::BadValue,
                "an entry has both `op` and `backward_op`; expected exactly one",
            );
            return Parsed::Unnamed;
        }
        (None, None) => {
            diag.push(
                file,
                entry_line,
                None,
                SpecErrorKind::MissingKey,
                "an entry has neither `op` nor `backward_op`; expected `- op : name` or `- backward_op : name`",
            );
            return Parsed::Unnamed;
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
            return Parsed::Unnamed;
        }
    };
    let errors_before = diag.errors.len();
    let mut cx = Ctx {
        file,
        op: Some(&name),
        diag,
    };

    let mut entry = OpEntry {
        file: file_idx,
        line: entry_line,
        name: name.clone(),
        kind,
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
        key_lines: map
            .iter()
            .map(|(k, _)| (k.as_str().unwrap_or("").to_string(), k.line))
            .collect(),
        doc: doc_above(lines, entry_line),
    };

    // Keys: unknown and duplicated.
    let mut seen: Vec<&str> = Vec::new();
    for (k, _) in map {
        let key = k.as_str().unwrap_or("");
        if seen.contains(&key) {
            cx.err(
                k.line,
                SpecErrorKind::Duplicate,
                format!("key `{key}` appears twice"),
            );
        }
        seen.push(key);
        if !OP_KEYS.contains(&key) {
            cx.err(
                k.line,
                SpecErrorKind::UnknownKey,
                format!(
                    "unknown key `{key}`; Paddle's generator accepts {}",
                    OP_KEYS.join(", ")
                ),
            );
        }
    }

    // args
    match get("args") {
        None => {
            cx.err(
                entry_line,
                SpecErrorKind::MissingKey,
                "missing `args`; expected `args : (Tensor x, ...)`",
            );
        }
        Some(node) => {
            if let Some(text) = cx.scalar("args", node, "`(Type name, ...)`") {
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
        }
    }

    // output
    match get("output") {
        None => cx.err(
            entry_line,
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

    for (k, v) in map {
        let key = k.as_str().unwrap_or("");
        match key {
            "op" | "backward_op" | "args" | "output" => {}
            "optional" => {
                if let Some(names) = cx.name_list(key, v) {
                    for n in names {
                        if let Some(i) = entry.inputs.iter().position(|a| a.name == n) {
                            entry.input_optional[i] = true;
                        } else if let Some(i) = entry.outputs.iter().position(|o| o.name == n) {
                            entry.output_optional[i] = true;
                        } else {
                            cx.err(
                                v.line,
                                SpecErrorKind::UnknownName,
                                format!(
                                    "`optional` names `{n}`, which is neither a tensor input nor an output; expected one of {}",
                                    io_names(&entry)
                                ),
                            );
                        }
                    }
                }
            }
            "intermediate" => {
                if let Some(names) = cx.name_list(key, v) {
                    for n in names {
                        if let Some(i) = entry.outputs.iter().position(|o| o.name == n) {
                            entry.output_intermediate[i] = true;
                        } else {
                            cx.err(
                                v.line,
                                SpecErrorKind::UnknownName,
                                format!(
                                    "`intermediate` names `{n}`, which is not an output; expected one of {}",
                                    names_of(entry.outputs.iter().map(|o| o.name.as_str()))
                                ),
                            );
                        }
                    }
                }
            }
            "no_need_buffer" => {
                if let Some(names) = cx.name_list(key, v) {
                    for n in names {
                        if let Some(i) = entry.inputs.iter().position(|a| a.name == n) {
                            entry.input_no_need_buffer[i] = true;
                        } else {
                            cx.err(
                                v.line,
                                SpecErrorKind::UnknownName,
                                format!(
                                    "`no_need_buffer` names `{n}`, which is not a tensor input; expected one of {}",
                                    names_of(entry.inputs.iter().map(|a| a.name.as_str()))
                                ),
                            );
                        }
                    }
                }
            }
            "inplace" | "view" => {
                let Some(text) = cx.scalar(key, v, "`(input -> output), ...`") else {
                    continue;
                };
                match parse_pairs(text) {
                    Err(msg) => cx.err(
                        v.line,
                        SpecErrorKind::BadValue,
                        format!("in `{key}`: {msg}"),
                    ),
                    Ok(pairs) => {
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
                }
            }
            "infer_meta" => {
                let Some(m) = cx.map(key, v, INFER_META_KEYS) else {
                    continue;
                };
                let mut func = None;
                let mut param = None;
                for (mk, mv) in m {
                    match mk.as_str().unwrap_or("") {
                        "func" => {
                            func = cx
                                .scalar("infer_meta.func", mv, "an InferMeta function name")
                                .map(|s| s.trim().to_string())
                        }
                        "param" => param = param_list(&mut cx, "infer_meta.param", mv),
                        other => entry
                            .extra
                            .push((format!("infer_meta.{other}"), as_written(mv))),
                    }
                }
                match func {
                    Some(func) if is_ident(&func) => {
                        entry.infer_meta = Some(InferMeta { func, param })
                    }
                    Some(func) => cx.err(
                        v.line,
                        SpecErrorKind::BadValue,
                        format!("`infer_meta.func` `{func}` is not a function name"),
                    ),
                    None if m.iter().any(|(k, _)| k.as_str() == Some("func")) => {}
                    None => cx.err(
                        v.line,
                        SpecErrorKind::MissingKey,
                        "`infer_meta` has no `func`; expected `func : SomeInferMeta`",
                    ),
                }
            }
            "kernel" => {
                let Some(m) = cx.map(key, v, KERNEL_KEYS) else {
                    continue;
                };
                let mut kernel = Kernel {
                    funcs: Vec::new(),
                    param: None,
                    data_type: Vec::new(),
                    backend: Vec::new(),
                };
                let mut has_func = false;
                for (mk, mv) in m {
                    match mk.as_str().unwrap_or("") {
                        "func" => {
                            has_func = true;
                            if let Some(text) =
                                cx.scalar("kernel.func", mv, "kernel function names")
                            {
                                match parse_kernel_funcs(text) {
                                    Ok(f) => kernel.funcs = f,
                                    Err(msg) => cx.err(
                                        mv.line,
                                        SpecErrorKind::BadValue,
                                        format!("in `kernel.func`: {msg}"),
                                    ),
                                }
                            }
                        }
                        "param" => kernel.param = param_list(&mut cx, "kernel.param", mv),
                        "data_type" => {
                            if let Some(text) = cx.scalar("kernel.data_type", mv, "argument names")
                            {
                                for c in candidates(text) {
                                    let bare = c
                                        .strip_prefix("complex(")
                                        .and_then(|r| r.strip_suffix(')'))
                                        .map(str::trim);
                                    match bare {
                                        Some(b) if is_ident(b) => {
                                            kernel.data_type.push(format!("complex:{b}"))
                                        }
                                        None if is_ident(&c) => kernel.data_type.push(c),
                                        // A fixed data type (`data_type : DataType::FLOAT32`).
                                        None if crate::phi::DataType::from_yaml(&c).is_some()
                                            && c.contains("DataType::") =>
                                        {
                                            kernel.data_type.push(c)
                                        }
                                        _ => cx.err(
                                            mv.line,
                                            SpecErrorKind::BadValue,
                                            format!("`kernel.data_type` candidate `{c}` is not an argument name, `complex(name)` or `DataType::NAME`"),
                                        ),
                                    }
                                }
                            }
                        }
                        "backend" => {
                            if let Some(text) = cx.scalar("kernel.backend", mv, "argument names") {
                                for c in candidates(text) {
                                    if is_ident(&c) {
                                        kernel.backend.push(c);
                                    } else {
                                        cx.err(
                                            mv.line,
                                            SpecErrorKind::BadValue,
                                            format!("`kernel.backend` candidate `{c}` is not an argument name"),
                                        );
                                    }
                                }
                            }
                        }
                        other => entry
                            .extra
                            .push((format!("kernel.{other}"), as_written(mv))),
                    }
                }
                if !has_func {
                    cx.err(
                        v.line,
                        SpecErrorKind::MissingKey,
                        "`kernel` has no `func`; expected `func : kernel_name`",
                    );
                } else if !kernel.funcs.is_empty() {
                    check_dispatch(&mut cx, &entry, &kernel, v.line);
                    entry.kernel = Some(kernel);
                }
            }
            "invoke" => {
                if let Some(text) = cx.scalar(key, v, "`function(args)`") {
                    match parse_call(text) {
                        Some(func) => entry.invoke = Some((text.trim().to_string(), func)),
                        None => cx.err(
                            v.line,
                            SpecErrorKind::BadValue,
                            format!("cannot parse `invoke : {text}`; expected `function(args)`"),
                        ),
                    }
                }
            }
            "composite" => {
                if let Some(text) = cx.scalar(key, v, "`function(args)`") {
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
            }
            "backward" => {
                if let Some(text) = cx.scalar(key, v, "the backward op's name") {
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
            }
            "forward" => {
                let Some(text) = cx.scalar(key, v, "`name (args) -> outputs`") else {
                    continue;
                };
                if kind == OpKind::Forward {
                    entry.extra.push((key.to_string(), text.trim().to_string()));
                    continue;
                }
                match args::parse_signature(text) {
                    Ok(sig) => entry.forward = Some(sig),
                    Err(errs) => cx.arg_errors(v.line, errs, "forward"),
                }
                entry.extra.push((key.to_string(), text.trim().to_string()));
            }
            "support_tensor" => {
                if let Some(names) = cx.name_list(key, v) {
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
            }
            "traits" | "interfaces" => {
                if let Some(names) = cx.name_list(key, v) {
                    if key == "traits" {
                        entry.traits = names;
                    } else {
                        entry.interfaces = names;
                    }
                }
            }
            "custom_verify" => {
                if let Some(b) = cx.bool_value(key, v) {
                    entry.custom_verify = b;
                    entry.extra.push((key.to_string(), b.to_string()));
                }
            }
            "is_onednn_only" | "dynamic_fallback" | "support_dygraph_mode" => {
                if let Some(b) = cx.bool_value(key, v) {
                    match key {
                        "is_onednn_only" => entry.is_onednn_only = b,
                        "dynamic_fallback" => entry.dynamic_fallback = b,
                        _ => {}
                    }
                    entry.extra.push((key.to_string(), b.to_string()));
                }
            }
            "data_transform" => {
                let Some(m) = cx.map(key, v, DATA_TRANSFORM_KEYS) else {
                    continue;
                };
                for (mk, mv) in m {
                    let sub = mk.as_str().unwrap_or("");
                    let full = format!("data_transform.{sub}");
                    if let Some(names) = cx.name_list(&full, mv) {
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
            }
            // Kept as written.
            _ => {
                if OP_KEYS.contains(&key) {
                    flatten_into(&mut entry.extra, key, v);
                }
            }
        }
    }

    check_params(&mut cx, &entry);
    if cx.diag.errors.len() > errors_before {
        return Parsed::Broken {
            name: entry.name,
            file: file_idx,
            line: entry_line,
        };
    }
    Parsed::Ok(Box::new(entry))
}

fn flatten_into(extra: &mut Vec<(String, String)>, key: &str, node: &Node) {
    match &node.kind {
        NodeKind::Map(entries) => {
            for (k, v) in entries {
                flatten_into(extra, &format!("{key}.{}", k.as_str().unwrap_or("")), v);
            }
        }
        _ => extra.push((key.to_string(), as_written(node))),
    }
}

/// A `param : [a, b]` list. An empty value (`param :`) means "not given" (the default
/// parameters), as Paddle's `parse_infer_meta`/`parse_kernel` treat `None`. On a malformed value
/// the error is reported (so the entry is dropped) and `None` returned.
fn param_list(cx: &mut Ctx<'_>, key: &str, node: &Node) -> Option<Vec<String>> {
    match &node.kind {
        NodeKind::Seq(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(cx.scalar(key, item, "an argument name")?.trim().to_string());
            }
            Some(out)
        }
        _ if node.is_null() => None,
        _ => {
            cx.err(
                node.line,
                SpecErrorKind::BadValue,
                format!(
                    "`{key}` is {}; expected a list such as `[x, axis]`",
                    node.shape()
                ),
            );
            None
        }
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

fn check_dispatch(cx: &mut Ctx<'_>, entry: &OpEntry, kernel: &Kernel, line: u32) {
    let with = kernel.funcs.iter().filter(|f| f.dispatch.is_some()).count();
    if with != 0 && with != kernel.funcs.len() {
        cx.err(
            line,
            SpecErrorKind::BadValue,
            "some kernel functions have a dispatch signature `{...}` and some do not; expected all or none",
        );
        return;
    }
    for f in &kernel.funcs {
        let Some((ins, outs)) = &f.dispatch else {
            continue;
        };
        if ins.len() != entry.inputs.len() || outs.len() != entry.outputs.len() {
            cx.err(
                line,
                SpecErrorKind::BadValue,
                format!(
                    "the dispatch signature of kernel `{}` lists {} inputs and {} outputs, but the op has {} tensor inputs and {} outputs",
                    f.name,
                    ins.len(),
                    outs.len(),
                    entry.inputs.len(),
                    entry.outputs.len()
                ),
            );
        }
    }
    if kernel.funcs.len() > 1 {
        let mut seen: Vec<&str> = Vec::new();
        for f in &kernel.funcs {
            if seen.contains(&f.name.as_str()) {
                cx.err(
                    line,
                    SpecErrorKind::Duplicate,
                    format!("kernel function `{}` is listed twice", f.name),
                );
            }
            seen.push(&f.name);
        }
    }
}

/// Names in `infer_meta.param`, `kernel.param`, `kernel.data_type` and `kernel.backend` must be
/// arguments of the op (outputs are allowed in `param` lists: some backward InferMetas take
/// them).
fn check_params(cx: &mut Ctx<'_>, entry: &OpEntry) {
    let is_arg = |n: &str| entry.has_input(n) || entry.has_attr(n);
    let mut bad: Vec<(String, String)> = Vec::new();
    if let Some(im) = &entry.infer_meta {
        for p in im.param.iter().flatten() {
            if !is_arg(p) && !entry.has_output(p) {
                bad.push((
                    "infer_meta".into(),
                    format!("`infer_meta.param` names `{p}`"),
                ));
            }
        }
    }
    if let Some(k) = &entry.kernel {
        for p in k.param.iter().flatten() {
            if !is_arg(p) && !entry.has_output(p) {
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
    fn kernel_funcs_grammar() {
        let f = parse_kernel_funcs(
            "adagrad {dense, dense -> dense}\n adagrad_sr {dense, selected_rows -> dense}",
        )
        .unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(
            f[1].dispatch.as_ref().unwrap().0[1].tensor,
            TensorKind::SelectedRows
        );
        let f = parse_kernel_funcs("abs, abs_sr").unwrap();
        assert_eq!(f.len(), 2);
        assert!(parse_kernel_funcs("a {dense -> nope}").is_err());
        assert!(parse_kernel_funcs("a {dense}").is_err());
        assert!(parse_kernel_funcs("a {dense -> dense").is_err());
        assert!(parse_kernel_funcs("").is_err());
    }

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
