//! Ops made the way Paddle's translator and builders make them, as plain functions of the
//! program being built: `Operation::Create` ([`create`]), `builtin.slice` of a vector element
//! ([`insert_slice`]), `pd_op.data` ([`data_op`]), `builtin.parameter` / `set_parameter`
//! ([`parameter_op`]), and the `stop_gradient` rules. [`crate::OpContext`] wraps them for
//! handlers; the program translator uses them directly.

use pir_runtime::phi::{DataType, Place};
use pir_runtime::{
    builtin, AttrData, Attribute, BlockId, InsertPoint, IrContext, IrError, OpDef, OpId,
    OperationArgs, Program, Type, TypeData, Value,
};
use smallvec::SmallVec;

use crate::variable_map::{VariableDefiningInfo, VariableMap};

/// `Operation::Create`: an op with exactly these operands, attributes and result types (no
/// `stop_gradient` of its own), inserted at `at`.
pub(crate) fn create(
    program: &mut Program,
    at: InsertPoint,
    def: &'static OpDef,
    operands: &[Option<Value>],
    attributes: Attribute,
    result_types: &[Option<Type>],
) -> Result<OpId, IrError> {
    program.create_op_at(
        OperationArgs {
            def,
            operands,
            attributes,
            result_types,
            num_regions: 0,
        },
        at,
    )
}

/// `builtin.parameter` (no operands, the parameter's type) or `builtin.set_parameter` (the
/// value written, no results) for parameter `name`, inserted at `at`.
pub(crate) fn parameter_op(
    program: &mut Program,
    at: InsertPoint,
    def: &'static OpDef,
    name: &str,
    operands: &[Option<Value>],
    result_types: &[Option<Type>],
) -> Result<OpId, IrError> {
    let ctx = program.ctx().clone();
    let attrs = ctx.dict_attr_sorted(&[("parameter_name", ctx.str_attr(name))]);
    create(program, at, def, operands, attrs, result_types)
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

/// Why a variable could not be sliced out of its vector.
pub(crate) enum SliceError {
    /// The variable has no value.
    Unmapped,
    /// Its value is not the vector its mapping says.
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
    let op = create(
        program,
        InsertPoint::BlockEnd(block),
        &builtin::SLICE_DEF,
        &[Some(info.value)],
        attrs,
        &[Some(elem)],
    )
    .map_err(|e| SliceError::Invalid(e.to_string()))?;
    let v = program.op(op).result(0);
    vars.push(name, VariableDefiningInfo::new(v));
    Ok(v)
}

/// `DataOp::Build(name, shape, dtype, Place())` as the builder makes it (`stop_gradient` =
/// `[true]`: a data op has no operands), inserted at `at`.
pub(crate) fn data_op(
    program: &mut Program,
    at: InsertPoint,
    def: &'static OpDef,
    name: &str,
    dtype: DataType,
    shape: &[i64],
) -> Result<Value, IrError> {
    let ctx = program.ctx().clone();
    let attrs = ctx.dict_attr_sorted(&[
        ("dtype", ctx.dtype_attr(dtype)),
        ("name", ctx.str_attr(name)),
        ("place", ctx.place_attr(Place::default())),
        ("shape", ctx.int_array_attr(shape)),
        ("stop_gradient", bool_array(&ctx, true, 1)),
    ]);
    let ty = ctx.dense_tensor_type(dtype, shape);
    let op = create(program, at, def, &[], attrs, &[Some(ty)])?;
    Ok(program.op(op).result(0))
}
