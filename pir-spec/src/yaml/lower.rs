//! Lowering parsed entries to [`OpSchema`]s: one class per (op, inplace twin, kernel), with
//! mutable attributes, GetOpInfo data, traits and interfaces chosen as Paddle's `op_gen.py` does.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::schema::{
    AttributeSpec, CompatMutable, CompatSpec, InputKind, InputSpec, List, MutableAttr, OpSchema,
    OutputSpec, RuntimeInfo, SourceLoc, Str, ValueKind,
};
use crate::yaml::args::{Arg, YamlType};
use crate::yaml::compat::{CompatEntry, CompatIndex};
use crate::yaml::entry::OpEntry;
use crate::yaml::entry::SPARSE_SUFFIX;
use crate::yaml::error::{Diag, SpecErrorKind};
use crate::yaml::kernel::{DispatchKind, InferMeta, Kernel, KernelFunc};
use crate::yaml::paddle::{
    pascal_case, short_name, CACHE_GRAD_OP_SHAPE_BLACK_LIST, CUSTOM_VJP, DECOMP_RULE_OPS,
    DECOMP_VJP_OPS, PD_MANUAL_OPS, VJP_INTERFACE_BLACK_LIST,
};

fn s(x: &str) -> Str {
    Cow::Owned(x.to_string())
}

/// The dialect's name, borrowed for Paddle's dialects (no copy per class).
fn dialect_name(d: &str) -> Str {
    match d {
        "pd_op" => Cow::Borrowed("pd_op"),
        "onednn_op" => Cow::Borrowed("onednn_op"),
        _ => s(d),
    }
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
    pub(crate) fn get(&self, name: &str) -> Option<&OpEntry> {
        self.by_name.get(name).map(|&i| &self.entries[i])
    }

    pub(crate) fn err(
        &self,
        diag: &mut Diag,
        e: &OpEntry,
        line: u32,
        kind: SpecErrorKind,
        msg: String,
    ) {
        diag.push(self.files[e.file], line, Some(&e.name), kind, msg);
    }

    /// Paddle's compat lookup: the entry naming the op (or one of its backward ops), else for a
    /// `*_grad` op the entry of its forward.
    fn compat_of(&self, e: &OpEntry) -> Option<&CompatEntry> {
        if let Some(i) = self.compat_index.get(&e.origin) {
            return Some(&self.compat[i]);
        }
        if e.origin.ends_with("_grad") || e.origin.ends_with("_grad_") {
            if let Some(f) = &e.forward {
                // Paddle looks up the forward's name as written (without the sparse suffix).
                let written = if e.sparse {
                    f.name.strip_suffix(SPARSE_SUFFIX).unwrap_or(&f.name)
                } else {
                    &f.name
                };
                return self.compat_index.get(written).map(|i| &self.compat[i]);
            }
        }
        None
    }
}

/// Classes op_gen.py never generates although their entry is read (`AutoCodeGen`: "this
/// add_n_grad is only used for generate AddNOp::Vjp func").
const SKIPPED_ENTRIES: &[&str] = &["add_n_grad"];

/// Whether `path` is Paddle's `sparse_ops` file (op_gen.py tests the file name).
fn is_sparse_ops_file(path: &str) -> bool {
    crate::yaml::entry::is_sparse_file(path) && !path.contains("sparse_backward")
}

