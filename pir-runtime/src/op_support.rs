//! Generic helpers behind generated ops: schema verification, attribute conversion, result-type
//! inference and the build variants. Generated code is a table ([`OpSchema`]) plus calls into
//! these functions, so a thousand ops compile fast.
//!
//! ```
//! use pir_runtime::op_support::{attribute_from_arg, AttrArg};
//! use pir_runtime::{IrContext, pir_spec::AttrKind};
//! let ctx = IrContext::new();
//! let a = attribute_from_arg(&ctx, AttrKind::Int32Array, &AttrArg::I32s(&[1, 1])).unwrap();
//! assert_eq!(a.display(&ctx).to_string(), "[1,1]");
//! assert!(attribute_from_arg(&ctx, AttrKind::Int32, &AttrArg::Str("x")).is_err());
//! ```

use pir_spec::{AttrKind, InputKind, OpKind, OpSchema, TensorKind, ValueKind};
use smallvec::SmallVec;

use crate::attributes::{AttrData, Attribute};
use crate::builder::Builder;
use crate::context::IrContext;
use crate::error::BuildError;
use crate::interfaces::{InferMeta, InferShape};
use crate::meta::{AttrValue, InferMetaCtx, IntArrayArg, MetaArg, MetaOut, Scalar, TensorMeta};
use crate::op_def::OpDef;
use crate::phi::{DataLayout, DataType, Place};
use crate::program::{OpId, OpRef, Program, Value};
use crate::types::{Type, TypeData, TypeDisplay};

