//! The builtin dialect: `builtin.module`, `parameter`, `set_parameter`, `shadow_output`,
//! `combine`, `split`, `slice`, `constant`, each with its verifier and a typed builder.
//!
//! ```
//! use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
//! let ctx = IrContext::new();
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let t = ctx.dense_tensor_type(DataType::Float32, &[4, 2]);
//! let w = builtin::parameter(&mut b, "w", t).unwrap();
//! let v = builtin::combine(&mut b, &[w, w]).unwrap();
//! let parts = builtin::split(&mut b, v).unwrap();
//! assert_eq!(parts.len(), 2);
//! pir_runtime::verify(&prog).unwrap();
//! ```

use crate::attributes::{AttrData, Attribute};
use crate::builder::Builder;
use crate::context::Dialect;
use crate::error::{IrError, PrintedType, Slot, VerifyErrorKind};
use crate::op_def::OpDef;
use crate::program::{OpRef, Value};
use crate::types::{Type, TypeData};

/// The builtin dialect (always registered).
///
/// ```
/// use pir_runtime::{builtin::BuiltinDialect, Dialect, IrContext};
/// assert_eq!(BuiltinDialect::NAME, "builtin");
/// assert_eq!(BuiltinDialect::op_defs().len(), 8);
/// let ctx = IrContext::new(); // registers it already; registering again is a no-op
/// ctx.register_dialect::<BuiltinDialect>().unwrap();
/// ```
pub struct BuiltinDialect;

impl Dialect for BuiltinDialect {
    const NAME: &'static str = "builtin";
    fn op_defs() -> &'static [&'static OpDef] {
        &BUILTIN_OPS
    }
}

static BUILTIN_OPS: [&OpDef; 8] = [
    &MODULE_DEF,
    &PARAMETER_DEF,
    &SET_PARAMETER_DEF,
    &SHADOW_OUTPUT_DEF,
    &COMBINE_DEF,
    &SPLIT_DEF,
    &SLICE_DEF,
    &CONSTANT_DEF,
];

const fn def(
    name: &'static str,
    attribute_names: &'static [&'static str],
    verify: crate::op_def::VerifyFn,
) -> OpDef {
    OpDef {
        attribute_names,
        verify: Some(verify),
        ..OpDef::new(name, "builtin")
    }
}