/// The op name and C++ class name of a class, as op_gen.py's `AutoCodeGen` names them: the
/// phi name (`relu`, `relu_`), or with several kernel functions the function's name (`_`
/// kept); sparse classes add `_sp` to the op name (`sp_` after a trailing `_`) and `Sp` before
/// the class's `Op` / `_Op`.
fn class_names(c: &Class<'_>, sparse: bool) -> (String, String) {
    let (base, twin_suffix) = match c.func {
        Some(f) if c.several_funcs => (f.name.as_str(), c.twin),
        _ => (c.phi_name, false),
    };
    let stem = pascal_case(base);
    let (sp, sp_class) = if sparse { ("sp", "Sp") } else { ("", "") };
    if twin_suffix {
        // `<func>_` (dense) / `<func>_sp_` (sparse); class `<Func>_Op` / `<Func>Sp_Op`.
        let op = if sparse {
            format!("{base}_sp_")
        } else {
            format!("{base}_")
        };
        return (op, format!("{stem}{sp_class}_Op"));
    }
    let op = match (sparse, base.ends_with('_')) {
        (false, _) => base.to_string(),
        (true, true) => format!("{base}{sp}_"),
        (true, false) => format!("{base}_{sp}"),
    };
    (op, format!("{stem}{sp_class}Op"))
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
        // op_gen.py `parse_mutable_attribute`: scalars of sparse_ops.yaml stay attributes.
        let sparse_forward_file = is_sparse_ops_file(cx.files[e.file]);
        if c.op != "pow" && !sparse_forward_file {
            for m in c.scalar.iter().filter(|m| is_mutable(m)) {
                // op_gen.py special case: one_hot's compat `depth` is the op's `num_classes`.
                let name = if m.name == "depth" && e.origin == "one_hot" {
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

/// Lowers one entry into its classes: one per name (the op, and its `_` twin when it has
/// in-place or view pairs) and kernel function. A class Paddle writes by hand goes to
/// `hand_written` instead: no op is generated from it, but its entry (args, `invoke`) still
/// defines the generated Vjp of the forward op whose `backward:` names it.
pub(crate) fn lower_entry(
    cx: &Ctx<'_>,
    e: &OpEntry,
    out: &mut Vec<OpSchema>,
    hand_written: &mut Vec<OpSchema>,
) {
    if SKIPPED_ENTRIES.contains(&e.name.as_str()) {
        return;
    }
    let shared = Shared::new(cx, e);
    let mut phi_names = vec![e.origin.clone()];
    if (shared.inplace.is_some() || shared.view.is_some()) && !e.origin.ends_with('_') {
        phi_names.push(format!("{}_", e.origin));
    }
    let funcs: Vec<Option<&KernelFunc>> = match shared.kernel {
        Some(k) => k.funcs.iter().map(Some).collect(),
        None => vec![None],
    };
    for pn in &phi_names {
        // Paddle writes these classes by hand; the yaml entry must not shadow them.
        let sink = if PD_MANUAL_OPS.contains(&pn.as_str()) {
            &mut *hand_written
        } else {
            &mut *out
        };
        for f in &funcs {
            let class = Class {
                phi_name: pn,
                twin: pn.ends_with('_'),
                func: *f,
                several_funcs: funcs.len() > 1,
            };
            sink.push(shared.lower_class(cx, &class));
        }
    }
}

/// What every class of one entry shares.
struct Shared<'e> {
    e: &'e OpEntry,
    /// The entry's kernel, infer-meta and in-place/view pairs, if it is a base op.
    kernel: Option<&'e Kernel>,
    infer_meta: Option<&'e InferMeta>,
    inplace: Option<&'e Vec<(String, String)>>,
    view: Option<&'e Vec<(String, String)>>,
    mutables: Vec<Mutable>,
    /// Grad semantics of the tensor inputs and of the mutable attributes.
    input_grad: Vec<bool>,
    mutable_grad: Vec<bool>,
    out_optional: Vec<bool>,
    compat: Option<CompatSpec>,
    kernel_param: Vec<String>,
    infer_meta_param: Vec<String>,
    interfaces: Vec<String>,
    traits: Vec<String>,
    onednn: bool,
}

/// One class of an entry: its phi name (the op or its `_` twin) and kernel function.
struct Class<'a> {
    phi_name: &'a str,
    twin: bool,
    func: Option<&'a KernelFunc>,
    /// The entry has several kernel functions (each class is named after its own).
    several_funcs: bool,
}

impl<'e> Shared<'e> {
    fn new(cx: &Ctx<'_>, e: &'e OpEntry) -> Shared<'e> {
        let base = e.is_base_op();
        let kernel = e.kernel.as_ref().filter(|_| base);
        let infer_meta = e.infer_meta.as_ref().filter(|_| base);
        let inplace = e.inplace.as_ref().filter(|_| base);
        let mutables = mutable_attributes(cx, e);
        let (input_grad, mutable_grad) = grad_semantics(cx, e, &mutables);
        let (kernel_param, infer_meta_param) = param_lists(e, kernel, infer_meta);
        let onednn = cx.dialect == "onednn_op";
        Shared {
            e,
            kernel,
            infer_meta,
            inplace,
            view: e.view.as_ref().filter(|_| base),
            mutables,
            input_grad,
            mutable_grad,
            out_optional: output_optional(e, inplace),
            compat: cx
                .compat_of(e)
                .map(|c| merged_compat_spec(cx, c, &e.origin)),
            kernel_param,
            infer_meta_param,
            interfaces: entry_interfaces(cx, e, infer_meta),
            traits: entry_traits(e, onednn),
            onednn,
        }
    }

    fn lower_class(&self, cx: &Ctx<'_>, c: &Class<'_>) -> OpSchema {
        let e = self.e;
        let (op_name, class) = class_names(c, e.sparse);
        let verify_signature =
            !(class.contains("GradOp") || class.contains("Grad_Op") || e.custom_verify);
        OpSchema {
            dialect: dialect_name(cx.dialect),
            name: Cow::Owned(format!("{}.{op_name}", cx.dialect)),
            op_name: Cow::Owned(op_name),
            class_name: Cow::Owned(class),
            origin_name: s(&e.origin),
            kind: e.kind,
            inputs: list(self.class_inputs(c)),
            attributes: list(self.class_attributes()),
            outputs: list(self.class_outputs(c)),
            runtime: self.class_runtime(c),
            traits: sorted_unique(self.class_traits(c)),
            interfaces: sorted_unique(self.class_interfaces(c)),
            backward: e.backward.as_deref().map(s),
            forward: e.forward.as_ref().map(|f| s(&f.name)),
            invoke: e.invoke.as_ref().map(|(text, _)| s(text)),
            verify_signature,
            compat: self.compat.clone(),
            extra: list(e.extra.iter().map(|(k, v)| (s(k), s(v))).collect()),
            source: Some(SourceLoc {
                file: s(cx.files[e.file]),
                line: e.line,
            }),
            doc: s(&e.doc),
        }
    }

    /// Tensor inputs (of the kinds the class's kernel dispatches on), then mutable attributes.
    fn class_inputs(&self, c: &Class<'_>) -> Vec<InputSpec> {
        let e = self.e;
        let dispatch = c.func.and_then(|f| f.dispatch.as_ref());
        let tensors = e.inputs.iter().enumerate().map(|(i, a)| InputSpec {
            name: s(&a.name),
            kind: InputKind::Value(match dispatch {
                Some((ins, _)) => dispatched(ins[i], a.ty == YamlType::TensorList),
                None => value_kind(a),
            }),
            optional: e.input_optional[i],
            no_need_buffer: e.input_no_need_buffer[i],
            with_grad_semantic: self.input_grad[i],
            doc: Cow::Borrowed(""),
        });
        let mutables = self.mutables.iter().enumerate().map(|(i, m)| {
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
                with_grad_semantic: self.mutable_grad[i],
                doc: Cow::Borrowed(""),
            }
        });
        tensors.chain(mutables).collect()
    }

    /// The attributes that are not mutable.
    fn class_attributes(&self) -> Vec<AttributeSpec> {
        self.e
            .attrs
            .iter()
            .filter(|a| !self.mutables.iter().any(|m| m.name == a.name))
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
            .collect()
    }

    /// The outputs, of the kinds the class's kernel dispatches on.
    fn class_outputs(&self, c: &Class<'_>) -> Vec<OutputSpec> {
        let e = self.e;
        let dispatch = c.func.and_then(|f| f.dispatch.as_ref());
        e.outputs
            .iter()
            .enumerate()
            .map(|(i, o)| OutputSpec {
                name: s(&o.name),
                kind: match dispatch {
                    Some((_, outs)) => dispatched(outs[i], matches!(o.kind, ValueKind::Vector(_))),
                    None => o.kind,
                },
                optional: self.out_optional[i],
                intermediate: e.output_intermediate[i],
                size_expr: o.size_expr.as_deref().map(s),
                doc: Cow::Borrowed(""),
            })
            .collect()
    }

    /// GetOpInfo's runtime info; in-place and view pairs only on the `_` twin.
    fn class_runtime(&self, c: &Class<'_>) -> RuntimeInfo {
        let strs = |v: &[String]| -> List<Str> { list(v.iter().map(|p| s(p)).collect()) };
        let pairs = |p: Option<&Vec<(String, String)>>| -> List<(Str, Str)> {
            match p {
                Some(v) if c.twin => list(v.iter().map(|(o, i)| (s(o), s(i))).collect()),
                _ => Cow::Borrowed(&[]),
            }
        };
        RuntimeInfo {
            infer_meta_func: self.infer_meta.map_or(Cow::Borrowed(""), |im| s(&im.func)),
            infer_meta_param: strs(&self.infer_meta_param),
            kernel_func: c.func.map_or(Cow::Borrowed(""), |f| s(&f.name)),
            kernel_param: strs(&self.kernel_param),
            kernel_key_dtype: strs(self.kernel.map_or(&[], |k| &k.data_type)),
            kernel_key_backend: strs(self.kernel.map_or(&[], |k| &k.backend)),
            inplace: pairs(self.inplace),
            view: pairs(self.view),
            // Only Paddle's oneDNN GetOpInfo template passes `skip_transform_inputs`.
            skip_transform_inputs: if self.onednn {
                strs(&self.e.skip_transform)
            } else {
                Cow::Borrowed(&[])
            },
        }
    }

    /// The entry's interfaces, plus `Decomp` or `DecompVjp` when both the class's phi name and
    /// its kernel function are in Paddle's lists.
    fn class_interfaces(&self, c: &Class<'_>) -> Vec<String> {
        let mut interfaces = self.interfaces.clone();
        let in_list = |l: &[&str]| {
            l.contains(&c.phi_name) && c.func.is_some_and(|f| l.contains(&f.name.as_str()))
        };
        if !self.onednn {
            if in_list(DECOMP_RULE_OPS) {
                interfaces.push("DecompInterface".into());
            } else if in_list(DECOMP_VJP_OPS) {
                interfaces.push("DecompVjpInterface".into());
            }
        }
        interfaces
    }

    /// The entry's traits, plus `InplaceTrait` on the `_` twin.
    fn class_traits(&self, c: &Class<'_>) -> Vec<String> {
        let mut traits = self.traits.clone();
        if c.twin {
            traits.push("InplaceTrait".into());
        }
        traits
    }
}

