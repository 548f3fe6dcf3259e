//! [`OpCompatInfo`]: legacy (fluid) op and argument names of the registered ops — Paddle's
//! `OpNameNormalizer` (`op_compat_info.h`, generated from `op_compat.yaml` by
//! `op_compat_gen.py`), built at run time from the `compat` data of every registered op's
//! [`OpSchema`].
//!
//! * op names: legacy op type → PIR op name (`reduce_mean` → `mean`, `sgd` → `sgd_`);
//! * argument names: per legacy op type, PIR input/output/attribute name → legacy name (one
//!   map, as Paddle keeps it), copied to the legacy names of the backward ops;
//! * mutable attributes: per legacy op type, the IntArray/Scalar attributes op_compat lists and
//!   the legacy inputs that can carry them (`tensors_name` first, then `tensor_name`).
//!
//! Paddle's generator adds a few fixed entries (`fetch`, `matmul`, `matrix_rank`); they are
//! here too, with the op_compat entries of legacy ops whose PIR op this project's dialect does
//! not define but whose special handlers still need the names (`mul`, `grad_add`,
//! `lookup_table`): see [`LEGACY_ONLY_ENTRIES`].

use std::borrow::Cow;

use pir_runtime::pir_spec::{CompatSpec, InputKind, OpSchema};
use pir_runtime::IrContext;
use rustc_hash::FxHashMap;

/// `_grad`: the suffix of backward op and argument names.
const PHI_GRAD_SUFFIX: &str = "_grad";
/// `@GRAD`: the suffix of legacy gradient variables and parameters.
const FLUID_GRAD_SUFFIX: &str = "@GRAD";

type Name = Cow<'static, str>;

/// Argument-name entries Paddle's `op_compat_gen.py` adds by hand, and op_compat entries of
/// legacy ops whose PIR op is not part of this project's dialect (so no schema carries them)
/// but whose special handlers translate to other ops: `(legacy op type, [(PIR name, legacy
/// name)])`. Entries of the registered ops take precedence.
///
/// * `fetch`, `matmul`, `matrix_rank`: `op_compat_gen.py`'s "special mapping list";
/// * `mul`, `mul_grad`: op_compat.yaml `matmul_with_flatten (mul)` (backward
///   `matmul_with_flatten_grad (mul_grad)`), used by the `mul` handlers;
/// * `grad_add`: op_compat.yaml `grad_add`;
/// * `tril_triu`: op_compat.yaml `tril_triu` (no PIR op of that name: the op translates to
///   `pd_op.tril` or `pd_op.triu`, whose schemas name no legacy op);
/// * `lookup_table`: the names of `embedding (lookup_table_v2)`, which the `lookup_table`
///   handler also translates to `pd_op.embedding`;
/// * `lod_array_length`, `read_from_array`, `write_to_array`: op_compat.yaml's entries of
///   those names (their handlers target `pd_op.array_length` / `array_read` / `array_write_`).
pub const LEGACY_ONLY_ENTRIES: &[(&str, &[(&str, &str)])] = &[
    ("lod_array_length", &[("x", "X"), ("out", "Out")]),
    (
        "read_from_array",
        &[("array", "X"), ("i", "I"), ("out", "Out")],
    ),
    ("write_to_array", &[("x", "X"), ("i", "I"), ("out", "Out")]),
    ("fetch", &[("x", "X")]),
    (
        "matmul",
        &[
            ("x", "X"),
            ("y", "Y"),
            ("out", "Out"),
            ("transpose_x", "transpose_X"),
            ("transpose_y", "transpose_Y"),
        ],
    ),
    (
        "matrix_rank",
        &[("x", "X"), ("atol_tensor", "TolTensor"), ("out", "Out")],
    ),
    ("mul", &[("x", "X"), ("y", "Y"), ("out", "Out")]),
    ("mul_grad", &[("x", "X"), ("y", "Y"), ("out", "Out")]),
    ("grad_add", &[("x", "X"), ("y", "Y"), ("out", "Out")]),
    ("tril_triu", &[("x", "X"), ("out", "Out")]),
    (
        "lookup_table",
        &[
            ("x", "Ids"),
            ("weight", "W"),
            ("out", "Out"),
            ("sparse", "is_sparse"),
        ],
    ),
];