/// A Rust attribute value handed to a typed build.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AttrArg<'a> {
    /// bool.
    Bool(bool),
    /// int.
    I32(i32),
    /// int64_t.
    I64(i64),
    /// float.
    F32(f32),
    /// double.
    F64(f64),
    /// str.
    Str(&'a str),
    /// bool[].
    Bools(&'a [bool]),
    /// int[].
    I32s(&'a [i32]),
    /// int64_t[] and IntArray.
    I64s(&'a [i64]),
    /// float[].
    F32s(&'a [f32]),
    /// double[].
    F64s(&'a [f64]),
    /// str[].
    Strs(&'a [&'a str]),
    /// Scalar.
    Scalar(Scalar),
    /// Scalar[].
    Scalars(&'a [Scalar]),
    /// DataType.
    DataType(DataType),
    /// DataLayout.
    DataLayout(DataLayout),
    /// Place.
    Place(Place),
}

impl AttrArg<'_> {
    fn kind_name(&self) -> &'static str {
        match self {
            AttrArg::Bool(_) => "bool",
            AttrArg::I32(_) => "i32",
            AttrArg::I64(_) => "i64",
            AttrArg::F32(_) => "f32",
            AttrArg::F64(_) => "f64",
            AttrArg::Str(_) => "&str",
            AttrArg::Bools(_) => "&[bool]",
            AttrArg::I32s(_) => "&[i32]",
            AttrArg::I64s(_) => "&[i64]",
            AttrArg::F32s(_) => "&[f32]",
            AttrArg::F64s(_) => "&[f64]",
            AttrArg::Strs(_) => "&[&str]",
            AttrArg::Scalar(_) => "Scalar",
            AttrArg::Scalars(_) => "&[Scalar]",
            AttrArg::DataType(_) => "DataType",
            AttrArg::DataLayout(_) => "DataLayout",
            AttrArg::Place(_) => "Place",
        }
    }
}

fn scalar_attr(ctx: &IrContext, s: Scalar) -> Attribute {
    match s {
        Scalar::Bool(v) => ctx.bool_attr(v),
        Scalar::I32(v) => ctx.i32_attr(v),
        Scalar::I64(v) => ctx.i64_attr(v),
        Scalar::F32(v) => ctx.f32_attr(v),
        Scalar::F64(v) => ctx.f64_attr(v),
        Scalar::C64(r, i) => ctx.intern_attr(crate::attributes::AttrKey::Complex64(r, i)),
        Scalar::C128(r, i) => ctx.intern_attr(crate::attributes::AttrKey::Complex128(r, i)),
    }
}

/// Converts a Rust value to the IR attribute of `kind`; `Err` names the mismatch.
pub fn attribute_from_arg(
    ctx: &IrContext,
    kind: AttrKind,
    arg: &AttrArg<'_>,
) -> Result<Attribute, String> {
    let array = |items: SmallVec<[Attribute; 8]>| ctx.array_attr(&items);
    Ok(match (kind, *arg) {
        (AttrKind::Bool, AttrArg::Bool(v)) => ctx.bool_attr(v),
        (AttrKind::Int32, AttrArg::I32(v)) => ctx.i32_attr(v),
        (AttrKind::Int64 | AttrKind::Long, AttrArg::I64(v)) => ctx.i64_attr(v),
        (AttrKind::Int64 | AttrKind::Long, AttrArg::I32(v)) => ctx.i64_attr(i64::from(v)),
        (AttrKind::SizeT, AttrArg::I64(v)) => ctx.index_attr(v),
        (AttrKind::Float, AttrArg::F32(v)) => ctx.f32_attr(v),
        (AttrKind::Double, AttrArg::F64(v)) => ctx.f64_attr(v),
        (AttrKind::Str, AttrArg::Str(v)) => ctx.str_attr(v),
        (AttrKind::BoolArray, AttrArg::Bools(v)) => {
            array(v.iter().map(|&x| ctx.bool_attr(x)).collect())
        }
        (AttrKind::Int32Array, AttrArg::I32s(v)) => {
            array(v.iter().map(|&x| ctx.i32_attr(x)).collect())
        }
        (AttrKind::Int64Array, AttrArg::I64s(v)) => {
            array(v.iter().map(|&x| ctx.i64_attr(x)).collect())
        }
        (AttrKind::FloatArray, AttrArg::F32s(v)) => {
            array(v.iter().map(|&x| ctx.f32_attr(x)).collect())
        }
        (AttrKind::DoubleArray, AttrArg::F64s(v)) => {
            array(v.iter().map(|&x| ctx.f64_attr(x)).collect())
        }
        (AttrKind::StrArray, AttrArg::Strs(v)) => {
            array(v.iter().map(|&x| ctx.str_attr(x)).collect())
        }
        (AttrKind::IntArray, AttrArg::I64s(v)) => ctx.int_array_attr(v),
        (AttrKind::Scalar, AttrArg::Scalar(s)) => scalar_attr(ctx, s),
        (AttrKind::ScalarArray, AttrArg::Scalars(v)) => {
            array(v.iter().map(|&s| scalar_attr(ctx, s)).collect())
        }
        (AttrKind::DataType, AttrArg::DataType(v)) => ctx.dtype_attr(v),
        (AttrKind::DataLayout, AttrArg::DataLayout(v)) => ctx.layout_attr(v),
        (AttrKind::Place, AttrArg::Place(v)) => ctx.place_attr(v),
        (k, a) => {
            return Err(format!(
                "expected a value for {}, found {}",
                k.type_name(),
                a.kind_name()
            ))
        }
    })
}

/// The infer-meta view of a Rust value.
pub fn attr_value_from_arg(arg: &AttrArg<'_>, kind: AttrKind) -> AttrValue {
    match *arg {
        AttrArg::Bool(v) => AttrValue::Bool(v),
        AttrArg::I32(v) => AttrValue::I32(v),
        AttrArg::I64(v) => AttrValue::I64(v),
        AttrArg::F32(v) => AttrValue::F32(v),
        AttrArg::F64(v) => AttrValue::F64(v),
        AttrArg::Str(v) => AttrValue::Str(v.to_string()),
        AttrArg::Bools(v) => AttrValue::Bools(v.to_vec()),
        AttrArg::I32s(v) => AttrValue::Ints(v.iter().map(|&x| i64::from(x)).collect()),
        AttrArg::I64s(v) if kind == AttrKind::IntArray => {
            AttrValue::IntArray(IntArrayArg::known(v))
        }
        AttrArg::I64s(v) => AttrValue::Ints(SmallVec::from_slice(v)),
        AttrArg::F32s(v) => AttrValue::Floats(v.iter().map(|&x| f64::from(x)).collect()),
        AttrArg::F64s(v) => AttrValue::Floats(v.to_vec()),
        AttrArg::Strs(v) => AttrValue::Strs(v.iter().map(|s| s.to_string()).collect()),
        AttrArg::Scalar(s) => AttrValue::Scalar(Some(s)),
        AttrArg::Scalars(v) => AttrValue::Scalars(v.to_vec()),
        AttrArg::DataType(v) => AttrValue::DataType(v),
        AttrArg::DataLayout(v) => AttrValue::DataLayout(v),
        AttrArg::Place(v) => AttrValue::Place(v),
    }
}

/// The infer-meta view of an IR attribute of `kind`, or `None` when the data does not fit.
pub fn attr_value_of(ctx: &IrContext, a: Attribute, kind: AttrKind) -> Option<AttrValue> {
    let data = ctx.attr_data(a);
    let elems = |items: &[Attribute]| {
        items
            .iter()
            .map(|&x| ctx.attr_data(x))
            .collect::<SmallVec<[&AttrData; 8]>>()
    };
    Some(match (kind, data) {
        (AttrKind::Bool, AttrData::Bool(v)) => AttrValue::Bool(*v),
        (AttrKind::Int32, AttrData::Int32(v)) => AttrValue::I32(*v),
        (
            AttrKind::Int64 | AttrKind::Long | AttrKind::SizeT,
            AttrData::Int64(v) | AttrData::Index(v),
        ) => AttrValue::I64(*v),
        (AttrKind::Float, AttrData::Float(v)) => AttrValue::F32(*v),
        (AttrKind::Double, AttrData::Double(v)) => AttrValue::F64(*v),
        (AttrKind::Str, AttrData::Str(v)) => AttrValue::Str(v.to_string()),
        (AttrKind::IntArray, AttrData::IntArray(v)) => AttrValue::IntArray(IntArrayArg::known(v)),
        (AttrKind::Scalar, d) => AttrValue::Scalar(Some(d.as_scalar()?)),
        (AttrKind::DataType, AttrData::DataType(v)) => AttrValue::DataType(*v),
        (AttrKind::DataLayout, AttrData::DataLayout(v)) => AttrValue::DataLayout(*v),
        (AttrKind::DataLayout, AttrData::Str(s)) => {
            AttrValue::DataLayout(DataLayout::from_name(s)?)
        }
        (AttrKind::Place, AttrData::Place(v)) => AttrValue::Place(*v),
        (AttrKind::BoolArray, AttrData::Array(items)) => AttrValue::Bools(
            elems(items)
                .iter()
                .map(|d| {
                    if let AttrData::Bool(b) = d {
                        Some(*b)
                    } else {
                        None
                    }
                })
                .collect::<Option<_>>()?,
        ),
        (AttrKind::Int32Array | AttrKind::Int64Array, AttrData::Array(items)) => AttrValue::Ints(
            elems(items)
                .iter()
                .map(|d| match d {
                    AttrData::Int32(v) => Some(i64::from(*v)),
                    AttrData::Int64(v) => Some(*v),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        (AttrKind::FloatArray | AttrKind::DoubleArray, AttrData::Array(items)) => {
            AttrValue::Floats(
                elems(items)
                    .iter()
                    .map(|d| match d {
                        AttrData::Float(v) => Some(f64::from(*v)),
                        AttrData::Double(v) => Some(*v),
                        _ => None,
                    })
                    .collect::<Option<_>>()?,
            )
        }
        (AttrKind::StrArray, AttrData::Array(items)) => AttrValue::Strs(
            elems(items)
                .iter()
                .map(|d| {
                    if let AttrData::Str(s) = d {
                        Some(s.to_string())
                    } else {
                        None
                    }
                })
                .collect::<Option<_>>()?,
        ),
        (AttrKind::ScalarArray, AttrData::Array(items)) => AttrValue::Scalars(
            elems(items)
                .iter()
                .map(|d| d.as_scalar())
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

/// Whether attribute data fits `kind` (array element kinds included).
pub fn attribute_fits(ctx: &IrContext, kind: AttrKind, data: &AttrData) -> bool {
    match (kind, data) {
        (AttrKind::Bool, AttrData::Bool(_))
        | (AttrKind::Int32, AttrData::Int32(_))
        | (AttrKind::Int64 | AttrKind::Long, AttrData::Int64(_))
        | (AttrKind::SizeT, AttrData::Index(_) | AttrData::Int64(_))
        | (AttrKind::Float, AttrData::Float(_))
        | (AttrKind::Double, AttrData::Double(_))
        | (AttrKind::Str, AttrData::Str(_))
        | (AttrKind::IntArray, AttrData::IntArray(_))
        | (AttrKind::DataType, AttrData::DataType(_))
        | (AttrKind::DataLayout, AttrData::DataLayout(_))
        | (AttrKind::Place, AttrData::Place(_)) => true,
        (AttrKind::Scalar, d) => d.as_scalar().is_some(),
        (k, AttrData::Array(items)) => match k.element() {
            Some(e) => items
                .iter()
                .all(|&a| attribute_fits(ctx, e, ctx.attr_data(a))),
            None => false,
        },
        _ => false,
    }
}

fn type_fits(ctx: &IrContext, kind: &InputKind, t: Type) -> bool {
    // The common case, decided from the handle alone.
    if let InputKind::Value(ValueKind::Tensor(TensorKind::Dense)) = kind {
        return t.is_dense_tensor();
    }
    let data = ctx.type_data(t);
    match kind {
        InputKind::Value(v) => value_kind_fits(ctx, *v, data),
        InputKind::MutableAttribute(m) => match m.kind {
            AttrKind::IntArray => {
                matches!(data, TypeData::DenseTensor(_))
                    || value_kind_fits(ctx, ValueKind::Vector(TensorKind::Dense), data)
            }
            _ => matches!(data, TypeData::DenseTensor(_)),
        },
    }
}

fn tensor_kind_fits(kind: TensorKind, data: &TypeData) -> bool {
    matches!(
        (kind, data),
        (TensorKind::Dense, TypeData::DenseTensor(_))
            | (TensorKind::SelectedRows, TypeData::SelectedRows(_))
            | (
                TensorKind::DenseTensorArray,
                TypeData::DenseTensorArray { .. }
            )
            | (
                TensorKind::SparseCoo | TensorKind::SparseCsr,
                TypeData::Custom { .. }
            )
    )
}

fn value_kind_fits(ctx: &IrContext, kind: ValueKind, data: &TypeData) -> bool {
    match (kind, data) {
        (ValueKind::Tensor(k), d) => tensor_kind_fits(k, d),
        (ValueKind::Vector(k), TypeData::Vector(elems)) => {
            elems.iter().all(|&e| tensor_kind_fits(k, ctx.type_data(e)))
        }
        _ => false,
    }
}

/// The generated verifier (Paddle's `VerifySig`): operand and result counts and kinds, absent
/// operands only where optional, attributes present with the right kinds. Backward ops (for
/// which Paddle generates an empty `VerifySig`) are checked leniently: null results and missing
/// attributes are accepted, present ones must still be of the right kind.
pub fn verify_schema(op: OpRef<'_>, s: &OpSchema) -> Result<(), String> {
    let ctx = op.ctx();
    let strict = s.verify_signature;
    if op.num_operands() != s.inputs.len() {
        return Err(count_error(
            "operand",
            s.inputs.iter().map(|i| &*i.name),
            op.num_operands(),
        ));
    }
    for (i, (input, ty)) in s.inputs.iter().zip(op.operand_types()).enumerate() {
        match ty {
            Some(t) if type_fits(ctx, &input.kind, t) => {}
            None if op.operand(i).is_none() && (input.optional || !strict) => {}
            None if op.operand(i).is_none() => {
                return Err(format!(
                    "operand {i} (`{}`) is null but the input is not optional",
                    input.name
                ))
            }
            found => {
                return Err(format!(
                    "operand {i} (`{}`): expected {}, found {}",
                    input.name,
                    input.kind.type_name(),
                    TypeDisplay { ctx, ty: found }
                ))
            }
        }
    }
    if !s.attributes.is_empty() {
        verify_attributes(op, s, strict)?;
    }
    if op.num_results() != s.outputs.len() {
        return Err(count_error(
            "result",
            s.outputs.iter().map(|o| &*o.name),
            op.num_results(),
        ));
    }
    for (i, (out, ty)) in s.outputs.iter().zip(op.result_types()).enumerate() {
        match ty {
            Some(t) if out.kind == ValueKind::DENSE && t.is_dense_tensor() => {}
            None if out.optional || out.intermediate || !strict => {}
            Some(t) if value_kind_fits(ctx, out.kind, ctx.type_data(t)) => {}
            found => {
                return Err(format!(
                    "result {i} (`{}`): expected {}, found {}",
                    out.name,
                    out.kind.type_name(),
                    TypeDisplay { ctx, ty: found }
                ))
            }
        }
    }
    Ok(())
}

#[cold]
fn count_error<'a>(what: &str, names: impl Iterator<Item = &'a str>, found: usize) -> String {
    let names: Vec<&str> = names.collect();
    format!(
        "expected {} {what}(s) ({}), found {found}",
        names.len(),
        names.join(", ")
    )
}

fn verify_attributes(op: OpRef<'_>, s: &OpSchema, strict: bool) -> Result<(), String> {
    let ctx = op.ctx();
    for a in s.attributes.iter() {
        match op.attr_data(&a.name) {
            Some(d) if attribute_fits(ctx, a.kind, d) => {}
            Some(d) => {
                return Err(format!(
                    "attribute `{}`: expected {}, found {} {}",
                    a.name,
                    a.kind.type_name(),
                    d.kind_name(),
                    op.attr(&a.name)
                        .map(|x| x.display(ctx).to_string())
                        .unwrap_or_default()
                ))
            }
            None if !strict => {}
            None => {
                return Err(format!(
                    "attribute `{}` is missing (expected {})",
                    a.name,
                    a.kind.type_name()
                ))
            }
        }
    }
    Ok(())
}

/// How the parameters of an op's infer-meta call are found.
fn meta_params(
    s: &OpSchema,
    def: &OpDef,
) -> Result<
    (
        crate::meta::InferMetaFn,
        SmallVec<[Param; 12]>,
        &'static str,
    ),
    BuildError,
> {
    if let Some(im) = def.interface::<InferMeta>() {
        if im.func_name.is_empty() {
            let how = match &s.invoke {
                Some(i) => format!("it is defined as `invoke : {i}`; build the invoked op instead"),
                None => "the op names no infer-meta function".to_string(),
            };
            return Err(BuildError::Invalid {
                op: def.name.into(),
                message: format!(
                    "result types cannot be inferred: {how}, or pass explicit result types"
                ),
            });
        }
        let f = im.func().ok_or_else(|| BuildError::InferMetaMissing {
            op: def.name.into(),
            func: im.func_name.into(),
        })?;
        let mut params = SmallVec::new();
        for p in s.runtime.infer_meta_param.iter() {
            let param = if let Some(i) = s.input_index(p) {
                Param::Input(i)
            } else if let Some(i) = s.attribute_index(p) {
                Param::Attr(i)
            } else {
                return Err(BuildError::Invalid {
                    op: def.name.into(),
                    message: format!("infer_meta param `{p}` is neither an input nor an attribute"),
                });
            };
            params.push(param);
        }
        return Ok((f, params, im.func_name));
    }
    if let Some(is) = def.interface::<InferShape>() {
        let params = (0..s.inputs.len())
            .map(Param::Input)
            .chain((0..s.attributes.len()).map(Param::Attr))
            .collect();
        return Ok((is.infer, params, "InferShape"));
    }
    Err(BuildError::NoInference {
        op: def.name.into(),
    })
}

#[derive(Clone, Copy)]
enum Param {
    Input(usize),
    Attr(usize),
}

/// An input as seen by infer-meta.
pub enum InputMeta {
    /// A tensor (or absent).
    Tensor(Option<TensorMeta>),
    /// A tensor list (or absent).
    Tensors(Option<Vec<TensorMeta>>),
    /// A mutable attribute's value.
    Attr(AttrValue),
}

/// The infer-meta view of operand `value` for input kind `kind`. Mutable attributes read the
/// value from a defining `pd_op.full_int_array` / `pd_op.full` when there is one (as Paddle's
/// generated InferMeta does); otherwise the value is unknown (IntArray extents become -1).
pub fn input_meta(prog: &Program, kind: &InputKind, value: Option<Value>) -> InputMeta {
    let ctx = prog.ctx();
    let ty = value.and_then(|v| prog.value_type(v));
    match kind {
        InputKind::Value(ValueKind::Tensor(_)) => {
            InputMeta::Tensor(ty.and_then(|t| tensor_meta(ctx, t)))
        }
        InputKind::Value(ValueKind::Vector(_)) => {
            InputMeta::Tensors(ty.and_then(|t| match ctx.type_data(t) {
                TypeData::Vector(elems) => elems.iter().map(|&e| tensor_meta(ctx, e)).collect(),
                _ => None,
            }))
        }
        InputKind::MutableAttribute(m) => {
            let def = value.and_then(|v| prog.defining_op(v)).map(|o| prog.op(o));
            let from_full = def.and_then(|d| match (m.kind, d.name()) {
                // full_int_array's `value` is an int64_t[]; full's a double.
                (AttrKind::IntArray, n) if n.ends_with(".full_int_array") => {
                    match d
                        .attr("value")
                        .and_then(|a| attr_value_of(ctx, a, AttrKind::Int64Array))
                    {
                        Some(AttrValue::Ints(v)) => {
                            Some(AttrValue::IntArray(IntArrayArg::known(&v)))
                        }
                        _ => None,
                    }
                }
                (AttrKind::Scalar, n) if n.ends_with(".full") => d
                    .attr("value")
                    .and_then(|a| attr_value_of(ctx, a, AttrKind::Scalar)),
                _ => None,
            });
            InputMeta::Attr(from_full.unwrap_or_else(|| match m.kind {
                AttrKind::IntArray => {
                    let len = ty.and_then(|t| match ctx.type_data(t) {
                        TypeData::DenseTensor(tt) if tt.dims.len() == 1 && tt.dims[0] >= 0 => {
                            Some(tt.dims[0] as usize)
                        }
                        TypeData::Vector(e) => Some(e.len()),
                        _ => None,
                    });
                    AttrValue::IntArray(IntArrayArg::unknown(len))
                }
                _ => AttrValue::Scalar(None),
            }))
        }
    }
}

fn tensor_meta(ctx: &IrContext, t: Type) -> Option<TensorMeta> {
    match ctx.type_data(t) {
        TypeData::DenseTensor(tt) | TypeData::SelectedRows(tt) => Some(tt.meta()),
        TypeData::DenseTensorArray {
            dtype,
            dims,
            layout,
        } => Some(TensorMeta {
            dtype: *dtype,
            dims: dims.iter().copied().collect(),
            layout: *layout,
            lod: Vec::new(),
            offset: 0,
        }),
        _ => None,
    }
}

/// Runs the op's infer-meta (or InferShape) function on `inputs` (one per schema input) and
/// `attrs` (one per schema attribute) and returns the result types.
pub fn infer_result_types(
    ctx: &IrContext,
    def: &'static OpDef,
    inputs: &[InputMeta],
    attrs: &[AttrValue],
) -> Result<SmallVec<[Option<Type>; 4]>, BuildError> {
    let s = schema_of(def)?;
    let (f, params, fname) = meta_params(s, def)?;
    let mut args: SmallVec<[MetaArg<'_>; 12]> = SmallVec::new();
    for p in &params {
        args.push(match *p {
            Param::Input(i) => match &inputs[i] {
                InputMeta::Tensor(t) => MetaArg::Tensor(t.as_ref()),
                InputMeta::Tensors(t) => MetaArg::Tensors(t.as_deref()),
                InputMeta::Attr(a) => MetaArg::Attr(a),
            },
            Param::Attr(i) => MetaArg::Attr(&attrs[i]),
        });
    }
    let mut outs: SmallVec<[MetaOut; 4]> = SmallVec::new();
    outs.resize(s.outputs.len(), MetaOut::None);
    f(&mut InferMetaCtx::new(&args, &mut outs)).map_err(|e| BuildError::InferMeta {
        op: def.name.into(),
        func: fname.into(),
        message: e.0,
    })?;
    let mut types = SmallVec::new();
    for (out, spec) in outs.iter().zip(s.outputs.iter()) {
        let ty = match (out, spec.kind) {
            (MetaOut::None, _) => {
                if !(spec.optional || spec.intermediate || s.kind == OpKind::Backward) {
                    return Err(BuildError::InferMeta {
                        op: def.name.into(),
                        func: fname.into(),
                        message: format!("the function did not set output `{}`", spec.name),
                    });
                }
                None
            }
            (MetaOut::Tensor(m), ValueKind::Tensor(k)) => Some(tensor_type(ctx, k, m)),
            (MetaOut::Tensors(ms), ValueKind::Vector(k)) => {
                let elems: SmallVec<[Type; 8]> =
                    ms.iter().map(|m| tensor_type(ctx, k, m)).collect();
                Some(ctx.vector_type(&elems))
            }
            (got, _) => {
                return Err(BuildError::InferMeta {
                    op: def.name.into(),
                    func: fname.into(),
                    message: format!(
                        "output `{}` is {} but the function set {}",
                        spec.name,
                        spec.kind.type_name(),
                        if matches!(got, MetaOut::Tensor(_)) {
                            "one tensor"
                        } else {
                            "a tensor list"
                        }
                    ),
                })
            }
        };
        types.push(ty);
    }
    Ok(types)
}

fn tensor_type(ctx: &IrContext, kind: TensorKind, m: &TensorMeta) -> Type {
    use crate::types::{TensorKey, TypeKey};
    match kind {
        TensorKind::SelectedRows => ctx.intern_type(TypeKey::SelectedRows(TensorKey::of_meta(m))),
        TensorKind::DenseTensorArray => ctx.dense_tensor_array_type(m.dtype, &m.dims, m.layout),
        _ => ctx.tensor_type_of(m),
    }
}

/// The schema of a generated op.
pub fn schema_of(def: &'static OpDef) -> Result<&'static OpSchema, BuildError> {
    def.schema.ok_or_else(|| BuildError::Invalid {
        op: def.name.into(),
        message:
            "the op has no schema (it was not generated by #[pir_op] or define_ops_from_yaml!)"
                .into(),
    })
}

fn check_inputs(
    prog: &Program,
    def: &OpDef,
    s: &OpSchema,
    operands: &[Option<Value>],
) -> Result<(), BuildError> {
    let ctx = prog.ctx();
    if operands.len() != s.inputs.len() {
        return Err(BuildError::Invalid {
            op: def.name.into(),
            message: format!(
                "expected {} operand(s), got {}",
                s.inputs.len(),
                operands.len()
            ),
        });
    }
    for (i, (input, v)) in s.inputs.iter().zip(operands).enumerate() {
        match v {
            None if input.optional => {}
            None => {
                return Err(BuildError::Invalid {
                    op: def.name.into(),
                    message: format!(
                        "input {i} (`{}`) is not optional but no value was given",
                        input.name
                    ),
                })
            }
            Some(v) => match prog.value_type(*v) {
                Some(t) if type_fits(ctx, &input.kind, t) => {}
                found => {
                    return Err(BuildError::Invalid {
                        op: def.name.into(),
                        message: format!(
                            "input {i} (`{}`): expected {}, got a value of type {}",
                            input.name,
                            input.kind.type_name(),
                            TypeDisplay { ctx, ty: found }
                        ),
                    })
                }
            },
        }
    }
    Ok(())
}

/// Build overload 1: tensor inputs as values, every attribute (mutable ones included, in input
/// order) as a Rust value. Mutable attributes are materialised as `pd_op.full_int_array` /
/// `pd_op.full` ops, as Paddle's Build does; result types come from infer-meta.
pub fn build_typed(
    b: &mut Builder<'_>,
    def: &'static OpDef,
    inputs: &[Option<Value>],
    mutable: &[AttrArg<'_>],
    attrs: &[AttrArg<'_>],
) -> Result<OpId, BuildError> {
    let s = schema_of(def)?;
    let ctx = b.ctx().clone();
    let n_tensor = s.inputs.len() - mutable.len();
    let mut operands: SmallVec<[Option<Value>; 8]> = SmallVec::from_slice(inputs);
    let mut metas: SmallVec<[InputMeta; 8]> = SmallVec::new();
    for (input, v) in s.inputs.iter().zip(inputs) {
        metas.push(input_meta(b.program(), &input.kind, *v));
    }
    for (k, arg) in mutable.iter().enumerate() {
        let input = s
            .inputs
            .get(n_tensor + k)
            .ok_or_else(|| BuildError::Invalid {
                op: def.name.into(),
                message: format!(
                    "{} mutable attribute value(s) given, the op has fewer",
                    mutable.len()
                ),
            })?;
        let InputKind::MutableAttribute(m) = &input.kind else {
            return Err(BuildError::Invalid {
                op: def.name.into(),
                message: format!("input `{}` is not a mutable attribute", input.name),
            });
        };
        let v = full_for_mutable(b, def, &input.name, m, arg)?;
        operands.push(Some(v));
        metas.push(InputMeta::Attr(attr_value_from_arg(arg, m.kind)));
    }
    check_inputs(b.program(), def, s, &operands)?;
    let (dict, values) = attributes_from_args(&ctx, def, s, attrs)?;
    let types = infer_result_types(&ctx, def, &metas, &values)?;
    Ok(b.create_with(def, &operands, dict, &types, 0)?)
}

fn attributes_from_args(
    ctx: &IrContext,
    def: &OpDef,
    s: &OpSchema,
    attrs: &[AttrArg<'_>],
) -> Result<(Attribute, SmallVec<[AttrValue; 8]>), BuildError> {
    if attrs.len() != s.attributes.len() {
        return Err(BuildError::Invalid {
            op: def.name.into(),
            message: format!(
                "expected {} attribute value(s), got {}",
                s.attributes.len(),
                attrs.len()
            ),
        });
    }
    let mut entries: SmallVec<[(&str, Attribute); 12]> = SmallVec::new();
    let mut values = SmallVec::new();
    for (spec, arg) in s.attributes.iter().zip(attrs) {
        let a = attribute_from_arg(ctx, spec.kind, arg).map_err(|m| BuildError::Invalid {
            op: def.name.into(),
            message: format!("attribute `{}`: {m}", spec.name),
        })?;
        entries.push((&spec.name, a));
        values.push(attr_value_from_arg(arg, spec.kind));
    }
    Ok((ctx.dict_attr(&entries), values))
}

/// The C++ type of a mutable attribute's build argument decides the dtype of its `full`.
fn scalar_dtype(data_type: &str, s: Scalar) -> DataType {
    match data_type {
        "int" | "int32_t" => DataType::Int32,
        "int64_t" => DataType::Int64,
        "float" => DataType::Float32,
        "double" => DataType::Float64,
        "bool" => DataType::Bool,
        _ => match s {
            Scalar::F64(_) => DataType::Float64,
            other => other.dtype(),
        },
    }
}

fn full_for_mutable(
    b: &mut Builder<'_>,
    def: &OpDef,
    name: &str,
    m: &pir_spec::MutableAttr,
    arg: &AttrArg<'_>,
) -> Result<Value, BuildError> {
    let ctx = b.ctx().clone();
    // The op's own dialect's full ops if it has them, else pd_op's (as Paddle always uses).
    let find = |op: &str| {
        ctx.op_def(&format!("{}.{op}", def.dialect))
            .or_else(|| ctx.op_def(&format!("pd_op.{op}")))
            .ok_or_else(|| BuildError::Invalid {
                op: def.name.into(),
                message: format!(
                    "mutable attribute `{name}` needs `{}.{op}` or `pd_op.{op}`, and neither is registered",
                    def.dialect
                ),
            })
    };
    let (full_def, attrs, ty) = match (m.kind, arg) {
        (AttrKind::IntArray, AttrArg::I64s(v)) => {
            let d = find("full_int_array")?;
            let attrs = ctx.dict_attr(&[
                ("dtype", ctx.dtype_attr(DataType::Int64)),
                ("place", ctx.place_attr(Place::cpu())),
                // FullIntArrayOp's `value` is an int64_t[] (ArrayAttribute<Int64Attribute>).
                ("value", {
                    let items: SmallVec<[Attribute; 8]> =
                        v.iter().map(|&x| ctx.i64_attr(x)).collect();
                    ctx.array_attr(&items)
                }),
            ]);
            (
                d,
                attrs,
                ctx.dense_tensor_type(DataType::Int64, &[v.len() as i64]),
            )
        }
        (AttrKind::Scalar, arg) => {
            let s = match *arg {
                AttrArg::Scalar(s) => s,
                AttrArg::I32(v) => Scalar::I32(v),
                AttrArg::I64(v) => Scalar::I64(v),
                AttrArg::F32(v) => Scalar::F32(v),
                AttrArg::F64(v) => Scalar::F64(v),
                AttrArg::Bool(v) => Scalar::Bool(v),
                other => {
                    return Err(BuildError::Invalid {
                        op: def.name.into(),
                        message: format!(
                            "mutable attribute `{name}`: expected a Scalar, found {}",
                            other.kind_name()
                        ),
                    })
                }
            };
            let d = find("full")?;
            let dtype = scalar_dtype(&m.data_type, s);
            // FullOp's `value` is a double attribute whatever the dtype.
            let attrs = ctx.dict_attr(&[
                ("dtype", ctx.dtype_attr(dtype)),
                ("place", ctx.place_attr(Place::cpu())),
                ("shape", ctx.int_array_attr(&[1])),
                ("value", ctx.f64_attr(s.to_f64())),
            ]);
            (d, attrs, ctx.dense_tensor_type(dtype, &[1]))
        }
        (_, other) => {
            return Err(BuildError::Invalid {
                op: def.name.into(),
                message: format!(
                    "mutable attribute `{name}`: expected an IntArray (&[i64]), found {}",
                    other.kind_name()
                ),
            })
        }
    };
    let op = b.create_with(full_def, &[], attrs, &[Some(ty)], 0)?;
    Ok(b.program().op(op).result(0))
}

/// Build overload 3: tensor inputs and mutable attributes as values, the other attributes as
/// Rust values; result types from infer-meta.
pub fn build_with_values(
    b: &mut Builder<'_>,
    def: &'static OpDef,
    operands: &[Option<Value>],
    attrs: &[AttrArg<'_>],
) -> Result<OpId, BuildError> {
    let s = schema_of(def)?;
    check_inputs(b.program(), def, s, operands)?;
    let ctx = b.ctx().clone();
    let (dict, values) = attributes_from_args(&ctx, def, s, attrs)?;
    let metas: SmallVec<[InputMeta; 8]> = s
        .inputs
        .iter()
        .zip(operands)
        .map(|(i, v)| input_meta(b.program(), &i.kind, *v))
        .collect();
    let types = infer_result_types(&ctx, def, &metas, &values)?;
    Ok(b.create_with(def, operands, dict, &types, 0)?)
}

/// Build overload 2: tensor inputs as values, every attribute in an IR dictionary. Mutable
/// attributes found in the dictionary (an `IntArrayAttribute`, or a number for a Scalar) are
/// materialised as `pd_op.full_int_array` / `pd_op.full`, as Paddle does; other entries
/// (`stop_gradient`, ...) are kept on the op.
pub fn build_from_dict(
    b: &mut Builder<'_>,
    def: &'static OpDef,
    inputs: &[Option<Value>],
    attributes: Attribute,
) -> Result<OpId, BuildError> {
    let s = schema_of(def)?;
    let ctx = b.ctx().clone();
    let mut operands: SmallVec<[Option<Value>; 8]> = SmallVec::from_slice(inputs);
    let mut rest = attributes;
    for input in s.inputs.iter().skip(inputs.len()) {
        let InputKind::MutableAttribute(m) = &input.kind else {
            return Err(BuildError::Invalid {
                op: def.name.into(),
                message: format!("input `{}` was not given", input.name),
            });
        };
        let a = ctx
            .dict_get(attributes, &input.name)
            .ok_or_else(|| BuildError::Invalid {
                op: def.name.into(),
                message: format!(
                    "mutable attribute `{}` is missing from the attributes",
                    input.name
                ),
            })?;
        let arg = match (m.kind, ctx.attr_data(a)) {
            (AttrKind::IntArray, AttrData::IntArray(v)) => AttrArg::I64s(v),
            (AttrKind::Scalar, d) if d.as_scalar().is_some() => {
                AttrArg::Scalar(d.as_scalar().unwrap_or(Scalar::I32(0)))
            }
            (_, d) => {
                return Err(BuildError::Invalid {
                    op: def.name.into(),
                    message: format!(
                        "mutable attribute `{}`: expected {}, found {}",
                        input.name,
                        m.kind.type_name(),
                        d.kind_name()
                    ),
                })
            }
        };
        operands.push(Some(full_for_mutable(b, def, &input.name, m, &arg)?));
        rest = ctx.dict_with(rest, &input.name, None);
    }
    build_with_attributes(b, def, &operands, rest)
}

/// Creates an op with explicit result types (no inference), as the translator does.
pub fn build_with_types(
    b: &mut Builder<'_>,
    def: &'static OpDef,
    operands: &[Option<Value>],
    attributes: Attribute,
    result_types: &[Option<Type>],
) -> Result<OpId, BuildError> {
    Ok(b.create_with(def, operands, attributes, result_types, 0)?)
}

/// Build overload 2 and 3: operands as values (mutable attributes too), attributes as an IR
/// dictionary; result types from infer-meta. Attributes must be present with the right kinds;
/// extra attributes (`stop_gradient`, ...) are kept.
pub fn build_with_attributes(
    b: &mut Builder<'_>,
    def: &'static OpDef,
    operands: &[Option<Value>],
    attributes: Attribute,
) -> Result<OpId, BuildError> {
    let s = schema_of(def)?;
    check_inputs(b.program(), def, s, operands)?;
    let ctx = b.ctx().clone();
    let mut values: SmallVec<[AttrValue; 8]> = SmallVec::new();
    for spec in s.attributes.iter() {
        let a = ctx
            .dict_get(attributes, &spec.name)
            .ok_or_else(|| BuildError::Invalid {
                op: def.name.into(),
                message: format!(
                    "attribute `{}` is missing (expected {})",
                    spec.name,
                    spec.kind.type_name()
                ),
            })?;
        let v = attr_value_of(&ctx, a, spec.kind).ok_or_else(|| BuildError::Invalid {
            op: def.name.into(),
            message: format!(
                "attribute `{}`: expected {}, found {}",
                spec.name,
                spec.kind.type_name(),
                ctx.attr_data(a).kind_name()
            ),
        })?;
        values.push(v);
    }
    let metas: SmallVec<[InputMeta; 8]> = s
        .inputs
        .iter()
        .zip(operands)
        .map(|(i, v)| input_meta(b.program(), &i.kind, *v))
        .collect();
    let types = infer_result_types(&ctx, def, &metas, &values)?;
    Ok(b.create_with(def, operands, attributes, &types, 0)?)
}

/// Re-runs the op's infer-meta on its current operands and attributes (for `check-types`).
pub fn reinfer_result_types(op: OpRef<'_>) -> Result<SmallVec<[Option<Type>; 4]>, BuildError> {
    let def = op.def();
    let s = schema_of(def)?;
    let ctx = op.ctx();
    let mut values: SmallVec<[AttrValue; 8]> = SmallVec::new();
    for spec in s.attributes.iter() {
        let v = op
            .attr(&spec.name)
            .and_then(|a| attr_value_of(ctx, a, spec.kind))
            .ok_or_else(|| BuildError::Invalid {
                op: def.name.into(),
                message: format!(
                    "attribute `{}` is missing or not a {}",
                    spec.name,
                    spec.kind.type_name()
                ),
            })?;
        values.push(v);
    }
    let metas: SmallVec<[InputMeta; 8]> = s
        .inputs
        .iter()
        .enumerate()
        .map(|(i, input)| input_meta(op.program(), &input.kind, op.operand(i)))
        .collect();
    infer_result_types(ctx, def, &metas, &values)
}
