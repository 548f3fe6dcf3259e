//! The one generic Vjp: builds the backward op of a forward op from its [`VjpRule`] through
//! the ordinary build path (infer-meta included), as Paddle's generated `Vjp` functions do.
//!
//! Vector (`Tensor[]`) operands are passed as `builtin.combine` of their values, vector results
//! are taken apart with `builtin.split`, mutable attributes the forward op has as plain values
//! are materialised as `full` / `full_int_array`, all in the order Paddle's API creates them.

use pir_runtime::op_support::{attribute_fits, build_with_attributes};
use pir_runtime::phi::{DataType, Place};
use pir_runtime::{
    builtin, AttrData, Attribute, BuildError, Builder, IrContext, OpId, TypeData, Value,
};
use pir_spec::vjp::{VjpAttr, VjpOperand, VjpRule, VjpValue};
use pir_spec::{AttrKind, DefaultValue, InputKind, InputSpec, OpSchema, ValueKind};
use smallvec::SmallVec;

use crate::error::AutodiffError;
pub use pir_runtime::interfaces::{VjpArgs, VjpFn, VjpResult};

/// Runs `rule` for forward op `fwd` (whose schema is `schema`): builds the backward op at
/// `b`'s insertion point and returns the gradients of `fwd`'s operands with grad semantics.
///
/// # Errors
///
/// [`AutodiffError::Build`] when the backward op cannot be built (a missing op, infer-meta
/// rejecting the inputs), [`AutodiffError::Invalid`] when `args` do not fit the rule.
pub fn run_rule(
    b: &mut Builder<'_>,
    fwd: OpId,
    schema: &OpSchema,
    rule: &VjpRule,
    args: &VjpArgs<'_>,
) -> Result<VjpResult, AutodiffError> {
    let ctx = b.ctx().clone();
    let name = format!("{}.{}", schema.dialect, rule.op);
    let def = ctx
        .op_def(&name)
        .ok_or_else(|| AutodiffError::MissingOp(name.clone()))?;
    let target = def
        .schema
        .ok_or_else(|| AutodiffError::MissingOp(name.clone()))?;
    // Operands, in order; combines and fulls are created as they are needed.
    let mut operands: SmallVec<[Option<Value>; 8]> = SmallVec::new();
    for (spec, op) in target.inputs.iter().zip(rule.operands.iter()) {
        operands.push(rule_operand(b, &ctx, fwd, schema, spec, op, args)?);
    }
    let dict = attributes(b, fwd, schema, target, rule, args)?;
    let op = build_with_attributes(b, def, &operands, dict).map_err(|e| build_err(b, fwd, e))?;
    operand_grads(b, fwd, op, schema, target, rule, args)
}

/// The failure to build one of `fwd`'s gradient ops.
fn build_err(b: &Builder<'_>, fwd: OpId, source: BuildError) -> AutodiffError {
    AutodiffError::Build {
        op: b.program().describe(fwd),
        source,
    }
}

/// The backward op's operand for input `spec`, as `op` of the rule gives it: a forward value
/// (a vector one combined), or a `full` of a forward attribute or a constant.
fn rule_operand(
    b: &mut Builder<'_>,
    ctx: &IrContext,
    fwd: OpId,
    schema: &OpSchema,
    spec: &InputSpec,
    op: &VjpOperand,
    args: &VjpArgs<'_>,
) -> Result<Option<Value>, AutodiffError> {
    Ok(match op {
        VjpOperand::Value(src) => {
            let vector = matches!(spec.kind, InputKind::Value(ValueKind::Vector(_)));
            value_of(b, fwd, schema, *src, vector, args)?
        }
        VjpOperand::FromAttr(i) => {
            let InputKind::MutableAttribute(m) = &spec.kind else {
                return Err(invalid(b, fwd, "a forward attribute for a tensor operand"));
            };
            let attr_name = &schema.attributes[*i as usize].name;
            let a =
                b.program().op(fwd).attr(attr_name).ok_or_else(|| {
                    invalid(b, fwd, &format!("attribute `{attr_name}` is missing"))
                })?;
            Some(full_of_attr(b, m.kind, &m.data_type, a).map_err(|e| build_err(b, fwd, e))?)
        }
        VjpOperand::Const(d) => {
            let InputKind::MutableAttribute(m) = &spec.kind else {
                return Err(invalid(b, fwd, "a constant for a tensor operand"));
            };
            let a = default_attribute(ctx, m.kind, &m.data_type, d)
                .ok_or_else(|| invalid(b, fwd, &format!("default of `{}`", spec.name)))?;
            Some(full_of_attr(b, m.kind, &m.data_type, a).map_err(|e| build_err(b, fwd, e))?)
        }
    })
}