/// Grad semantics, from the backward op's outputs through its `forward:` signature: of each
/// tensor input, and of each mutable attribute.
fn grad_semantics(cx: &Ctx<'_>, e: &OpEntry, mutables: &[Mutable]) -> (Vec<bool>, Vec<bool>) {
    let bwd = e.backward.as_deref().and_then(|b| cx.get(b));
    // op_gen.py `get_input_grad_semantic` checks that the backward's name *as written* is an
    // op before reading its `_sp` entry: a sparse op whose backward has no dense namesake
    // gets no grad semantic (`coo_to_dense`, `values`).
    let bwd = bwd.filter(|b| !e.sparse || cx.get(&b.origin).is_some());
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
    (input_grad, mutable_grad)
}

/// Output optionality, refined by inplace (op_gen.py `refine_output_optional_list`): an output
/// computed in place of an optional input is optional.
fn output_optional(e: &OpEntry, inplace: Option<&Vec<(String, String)>>) -> Vec<bool> {
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
    out_optional
}

/// `kernel.param` (default: inputs then attributes) and `infer_meta.param` (default:
/// `kernel.param`, or inputs then attributes without a kernel).
fn param_lists(
    e: &OpEntry,
    kernel: Option<&Kernel>,
    infer_meta: Option<&InferMeta>,
) -> (Vec<String>, Vec<String>) {
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
    (kernel_param, infer_meta_param)
}