/// The position of the first `_grad` in `name` (`find`, without a substring searcher).
fn grad_pos(name: &str) -> Option<usize> {
    name.as_bytes()
        .windows(PHI_GRAD_SUFFIX.len())
        .position(|w| w == PHI_GRAD_SUFFIX.as_bytes())
}

fn find<'a>(map: Option<&'a [(Name, Name)]>, arg: &str) -> Option<&'a Name> {
    map?.iter().find(|(p, _)| p == arg).map(|(_, l)| l)
}

/// The name maps of one legacy op type ([`OpCompatInfo::op_names`]): its own and, for a grad
/// op, its forward op's.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpNames<'a> {
    own: Option<&'a [(Name, Name)]>,
    forward: Option<&'a [(Name, Name)]>,
}

impl<'a> OpNames<'a> {
    /// [`OpCompatInfo::legacy_arg_name`] for the op type these maps were looked up for.
    pub fn legacy_arg_name<'b>(&self, op_type: &str, arg: &'b str) -> Cow<'b, str>
    where
        'a: 'b,
    {
        if let Some(l) = find(self.own, arg) {
            return Cow::Borrowed(l);
        }
        if grad_pos(op_type).is_none() {
            return Cow::Borrowed(arg);
        }
        match grad_pos(arg) {
            Some(arg_pos) => {
                let prefix = &arg[..arg_pos];
                let head: &str = find(self.forward, prefix).map_or(prefix, |n| n);
                let name = format!("{head}{}", &arg[arg_pos..]);
                Cow::Owned(name.replace(PHI_GRAD_SUFFIX, FLUID_GRAD_SUFFIX))
            }
            None => match find(self.forward, arg) {
                Some(l) => Cow::Borrowed(l),
                None => Cow::Borrowed(arg),
            },
        }
    }

    /// [`OpCompatInfo::legacy_attr_name`] for the op type these maps were looked up for.
    pub fn legacy_attr_name<'b>(&self, attr: &'b str) -> &'b str
    where
        'a: 'b,
    {
        find(self.forward, attr).map_or(attr, |n| n)
    }
}

/// One mutable attribute of a legacy op: its (PIR) name and the legacy inputs that can carry
/// its value, in the order Paddle tries them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MutableAttributeInfo {
    /// The attribute's PIR name (`shape`, `axis`).
    pub name: Name,
    /// Legacy input parameters that may hold the value (`ShapeTensorList`, `ShapeTensor`).
    pub candidates: Vec<Name>,
}

/// Legacy names of the registered ops (Paddle's `OpNameNormalizer`).
///
/// ```
/// use pir_translator::OpCompatInfo;
/// let ctx = pir_runtime::IrContext::new();
/// op_defs::pd_op::register(&ctx).unwrap();
/// let compat = OpCompatInfo::from_context(&ctx);
/// assert_eq!(compat.op_name("reduce_mean"), "mean");
/// assert_eq!(compat.op_name("conv2d"), "conv2d");
/// assert_eq!(compat.legacy_arg_name("batch_norm", "out"), "Y");
/// assert_eq!(compat.legacy_arg_name("reduce_mean_grad", "out_grad"), "Out@GRAD");
/// assert_eq!(compat.legacy_arg_name("conv2d_grad", "out_grad"), "Output@GRAD");
/// assert_eq!(compat.legacy_attr_name("pool2d_grad", "kernel_size"), "ksize");
/// let shape = compat.mutable_attribute("uniform_random", "shape").unwrap();
/// assert_eq!(shape.candidates, ["ShapeTensorList", "ShapeTensor"]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct OpCompatInfo {
    op_names: FxHashMap<String, Name>,
    arg_names: FxHashMap<String, Vec<(Name, Name)>>,
    mutable: FxHashMap<String, Vec<MutableAttributeInfo>>,
}

impl OpCompatInfo {
    /// The names of every op registered in `ctx` that carries op_compat data, plus
    /// [`LEGACY_ONLY_ENTRIES`].
    pub fn from_context(ctx: &IrContext) -> OpCompatInfo {
        let mut schemas: Vec<&'static OpSchema> = ctx
            .registered_ops()
            .into_iter()
            .filter_map(|d| d.schema)
            .collect();
        // The yaml entry's own class (`add`, `sgd_`) before its twins and kernel variants
        // (`add_`, `sgd_dense_param_sparse_grad_`), so it is the one a legacy name maps to.
        schemas.sort_by_key(|s| s.op_name != s.origin_name);
        let mut info = OpCompatInfo::default();
        for s in schemas {
            info.add_schema(s);
        }
        for (legacy, args) in LEGACY_ONLY_ENTRIES {
            if !info.arg_names.contains_key(*legacy) {
                info.arg_names.insert(
                    (*legacy).to_string(),
                    args.iter()
                        .map(|(p, l)| (Cow::Borrowed(*p), Cow::Borrowed(*l)))
                        .collect(),
                );
            }
        }
        info
    }