/// `builtin.module`: the program's top-level op, one region of one block.
///
/// ```
/// use pir_runtime::{builtin, IrContext, Program};
/// let ctx = IrContext::new();
/// let prog = Program::new(&ctx);
/// assert_eq!(prog.op(prog.module_op()).def(), &builtin::MODULE_DEF);
/// ```
pub static MODULE_DEF: OpDef = def("builtin.module", &[], verify_module);
/// `builtin.parameter`: `() -> T`, attribute `parameter_name`.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// let w = builtin::parameter(&mut Builder::at_end(&mut prog), "w", t).unwrap();
/// let op = prog.op(prog.defining_op(w).unwrap());
/// assert_eq!(op.def(), &builtin::PARAMETER_DEF);
/// assert_eq!(builtin::PARAMETER_DEF.attribute_names, ["parameter_name"]);
/// ```
pub static PARAMETER_DEF: OpDef = def("builtin.parameter", &["parameter_name"], verify_parameter);
/// `builtin.set_parameter`: `(T) -> ()`, attribute `parameter_name`.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// # let mut b = Builder::at_end(&mut prog);
/// let w = builtin::parameter(&mut b, "w", t).unwrap();
/// builtin::set_parameter(&mut b, w, "w").unwrap();
/// let last = prog.last_op(prog.block()).unwrap();
/// assert_eq!(prog.op(last).def(), &builtin::SET_PARAMETER_DEF);
/// ```
pub static SET_PARAMETER_DEF: OpDef = def(
    "builtin.set_parameter",
    &["parameter_name"],
    verify_set_parameter,
);
/// `builtin.shadow_output`: `(T) -> ()`, attribute `output_name`.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// # let mut b = Builder::at_end(&mut prog);
/// let w = builtin::parameter(&mut b, "w", t).unwrap();
/// builtin::shadow_output(&mut b, w, "out").unwrap();
/// let last = prog.last_op(prog.block()).unwrap();
/// assert_eq!(prog.op(last).def(), &builtin::SHADOW_OUTPUT_DEF);
/// ```
pub static SHADOW_OUTPUT_DEF: OpDef = def(
    "builtin.shadow_output",
    &["output_name"],
    verify_shadow_output,
);
/// `builtin.combine`: `(T0, T1, ...) -> vec[T0,T1,...]`.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType, verify};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// # let mut b = Builder::at_end(&mut prog);
/// let w = builtin::parameter(&mut b, "w", t).unwrap();
/// // A combine whose result type does not list its operands' types fails to verify:
/// let wrong = b.ctx().vector_type(&[t, t]);
/// b.create_with(&builtin::COMBINE_DEF, &[Some(w)], ctx.empty_dict(), &[Some(wrong)], 0).unwrap();
/// let err = verify(&prog).unwrap_err();
/// assert!(err.0[0].message().contains("the vector has 2 element(s) but the op has 1 operand(s)"));
/// ```
pub static COMBINE_DEF: OpDef = def("builtin.combine", &[], verify_combine);
/// `builtin.split`: `(vec[T0,T1,...]) -> T0, T1, ...`.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// # let mut b = Builder::at_end(&mut prog);
/// let w = builtin::parameter(&mut b, "w", t).unwrap();
/// let v = builtin::combine(&mut b, &[w]).unwrap();
/// let parts = builtin::split(&mut b, v).unwrap();
/// assert_eq!(prog.op(prog.defining_op(parts[0]).unwrap()).def(), &builtin::SPLIT_DEF);
/// ```
pub static SPLIT_DEF: OpDef = def("builtin.split", &[], verify_split);
/// `builtin.slice`: `(vec[...]) -> T_index`, attribute `index`.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// # let mut b = Builder::at_end(&mut prog);
/// let w = builtin::parameter(&mut b, "w", t).unwrap();
/// let v = builtin::combine(&mut b, &[w]).unwrap();
/// let e = builtin::slice(&mut b, v, 0).unwrap();
/// let op = prog.op(prog.defining_op(e).unwrap());
/// assert_eq!((op.def(), op.attr("index")), (&builtin::SLICE_DEF, Some(ctx.i32_attr(0))));
/// ```
pub static SLICE_DEF: OpDef = def("builtin.slice", &["index"], verify_slice);
/// `builtin.constant`: `() -> T`, attribute `value`.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// let c = builtin::constant(&mut Builder::at_end(&mut prog), ctx.f64_attr(0.5), ctx.scalar_type(DataType::Float64)).unwrap();
/// assert_eq!(prog.op(prog.defining_op(c).unwrap()).def(), &builtin::CONSTANT_DEF);
/// ```
pub static CONSTANT_DEF: OpDef = def("builtin.constant", &["value"], verify_constant);

fn counts(
    op: OpRef<'_>,
    operands: Option<usize>,
    results: Option<usize>,
) -> Result<(), VerifyErrorKind> {
    if let Some(expected) = operands {
        if op.num_operands() != expected {
            return Err(VerifyErrorKind::OperandCount {
                expected,
                found: op.num_operands(),
                names: None,
            });
        }
    }
    if let Some(expected) = results {
        if op.num_results() != expected {
            return Err(VerifyErrorKind::ResultCount {
                expected,
                found: op.num_results(),
                names: None,
            });
        }
    }
    Ok(())
}

fn str_attr(op: OpRef<'_>, name: &'static str) -> Result<(), VerifyErrorKind> {
    match op.attr_data(name) {
        Some(AttrData::Str(_)) => Ok(()),
        Some(other) => Err(VerifyErrorKind::AttributeType {
            name,
            expected: "pir::StrAttribute",
            found: other.kind_name(),
            value: None,
        }),
        None => Err(VerifyErrorKind::MissingAttribute {
            name,
            expected: Some("pir::StrAttribute"),
        }),
    }
}