/// Interfaces common to every class of the entry, as op_gen.py (AutoCodeGen) attaches them, in
/// its order: the entry's own; OpYamlInfo always; CacheGradOpSymbolicShape for pd_op when the
/// backward op has a kernel (needs the backward loaded); GetKernelTypeForVar for
/// pd_op/onednn_op; InferMeta and Vjp from op_infermeta_func_gen.py and
/// op_vjp_interface_func_gen.py. (Decomp/DecompVjp are per class.)
fn entry_interfaces(cx: &Ctx<'_>, e: &OpEntry, infer_meta: Option<&InferMeta>) -> Vec<String> {
    let pd_like = cx.dialect == "pd_op" || cx.dialect == "onednn_op";
    let onednn = cx.dialect == "onednn_op";
    let bwd = e.backward.as_deref().and_then(|b| cx.get(b));
    let mut interfaces: Vec<String> = e
        .interfaces
        .iter()
        .map(|i| short_name(i).to_string())
        .collect();
    interfaces.push("OpYamlInfoInterface".into());
    if cx.dialect == "pd_op"
        && bwd.is_some_and(|b| b.is_base_op() && b.kernel.is_some())
        && !e.sparse
        && !CACHE_GRAD_OP_SHAPE_BLACK_LIST.contains(&e.origin.as_str())
    {
        interfaces.push("CacheGradOpSymbolicShapeInterface".into());
    }
    if pd_like {
        interfaces.push("GetKernelTypeForVarInterface".into());
    }
    let has_infer_meta = infer_meta.is_some()
        || e.invoke.as_ref().is_some_and(|(_, func)| {
            // op_infermeta_func_gen.py: an invoked op of the same yaml file that has one.
            cx.get(func)
                .is_some_and(|t| t.file == e.file && t.is_base_op() && t.infer_meta.is_some())
        });
    if has_infer_meta {
        interfaces.push("InferMetaInterface".into());
    }
    if e.backward.is_some() && !VJP_INTERFACE_BLACK_LIST.contains(&e.origin.as_str()) && !onednn {
        interfaces.push("VjpInterface".into());
    }
    interfaces
}

