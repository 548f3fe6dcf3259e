//! The `infer_meta :` and `kernel :` maps of an op entry: the infer-meta function and its
//! parameters; the kernel functions (several make one class each, with an optional
//! `{dense, selected_rows -> dense}` dispatch signature), parameters and kernel-key candidates.

use crate::schema::TensorKind;
use crate::yaml::entry::{as_written, is_ident, is_qualified_ident, Ctx, OpEntry};
use crate::yaml::error::SpecErrorKind;
use crate::yaml::reader::{Node, NodeKind};

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

/// `infer_meta : {func, param, ...}`; the other keys are kept as written.
pub(crate) fn parse_infer_meta(cx: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    let Some(m) = cx.map(key, v, INFER_META_KEYS) else {
        return;
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
            "param" => param = param_list(cx, "infer_meta.param", mv),
            other => entry
                .extra
                .push((format!("infer_meta.{other}"), as_written(mv))),
        }
    }
    match func {
        // `sparse::CastInferMeta`: Paddle's sparse files qualify their functions.
        Some(func) if is_qualified_ident(&func) => {
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

/// `kernel : {func, param, data_type, backend, ...}`; the other keys are kept as written.
pub(crate) fn parse_kernel(cx: &mut Ctx<'_>, entry: &mut OpEntry, key: &str, v: &Node<'_>) {
    let Some(m) = cx.map(key, v, KERNEL_KEYS) else {
        return;
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
                if let Some(text) = cx.scalar("kernel.func", mv, "kernel function names") {
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
            "param" => kernel.param = param_list(cx, "kernel.param", mv),
            "data_type" => parse_data_type_candidates(cx, &mut kernel, mv),
            "backend" => parse_backend_candidates(cx, &mut kernel, mv),
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
        check_dispatch(cx, entry, &kernel, v.line);
        entry.kernel = Some(kernel);
    }
}

/// `kernel.data_type`: argument names, `complex(name)` or a fixed `DataType::NAME`.
fn parse_data_type_candidates(cx: &mut Ctx<'_>, kernel: &mut Kernel, mv: &Node<'_>) {
    let Some(text) = cx.scalar("kernel.data_type", mv, "argument names") else {
        return;
    };
    for c in candidates(text) {
        let bare = c
            .strip_prefix("complex(")
            .and_then(|r| r.strip_suffix(')'))
            .map(str::trim);
        match bare {
            Some(b) if is_ident(b) => kernel.data_type.push(format!("complex:{b}")),
            None if is_ident(&c) => kernel.data_type.push(c),
            // A fixed data type (`data_type : DataType::FLOAT32`).
            None if crate::phi::DataType::from_yaml(&c).is_some() && c.contains("DataType::") => {
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

/// `kernel.backend`: argument names.
fn parse_backend_candidates(cx: &mut Ctx<'_>, kernel: &mut Kernel, mv: &Node<'_>) {
    let Some(text) = cx.scalar("kernel.backend", mv, "argument names") else {
        return;
    };
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

/// A `param : [a, b]` list. An empty value (`param :`) means "not given" (the default
/// parameters), as Paddle's `parse_infer_meta`/`parse_kernel` treat `None`. On a malformed value
/// the error is reported (so the entry is dropped) and `None` returned.
/// A plain yaml scalar as Paddle's generator prints it after PyYAML read it: YAML 1.1 booleans
/// become Python's `True` / `False` (GetOpInfo of sparse `masked_matmul` lists
/// `[x, y, False, False]`); everything else as written.
fn python_text(text: &str, node: &Node<'_>) -> String {
    let plain = matches!(node.kind, NodeKind::Scalar { plain: true, .. });
    let lower = text.to_ascii_lowercase();
    let is_word = |words: &[&str]| {
        words.contains(&lower.as_str())
            && (text == lower || text == text.to_ascii_uppercase() || text[1..] == lower[1..])
    };
    match () {
        _ if plain && is_word(&["true", "yes", "on"]) => "True".to_string(),
        _ if plain && is_word(&["false", "no", "off"]) => "False".to_string(),
        _ => text.to_string(),
    }
}

fn param_list(cx: &mut Ctx<'_>, key: &str, node: &Node<'_>) -> Option<Vec<String>> {
    match &node.kind {
        NodeKind::Seq(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                let text = cx.scalar(key, item, "an argument name")?.trim();
                out.push(python_text(text, item));
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

/// Kernel-key candidates: `a > b` (a preference order) or `a, b`.
fn candidates(text: &str) -> Vec<String> {
    let sep = if text.contains('>') { '>' } else { ',' };
    text.split(sep)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// `kernel.func`: names, each optionally followed by `{inputs -> outputs}`.
pub(crate) fn parse_kernel_funcs(text: &str) -> Result<Vec<KernelFunc>, String> {
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
            dispatch = Some(parse_dispatch(name, &r[..close])?);
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

/// The dispatch signature `sig` (between the braces) of kernel `name`.
fn parse_dispatch(name: &str, sig: &str) -> Result<(Vec<DispatchKind>, Vec<DispatchKind>), String> {
    let Some((ins, outs)) = sig.split_once("->") else {
        return Err(format!(
            "dispatch signature `{{{sig}}}` of kernel `{name}` has no `->`; expected `{{dense, selected_rows -> dense}}`"
        ));
    };
    let kinds = |s: &str| -> Result<Vec<DispatchKind>, String> {
        s.split(',')
            .map(|k| dispatch_kind(name, k.trim()))
            .collect()
    };
    Ok((kinds(ins)?, kinds(outs)?))
}

/// One tensor type of a dispatch signature (`dense`, `vec::sparse_coo`).
fn dispatch_kind(name: &str, k: &str) -> Result<DispatchKind, String> {
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
        return Err(format!(
            "invalid tensor type `{k}` in the dispatch signature of kernel `{name}`"
        ));
    }
    Ok(DispatchKind { tensor, vector })
}

/// Dispatch signatures on all kernel functions or none, each of the op's arity; no function
/// named twice.
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
    fn candidates_split_on_preference_or_comma() {
        assert_eq!(candidates("x > y"), ["x", "y"]);
        assert_eq!(candidates("x, y"), ["x", "y"]);
        assert_eq!(candidates(" x "), ["x"]);
    }
}