fn present_operand(op: OpRef<'_>, index: usize) -> Result<Value, VerifyErrorKind> {
    op.operand(index)
        .ok_or(VerifyErrorKind::NullOperand { index, name: None })
}

fn printed(op: OpRef<'_>, ty: Option<Type>) -> PrintedType {
    PrintedType::new(op.ctx(), ty)
}

fn vector_elements<'a>(op: OpRef<'a>, v: Value) -> Result<&'a [Type], VerifyErrorKind> {
    let ty = op.program().value_type(v);
    match ty.map(|t| op.ctx().type_data(t)) {
        Some(TypeData::Vector(e)) => Ok(e),
        _ => Err(VerifyErrorKind::OperandType {
            index: 0,
            name: None,
            expected: "a vector type".into(),
            found: printed(op, ty),
        }),
    }
}

fn verify_module(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    counts(op, Some(0), Some(0))?;
    if op.num_regions() != 1 {
        return Err(VerifyErrorKind::RegionCount {
            expected: 1,
            found: op.num_regions(),
        });
    }
    Ok(())
}

fn verify_parameter(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    counts(op, Some(0), Some(1))?;
    str_attr(op, "parameter_name")
}

fn verify_set_parameter(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    counts(op, Some(1), Some(0))?;
    present_operand(op, 0)?;
    str_attr(op, "parameter_name")
}

fn verify_shadow_output(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    counts(op, Some(1), Some(0))?;
    present_operand(op, 0)?;
    str_attr(op, "output_name")
}

fn verify_combine(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    counts(op, None, Some(1))?;
    let ctx = op.ctx();
    let ty = op.result_type(0);
    let Some(TypeData::Vector(elems)) = ty.map(|t| ctx.type_data(t)) else {
        return Err(VerifyErrorKind::ResultType {
            index: 0,
            name: None,
            expected: "a vector type".into(),
            found: printed(op, ty),
        });
    };
    if elems.len() != op.num_operands() {
        return Err(VerifyErrorKind::VectorLength {
            vector: Slot::Result(0),
            elements: elems.len(),
            expected: op.num_operands(),
        });
    }
    for (i, &e) in elems.iter().enumerate() {
        let found = op.program().value_type(present_operand(op, i)?);
        if found != Some(e) {
            return Err(VerifyErrorKind::ElementType {
                value: Slot::Operand(i),
                found: printed(op, found),
                element: i,
                expected: printed(op, Some(e)),
            });
        }
    }
    Ok(())
}

fn verify_split(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    counts(op, Some(1), None)?;
    let elems = vector_elements(op, present_operand(op, 0)?)?;
    if elems.len() != op.num_results() {
        return Err(VerifyErrorKind::VectorLength {
            vector: Slot::Operand(0),
            elements: elems.len(),
            expected: op.num_results(),
        });
    }
    for (i, &e) in elems.iter().enumerate() {
        if op.result_type(i) != Some(e) {
            return Err(VerifyErrorKind::ElementType {
                value: Slot::Result(i),
                found: printed(op, op.result_type(i)),
                element: i,
                expected: printed(op, Some(e)),
            });
        }
    }
    Ok(())
}

fn verify_slice(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    counts(op, Some(1), Some(1))?;
    let elems = vector_elements(op, present_operand(op, 0)?)?;
    let index = match op.attr_data("index") {
        Some(AttrData::Int32(i)) => *i,
        Some(other) => {
            return Err(VerifyErrorKind::AttributeType {
                name: "index",
                expected: "pir::Int32Attribute",
                found: other.kind_name(),
                value: None,
            })
        }
        None => {
            return Err(VerifyErrorKind::MissingAttribute {
                name: "index",
                expected: Some("pir::Int32Attribute"),
            })
        }
    };
    let Some((element, &e)) = usize::try_from(index)
        .ok()
        .and_then(|i| Some((i, elems.get(i)?)))
    else {
        return Err(VerifyErrorKind::AttributeValue {
            name: "index",
            problem: format!(
                "{index} is out of range for a vector of {} element(s)",
                elems.len()
            ),
        });
    };
    if op.result_type(0) != Some(e) {
        return Err(VerifyErrorKind::ElementType {
            value: Slot::Result(0),
            found: printed(op, op.result_type(0)),
            element,
            expected: printed(op, Some(e)),
        });
    }
    Ok(())
}