    /// Adds the names of one op class (no-op for a class without op_compat data). The first
    /// class giving a legacy op type wins.
    pub fn add_schema(&mut self, s: &'static OpSchema) {
        let Some(c) = s.compat.as_ref() else { return };
        let key: &str = c.legacy_name.as_deref().unwrap_or(&s.origin_name);
        if let Some(legacy) = c.legacy_name.as_deref() {
            if legacy != s.op_name && !self.op_names.contains_key(legacy) {
                self.op_names
                    .insert(legacy.to_string(), Cow::Borrowed(static_str(&s.op_name)));
            }
        }
        if !self.arg_names.contains_key(key) {
            self.arg_names.insert(key.to_string(), arg_map(c));
        }
        if !c.mutable.is_empty() && !self.mutable.contains_key(key) {
            let infos = c
                .mutable
                .iter()
                .map(|m| MutableAttributeInfo {
                    name: Cow::Borrowed(static_str(&m.name)),
                    candidates: m
                        .tensors_name
                        .iter()
                        .chain(m.tensor_name.iter())
                        .map(|n| Cow::Borrowed(static_str(n)))
                        .collect(),
                })
                .collect();
            self.mutable.insert(key.to_string(), infos);
        }
    }

    /// Maps legacy op type `legacy` to PIR op name `name` (without dialect prefix).
    pub fn insert_op_name(&mut self, legacy: impl Into<String>, name: impl Into<Name>) {
        self.op_names.insert(legacy.into(), name.into());
    }

    /// Adds (or replaces) the argument mapping `pir` → `legacy` of legacy op type `op_type`.
    pub fn insert_arg_name(
        &mut self,
        op_type: impl Into<String>,
        pir: impl Into<Name>,
        legacy: impl Into<Name>,
    ) {
        let (pir, legacy) = (pir.into(), legacy.into());
        let map = self.arg_names.entry(op_type.into()).or_default();
        match map.iter_mut().find(|(p, _)| *p == pir) {
            Some(entry) => entry.1 = legacy,
            None => map.push((pir, legacy)),
        }
    }

    /// The PIR op name (without dialect) of legacy op type `op_type`; itself when op_compat
    /// gives no other name (Paddle's `OpNameNormalizer::operator[]`).
    pub fn op_name<'a>(&'a self, op_type: &'a str) -> &'a str {
        self.op_names.get(op_type).map_or(op_type, |n| n)
    }

    /// The argument-name map (PIR name → legacy name) of legacy op type `op_type`.
    pub fn arg_map(&self, op_type: &str) -> Option<&[(Name, Name)]> {
        self.arg_names.get(op_type).map(Vec::as_slice)
    }

