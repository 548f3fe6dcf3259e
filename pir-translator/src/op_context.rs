//! [`OpContext`]: what a handler sees while it translates one legacy op — the op and the legacy
//! program (read-only), the target dialects, the program being built and the variable map — and
//! the helpers handlers build with: value lookups (sliced out of vectors where needed), ops made
//! the way Paddle's builders make them (`build`, `full`, `full_int_array`, `reshape`,
//! `combine`, `data`), and located errors.
//!
//! It knows nothing of the handlers or of the block-level translation: the program translator
//! makes one per op and hands it to the op's handler.

use std::borrow::Cow;
use std::sync::Arc;

use pir_legacy::{AttrValue, LegacyOp, LegacyProgram, LegacyVar, Location};
use pir_runtime::op_support::{build_with_values, AttrArg};
use pir_runtime::phi::{DataType, Place};
use pir_runtime::pir_spec::OpSchema;
use pir_runtime::{
    builtin, Attribute, BlockId, Builder, InsertPoint, IrContext, OpDef, OpId, Program, Type, Value,
};
use smallvec::SmallVec;

use crate::builders::{self, bool_array, SliceError};
use crate::dialects::TargetDialects;
use crate::op_compat::{OpCompatInfo, OpNames};
use crate::translate_error::TranslateError;
use crate::type_translator::translate_var_type;
use crate::var_index::VarIndex;
use crate::variable_map::{VariableDefiningInfo, VariableMap};

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

/// The target op of a translation: its definition and GetOpInfo.
#[derive(Clone, Copy, Debug)]
pub struct TargetOp {
    /// The definition.
    pub def: &'static OpDef,
    /// Its schema (GetOpInfo: inputs, attributes, outputs).
    pub schema: &'static OpSchema,
}

/// Everything a handler needs to translate one legacy op: the op, the legacy program, the
/// program being built (ops are appended to `block`) and the variable map.
pub struct OpContext<'a, 'v> {
    pub(crate) dialects: &'a TargetDialects,
    /// Whether a special handler is registered for the op's type (then missing target ops are
    /// [`TranslateError::MissingOps`], else [`TranslateError::UnknownOp`]).
    pub(crate) special_handler: bool,
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

    /// The target dialects (IR context and op_compat names).
    pub fn dialects(&self) -> &'a TargetDialects {
        self.dialects
    }

    /// The IR context.
    pub fn ctx(&self) -> &'a Arc<IrContext> {
        self.dialects.ctx()
    }

    /// The op_compat names.
    pub fn compat(&self) -> &'a OpCompatInfo {
        self.dialects.compat()
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
        if self.special_handler {
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

    /// The one argument of legacy input `param` (an error naming the input otherwise).
    pub fn single_input(&self, param: &str) -> Result<&'a str, TranslateError> {
        self.single("input", param, self.input(param))
    }

    /// The one argument of legacy output `param` (an error naming the output otherwise).
    pub fn single_output(&self, param: &str) -> Result<&'a str, TranslateError> {
        self.single("output", param, self.output(param))
    }

    fn single(
        &self,
        kind: &str,
        param: &str,
        args: &'a [String],
    ) -> Result<&'a str, TranslateError> {
        match args {
            [name] => Ok(name),
            _ => Err(self.invalid(format!(
                "{kind} `{param}` should have exactly 1 variable, got {}",
                args.len()
            ))),
        }
    }

    /// The newest value of the single argument of legacy input `param`, with its dense tensor
    /// dims (Paddle's `GetTensorInfoByVarName`: the value as mapped, a vector element is an
    /// error).
    pub fn dense_input(
        &mut self,
        param: &str,
    ) -> Result<(Value, SmallVec<[i64; 6]>), TranslateError> {
        self.dense_argument(param, false)
    }

    /// [`OpContext::dense_input`], taking a vector element out of its vector first
    /// (`builtin.slice`).
    pub fn sliced_dense_input(
        &mut self,
        param: &str,
    ) -> Result<(Value, SmallVec<[i64; 6]>), TranslateError> {
        self.dense_argument(param, true)
    }

    fn dense_argument(
        &mut self,
        param: &str,
        sliced: bool,
    ) -> Result<(Value, SmallVec<[i64; 6]>), TranslateError> {
        let name = self.single_input(param)?;
        let value = if sliced {
            self.sliced_value(Param::input(param), name)?
        } else {
            self.value_info(Param::input(param), name)?.value
        };
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
        builders::insert_slice(self.program, self.block, self.vars, name).map_err(|e| match e {
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
        let at = InsertPoint::BlockEnd(self.block);
        builders::create(self.program, at, def, operands, attributes, result_types)
            .map_err(|e| self.ir_error(e))
    }

    /// A [`TranslateError::Ir`] at the op.
    pub fn ir_error(&self, source: pir_runtime::IrError) -> TranslateError {
        TranslateError::Ir {
            at: Box::new(self.at()),
            source,
        }
    }

    /// Sets the `stop_gradient` of `op`'s results the way Paddle's builder does
    /// (`PassStopGradientsDefaultly`: `true` unless an operand's value has `false`).
    fn set_builder_stop_gradient(
        &mut self,
        op: OpId,
        operands: &[Option<Value>],
    ) -> Result<(), TranslateError> {
        let sg = builders::default_stop_gradient(self.program, operands);
        let n = self.program.op(op).num_results();
        let attr = bool_array(self.ctx(), sg, n);
        self.program
            .set_attribute(op, "stop_gradient", attr)
            .map_err(|e| self.ir_error(e))
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
        self.set_builder_stop_gradient(op, operands)?;
        Ok(op)
    }

    /// `builtin.combine` of `values`, as `pir::Builder::Build<CombineOp>` makes it (with
    /// `stop_gradient`).
    pub fn build_combine(&mut self, values: &[Value]) -> Result<Value, TranslateError> {
        let block = self.block;
        let v = {
            let mut b = Builder::at_block_end(self.program, block);
            builtin::combine(&mut b, values)
        }
        .map_err(|e| self.ir_error(e))?;
        let op = self
            .program
            .defining_op(v)
            .ok_or_else(|| self.invalid("combine has no op"))?;
        let operands: SmallVec<[Option<Value>; 4]> = values.iter().map(|&v| Some(v)).collect();
        self.set_builder_stop_gradient(op, &operands)?;
        Ok(v)
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
        let at = InsertPoint::BlockEnd(self.block);
        builders::data_op(self.program, at, def, name, dtype, shape).map_err(|e| self.ir_error(e))
    }

    /// `ReshapeOp::Build(x, shape)`: a `full_int_array` of `shape`, then `pd_op.reshape`.
    pub fn reshape(&mut self, x: Value, shape: &[i64]) -> Result<Value, TranslateError> {
        let s = self.full_int_array(shape)?;
        let op = self.build("pd_op.reshape", &[Some(x), Some(s)], &[])?;
        self.first_result(op)
    }
}