fn verify_constant(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    counts(op, Some(0), Some(1))?;
    if op.attr("value").is_none() {
        return Err(VerifyErrorKind::MissingAttribute {
            name: "value",
            expected: None,
        });
    }
    Ok(())
}

/// Builds `builtin.parameter` named `name` of type `ty`; returns its result.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// let t = ctx.dense_tensor_type(DataType::Float32, &[6, 5]);
/// let w = builtin::parameter(&mut Builder::at_end(&mut prog), "fc_0.w_0", t).unwrap();
/// assert_eq!(prog.value_type(w), Some(t));
/// assert_eq!(prog.to_string(), "{\n    (%0) = \"builtin.parameter\" () {parameter_name:\"fc_0.w_0\"} : () -> tensor<6x5xf32>\n}\n");
/// ```
pub fn parameter(b: &mut Builder<'_>, name: &str, ty: Type) -> Result<Value, IrError> {
    let attrs = b
        .ctx()
        .dict_attr(&[("parameter_name", b.ctx().str_attr(name))]);
    let op = b.create_with(&PARAMETER_DEF, &[], attrs, &[Some(ty)], 0)?;
    Ok(b.program().op(op).result(0))
}

/// Builds `builtin.set_parameter` storing `value` as parameter `name`.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// # let mut b = Builder::at_end(&mut prog);
/// let w = builtin::parameter(&mut b, "w", t).unwrap();
/// builtin::set_parameter(&mut b, w, "w_new").unwrap();
/// let op = prog.op(prog.last_op(prog.block()).unwrap());
/// assert_eq!((op.num_results(), op.attr("parameter_name")), (0, Some(ctx.str_attr("w_new"))));
/// ```
pub fn set_parameter(b: &mut Builder<'_>, value: Value, name: &str) -> Result<(), IrError> {
    let attrs = b
        .ctx()
        .dict_attr(&[("parameter_name", b.ctx().str_attr(name))]);
    b.create_with(&SET_PARAMETER_DEF, &[Some(value)], attrs, &[], 0)?;
    Ok(())
}

/// Builds `builtin.shadow_output` exposing `value` as `name`.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// # let mut b = Builder::at_end(&mut prog);
/// let w = builtin::parameter(&mut b, "w", t).unwrap();
/// builtin::shadow_output(&mut b, w, "fetch_0").unwrap();
/// assert!(prog.to_string().contains(
///     "() = \"builtin.shadow_output\" (%0) {output_name:\"fetch_0\"} : (tensor<2xf32>) -> "));
/// ```
pub fn shadow_output(b: &mut Builder<'_>, value: Value, name: &str) -> Result<(), IrError> {
    let attrs = b
        .ctx()
        .dict_attr(&[("output_name", b.ctx().str_attr(name))]);
    b.create_with(&SHADOW_OUTPUT_DEF, &[Some(value)], attrs, &[], 0)?;
    Ok(())
}

/// Builds `builtin.combine` of `values`; returns the vector value.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let mut b = Builder::at_end(&mut prog);
/// let a = builtin::parameter(&mut b, "a", ctx.dense_tensor_type(DataType::Float32, &[2])).unwrap();
/// let i = builtin::parameter(&mut b, "i", ctx.dense_tensor_type(DataType::Int64, &[])).unwrap();
/// let v = builtin::combine(&mut b, &[a, i]).unwrap();
/// let vt = prog.value_type(v).unwrap();
/// assert_eq!(vt.display(&ctx).to_string(), "vec[tensor<2xf32>,tensor<i64>]");
/// ```
pub fn combine(b: &mut Builder<'_>, values: &[Value]) -> Result<Value, IrError> {
    let types: smallvec::SmallVec<[Type; 8]> = values
        .iter()
        .map(|&v| b.program().value_type(v))
        .collect::<Option<_>>()
        .ok_or_else(|| IrError::Invalid("builtin.combine: an operand has a null type".into()))?;
    let vt = b.ctx().vector_type(&types);
    let operands: smallvec::SmallVec<[Option<Value>; 8]> =
        values.iter().map(|&v| Some(v)).collect();
    let empty = b.ctx().empty_dict();
    let op = b.create_with(&COMBINE_DEF, &operands, empty, &[Some(vt)], 0)?;
    Ok(b.program().op(op).result(0))
}

