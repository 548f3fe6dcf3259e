//! OpTranslator: translates one legacy op (Paddle's `OpTranscriber` and its special
//! transcribers, `op_translator.cc`).
//!
//! A handler is an [`OpTranscriber`]. Its default methods are Paddle's general translation,
//! driven by the target op's GetOpInfo (its [`OpSchema`]) and the op_compat names
//! ([`OpCompatInfo`]); a special handler overrides only the stage it
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
//! the general stage and add to it.

use std::borrow::Cow;
use std::sync::Arc;

use pir_runtime::op_support::{attribute_fits, build_with_values, AttrArg};
use pir_runtime::phi::{DataType, Place};
use pir_runtime::pir_spec::{AttrKind, AttributeSpec, InputKind, InputSpec, OpSchema, ValueKind};
use pir_runtime::{
    builtin, AttrData, Attribute, BlockId, Builder, InsertPoint, IrContext, OpDef, OpId,
    OperationArgs, Program, Type, TypeData, Value,
};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::attribute_translator::{
    default_attribute, full_value_of, translate_attribute as translate_legacy_attribute,
};
use crate::op_compat::{OpCompatInfo, OpNames};
use crate::translate_error::TranslateError;
use crate::translator::Translator;
use crate::type_translator::translate_var_type;
use crate::variable_map::{VariableDefiningInfo, VariableMap};
use pir_legacy::Location;
use pir_legacy::{AttrValue, LegacyOp, LegacyProgram, LegacyVar, OpSlot, VarKind};

/// Operands of one op (`None`: a null optional input).
pub type Operands = SmallVec<[Option<Value>; 6]>;
/// Attributes of one op, in any order.
pub type AttrList = SmallVec<[(Cow<'static, str>, Attribute); 12]>;

/// How an op refers to a variable (``input `X` ``), for messages; formatted only on errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param<'s> {
    /// `input`, `output`, `attribute`, `variable`.
    pub kind: &'static str,
    /// The legacy parameter (or attribute) name.
    pub name: &'s str,
}

impl<'s> Param<'s> {
    /// Legacy input parameter `name`.
    pub fn input(name: &'s str) -> Self {
        Param {
            kind: "input",
            name,
        }
    }

    /// Legacy output parameter `name`.
    pub fn output(name: &'s str) -> Self {
        Param {
            kind: "output",
            name,
        }
    }

    /// Legacy attribute `name` (a `VAR` attribute).
    pub fn attribute(name: &'s str) -> Self {
        Param {
            kind: "attribute",
            name,
        }
    }
}

impl std::fmt::Display for Param<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} `{}`", self.kind, self.name)
    }
}

/// The variable name of an empty element of a vector output.
pub const EMPTY_VAR_NAME: &str = "@EMPTY@";

/// Variables whose names are never translated (Paddle's `no_cast_var_names`).
pub const NO_CAST_VAR_NAMES: [&str; 2] = ["feed", "fetch"];

/// Legacy op types whose translation appends `_` as Paddle's `SpecialInplaceOps` do.
const SPECIAL_INPLACE_OPS: [&str; 4] = ["adagrad", "adam", "adamax", "adamw"];

/// The target op of a translation: its definition and GetOpInfo.
#[derive(Clone, Copy, Debug)]
pub struct TargetOp {
    /// The definition.
    pub def: &'static OpDef,
    /// Its schema (GetOpInfo: inputs, attributes, outputs).
    pub schema: &'static OpSchema,
}

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
}

/// Every variable of a legacy program by block and name.
#[derive(Debug)]
pub(crate) struct VarIndex<'a> {
    blocks: Vec<FxHashMap<&'a str, &'a LegacyVar>>,
    parents: Vec<Option<usize>>,
}

impl<'a> VarIndex<'a> {
    pub(crate) fn new(legacy: &'a LegacyProgram) -> Self {
        VarIndex {
            blocks: legacy
                .blocks
                .iter()
                .map(|b| b.vars.iter().map(|v| (v.name.as_str(), v)).collect())
                .collect(),
            parents: legacy.blocks.iter().map(|b| b.parent).collect(),
        }
    }

