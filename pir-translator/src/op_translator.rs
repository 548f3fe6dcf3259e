//! OpTranslator: translates one legacy op (Paddle's `OpTranscriber` and its special
//! transcribers, `op_translator.cc`).
//!
//! A handler is an [`OpTranscriber`]. Its default methods are Paddle's general translation,
//! driven by the target op's GetOpInfo (its [`OpSchema`](pir_runtime::pir_spec::OpSchema)) and the op_compat names
//! ([`OpCompatInfo`](crate::OpCompatInfo)); a special handler overrides only the stage it
//! needs and inherits the others. The stages, in the order [`OpTranscriber::translate`] runs
//! them:
//!
//! 1. [`look_up`](OpTranscriber::look_up): the target op (`pd_op.` + op_compat name, `_` when
//!    the legacy op is in place);
//! 2. [`insert_slices`](OpTranscriber::insert_slices): `builtin.slice` for inputs that are
//!    elements of vector results;
//! 3. [`generate_inputs`](OpTranscriber::generate_inputs) → one
//!    [`generate_input`](OpTranscriber::generate_input) per GetOpInfo input (a tensor, a
//!    `builtin.combine`, a null optional, or a mutable attribute: its tensor input or
//!    [`attribute_as_input`](OpTranscriber::attribute_as_input), a `full`/`full_int_array`);
//! 4. [`generate_outputs`](OpTranscriber::generate_outputs): result types from the legacy
//!    `VarDesc`s, and which variable each result defines;
//! 5. [`translate_attributes`](OpTranscriber::translate_attributes) → one
//!    [`translate_attribute`](OpTranscriber::translate_attribute) per GetOpInfo attribute, or
//!    [`missing_attribute`](OpTranscriber::missing_attribute) when the legacy op lacks it;
//! 6. [`create`](OpTranscriber::create) (`Operation::Create`, appended to the block);
//! 7. [`record_results`](OpTranscriber::record_results): push the results onto the variable
//!    map.
//!
//! The default implementations are also free functions in [`general`], so an override can run
//! the general stage and add to it. A handler sees the op through an [`OpContext`]; it never
//! sees the translator, the other handlers or the block-level translation.

use std::borrow::Cow;