/// Builds `builtin.split` of a vector value; returns its elements.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// # let mut b = Builder::at_end(&mut prog);
/// let w = builtin::parameter(&mut b, "w", t).unwrap();
/// let v = builtin::combine(&mut b, &[w, w, w]).unwrap();
/// let parts = builtin::split(&mut b, v).unwrap();
/// assert_eq!(parts.len(), 3);
/// let err = builtin::split(&mut b, w).unwrap_err(); // not a vector
/// assert_eq!(err.to_string(), "builtin.split: the operand is not a vector");
/// ```
pub fn split(b: &mut Builder<'_>, vector: Value) -> Result<Vec<Value>, IrError> {
    let elems: Vec<Option<Type>> =
        match b.program().value_type(vector).map(|t| b.ctx().type_data(t)) {
            Some(TypeData::Vector(e)) => e.iter().map(|&t| Some(t)).collect(),
            _ => {
                return Err(IrError::Invalid(
                    "builtin.split: the operand is not a vector".into(),
                ))
            }
        };
    let empty = b.ctx().empty_dict();
    let op = b.create_with(&SPLIT_DEF, &[Some(vector)], empty, &elems, 0)?;
    Ok(b.program().op(op).results().collect())
}

/// Builds `builtin.slice` taking element `index` of a vector value.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let mut b = Builder::at_end(&mut prog);
/// let a = builtin::parameter(&mut b, "a", ctx.dense_tensor_type(DataType::Float32, &[2])).unwrap();
/// let i = builtin::parameter(&mut b, "i", ctx.dense_tensor_type(DataType::Int64, &[1])).unwrap();
/// let v = builtin::combine(&mut b, &[a, i]).unwrap();
/// let second = builtin::slice(&mut b, v, 1).unwrap();
/// assert_eq!(b.program().value_type(second), b.program().value_type(i));
/// let err = builtin::slice(&mut b, v, 2).unwrap_err();
/// assert_eq!(err.to_string(), "builtin.slice: the operand has no element 2");
/// ```
pub fn slice(b: &mut Builder<'_>, vector: Value, index: i32) -> Result<Value, IrError> {
    let elem = match b.program().value_type(vector).map(|t| b.ctx().type_data(t)) {
        Some(TypeData::Vector(e)) => usize::try_from(index).ok().and_then(|i| e.get(i)).copied(),
        _ => None,
    };
    let elem = elem.ok_or_else(|| {
        IrError::Invalid(format!("builtin.slice: the operand has no element {index}"))
    })?;
    let attrs = b.ctx().dict_attr(&[("index", b.ctx().i32_attr(index))]);
    let op = b.create_with(&SLICE_DEF, &[Some(vector)], attrs, &[Some(elem)], 0)?;
    Ok(b.program().op(op).result(0))
}

/// Builds `builtin.constant` of type `ty` holding `value`.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// let t = ctx.dense_tensor_type(DataType::Int64, &[2]);
/// let c = builtin::constant(&mut Builder::at_end(&mut prog), ctx.int_array_attr(&[3, 4]), t).unwrap();
/// assert_eq!(prog.value_type(c), Some(t));
/// assert!(prog.to_string().contains("\"builtin.constant\" () {value:[3,4]} : () -> tensor<2xi64>"));
/// ```
pub fn constant(b: &mut Builder<'_>, value: Attribute, ty: Type) -> Result<Value, IrError> {
    let attrs = b.ctx().dict_attr(&[("value", value)]);
    let op = b.create_with(&CONSTANT_DEF, &[], attrs, &[Some(ty)], 0)?;
    Ok(b.program().op(op).result(0))
}
