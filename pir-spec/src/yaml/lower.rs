//! Lowering parsed entries to [`OpSchema`]s: one class per (op, inplace twin, kernel), with
//! mutable attributes, GetOpInfo data, traits and interfaces chosen as Paddle's `op_gen.py` does.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::schema::{
    AttributeSpec, CompatMutable, CompatSpec, InputKind, InputSpec, List, MutableAttr, OpKind,
    OpSchema, OutputSpec, RuntimeInfo, SourceLoc, Str, ValueKind,
};
use crate::yaml::args::{Arg, YamlType};
use crate::yaml::compat::{CompatEntry, CompatIndex};
use crate::yaml::entry::{DispatchKind, OpEntry};
use crate::yaml::error::{Diag, SpecErrorKind};
use crate::yaml::paddle::{
    class_name, short_name, CACHE_GRAD_OP_SHAPE_BLACK_LIST, CUSTOM_VJP, DECOMP_RULE_OPS,
    DECOMP_VJP_OPS, VJP_INTERFACE_BLACK_LIST,
};

fn s(x: &str) -> Str {
    Cow::Owned(x.to_string())
}

fn list<T: Clone>(v: Vec<T>) -> List<T> {
    Cow::Owned(v)
}

/// Everything the lowering needs to look across entries.
pub(crate) struct Ctx<'a> {
    pub(crate) dialect: &'a str,
    pub(crate) files: &'a [&'a str],
    pub(crate) entries: &'a [OpEntry],
    pub(crate) by_name: &'a HashMap<&'a str, usize>,
    pub(crate) compat: &'a [CompatEntry],
    pub(crate) compat_index: &'a CompatIndex,
    /// Names of entries that had errors (already reported).
    pub(crate) broken: &'a std::collections::HashSet<String>,
}

impl Ctx<'_> {
    fn get(&self, name: &str) -> Option<&OpEntry> {
        self.by_name.get(name).map(|&i| &self.entries[i])
    }

    fn err(&self, diag: &mut Diag, e: &OpEntry, line: u32, kind: SpecErrorKind, msg: String) {
        diag.push(self.files[e.file], line, Some(&e.name), kind, msg);
    }

    /// Paddle's compat lookup: the entry naming the op (or one of its backward ops), else for a
    /// `*_grad` op the entry of its forward.
    fn compat_of(&self, e: &OpEntry) -> Option<&CompatEntry> {
        if let Some(i) = self.compat_index.get(&e.name) {
            return Some(&self.compat[i]);
        }
        if e.name.ends_with("_grad") || e.name.ends_with("_grad_") {
            if let Some(f) = &e.forward {
                return self.compat_index.get(&f.name).map(|i| &self.compat[i]);
            }
        }
        None
    }
}