use pir_legacy::{AttrValue, LegacyOp, OpSlot, VarKind};
use pir_runtime::op_support::attribute_fits;
use pir_runtime::phi::DataType;
use pir_runtime::pir_spec::{AttrKind, AttributeSpec, InputKind, InputSpec, ValueKind};
use pir_runtime::{AttrData, Attribute, OpDef, OpId, Type, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use crate::attribute_translator::{
    default_attribute, full_value_of, legacy_type_name,
    translate_attribute as translate_legacy_attribute,
};
use crate::dialects::TargetDialects;
pub use crate::op_context::{OpContext, Param, TargetOp};
use crate::translate_error::TranslateError;
use crate::variable_map::VariableDefiningInfo;

/// Operands of one op (`None`: a null optional input).
pub type Operands = SmallVec<[Option<Value>; 6]>;
/// Attributes of one op, in any order.
pub type AttrList = SmallVec<[(Cow<'static, str>, Attribute); 12]>;

/// The variable name of an empty element of a vector output.
pub const EMPTY_VAR_NAME: &str = "@EMPTY@";

/// Variables whose names are never translated (Paddle's `no_cast_var_names`).
pub const NO_CAST_VAR_NAMES: [&str; 2] = ["feed", "fetch"];

/// Legacy op types whose translation appends `_` as Paddle's `SpecialInplaceOps` do.
const SPECIAL_INPLACE_OPS: [&str; 4] = ["adagrad", "adam", "adamax", "adamw"];

/// One result → variable mapping of [`Outputs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputMapping<'a> {
    /// The legacy variable.
    pub var: &'a str,
    /// The result index.
    pub result: usize,
    /// The element index in a vector result.
    pub idx_in_vector: usize,
}

/// What [`OpTranscriber::generate_outputs`] produces: the result types and which variable each
/// result (or vector element) defines.
#[derive(Clone, Debug, Default)]
pub struct Outputs<'a> {
    /// Result types (`None`: a null type).
    pub types: SmallVec<[Option<Type>; 6]>,
    /// Result → variable mappings, recorded by [`OpTranscriber::record_results`].
    pub mapping: SmallVec<[OutputMapping<'a>; 6]>,
}

impl<'a> Outputs<'a> {
    /// Records that `var` is element `idx_in_vector` of result `result` (a later mapping of
    /// the same variable replaces an earlier one, as Paddle's map does).
    pub fn map(&mut self, var: &'a str, result: usize, idx_in_vector: usize) {
        let m = OutputMapping {
            var,
            result,
            idx_in_vector,
        };
        match self.mapping.iter_mut().find(|x| x.var == var) {
            Some(x) => *x = m,
            None => self.mapping.push(m),
        }
    }

    /// The result of the created `op` mapped to `var`, the argument of legacy output `param`
    /// (an error naming the output when there is none).
    pub fn value_of(
        &self,
        cx: &OpContext<'_, '_>,
        op: OpId,
        param: &str,
        var: &str,
    ) -> Result<Value, TranslateError> {
        let m =
            self.mapping.iter().find(|m| m.var == var).ok_or_else(|| {
                cx.invalid(format!("the translated op does not produce `{param}`"))
            })?;
        cx.program()
            .op(op)
            .get_result(m.result)
            .ok_or_else(|| cx.invalid(format!("the translated op has no result {}", m.result)))
    }
}

/// `slots` in Paddle's iteration order: `OpDesc::Inputs()` / `Outputs()` are `std::map`s,
/// sorted by parameter name (files are written that way; hand-built programs may not be).
pub fn sorted_slots(slots: &[OpSlot]) -> SmallVec<[&OpSlot; 8]> {
    let mut v: SmallVec<[&OpSlot; 8]> = slots.iter().collect();
    if !v.is_sorted_by(|a, b| a.parameter <= b.parameter) {
        v.sort_by(|a, b| a.parameter.cmp(&b.parameter));
    }
    v
}

/// The argument names of `slots` in Paddle's order (`InputArgumentNames()`).
pub fn argument_names(slots: &[OpSlot]) -> impl Iterator<Item = &str> {
    sorted_slots(slots)
        .into_iter()
        .flat_map(|s| s.arguments.iter().map(String::as_str))
}

/// Paddle's `IsInplace`: some variable is both an input and an output of the op (or the op is
/// one of `adagrad`, `adam`, `adamax`, `adamw`).
pub fn is_inplace(op: &LegacyOp) -> bool {
    if SPECIAL_INPLACE_OPS.contains(&op.op_type.as_str()) {
        return true;
    }
    let inputs = ArgumentSet::new(&op.inputs);
    op.output_arguments().any(|o| inputs.contains(o))
}

/// The argument names of an op's inputs or outputs, for membership tests: the slots are
/// scanned when they hold a few names, hashed when they hold many (so a huge op stays linear).
pub(crate) struct ArgumentSet<'a> {
    slots: &'a [OpSlot],
    hashed: Option<FxHashSet<&'a str>>,
}

impl<'a> ArgumentSet<'a> {
    pub(crate) fn new(slots: &'a [OpSlot]) -> Self {
        let count: usize = slots.iter().map(|s| s.arguments.len()).sum();
        let hashed = (count > 16).then(|| {
            slots
                .iter()
                .flat_map(|s| s.arguments.iter().map(String::as_str))
                .collect()
        });
        ArgumentSet { slots, hashed }
    }

    pub(crate) fn contains(&self, name: &str) -> bool {
        match &self.hashed {
            Some(set) => set.contains(name),
            None => self
                .slots
                .iter()
                .any(|s| s.arguments.iter().any(|a| a == name)),
        }
    }
}

/// A translation handler for one legacy op type. Every method has Paddle's general behaviour
/// as its default (see the [module documentation](self) for the stages); a special handler
/// overrides the stages it needs.
///
/// Register one with [`Translator::register_handler`](crate::Translator::register_handler):
///
/// ```
/// use pir_translator::{OpContext, OpTranscriber, TranslateError, Translator};
/// use pir_runtime::OpDef;
///
/// /// `my_relu` (a legacy op of some fork) is `pd_op.relu`.
/// struct MyRelu;
/// impl OpTranscriber for MyRelu {
///     fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
///         cx.op_def("pd_op.relu")
///     }
/// }
/// let mut t = Translator::with_pd_op().unwrap();
/// t.register_handler("my_relu", MyRelu);
/// assert!(t.has_special_handler("my_relu"));
/// ```
pub trait OpTranscriber: Send + Sync {
    /// Translates the op (the whole pipeline).
    fn translate(&self, cx: &mut OpContext<'_, '_>) -> Result<(), TranslateError> {
        general::translate(self, cx)
    }

    /// The registered ops translating the op needs besides its target (which the unknown-op
    /// report finds with [`OpTranscriber::look_up`]): by default the `full` /
    /// `full_int_array` the general target's mutable attributes may need.
    fn required_ops(&self, cx: &OpContext<'_, '_>) -> Vec<String> {
        general::required_ops(cx)
    }

    /// Stage 1: the target op.
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        general::look_up(cx)
    }

    /// The legacy parameter name of PIR argument `arg` (op_compat).
    fn legacy_arg_name<'a>(&self, cx: &OpContext<'a, '_>, arg: &'a str) -> Cow<'a, str> {
        cx.names.legacy_arg_name(cx.op_type(), arg)
    }

    /// The legacy attribute name of PIR attribute `attr` (op_compat).
    fn legacy_attr_name<'a>(&self, cx: &OpContext<'a, '_>, attr: &'a str) -> &'a str {
        cx.names.legacy_attr_name(attr)
    }

    /// Stage 2: `builtin.slice` for inputs that are elements of vector results.
    fn insert_slices(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<(), TranslateError> {
        general::insert_slices(self, cx, target)
    }

    /// Stage 3: one operand per GetOpInfo input.
    fn generate_inputs(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<Operands, TranslateError> {
        general::generate_inputs(self, cx, target)
    }

    /// Stage 3, one input.
    fn generate_input(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        input: &'static InputSpec,
    ) -> Result<Option<Value>, TranslateError> {
        general::generate_input(self, cx, target, input)
    }

    /// Stage 3, a mutable attribute given as a legacy attribute: its `full` / `full_int_array`.
    fn attribute_as_input(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        input: &'static InputSpec,
    ) -> Result<Value, TranslateError> {
        general::attribute_as_input(self, cx, target, input)
    }

    /// Stage 4: result types and result → variable mappings.
    fn generate_outputs<'a>(
        &self,
        cx: &mut OpContext<'a, '_>,
        target: TargetOp,
    ) -> Result<Outputs<'a>, TranslateError> {
        general::generate_outputs(self, cx, target)
    }

    /// Stage 5: the attributes.
    fn translate_attributes(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<AttrList, TranslateError> {
        general::translate_attributes(self, cx, target)
    }

    /// Stage 5, one GetOpInfo attribute (`None`: leave it out).
    fn translate_attribute(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        spec: &'static AttributeSpec,
    ) -> Result<Option<Attribute>, TranslateError> {
        general::translate_attribute(self, cx, target, spec)
    }

    /// Stage 5, an attribute the legacy op does not have (Paddle's
    /// `HandleNonexistentAttribute`).
    fn missing_attribute(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        spec: &'static AttributeSpec,
    ) -> Result<Option<Attribute>, TranslateError> {
        general::missing_attribute(cx, target, spec)
    }

    /// Stage 6: create the op and append it.
    fn create(
        &self,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        operands: &[Option<Value>],
        attrs: &[(Cow<'static, str>, Attribute)],
        outputs: &Outputs<'_>,
    ) -> Result<OpId, TranslateError> {
        cx.create_op(target.def, operands, attrs, &outputs.types)
    }

    /// Stage 7: push the results onto the variable map.
    fn record_results<'a>(
        &self,
        cx: &mut OpContext<'a, '_>,
        op: OpId,
        outputs: &Outputs<'a>,
    ) -> Result<(), TranslateError> {
        general::record_results(cx, op, outputs)
    }
}

/// The general translation (Paddle's `OpTranscriber`), as functions the stages of
/// [`OpTranscriber`] default to.
pub mod general {
    use super::*;

    /// The handler of every op type without a special one.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct GeneralTranscriber;

    impl OpTranscriber for GeneralTranscriber {}

    /// The whole pipeline (Paddle's `OpTranscriber::operator()`).
    pub fn translate<T: OpTranscriber + ?Sized>(
        h: &T,
        cx: &mut OpContext<'_, '_>,
    ) -> Result<(), TranslateError> {
        let def = h.look_up(cx)?;
        let target = cx.target(def)?;
        h.insert_slices(cx, target)?;
        let operands = h.generate_inputs(cx, target)?;
        let outputs = h.generate_outputs(cx, target)?;
        let attrs = h.translate_attributes(cx, target)?;
        let op = h.create(cx, target, &operands, &attrs, &outputs)?;
        h.record_results(cx, op, &outputs)
    }

    /// The general target name: `pd_op.` + the op_compat name, with `_` appended when the
    /// legacy op is in place; `custom_op.` instead of `pd_op.` when such an op is registered.
    pub fn target_name(op: &LegacyOp, dialects: &TargetDialects) -> String {
        let base = dialects.compat().op_name(&op.op_type);
        let suffix = if is_inplace(op) && !base.ends_with('_') {
            "_"
        } else {
            ""
        };
        let ctx = dialects.ctx();
        if ctx.has_dialect("custom_op") {
            let custom = format!("custom_op.{base}{suffix}");
            if ctx.op_def(&custom).is_some() {
                return custom;
            }
        }
        format!("pd_op.{base}{suffix}")
    }

    /// Stage 1 (Paddle's `LookUpOpInfo`).
    pub fn look_up(cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        let name = target_name(cx.op, cx.dialects);
        cx.op_def(&name)
    }

    /// The default of [`OpTranscriber::required_ops`]: `pd_op.full_int_array` / `pd_op.full`
    /// when the general target has IntArray / Scalar mutable attributes.
    pub fn required_ops(cx: &OpContext<'_, '_>) -> Vec<String> {
        let name = target_name(cx.op, cx.dialects);
        let mut ops: Vec<String> = Vec::new();
        if let Some(schema) = cx.ctx().op_def(&name).and_then(|d| d.schema) {
            for input in schema.inputs.iter() {
                if let InputKind::MutableAttribute(m) = &input.kind {
                    let helper = if m.kind == AttrKind::IntArray {
                        "pd_op.full_int_array"
                    } else {
                        "pd_op.full"
                    };
                    if !ops.iter().any(|o| o == helper) {
                        ops.push(helper.to_string());
                    }
                }
            }
        }
        ops
    }

    /// Stage 2 (Paddle's `InsertSliceOperationForInput`): every input argument mapped to a
    /// vector element gets its `builtin.slice` now. (Paddle skips arguments named like one of
    /// the op's legacy input parameters; so does this.)
    pub fn insert_slices<T: OpTranscriber + ?Sized>(
        h: &T,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<(), TranslateError> {
        let op = cx.op;
        for slot in &op.inputs {
            for arg in &slot.arguments {
                let Some(info) = cx.vars.get(arg) else {
                    continue;
                };
                if !info.generated_by_vector {
                    continue;
                }
                let named_like_param = target
                    .schema
                    .inputs
                    .iter()
                    .any(|i| h.legacy_arg_name(cx, &i.name) == arg.as_str());
                if !named_like_param {
                    cx.insert_slice(arg)?;
                }
            }
        }
        Ok(())
    }

    /// Stage 3 (Paddle's `GenerateOperationInput`).
    pub fn generate_inputs<T: OpTranscriber + ?Sized>(
        h: &T,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<Operands, TranslateError> {
        let mut operands = Operands::with_capacity(target.schema.inputs.len());
        for input in target.schema.inputs.iter() {
            operands.push(h.generate_input(cx, target, input)?);
        }
        Ok(operands)
    }

    /// Stage 3 for one input.
    pub fn generate_input<T: OpTranscriber + ?Sized>(
        h: &T,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        input: &'static InputSpec,
    ) -> Result<Option<Value>, TranslateError> {
        let op = cx.op;
        let legacy = h.legacy_arg_name(cx, &input.name);
        let mut vars: &[String] = op.input(&legacy).unwrap_or(&[]);
        if vars.is_empty() && input.optional {
            return Ok(None);
        }
        let mutable = cx.compat().is_mutable_input(cx.op_type(), input);
        if mutable && !vars.is_empty() {
            // A mutable attribute given as a `VAR` attribute of the same name.
            if let Some(AttrValue::Var(name)) = op.attr(&legacy) {
                return Ok(Some(cx.value_info(Param::attribute(&legacy), name)?.value));
            }
        }
        if vars.is_empty() && mutable {
            let candidates = cx
                .compat()
                .mutable_attribute(cx.op_type(), &input.name)
                .map_or(&[][..], |m| m.candidates.as_slice());
            let found = candidates
                .iter()
                .find_map(|c| op.input(c).filter(|v| !v.is_empty()));
            match found {
                Some(v) => vars = v,
                None => return h.attribute_as_input(cx, target, input).map(Some),
            }
        }
        let mut is_vector = matches!(&input.kind, InputKind::Value(ValueKind::Vector(_)))
            || matches!(&input.kind, InputKind::MutableAttribute(m) if m.kind == AttrKind::IntArray);
        if let [single] = vars {
            if cx.var_desc(single)?.kind == VarKind::DenseTensorArray {
                is_vector = false;
            }
        }
        let param = Param::input(&legacy);
        if !is_vector {
            return match vars {
                [name] => Ok(Some(cx.value_info(param, name)?.value)),
                [] => Err(TranslateError::MissingInput {
                    at: Box::new(cx.at()),
                    op: target.def.name.to_string(),
                    input: input.name.to_string(),
                    legacy: legacy.into_owned(),
                }),
                _ => Err(TranslateError::Input {
                    at: Box::new(cx.at()),
                    op: target.def.name.to_string(),
                    input: input.name.to_string(),
                    legacy: legacy.into_owned(),
                    problem: format!(
                        "the input takes one tensor, but the legacy op gives {} variables",
                        vars.len()
                    ),
                }),
            };
        }
        Ok(Some(cx.combine(param, vars)?))
    }

    /// Stage 3, a mutable attribute from its legacy attribute (Paddle's
    /// `GetAttributeAsInput`): `full_int_array` for an IntArray, `full` for a Scalar.
    pub fn attribute_as_input<T: OpTranscriber + ?Sized>(
        h: &T,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        input: &'static InputSpec,
    ) -> Result<Value, TranslateError> {
        let legacy = h.legacy_attr_name(cx, &input.name);
        let attr_error = |cx: &OpContext<'_, '_>, problem: String| TranslateError::Attribute {
            at: Box::new(cx.at_attr(legacy)),
            op: target.def.name.to_string(),
            name: input.name.to_string(),
            legacy: legacy.to_string(),
            problem,
        };
        let Some(value) = cx.attr(legacy) else {
            return Err(attr_error(
                cx,
                "the mutable attribute has no tensor input and the legacy op has no such \
                 attribute"
                    .into(),
            ));
        };
        let kind = match &input.kind {
            InputKind::MutableAttribute(m) => m.kind,
            InputKind::Value(_) => AttrKind::Scalar,
        };
        let attr = translate_legacy_attribute(cx.ctx(), kind, Some(value))
            .map_err(|e| attr_error(cx, e.to_string()))?;
        let found = legacy_type_name(value);
        match (kind, attr.map(|a| cx.ctx().attr_data(a))) {
            (AttrKind::IntArray, Some(AttrData::IntArray(v))) => {
                let v: SmallVec<[i64; 8]> = SmallVec::from_slice(v);
                cx.full_int_array(&v)
            }
            (AttrKind::IntArray, _) => Err(attr_error(
                cx,
                format!("expected INTS or LONGS for an IntArray, found {found}"),
            )),
            (_, _) => match attr.and_then(|a| full_value_of(cx.ctx(), a)) {
                Some((v, dtype)) => cx.full(v, dtype),
                None => Err(attr_error(
                    cx,
                    format!("expected a number for a Scalar, found {found}"),
                )),
            },
        }
    }

    /// Stage 4 (Paddle's `GenerateOperationOutput`).
    pub fn generate_outputs<'a, T: OpTranscriber + ?Sized>(
        h: &T,
        cx: &mut OpContext<'a, '_>,
        target: TargetOp,
    ) -> Result<Outputs<'a>, TranslateError> {
        let op = cx.op;
        let mut out = Outputs::default();
        // A vector output may name thousands of variables: past a few, find earlier
        // mappings of a variable through an index instead of `Outputs::map`'s scan.
        let mut index: FxHashMap<&'a str, usize> = FxHashMap::default();
        let mut map = |out: &mut Outputs<'a>, var: &'a str, result: usize, idx: usize| {
            if out.mapping.len() < 16 {
                return out.map(var, result, idx);
            }
            if index.is_empty() {
                index.extend(out.mapping.iter().enumerate().map(|(i, m)| (m.var, i)));
            }
            let m = OutputMapping {
                var,
                result,
                idx_in_vector: idx,
            };
            match index.get(var) {
                Some(&i) => out.mapping[i] = m,
                None => {
                    index.insert(var, out.mapping.len());
                    out.mapping.push(m);
                }
            }
        };
        for (i, spec) in target.schema.outputs.iter().enumerate() {
            let legacy = h.legacy_arg_name(cx, &spec.name);
            let Some(vars) = op.output(&legacy) else {
                if !(spec.optional || spec.intermediate) {
                    return Err(TranslateError::MissingOutput {
                        at: Box::new(cx.at()),
                        op: target.def.name.to_string(),
                        output: spec.name.to_string(),
                        legacy: legacy.into_owned(),
                    });
                }
                out.types.push(None);
                continue;
            };
            if let [single] = vars {
                let var = cx.var_desc(single)?;
                if var.kind == VarKind::DenseTensorArray {
                    out.types.push(Some(cx.var_type(single)?));
                    map(&mut out, single, i, 0);
                    continue;
                }
            }
            if !matches!(spec.kind, ValueKind::Vector(_)) {
                match vars.first() {
                    None => out.types.push(None),
                    Some(name) => {
                        out.types.push(Some(cx.var_type(name)?));
                        map(&mut out, name, i, 0);
                    }
                }
                continue;
            }
            let mut elems: SmallVec<[Type; 8]> = SmallVec::with_capacity(vars.len());
            for (j, name) in vars.iter().enumerate() {
                if name == EMPTY_VAR_NAME {
                    // Paddle puts a null type in the vector (printed `<<NULL TYPE>>`); this
                    // runtime holds it as the undefined element type, as its parser does.
                    elems.push(cx.ctx().scalar_type(DataType::Undefined));
                    map(&mut out, name, i, j);
                    continue;
                }
                elems.push(cx.var_type(name)?);
                map(&mut out, name, i, j);
            }
            out.types.push(Some(cx.ctx().vector_type(&elems)));
        }
        Ok(out)
    }

    /// Stage 5 (Paddle's `TranslateOpAttribute`).
    pub fn translate_attributes<T: OpTranscriber + ?Sized>(
        h: &T,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
    ) -> Result<AttrList, TranslateError> {
        let mut attrs = AttrList::new();
        for spec in target.schema.attributes.iter() {
            if let Some(a) = h.translate_attribute(cx, target, spec)? {
                attrs.push((Cow::Borrowed(static_name(spec)), a));
            }
        }
        Ok(attrs)
    }

    fn static_name(spec: &'static AttributeSpec) -> &'static str {
        &spec.name
    }

    /// Stage 5 for one attribute: the legacy attribute translated for the target kind (and
    /// checked to fit it), or [`OpTranscriber::missing_attribute`].
    pub fn translate_attribute<T: OpTranscriber + ?Sized>(
        h: &T,
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        spec: &'static AttributeSpec,
    ) -> Result<Option<Attribute>, TranslateError> {
        let legacy = h.legacy_attr_name(cx, &spec.name);
        let Some(value) = cx.attr(legacy) else {
            return h.missing_attribute(cx, target, spec);
        };
        let attr = translate_legacy_attribute(cx.ctx(), spec.kind, Some(value));
        check_attribute(
            cx,
            target,
            spec,
            legacy,
            value,
            attr.map_err(|e| e.to_string()),
        )
        .map(Some)
    }

    /// Checks a translated attribute against the target kind: a located
    /// [`TranslateError::Attribute`] when it is missing or does not fit.
    pub fn check_attribute(
        cx: &OpContext<'_, '_>,
        target: TargetOp,
        spec: &AttributeSpec,
        legacy: &str,
        value: &AttrValue,
        attr: Result<Option<Attribute>, String>,
    ) -> Result<Attribute, TranslateError> {
        let error = |problem: String| TranslateError::Attribute {
            at: Box::new(cx.at_attr(legacy)),
            op: target.def.name.to_string(),
            name: spec.name.to_string(),
            legacy: legacy.to_string(),
            problem,
        };
        let found = legacy_type_name(value);
        match attr {
            Ok(Some(a)) if attribute_fits(cx.ctx(), spec.kind, cx.ctx().attr_data(a)) => Ok(a),
            Ok(_) => Err(error(format!(
                "expected a value for {} (yaml `{}`), found a legacy {found}",
                spec.kind.type_name(),
                spec.yaml_type
            ))),
            Err(e) => Err(error(e)),
        }
    }

    /// Stage 5 for an attribute the legacy op lacks (Paddle's `HandleNonexistentAttribute`):
    /// the translation of a blank value (`Place(undefined)`, `Undefined` dtype, `false`, `[]`);
    /// where Paddle would set a null attribute, the yaml default, else an error.
    pub fn missing_attribute(
        cx: &mut OpContext<'_, '_>,
        target: TargetOp,
        spec: &'static AttributeSpec,
    ) -> Result<Option<Attribute>, TranslateError> {
        if let Ok(Some(a)) = translate_legacy_attribute(cx.ctx(), spec.kind, None) {
            return Ok(Some(a));
        }
        if let Some(a) = spec
            .default
            .as_ref()
            .and_then(|d| default_attribute(cx.ctx(), spec, d))
        {
            return Ok(Some(a));
        }
        let legacy = cx.names.legacy_attr_name(&spec.name);
        Err(TranslateError::Attribute {
            at: Box::new(cx.at()),
            op: target.def.name.to_string(),
            name: spec.name.to_string(),
            legacy: legacy.to_string(),
            problem: "the legacy op does not have it and the attribute has no default".into(),
        })
    }

    /// Stage 7 (Paddle's `RecordOpResultMapping`).
    pub fn record_results<'a>(
        cx: &mut OpContext<'a, '_>,
        op: OpId,
        outputs: &Outputs<'a>,
    ) -> Result<(), TranslateError> {
        for m in &outputs.mapping {
            let Some(value) = cx.program.op(op).get_result(m.result) else {
                return Err(cx.invalid(format!(
                    "result {} of the translated op does not exist",
                    m.result
                )));
            };
            let vector = cx
                .program
                .value_type(value)
                .is_some_and(|t| t.kind() == pir_runtime::TypeKind::Vector);
            cx.push(
                m.var,
                VariableDefiningInfo {
                    value,
                    generated_by_vector: vector,
                    idx_in_vector: if vector { m.idx_in_vector as i32 } else { -1 },
                },
            );
        }
        Ok(())
    }
}