/// The gradients of `fwd`'s operands with grad semantics from the results of the backward op
/// `op`: vector results are taken apart, and a gradient whose forward value stops the
/// gradient is left out.
fn operand_grads(
    b: &mut Builder<'_>,
    fwd: OpId,
    op: OpId,
    schema: &OpSchema,
    target: &OpSchema,
    rule: &VjpRule,
    args: &VjpArgs<'_>,
) -> Result<VjpResult, AutodiffError> {
    let mut result: VjpResult = args
        .stop_gradients
        .iter()
        .map(|s| SmallVec::from_elem(None, s.len()))
        .collect();
    let slots = grad_slots(schema);
    for (k, of) in rule.outputs.iter().enumerate() {
        let Some(input) = of else { continue };
        let Some(slot) = slots.get(*input as usize).copied().flatten() else {
            continue;
        };
        let v = b.program().op(op).result(k);
        let parts: SmallVec<[Option<Value>; 1]> =
            if matches!(target.outputs[k].kind, ValueKind::Vector(_)) {
                builtin::split(b, v)
                    .map_err(|e| build_err(b, fwd, e.into()))?
                    .into_iter()
                    .map(Some)
                    .collect()
            } else {
                SmallVec::from_elem(Some(v), 1)
            };
        let stops = &args.stop_gradients[slot];
        result[slot] = parts
            .into_iter()
            .enumerate()
            .map(|(j, p)| p.filter(|_| !stops.get(j).copied().unwrap_or(true)))
            .collect();
    }
    Ok(result)
}

/// Operand index → position among the operands with grad semantics.
pub fn grad_slots(schema: &OpSchema) -> SmallVec<[Option<usize>; 8]> {
    let mut n = 0;
    schema
        .inputs
        .iter()
        .map(|i| {
            i.with_grad_semantic.then(|| {
                n += 1;
                n - 1
            })
        })
        .collect()
}

fn invalid(b: &Builder<'_>, fwd: OpId, message: &str) -> AutodiffError {
    AutodiffError::Invalid {
        op: b.program().describe(fwd),
        message: message.to_string(),
    }
}

/// The value a rule's source names; a vector operand whose values are separate is combined.
fn value_of(
    b: &mut Builder<'_>,
    fwd: OpId,
    schema: &OpSchema,
    src: VjpValue,
    vector: bool,
    args: &VjpArgs<'_>,
) -> Result<Option<Value>, AutodiffError> {
    let (list, what) = match src {
        VjpValue::Null => return Ok(None),
        VjpValue::Input(i) => (args.inputs.get(i as usize), "input"),
        VjpValue::Output(i) => (args.outputs.get(i as usize), "output"),
        VjpValue::OutputGrad(i) => (args.out_grads.get(i as usize), "output grad"),
    };
    let list = list.ok_or_else(|| invalid(b, fwd, &format!("{what} missing for {src:?}")))?;
    let _ = schema;
    let is_vector_value = |b: &Builder<'_>, v: Value| {
        b.program()
            .value_type(v)
            .is_some_and(|t| matches!(b.ctx().type_data(t), TypeData::Vector(_)))
    };
    match list.as_slice() {
        [one] if !vector => Ok(*one),
        [None] => Ok(None),
        [Some(v)] if is_vector_value(b, *v) => Ok(Some(*v)),
        [] if !vector => Ok(None),
        values if vector => {
            let vals: Option<SmallVec<[Value; 4]>> = values.iter().copied().collect();
            let vals = vals.ok_or_else(|| invalid(b, fwd, "a null value in a vector"))?;
            let v = builtin::combine(b, &vals).map_err(|e| AutodiffError::Build {
                op: b.program().describe(fwd),
                source: e.into(),
            })?;
            Ok(Some(v))
        }
        _ => Err(invalid(
            b,
            fwd,
            &format!("{what} {src:?}: expected one value"),
        )),
    }
}