/// Checks a forward/backward pair as Paddle's `cross_validate` and `get_input_grad_semantic`
/// do.
pub(crate) fn cross_check(cx: &Ctx<'_>, diag: &mut Diag) {
    for e in cx.entries {
        if let Some(b) = e.backward.as_ref().filter(|b| !cx.broken.contains(*b)) {
            let line = e.line_of("backward");
            if b == &e.name {
                cx.err(
                    diag,
                    e,
                    line,
                    SpecErrorKind::ForwardBackward,
                    format!("`backward : {b}` names the op itself"),
                );
                continue;
            }
            if let Some(be) = cx.get(b) {
                if be.kind != OpKind::Backward {
                    cx.err(
                        diag,
                        e,
                        line,
                        SpecErrorKind::ForwardBackward,
                        format!(
                            "`backward : {b}` names an `op` entry; expected a `backward_op` entry"
                        ),
                    );
                } else if let Some(sig) = &be.forward {
                    if sig.name != e.name {
                        cx.err(
                            diag,
                            e,
                            line,
                            SpecErrorKind::ForwardBackward,
                            format!(
                                "backward op `{b}` ({}:{}) says its forward is `{}`, not `{}`",
                                cx.files[be.file],
                                be.line_of("forward"),
                                sig.name,
                                e.name
                            ),
                        );
                    }
                }
            }
        }
        let Some(sig) = e.forward.as_ref().filter(|f| !cx.broken.contains(&f.name)) else {
            continue;
        };
        let line = e.line_of("forward");
        let Some(f) = cx.get(&sig.name) else {
            // Higher-order backward ops (`abs_double_grad`'s forward is `abs_grad`) live in the
            // backward files themselves, so their forward must be in the set.
            if sig.name.ends_with("_grad") || sig.name.ends_with("_grad_") {
                cx.err(
                    diag,
                    e,
                    line,
                    SpecErrorKind::ForwardBackward,
                    format!(
                        "forward op `{}` is not defined in the loaded files; a backward op's forward that is itself a backward op must be defined alongside it",
                        sig.name
                    ),
                );
            }
            continue;
        };
        if let Some(fb) = &f.backward {
            if fb != &e.name {
                cx.err(
                    diag,
                    e,
                    line,
                    SpecErrorKind::ForwardBackward,
                    format!(
                        "forward op `{}` ({}:{}) declares `backward : {fb}`, not `{}`",
                        f.name,
                        cx.files[f.file],
                        f.line_of("backward"),
                        e.name
                    ),
                );
                continue;
            }
        } else {
            continue;
        }
        // Signatures: `forward:` must match the forward op's own args and outputs.
        let sig_inputs: Vec<&Arg> = sig.args.iter().filter(|a| a.ty.is_tensor()).collect();
        let sig_attrs: Vec<&Arg> = sig.args.iter().filter(|a| !a.ty.is_tensor()).collect();
        let mut problems = Vec::new();
        if sig_inputs.len() != f.inputs.len() {
            problems.push(format!(
                "it lists {} tensor inputs, `{}` has {}",
                sig_inputs.len(),
                f.name,
                f.inputs.len()
            ));
        }
        for (a, b) in sig_inputs.iter().zip(&f.inputs) {
            if a.ty != b.ty {
                problems.push(format!(
                    "input `{}` is `{}` here but `{}` `{}` in `{}`",
                    a.name,
                    a.ty.spelling(),
                    b.ty.spelling(),
                    b.name,
                    f.name
                ));
            }
        }
        // Attribute types are not compared: Paddle's own files disagree there (`int[]` vs
        // `int64_t[]` in pool2d/pool2d_grad) and its pd_op generator does not check them.
        if sig_attrs.len() > f.attrs.len() {
            problems.push(format!(
                "it lists {} attributes, `{}` has {}",
                sig_attrs.len(),
                f.name,
                f.attrs.len()
            ));
        }
        if sig.outputs.len() != f.outputs.len() {
            problems.push(format!(
                "it lists {} outputs, `{}` has {}",
                sig.outputs.len(),
                f.name,
                f.outputs.len()
            ));
        }
        for (a, b) in sig.outputs.iter().zip(&f.outputs) {
            if a.kind != b.kind {
                problems.push(format!(
                    "output `{}` is `{}` here but `{}` `{}` in `{}`",
                    a.name, a.spelling, b.spelling, b.name, f.name
                ));
            }
        }
        for p in problems {
            cx.err(
                diag,
                e,
                line,
                SpecErrorKind::ForwardBackward,
                format!(
                    "`forward` signature disagrees with op `{}` ({}:{}): {p}",
                    f.name, cx.files[f.file], f.line
                ),
            );
        }
    }
}

/// Python's `name[:-5]` (cuts `_grad`).
fn cut5(name: &str) -> &str {
    name.len()
        .checked_sub(5)
        .and_then(|n| name.get(..n))
        .unwrap_or("")
}

struct Mutable {
    name: String,
    kind: crate::schema::AttrKind,
    data_type: String,
}