    /// The variable `name` of block `block` itself.
    pub(crate) fn local(&self, block: usize, name: &str) -> Option<&'a LegacyVar> {
        self.blocks.get(block)?.get(name).copied()
    }

    /// `FindVarRecursive`: block `block`, then its ancestors.
    pub(crate) fn find(&self, block: usize, name: &str) -> Option<&'a LegacyVar> {
        let mut current = Some(block);
        for _ in 0..=self.blocks.len() {
            let b = current?;
            if let Some(v) = self.local(b, name) {
                return Some(v);
            }
            current = *self.parents.get(b)?;
        }
        None
    }
}

/// Everything a handler needs to translate one legacy op: the op, the legacy program, the
/// program being built (ops are appended to `block`) and the variable map.
pub struct OpContext<'a, 'v> {
    pub(crate) translator: &'a Translator,
    pub(crate) legacy: &'a LegacyProgram,
    pub(crate) var_index: &'v VarIndex<'a>,
    pub(crate) block_index: usize,
    pub(crate) op_index: usize,
    pub(crate) op: &'a LegacyOp,
    pub(crate) names: OpNames<'a>,
    pub(crate) program: &'v mut Program,
    pub(crate) block: BlockId,
    pub(crate) vars: &'v mut VariableMap<'a>,
}