/// The attribute dictionary of the op the rule builds.
fn attributes(
    b: &Builder<'_>,
    fwd: OpId,
    schema: &OpSchema,
    target: &OpSchema,
    rule: &VjpRule,
    args: &VjpArgs<'_>,
) -> Result<Attribute, AutodiffError> {
    let ctx = b.ctx();
    let prog = b.program();
    let mut entries: SmallVec<[(&str, Attribute); 12]> = SmallVec::new();
    for (spec, a) in target.attributes.iter().zip(rule.attributes.iter()) {
        let attr = match a {
            VjpAttr::Forward(i) => {
                let n = &schema.attributes[*i as usize].name;
                let a = prog
                    .op(fwd)
                    .attr(n)
                    .ok_or_else(|| invalid(b, fwd, &format!("attribute `{n}` is missing")))?;
                coerce(ctx, a, spec.kind).ok_or_else(|| {
                    invalid(
                        b,
                        fwd,
                        &format!("attribute `{n}` does not fit {:?}", spec.kind),
                    )
                })?
            }
            VjpAttr::Const(d) => {
                default_attribute(ctx, spec.kind, &spec.data_type, d).ok_or_else(|| {
                    invalid(b, fwd, &format!("no `{}` attribute for {d:?}", spec.name))
                })?
            }
            VjpAttr::DtypeOf(src) => {
                let v = match src {
                    VjpValue::Input(i) => args.inputs.get(*i as usize),
                    VjpValue::Output(i) => args.outputs.get(*i as usize),
                    VjpValue::OutputGrad(i) => args.out_grads.get(*i as usize),
                    VjpValue::Null => None,
                }
                .and_then(|l| l.first().copied().flatten());
                let dtype = v
                    .and_then(|v| prog.value_type(v))
                    .and_then(|t| t.as_dense_tensor(ctx).map(|t| t.dtype))
                    .ok_or_else(|| invalid(b, fwd, "dtype of a value that is not a tensor"))?;
                ctx.dtype_attr(dtype)
            }
        };
        entries.push((&spec.name, attr));
    }
    Ok(ctx.dict_attr(&entries))
}

/// `a` as an attribute of `kind`: itself if it fits, else its numbers converted (a forward
/// `int[]` passed to a backward `int64_t[]`, as Paddle's generated Vjp converts the values).
fn coerce(ctx: &IrContext, a: Attribute, kind: AttrKind) -> Option<Attribute> {
    let data = ctx.attr_data(a);
    if attribute_fits(ctx, kind, data) {
        return Some(a);
    }
    let int = |a: Attribute| match ctx.attr_data(a) {
        AttrData::Int32(v) => Some(i64::from(*v)),
        AttrData::Int64(v) | AttrData::Index(v) => Some(*v),
        _ => None,
    };
    let float = |a: Attribute| match ctx.attr_data(a) {
        AttrData::Float(v) => Some(f64::from(*v)),
        AttrData::Double(v) => Some(*v),
        _ => int(a).map(|i| i as f64),
    };
    let items = |f: &dyn Fn(Attribute) -> Option<Attribute>| match data {
        AttrData::Array(v) => v.iter().map(|&x| f(x)).collect::<Option<Vec<_>>>(),
        AttrData::IntArray(v) => v.iter().map(|&x| f(ctx.i64_attr(x))).collect(),
        _ => None,
    };
    Some(match kind {
        AttrKind::Int32 => ctx.i32_attr(int(a)? as i32),
        AttrKind::Int64 | AttrKind::Long => ctx.i64_attr(int(a)?),
        AttrKind::Float => ctx.f32_attr(float(a)? as f32),
        AttrKind::Double => ctx.f64_attr(float(a)?),
        AttrKind::Int32Array => ctx.array_attr(&items(&|x| Some(ctx.i32_attr(int(x)? as i32)))?),
        AttrKind::Int64Array => ctx.array_attr(&items(&|x| Some(ctx.i64_attr(int(x)?)))?),
        AttrKind::FloatArray => ctx.array_attr(&items(&|x| Some(ctx.f32_attr(float(x)? as f32)))?),
        AttrKind::DoubleArray => ctx.array_attr(&items(&|x| Some(ctx.f64_attr(float(x)?)))?),
        AttrKind::IntArray => {
            let v: Option<Vec<i64>> = match data {
                AttrData::Array(v) => v.iter().map(|&x| int(x)).collect(),
                _ => None,
            };
            ctx.int_array_attr(&v?)
        }
        _ => return None,
    })
}