/// Decides mutable attributes as `OpInfoParser.parse_mutable_attribute` does.
fn mutable_attributes(cx: &Ctx<'_>, e: &OpEntry) -> Vec<Mutable> {
    use crate::schema::AttrKind;
    let mut found: Vec<Mutable> = Vec::new();
    if !e.support_tensor.is_empty() {
        // The op's own `support_tensor: [...]` replaces the compat entry's lists
        // (op_gen.py `parse_support_tensor`). Paddle files IntArray names there under `scalar`
        // (a latent bug) and ignores the key for ops without a compat entry; we keep each
        // attribute's own kind and honour the key for every op.
        for n in &e.support_tensor {
            if let Some(a) = e.attrs.iter().find(|a| &a.name == n) {
                let kind = if a.ty == YamlType::IntArray {
                    AttrKind::IntArray
                } else {
                    AttrKind::Scalar
                };
                found.push(Mutable {
                    name: n.clone(),
                    kind,
                    data_type: a.ty.data_type().to_string(),
                });
            }
        }
    } else if let Some(c) = cx.compat_of(e) {
        let is_mutable = |m: &CompatMutable| {
            m.support_tensor || m.tensor_name.is_some() || m.tensors_name.is_some()
        };
        // op_gen.py: `op_compat_item = op_compat_item.pop('scalar')` for `pow` -- pow's scalar
        // entry is dropped.
        if c.op != "pow" {
            for m in c.scalar.iter().filter(|m| is_mutable(m)) {
                // op_gen.py special case: one_hot's compat `depth` is the op's `num_classes`.
                let name = if m.name == "depth" && e.name == "one_hot" {
                    "num_classes".to_string()
                } else {
                    m.name.to_string()
                };
                let data_type = match &m.data_type {
                    // op_gen.py special case ("patch for isclose and allclose").
                    Some(_) if c.op == "isclose" || c.op == "allclose" => "double".to_string(),
                    Some(d) => d.to_string(),
                    None => e
                        .attrs
                        .iter()
                        .find(|a| a.name == name)
                        .map(|a| a.ty.data_type().to_string())
                        .unwrap_or_default(),
                };
                found.push(Mutable {
                    name,
                    kind: AttrKind::Scalar,
                    data_type,
                });
            }
        }
        for m in c.int_array.iter().filter(|m| is_mutable(m)) {
            found.push(Mutable {
                name: m.name.to_string(),
                kind: AttrKind::IntArray,
                data_type: m.data_type.as_deref().unwrap_or_default().to_string(),
            });
        }
    }
    // In attribute order, attributes only.
    let mut out = Vec::new();
    for a in &e.attrs {
        if let Some(pos) = found.iter().position(|m| m.name == a.name) {
            out.push(found.swap_remove(pos));
        }
    }
    out
}

/// Checks a compat entry against the forward op it names.
pub(crate) fn check_compat(
    files: &[&str],
    compat_file: &str,
    compat: &[CompatEntry],
    entries: &[OpEntry],
    by_name: &HashMap<&str, usize>,
    diag: &mut Diag,
) {
    // Paddle's `get_compat` takes the first entry naming an op; op_compat.yaml itself has
    // repeated entries (`shape`, `dgc`, ...), so later ones are not errors, only unused.
    let index = CompatIndex::new(compat);
    for (ci, c) in compat.iter().enumerate() {
        if index.get(&c.op) != Some(ci) {
            continue;
        }
        let Some(&i) = by_name.get(c.op.as_str()) else {
            continue;
        };
        let e = &entries[i];
        for m in c.scalar.iter().chain(c.int_array.iter()) {
            let known = e.has_attr(&m.name) || (m.name == "depth" && e.name == "one_hot");
            if !known {
                diag.push(
                    compat_file,
                    c.line,
                    Some(&c.op),
                    SpecErrorKind::Compat,
                    format!(
                        "`{}` names attribute `{}`, which op `{}` ({}:{}) does not have",
                        if c.scalar.iter().any(|x| x.name == m.name) {
                            "scalar"
                        } else {
                            "int_array"
                        },
                        m.name,
                        e.name,
                        files[e.file],
                        e.line
                    ),
                );
            }
        }
    }
}

fn value_kind(arg: &Arg) -> ValueKind {
    if arg.ty == YamlType::TensorList {
        ValueKind::Vector(crate::schema::TensorKind::Dense)
    } else {
        ValueKind::DENSE
    }
}

fn dispatched(d: DispatchKind, vector: bool) -> ValueKind {
    if d.vector || vector {
        ValueKind::Vector(d.tensor)
    } else {
        ValueKind::Tensor(d.tensor)
    }
}

fn sorted_unique(mut v: Vec<String>) -> List<Str> {
    v.sort();
    v.dedup();
    list(v.into_iter().map(Cow::Owned).collect())
}