/// Traits common to every class of the entry: its own, `CustomVjpTrait` (op_gen.py's
/// `CUSTOM_VJP`) and the oneDNN ones. (`InplaceTrait` is per class.)
fn entry_traits(e: &OpEntry, onednn: bool) -> Vec<String> {
    let mut traits: Vec<String> = e.traits.iter().map(|t| short_name(t).to_string()).collect();
    let grad_name = format!("{}_grad", e.origin);
    if CUSTOM_VJP.contains(&grad_name.as_str()) && !onednn {
        traits.push("CustomVjpTrait".into());
    }
    if onednn {
        traits.push("OneDNNTrait".into());
    }
    if e.is_onednn_only {
        traits.push("OneDNNOnlyTrait".into());
    }
    if e.dynamic_fallback {
        traits.push("OneDNNDynamicFallbackTrait".into());
    }
    traits
}

/// [`compat_spec`] of `c`, with the argument names of later op_compat entries for the same op
/// merged in, a later name replacing an earlier one: the translator's `OpNameNormalizer` is
/// generated that way (`op_compat_gen.py`: `insert_new_arg_mappings` updates one dict per op),
/// and op_compat.yaml has ops written twice (`repeat_interleave`: only the second entry maps
/// `axis : dim`). Everything else (mutable attributes, extras) stays the first entry's, as
/// op_gen.py reads it.
fn merged_compat_spec(cx: &Ctx<'_>, c: &CompatEntry, name: &str) -> CompatSpec {
    let mut spec = compat_spec(c, name);
    let later = cx
        .compat
        .iter()
        .skip_while(|o| !std::ptr::eq(*o, c))
        .skip(1)
        .filter(|o| o.op == c.op);
    for o in later {
        merge_pairs(&mut spec.inputs, &o.inputs);
        merge_pairs(&mut spec.outputs, &o.outputs);
        merge_pairs(&mut spec.attrs, &o.attrs);
    }
    spec
}

/// `dict.update`: each pair of `more` replaces the pair of the same key or is appended.
fn merge_pairs(pairs: &mut List<(Str, Str)>, more: &[(String, String)]) {
    if more.is_empty() {
        return;
    }
    let v = pairs.to_mut();
    for (k, val) in more {
        match v.iter_mut().find(|(a, _)| a == k) {
            Some(p) => p.1 = s(val),
            None => v.push((s(k), s(val))),
        }
    }
}

pub(crate) fn compat_spec(c: &CompatEntry, name: &str) -> CompatSpec {
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