    /// The maps [`OpCompatInfo::legacy_arg_name`] and [`OpCompatInfo::legacy_attr_name`] read
    /// for legacy op type `op_type`, looked up once (for the many names of one op).
    pub fn op_names(&self, op_type: &str) -> OpNames<'_> {
        let own = self.arg_map(op_type);
        let forward = match grad_pos(op_type) {
            Some(pos) => self.arg_map(&op_type[..pos]),
            None => own,
        };
        OpNames { own, forward }
    }

    /// The legacy parameter name of PIR argument `arg` of legacy op type `op_type` (Paddle's
    /// `GetLegacyArgName`): the direct mapping; else, for a grad op and a grad argument, the
    /// forward op's mapping of the part before `_grad` with every `_grad` turned into `@GRAD`
    /// (`out_grad` → `Out@GRAD`); else, for a grad op, the forward op's direct mapping; else
    /// `arg` itself.
    pub fn legacy_arg_name<'a>(&'a self, op_type: &str, arg: &'a str) -> Cow<'a, str> {
        self.op_names(op_type).legacy_arg_name(op_type, arg)
    }

    /// The legacy attribute name of PIR attribute `attr` (Paddle's `GetLegacyAttrName`): the
    /// forward op's mapping for grad ops, else the op's own, else `attr`.
    pub fn legacy_attr_name<'a>(&'a self, op_type: &str, attr: &'a str) -> &'a str {
        self.op_names(op_type).legacy_attr_name(attr)
    }

    /// The mutable attributes op_compat lists for legacy op type `op_type`.
    pub fn mutable_attributes(&self, op_type: &str) -> &[MutableAttributeInfo] {
        self.mutable.get(op_type).map_or(&[], Vec::as_slice)
    }

    /// Mutable attribute `name` of legacy op type `op_type`, if op_compat lists it.
    pub fn mutable_attribute(&self, op_type: &str, name: &str) -> Option<&MutableAttributeInfo> {
        self.mutable_attributes(op_type)
            .iter()
            .find(|m| m.name == name)
    }

    /// Whether input `input` of the target op is a mutable attribute for legacy op type
    /// `op_type`: op_compat lists it, or the target's GetOpInfo marks it so.
    pub fn is_mutable_input(
        &self,
        op_type: &str,
        input: &pir_runtime::pir_spec::InputSpec,
    ) -> bool {
        matches!(input.kind, InputKind::MutableAttribute(_))
            || self.mutable_attribute(op_type, &input.name).is_some()
    }
}

/// One map of every input, output and attribute name of an op_compat entry.
fn arg_map(c: &'static CompatSpec) -> Vec<(Name, Name)> {
    c.inputs
        .iter()
        .chain(c.outputs.iter())
        .chain(c.attrs.iter())
        .map(|(p, l)| (Cow::Borrowed(static_str(p)), Cow::Borrowed(static_str(l))))
        .collect()
}

/// A `'static` view of a string of a `'static` schema.
fn static_str(s: &'static str) -> &'static str {
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compat() -> OpCompatInfo {
        let ctx = IrContext::new();
        op_defs::pd_op::register(&ctx).unwrap();
        OpCompatInfo::from_context(&ctx)
    }

    #[test]
    fn op_names_prefer_the_entry_class() {
        let c = compat();
        assert_eq!(c.op_name("elementwise_add"), "add");
        assert_eq!(c.op_name("sgd"), "sgd_");
        assert_eq!(c.op_name("sum"), "add_n");
        assert_eq!(c.op_name("reduce_sum"), "sum");
        assert_eq!(c.op_name("lookup_table_v2_grad"), "embedding_grad");
        assert_eq!(c.op_name("fill_constant"), "full");
        assert_eq!(c.op_name("relu"), "relu");
    }

    #[test]
    fn argument_names_follow_get_legacy_arg_name() {
        let c = compat();
        assert_eq!(
            c.legacy_arg_name("softmax_with_cross_entropy", "input"),
            "Logits"
        );
        assert_eq!(
            c.legacy_arg_name("softmax_with_cross_entropy_grad", "input_grad"),
            "Logits@GRAD"
        );
        assert_eq!(
            c.legacy_arg_name("batch_norm_grad", "scale_grad"),
            "Scale@GRAD"
        );
        assert_eq!(c.legacy_arg_name("batch_norm_grad", "mean_out"), "MeanOut");
        assert_eq!(c.legacy_arg_name("mul_grad", "y_grad"), "Y@GRAD");
        assert_eq!(c.legacy_arg_name("fetch", "x"), "X");
        assert_eq!(c.legacy_arg_name("unknown_op", "x"), "x");
        assert_eq!(c.legacy_arg_name("unknown_op_grad", "x_grad"), "x@GRAD");
        assert_eq!(c.legacy_attr_name("reduce_mean", "keepdim"), "keep_dim");
        assert_eq!(
            c.legacy_attr_name("batch_norm_grad", "data_format"),
            "data_layout"
        );
    }

    #[test]
    fn mutable_attributes_list_tensor_inputs() {
        let c = compat();
        let s = c.mutable_attribute("reshape2", "shape").unwrap();
        assert_eq!(s.candidates, ["ShapeTensor", "Shape"]);
        let a = c.mutable_attribute("reduce_mean", "axis").unwrap();
        assert!(a.candidates.is_empty());
        assert!(c.mutable_attribute("relu", "x").is_none());
    }
}