/// Lowers one entry into its classes.
pub(crate) fn lower_entry(cx: &Ctx<'_>, e: &OpEntry, out: &mut Vec<OpSchema>) {
    let base = e.is_base_op();
    let kernel = if base { e.kernel.as_ref() } else { None };
    let infer_meta = if base { e.infer_meta.as_ref() } else { None };
    let inplace = if base { e.inplace.as_ref() } else { None };
    let view = if base { e.view.as_ref() } else { None };

    let mut phi_names = vec![e.name.clone()];
    if (inplace.is_some() || view.is_some()) && !e.name.ends_with('_') {
        phi_names.push(format!("{}_", e.name));
    }
    let funcs: Vec<Option<&crate::yaml::entry::KernelFunc>> = match kernel {
        Some(k) => k.funcs.iter().map(Some).collect(),
        None => vec![None],
    };

    // Grad semantics from the backward op's outputs through its `forward:` signature.
    let mutables = mutable_attributes(cx, e);
    let bwd = e.backward.as_deref().and_then(|b| cx.get(b));
    let bwd_outs: Vec<&str> = bwd
        .map(|b| b.outputs.iter().map(|o| cut5(&o.name)).collect())
        .unwrap_or_default();
    let input_grad: Vec<bool> = match bwd.and_then(|b| b.forward.as_ref()) {
        Some(sig) => {
            let fwd_inputs: Vec<&str> = sig
                .args
                .iter()
                .filter(|a| a.ty.is_tensor())
                .map(|a| a.name.as_str())
                .collect();
            (0..e.inputs.len())
                .map(|i| fwd_inputs.get(i).is_some_and(|n| bwd_outs.contains(n)))
                .collect()
        }
        None => vec![false; e.inputs.len()],
    };
    let mutable_grad: Vec<bool> = mutables
        .iter()
        .map(|m| bwd.is_some() && bwd_outs.contains(&m.name.as_str()))
        .collect();

    // Output optionality, refined by inplace (op_gen.py `refine_output_optional_list`).
    let mut out_optional = e.output_optional.clone();
    if let Some(pairs) = inplace {
        for (i, o) in e.outputs.iter().enumerate() {
            if let Some((_, input)) = pairs.iter().find(|(out, _)| *out == o.name) {
                if let Some(j) = e.inputs.iter().position(|a| &a.name == input) {
                    if e.input_optional[j] {
                        out_optional[i] = true;
                    }
                }
            }
        }
    }

    let compat = cx.compat_of(e).map(|c| compat_spec(c, &e.name));
    let all_args: Vec<String> = e
        .inputs
        .iter()
        .chain(e.attrs.iter())
        .map(|a| a.name.clone())
        .collect();
    let kernel_param: Vec<String> = kernel
        .map(|k| k.param.clone().unwrap_or_else(|| all_args.clone()))
        .unwrap_or_default();
    let infer_meta_param: Vec<String> = infer_meta
        .map(|im| {
            im.param.clone().unwrap_or_else(|| {
                if kernel.is_some() {
                    kernel_param.clone()
                } else {
                    all_args.clone()
                }
            })
        })
        .unwrap_or_default();

    // Traits and interfaces common to every class of the entry.
    let pd_like = cx.dialect == "pd_op" || cx.dialect == "onednn_op";
    let onednn = cx.dialect == "onednn_op";
    let mut base_interfaces: Vec<String> = e
        .interfaces
        .iter()
        .map(|i| short_name(i).to_string())
        .collect();
    // op_gen.py (AutoCodeGen), in its order: OpYamlInfo always; CacheGradOpSymbolicShape for
    // pd_op when the backward op has a kernel (needs the backward loaded); GetKernelTypeForVar
    // for pd_op/onednn_op; InferMeta and Vjp from op_infermeta_func_gen.py and
    // op_vjp_interface_func_gen.py; Decomp/DecompVjp per class below.
    base_interfaces.push("OpYamlInfoInterface".into());
    if cx.dialect == "pd_op"
        && bwd.is_some_and(|b| b.is_base_op() && b.kernel.is_some())
        && !CACHE_GRAD_OP_SHAPE_BLACK_LIST.contains(&e.name.as_str())
    {
        base_interfaces.push("CacheGradOpSymbolicShapeInterface".into());
    }
    if pd_like {
        base_interfaces.push("GetKernelTypeForVarInterface".into());
    }
    let has_infer_meta = infer_meta.is_some()
        || e.invoke.as_ref().is_some_and(|(_, func)| {
            // op_infermeta_func_gen.py: an invoked op of the same yaml file that has one.
            cx.get(func)
                .is_some_and(|t| t.file == e.file && t.is_base_op() && t.infer_meta.is_some())
        });
    if has_infer_meta {
        base_interfaces.push("InferMetaInterface".into());
    }
    if e.backward.is_some() && !VJP_INTERFACE_BLACK_LIST.contains(&e.name.as_str()) && !onednn {
        base_interfaces.push("VjpInterface".into());
    }
    let mut base_traits: Vec<String> = e.traits.iter().map(|t| short_name(t).to_string()).collect();
    let grad_name = format!("{}_grad", e.name);
    if CUSTOM_VJP.contains(&grad_name.as_str()) && !onednn {
        base_traits.push("CustomVjpTrait".into());
    }
    if onednn {
        base_traits.push("OneDNNTrait".into());
    }
    if e.is_onednn_only {
        base_traits.push("OneDNNOnlyTrait".into());
    }
    if e.dynamic_fallback {
        base_traits.push("OneDNNDynamicFallbackTrait".into());
    }

    let file = cx.files[e.file];
    for pn in &phi_names {
        let twin = pn.ends_with('_');
        for f in &funcs {
            let op_name = match (funcs.len(), f) {
                (n, Some(f)) if n > 1 => {
                    if twin {
                        format!("{}_", f.name)
                    } else {
                        f.name.clone()
                    }
                }
                _ => pn.clone(),
            };
            let dispatch = f.and_then(|f| f.dispatch.as_ref());
            let inputs = e
                .inputs
                .iter()
                .enumerate()
                .map(|(i, a)| InputSpec {
                    name: s(&a.name),
                    kind: InputKind::Value(match dispatch {
                        Some((ins, _)) => dispatched(ins[i], a.ty == YamlType::TensorList),
                        None => value_kind(a),
                    }),
                    optional: e.input_optional[i],
                    no_need_buffer: e.input_no_need_buffer[i],
                    with_grad_semantic: input_grad[i],
                    doc: Cow::Borrowed(""),
                })
                .chain(mutables.iter().enumerate().map(|(i, m)| {
                    let default = e
                        .attrs
                        .iter()
                        .find(|a| a.name == m.name)
                        .and_then(|a| a.default.clone());
                    InputSpec {
                        name: s(&m.name),
                        kind: InputKind::MutableAttribute(MutableAttr {
                            kind: m.kind,
                            data_type: s(&m.data_type),
                            default,
                        }),
                        optional: false,
                        no_need_buffer: false,
                        with_grad_semantic: mutable_grad[i],
                        doc: Cow::Borrowed(""),
                    }
                }))
                .collect::<Vec<_>>();
            let attributes = e
                .attrs
                .iter()
                .filter(|a| !mutables.iter().any(|m| m.name == a.name))
                .filter_map(|a| {
                    Some(AttributeSpec {
                        name: s(&a.name),
                        kind: a.ty.attr_kind()?,
                        data_type: Cow::Borrowed(a.ty.data_type()),
                        default: a.default.clone(),
                        yaml_type: Cow::Borrowed(a.ty.spelling()),
                        doc: Cow::Borrowed(""),
                    })
                })
                .collect::<Vec<_>>();
            let outputs = e
                .outputs
                .iter()
                .enumerate()
                .map(|(i, o)| OutputSpec {
                    name: s(&o.name),
                    kind: match dispatch {
                        Some((_, outs)) => {
                            dispatched(outs[i], matches!(o.kind, ValueKind::Vector(_)))
                        }
                        None => o.kind,
                    },
                    optional: out_optional[i],
                    intermediate: e.output_intermediate[i],
                    size_expr: o.size_expr.as_deref().map(s),
                    doc: Cow::Borrowed(""),
                })
                .collect::<Vec<_>>();
            let pairs = |p: Option<&Vec<(String, String)>>| -> List<(Str, Str)> {
                match p {
                    Some(v) if twin => list(v.iter().map(|(o, i)| (s(o), s(i))).collect()),
                    _ => Cow::Borrowed(&[]),
                }
            };
            let runtime = RuntimeInfo {
                infer_meta_func: infer_meta.map_or(Cow::Borrowed(""), |im| s(&im.func)),
                infer_meta_param: list(infer_meta_param.iter().map(|p| s(p)).collect()),
                kernel_func: f.map_or(Cow::Borrowed(""), |f| s(&f.name)),
                kernel_param: list(kernel_param.iter().map(|p| s(p)).collect()),
                kernel_key_dtype: list(
                    kernel
                        .map(|k| k.data_type.iter().map(|d| s(d)).collect())
                        .unwrap_or_default(),
                ),
                kernel_key_backend: list(
                    kernel
                        .map(|k| k.backend.iter().map(|d| s(d)).collect())
                        .unwrap_or_default(),
                ),
                inplace: pairs(inplace),
                view: pairs(view),
                // Only Paddle's oneDNN GetOpInfo template passes `skip_transform_inputs`.
                skip_transform_inputs: if onednn {
                    list(e.skip_transform.iter().map(|n| s(n)).collect())
                } else {
                    Cow::Borrowed(&[])
                },
            };

            let mut interfaces = base_interfaces.clone();
            let in_list = |l: &[&str]| {
                l.contains(&pn.as_str()) && f.is_some_and(|f| l.contains(&f.name.as_str()))
            };
            if !onednn {
                if in_list(DECOMP_RULE_OPS) {
                    interfaces.push("DecompInterface".into());
                } else if in_list(DECOMP_VJP_OPS) {
                    interfaces.push("DecompVjpInterface".into());
                }
            }
            let mut traits = base_traits.clone();
            if twin {
                traits.push("InplaceTrait".into());
            }
            let class = class_name(&op_name);
            let verify_signature =
                !(class.contains("GradOp") || class.contains("Grad_Op") || e.custom_verify);
            out.push(OpSchema {
                dialect: s(cx.dialect),
                name: Cow::Owned(format!("{}.{op_name}", cx.dialect)),
                op_name: Cow::Owned(op_name),
                class_name: Cow::Owned(class),
                origin_name: s(&e.name),
                kind: e.kind,
                inputs: list(inputs),
                attributes: list(attributes),
                outputs: list(outputs),
                runtime,
                traits: sorted_unique(traits),
                interfaces: sorted_unique(interfaces),
                backward: e.backward.as_deref().map(s),
                forward: e.forward.as_ref().map(|f| s(&f.name)),
                invoke: e.invoke.as_ref().map(|(text, _)| s(text)),
                verify_signature,
                compat: compat.clone(),
                extra: list(e.extra.iter().map(|(k, v)| (s(k), s(v))).collect()),
                source: Some(SourceLoc {
                    file: s(file),
                    line: e.line,
                }),
                doc: s(&e.doc),
            });
        }
    }
}

fn compat_spec(c: &CompatEntry, name: &str) -> CompatSpec {
    let pairs = |v: &[(String, String)]| -> List<(Str, Str)> {
        list(v.iter().map(|(a, b)| (s(a), s(b))).collect())
    };
    let strs = |v: &[String]| -> List<Str> { list(v.iter().map(|x| s(x)).collect()) };
    CompatSpec {
        legacy_name: c.legacy_name_of(name).map(s),
        inputs: pairs(&c.inputs),
        outputs: pairs(&c.outputs),
        attrs: pairs(&c.attrs),
        mutable: list(c.scalar.iter().chain(c.int_array.iter()).cloned().collect()),
        extra_attrs: strs(&c.extra_attrs),
        extra_inputs: strs(&c.extra_inputs),
        extra_outputs: strs(&c.extra_outputs),
        complex_promote: strs(&c.complex_promote),
        drop_empty_grad: strs(&c.drop_empty_grad),
        manual_signature: strs(&c.manual_signature),
        expected_kernel_type: pairs(&c.get_expected_kernel_type),
    }
}