impl<'a, 'v> OpContext<'a, 'v> {
    /// The legacy op being translated.
    pub fn op(&self) -> &'a LegacyOp {
        self.op
    }

    /// Its type.
    pub fn op_type(&self) -> &'a str {
        &self.op.op_type
    }

    /// The translator (context, op_compat names, handlers).
    pub fn translator(&self) -> &'a Translator {
        self.translator
    }

    /// The IR context.
    pub fn ctx(&self) -> &'a Arc<IrContext> {
        self.translator.ctx()
    }

    /// The op_compat names.
    pub fn compat(&self) -> &'a OpCompatInfo {
        self.translator.compat()
    }

    /// The legacy program.
    pub fn legacy(&self) -> &'a LegacyProgram {
        self.legacy
    }

    /// The program being built.
    pub fn program(&self) -> &Program {
        self.program
    }

    /// The program being built, mutably.
    pub fn program_mut(&mut self) -> &mut Program {
        self.program
    }

    /// The block ops are appended to.
    pub fn block(&self) -> BlockId {
        self.block
    }

    /// The variable map.
    pub fn vars(&self) -> &VariableMap<'a> {
        self.vars
    }

    /// The variable map, mutably.
    pub fn vars_mut(&mut self) -> &mut VariableMap<'a> {
        self.vars
    }

    /// Where the op is: ``block B, op I (`type`)``.
    pub fn at(&self) -> Location {
        Location::program()
            .block(self.block_index)
            .op(self.op_index, Some(&self.op.op_type))
    }

    /// Where legacy attribute `name` of the op is (the op itself when it has no such
    /// attribute).
    pub fn at_attr(&self, name: &str) -> Location {
        match self.op.attrs.iter().position(|a| a.name == name) {
            Some(i) => self.at().attr(i, Some(name)),
            None => self.at(),
        }
    }

    /// Legacy attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&'a AttrValue> {
        self.op.attr(name)
    }

    /// The arguments of legacy input `param` (empty when absent).
    pub fn input(&self, param: &str) -> &'a [String] {
        self.op.input(param).unwrap_or(&[])
    }

    /// The arguments of legacy output `param` (empty when absent).
    pub fn output(&self, param: &str) -> &'a [String] {
        self.op.output(param).unwrap_or(&[])
    }

    /// The declaration of variable `name` (`FindVarRecursive` from the op's block).
    pub fn var_desc(&self, name: &str) -> Result<&'a LegacyVar, TranslateError> {
        self.var_index.find(self.block_index, name).ok_or_else(|| {
            TranslateError::UndeclaredVariable {
                at: Box::new(self.at()),
                var: name.to_string(),
            }
        })
    }

    /// The IR type of variable `name`, from its declaration.
    pub fn var_type(&self, name: &str) -> Result<Type, TranslateError> {
        let var = self.var_desc(name)?;
        translate_var_type(self.ctx(), var).map_err(|e| self.var_error(name, e.to_string()))
    }

    /// A [`TranslateError::Variable`] at the op.
    pub fn var_error(&self, var: &str, problem: impl Into<String>) -> TranslateError {
        TranslateError::Variable {
            at: Box::new(self.at()),
            var: var.to_string(),
            problem: problem.into(),
        }
    }

    /// A [`TranslateError::Invalid`] at the op.
    pub fn invalid(&self, message: impl Into<String>) -> TranslateError {
        TranslateError::Invalid {
            at: Box::new(self.at()),
            message: message.into(),
        }
    }

    /// The error for target ops that are not registered: [`TranslateError::MissingOps`] when a
    /// special handler is registered for the op type, else [`TranslateError::UnknownOp`].
    pub fn missing_ops(&self, missing: Vec<String>) -> TranslateError {
        let at = Box::new(self.at());
        let op_type = self.op.op_type.clone();
        if self.translator.has_special_handler(&self.op.op_type) {
            TranslateError::MissingOps {
                at,
                op_type,
                missing,
            }
        } else {
            TranslateError::UnknownOp {
                at,
                op_type,
                missing,
            }
        }
    }

    /// The registered op `name` (`pd_op.reshape`), or [`OpContext::missing_ops`].
    pub fn op_def(&self, name: &str) -> Result<&'static OpDef, TranslateError> {
        self.ctx()
            .op_def(name)
            .ok_or_else(|| self.missing_ops(vec![name.to_string()]))
    }

    /// `def` with its schema, or an error naming the op.
    pub fn target(&self, def: &'static OpDef) -> Result<TargetOp, TranslateError> {
        match def.schema {
            Some(schema) => Ok(TargetOp { def, schema }),
            None => Err(self.invalid(format!(
                "`{}` has no GetOpInfo (schema); only generated ops can be targets of the \
                 general translation",
                def.name
            ))),
        }
    }

    /// The newest value of variable `name`, read through `param` (for messages).
    pub fn value_info(
        &self,
        param: Param<'_>,
        name: &str,
    ) -> Result<VariableDefiningInfo, TranslateError> {
        if let Some(info) = self.vars.get(name) {
            return Ok(*info);
        }
        self.var_desc(name)?;
        Err(TranslateError::UndefinedVariable {
            at: Box::new(self.at()),
            param: param.to_string(),
            var: name.to_string(),
        })
    }

    /// The newest value of `name`, taken out of its vector first (`builtin.slice`) when it is
    /// an element of a vector result.
    pub fn sliced_value(
        &mut self,
        param: Param<'_>,
        name: &'a str,
    ) -> Result<Value, TranslateError> {
        let info = self.value_info(param, name)?;
        if info.generated_by_vector {
            return self.insert_slice(name);
        }
        Ok(info.value)
    }

    /// The value of the single argument of legacy input `param`, sliced if needed, with its
    /// dense tensor dims (Paddle's `GetTensorInfoByVarName`).
    pub fn dense_input(
        &mut self,
        param: &str,
    ) -> Result<(Value, SmallVec<[i64; 6]>), TranslateError> {
        let args = self.input(param);
        let [name] = args else {
            return Err(self.invalid(format!(
                "input `{param}` should have exactly 1 variable, got {}",
                args.len()
            )));
        };
        let info = self.value_info(Param::input(param), name)?;
        let value = info.value;
        let dims = self
            .dense_dims(value)
            .ok_or_else(|| self.var_error(name, "expected a dense tensor value for this input"))?;
        Ok((value, dims))
    }

    /// The dims of a dense tensor value.
    pub fn dense_dims(&self, value: Value) -> Option<SmallVec<[i64; 6]>> {
        let ty = self.program.value_type(value)?;
        ty.as_dense_tensor(self.ctx())
            .map(|t| SmallVec::from_slice(&t.dims))
    }

    /// Result 0 of `op` (an error naming the op if it has none).
    pub fn first_result(&self, op: OpId) -> Result<Value, TranslateError> {
        let r = self.program.op(op);
        r.get_result(0)
            .ok_or_else(|| self.invalid(format!("`{}` has no result", r.name())))
    }

    /// Pushes `value` as the newest value of `name`.
    pub fn push(&mut self, name: &'a str, info: VariableDefiningInfo) {
        self.vars.push(name, info);
    }

    /// Inserts `builtin.slice` taking `name`'s element out of its vector, maps the slice to
    /// `name` and returns it (Paddle's `InsertSliceOperationForTarget`).
    pub fn insert_slice(&mut self, name: &'a str) -> Result<Value, TranslateError> {
        let at = self.at();
        insert_slice(self.program, self.block, self.vars, name).map_err(|e| match e {
            SliceError::Unmapped => TranslateError::UndefinedVariable {
                at: Box::new(at),
                param: "variable".into(),
                var: name.to_string(),
            },
            SliceError::Invalid(m) => TranslateError::Invalid {
                at: Box::new(at),
                message: m,
            },
        })
    }

    /// `builtin.combine` of the newest values of `names` (Paddle's
    /// `InsertCombineOperationForTarget`).
    pub fn combine(
        &mut self,
        param: Param<'_>,
        names: &'a [String],
    ) -> Result<Value, TranslateError> {
        let mut values: SmallVec<[Option<Value>; 8]> = SmallVec::with_capacity(names.len());
        let mut types: SmallVec<[Type; 8]> = SmallVec::with_capacity(names.len());
        for name in names {
            let v = self.value_info(param, name)?.value;
            let t = self
                .program
                .value_type(v)
                .ok_or_else(|| self.var_error(name, "its value has a null type"))?;
            values.push(Some(v));
            types.push(t);
        }
        let ctx = self.ctx();
        let ty = ctx.vector_type(&types);
        let op = self.create_with_dict(
            &builtin::COMBINE_DEF,
            &values,
            ctx.empty_dict(),
            &[Some(ty)],
        )?;
        Ok(self.program.op(op).result(0))
    }

    /// Creates an op the way `Operation::Create` does (no `stop_gradient` of its own) and
    /// appends it to the block.
    pub fn create_op(
        &mut self,
        def: &'static OpDef,
        operands: &[Option<Value>],
        attrs: &[(Cow<'static, str>, Attribute)],
        result_types: &[Option<Type>],
    ) -> Result<OpId, TranslateError> {
        let entries: SmallVec<[(&str, Attribute); 16]> =
            attrs.iter().map(|(n, a)| (&**n, *a)).collect();
        let dict = self.ctx().dict_attr(&entries);
        self.create_with_dict(def, operands, dict, result_types)
    }

    /// [`OpContext::create_op`] with an attribute dictionary.
    pub fn create_with_dict(
        &mut self,
        def: &'static OpDef,
        operands: &[Option<Value>],
        attributes: Attribute,
        result_types: &[Option<Type>],
    ) -> Result<OpId, TranslateError> {
        self.program
            .create_op_at(
                OperationArgs {
                    def,
                    operands,
                    attributes,
                    result_types,
                    num_regions: 0,
                },
                InsertPoint::BlockEnd(self.block),
            )
            .map_err(|source| TranslateError::Ir {
                at: Box::new(self.at()),
                source,
            })
    }

    /// Builds registered op `name` the way `pir::Builder::Build` does: result types from its
    /// infer-meta, appended to the block, and `stop_gradient` set by Paddle's
    /// `PassStopGradientsDefaultly`. `attrs` are the schema's attributes in order.
    pub fn build(
        &mut self,
        name: &str,
        operands: &[Option<Value>],
        attrs: &[AttrArg<'_>],
    ) -> Result<OpId, TranslateError> {
        let def = self.op_def(name)?;
        let op = {
            let mut b = Builder::at_block_end(self.program, self.block);
            build_with_values(&mut b, def, operands, attrs)
        }
        .map_err(|source| TranslateError::Build {
            at: Box::new(self.at()),
            source,
        })?;
        let sg = default_stop_gradient(self.program, operands);
        let n = self.program.op(op).num_results();
        let attr = bool_array(self.ctx(), sg, n);
        self.program
            .set_attribute(op, "stop_gradient", attr)
            .map_err(|source| TranslateError::Ir {
                at: Box::new(self.at()),
                source,
            })?;
        Ok(op)
    }

    /// `pd_op.full_int_array(values, int64, cpu)` as the builder makes it
    /// (`InsertFullArrayOperationForAttributeInput`).
    pub fn full_int_array(&mut self, values: &[i64]) -> Result<Value, TranslateError> {
        let def = self.op_def("pd_op.full_int_array")?;
        let ctx = self.ctx();
        let items: SmallVec<[Attribute; 8]> = values.iter().map(|&v| ctx.i64_attr(v)).collect();
        let dict = ctx.dict_attr_sorted(&[
            ("dtype", ctx.dtype_attr(DataType::Int64)),
            ("place", ctx.place_attr(Place::cpu())),
            ("stop_gradient", bool_array(ctx, true, 1)),
            ("value", ctx.array_attr(&items)),
        ]);
        let ty = ctx.dense_tensor_type(DataType::Int64, &[values.len() as i64]);
        let op = self.create_with_dict(def, &[], dict, &[Some(ty)])?;
        Ok(self.program.op(op).result(0))
    }

    /// `pd_op.full([1], value, dtype, cpu)` as the builder makes it
    /// (`InsertFullOperationForAttributeInput`).
    pub fn full(&mut self, value: f32, dtype: DataType) -> Result<Value, TranslateError> {
        self.full_shaped(&[1], value, dtype, Place::cpu())
    }

    /// `pd_op.full(shape, value, dtype, place)` as the builder makes it.
    pub fn full_shaped(
        &mut self,
        shape: &[i64],
        value: f32,
        dtype: DataType,
        place: Place,
    ) -> Result<Value, TranslateError> {
        let def = self.op_def("pd_op.full")?;
        let ctx = self.ctx();
        let dict = ctx.dict_attr_sorted(&[
            ("dtype", ctx.dtype_attr(dtype)),
            ("place", ctx.place_attr(place)),
            ("shape", ctx.int_array_attr(shape)),
            ("stop_gradient", bool_array(ctx, true, 1)),
            ("value", ctx.f64_attr(f64::from(value))),
        ]);
        let ty = ctx.dense_tensor_type(dtype, shape);
        let op = self.create_with_dict(def, &[], dict, &[Some(ty)])?;
        Ok(self.program.op(op).result(0))
    }

    /// `DataOp::Build(name, shape, dtype, Place())` as the builder makes it, appended to the
    /// block.
    pub fn data(
        &mut self,
        name: &str,
        dtype: DataType,
        shape: &[i64],
    ) -> Result<Value, TranslateError> {
        let def = self.op_def("pd_op.data")?;
        crate::program_translator::create_data_op(
            self.program,
            InsertPoint::BlockEnd(self.block),
            def,
            name,
            dtype,
            shape,
        )
        .map_err(|source| TranslateError::Ir {
            at: Box::new(self.at()),
            source,
        })
    }

    /// `ReshapeOp::Build(x, shape)`: a `full_int_array` of `shape`, then `pd_op.reshape`.
    pub fn reshape(&mut self, x: Value, shape: &[i64]) -> Result<Value, TranslateError> {
        let s = self.full_int_array(shape)?;
        let op = self.build("pd_op.reshape", &[Some(x), Some(s)], &[])?;
        self.first_result(op)
    }
}

/// `[v, v, ...]` (`n` times) as a bool array attribute.
pub(crate) fn bool_array(ctx: &IrContext, v: bool, n: usize) -> Attribute {
    let b = ctx.bool_attr(v);
    let items: SmallVec<[Attribute; 8]> = std::iter::repeat_n(b, n).collect();
    ctx.array_attr(&items)
}

/// Paddle's `PassStopGradientsDefaultly`: results stop gradients unless an operand's
/// defining op records `stop_gradient = false` for it.
pub(crate) fn default_stop_gradient(program: &Program, operands: &[Option<Value>]) -> bool {
    let ctx = program.ctx();
    for v in operands.iter().flatten() {
        let pir_runtime::ValueDef::OpResult { op, index } = program.value_def(*v) else {
            continue;
        };
        if let Some(AttrData::Array(items)) = program.op(op).attr_data("stop_gradient") {
            if let Some(&a) = items.get(index as usize) {
                if matches!(ctx.attr_data(a), AttrData::Bool(false)) {
                    return false;
                }
            }
        }
    }
    true
}

pub(crate) enum SliceError {
    Unmapped,
    Invalid(String),
}

/// `builtin.slice` of `name`'s vector element, appended to `block` and pushed for `name`.
pub(crate) fn insert_slice<'a>(
    program: &mut Program,
    block: BlockId,
    vars: &mut VariableMap<'a>,
    name: &'a str,
) -> Result<Value, SliceError> {
    let info = *vars.get(name).ok_or(SliceError::Unmapped)?;
    let ctx = program.ctx().clone();
    let index = info.idx_in_vector;
    let elem = match program.value_type(info.value).map(|t| ctx.type_data(t)) {
        Some(TypeData::Vector(e)) => usize::try_from(index).ok().and_then(|i| e.get(i)).copied(),
        _ => None,
    }
    .ok_or_else(|| {
        SliceError::Invalid(format!(
            "variable `{name}` is recorded as element {index} of a vector value that has no such \
             element"
        ))
    })?;
    let attrs = ctx.dict_attr_sorted(&[("index", ctx.i32_attr(index))]);
    let op = program
        .create_op_at(
            OperationArgs {
                def: &builtin::SLICE_DEF,
                operands: &[Some(info.value)],
                attributes: attrs,
                result_types: &[Some(elem)],
                num_regions: 0,
            },
            InsertPoint::BlockEnd(block),
        )
        .map_err(|e| SliceError::Invalid(e.to_string()))?;
    let v = program.op(op).result(0);
    vars.push(name, VariableDefiningInfo::new(v));
    Ok(v)
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
    op.input_arguments()
        .any(|i| op.output_arguments().any(|o| o == i))
}

/// A translation handler for one legacy op type. Every method has Paddle's general behaviour
/// as its default (see the [module documentation](self) for the stages); a special handler
/// overrides the stages it needs.
///
/// Register one with [`Translator::register_handler`]:
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

    /// The registered ops translating `op` needs besides its target (which the unknown-op
    /// report finds with [`OpTranscriber::look_up`]): by default the `full` /
    /// `full_int_array` the general target's mutable attributes may need.
    fn required_ops(&self, op: &LegacyOp, translator: &Translator) -> Vec<String> {
        general::required_ops(op, translator)
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
    pub fn target_name(op: &LegacyOp, translator: &Translator) -> String {
        let base = translator.compat().op_name(&op.op_type);
        let suffix = if is_inplace(op) && !base.ends_with('_') {
            "_"
        } else {
            ""
        };
        let ctx = translator.ctx();
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
        let name = target_name(cx.op, cx.translator);
        cx.op_def(&name)
    }

    /// The default of [`OpTranscriber::required_ops`]: `pd_op.full_int_array` / `pd_op.full`
    /// when the general target has IntArray / Scalar mutable attributes.
    pub fn required_ops(op: &LegacyOp, translator: &Translator) -> Vec<String> {
        let name = target_name(op, translator);
        let mut ops: Vec<String> = Vec::new();
        if let Some(schema) = translator.ctx().op_def(&name).and_then(|d| d.schema) {
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
        let found = crate::attribute_translator::legacy_type_name(value);
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
                    out.map(single, i, 0);
                    continue;
                }
            }
            if !matches!(spec.kind, ValueKind::Vector(_)) {
                match vars.first() {
                    None => out.types.push(None),
                    Some(name) => {
                        out.types.push(Some(cx.var_type(name)?));
                        out.map(name, i, 0);
                    }
                }
                continue;
            }
            let mut elems: SmallVec<[Type; 8]> = SmallVec::with_capacity(vars.len());
            for (j, name) in vars.iter().enumerate() {
                if name == EMPTY_VAR_NAME {
                    return Err(TranslateError::Unsupported {
                        at: Box::new(cx.at()),
                        what: format!(
                            "an `{EMPTY_VAR_NAME}` element in vector output `{legacy}` (a null \
                             type inside a vector type)"
                        ),
                    });
                }
                elems.push(cx.var_type(name)?);
                out.map(name, i, j);
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
        let found = crate::attribute_translator::legacy_type_name(value);
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