/// A yaml default (or `invoke` literal) as the IR attribute of `kind`.
pub fn default_attribute(
    ctx: &IrContext,
    kind: AttrKind,
    data_type: &str,
    d: &DefaultValue,
) -> Option<Attribute> {
    use DefaultValue as D;
    let num = |f: f64| -> Option<Attribute> {
        Some(match kind {
            AttrKind::Int32 => ctx.i32_attr(f as i32),
            AttrKind::Int64 | AttrKind::Long => ctx.i64_attr(f as i64),
            AttrKind::SizeT => ctx.index_attr(f as i64),
            AttrKind::Float => ctx.f32_attr(f as f32),
            AttrKind::Double => ctx.f64_attr(f),
            AttrKind::Scalar => match data_type {
                "int" | "int32_t" => ctx.i32_attr(f as i32),
                "int64_t" => ctx.i64_attr(f as i64),
                "double" => ctx.f64_attr(f),
                "bool" => ctx.bool_attr(f != 0.0),
                _ => ctx.f32_attr(f as f32),
            },
            AttrKind::Bool => ctx.bool_attr(f != 0.0),
            _ => return None,
        })
    };
    let array = |items: Vec<Attribute>| ctx.array_attr(&items);
    match (d, kind) {
        (D::Bool(v), AttrKind::Bool) => Some(ctx.bool_attr(*v)),
        (D::Bool(v), AttrKind::Scalar) => Some(ctx.bool_attr(*v)),
        (D::Int(i), _) => num(*i as f64),
        (D::Float(f), _) => num(*f),
        (D::Str(s), AttrKind::Str) => Some(ctx.str_attr(s)),
        (D::IntList(v), AttrKind::IntArray) => Some(ctx.int_array_attr(v)),
        (D::IntList(v), AttrKind::Int32Array) => {
            Some(array(v.iter().map(|&x| ctx.i32_attr(x as i32)).collect()))
        }
        (D::IntList(v), AttrKind::Int64Array) => {
            Some(array(v.iter().map(|&x| ctx.i64_attr(x)).collect()))
        }
        (D::FloatList(v), AttrKind::FloatArray) => {
            Some(array(v.iter().map(|&x| ctx.f32_attr(x as f32)).collect()))
        }
        (D::FloatList(v), AttrKind::DoubleArray) => {
            Some(array(v.iter().map(|&x| ctx.f64_attr(x)).collect()))
        }
        (D::BoolList(v), AttrKind::BoolArray) => {
            Some(array(v.iter().map(|&x| ctx.bool_attr(x)).collect()))
        }
        (D::StrList(v), AttrKind::StrArray) => {
            Some(array(v.iter().map(|x| ctx.str_attr(x)).collect()))
        }
        (D::DataType(t), AttrKind::DataType) => Some(ctx.dtype_attr(*t)),
        (D::DataLayout(l), AttrKind::DataLayout) => Some(ctx.layout_attr(*l)),
        (D::Place(p), AttrKind::Place) => Some(ctx.place_attr(*p)),
        _ => None,
    }
}

/// `full_int_array` (IntArray) or `full` (Scalar) holding attribute `a`, as Paddle's API
/// materialises a mutable attribute given as a plain value.
fn full_of_attr(
    b: &mut Builder<'_>,
    kind: AttrKind,
    data_type: &str,
    a: Attribute,
) -> Result<Value, pir_runtime::BuildError> {
    let ctx = b.ctx().clone();
    let missing = |n: &str| pir_runtime::IrError::UnknownOp(n.into());
    let (def, dict, ty) = match (kind, ctx.attr_data(a)) {
        (AttrKind::IntArray, AttrData::IntArray(v)) => {
            let items: Vec<Attribute> = v.iter().map(|&x| ctx.i64_attr(x)).collect();
            let dict = ctx.dict_attr_sorted(&[
                ("dtype", ctx.dtype_attr(DataType::Int64)),
                ("place", ctx.place_attr(Place::cpu())),
                ("value", ctx.array_attr(&items)),
            ]);
            let def = ctx
                .op_def("pd_op.full_int_array")
                .ok_or_else(|| missing("pd_op.full_int_array"))?;
            (
                def,
                dict,
                ctx.dense_tensor_type(DataType::Int64, &[v.len() as i64]),
            )
        }
        (_, d) => {
            let s = d
                .as_scalar()
                .ok_or_else(|| missing("a scalar attribute value"))?;
            let dtype = match data_type {
                "int" | "int32_t" => DataType::Int32,
                "int64_t" => DataType::Int64,
                "double" => DataType::Float64,
                "bool" => DataType::Bool,
                "float" => DataType::Float32,
                _ => s.dtype(),
            };
            let dict = ctx.dict_attr_sorted(&[
                ("dtype", ctx.dtype_attr(dtype)),
                ("place", ctx.place_attr(Place::cpu())),
                ("shape", ctx.int_array_attr(&[1])),
                ("value", ctx.f64_attr(s.to_f64())),
            ]);
            let def = ctx
                .op_def("pd_op.full")
                .ok_or_else(|| missing("pd_op.full"))?;
            (def, dict, ctx.dense_tensor_type(dtype, &[1]))
        }
    };
    let op = b.create_with(def, &[], dict, &[Some(ty)], 0)?;
    Ok(b.program().op(op).result(0))
}
