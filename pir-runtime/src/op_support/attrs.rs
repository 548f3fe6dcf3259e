//! Rust values ↔ IR attributes ↔ the infer-meta view of attribute values.

use std::borrow::Cow;

use pir_spec::AttrKind;
use smallvec::SmallVec;

use crate::attributes::{AttrData, Attribute};
use crate::context::IrContext;
use crate::meta::{AttrValue, IntArrayArg, Scalar};
use crate::phi::{DataLayout, DataType, Place};

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
    /// The Rust type of the value, for messages (`&[i32]`, `Scalar`).
    ///
    /// ```
    /// use pir_runtime::op_support::AttrArg;
    /// assert_eq!(AttrArg::I32s(&[1]).kind_name(), "&[i32]");
    /// ```
    pub fn kind_name(&self) -> &'static str {
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

/// Converts a Rust value to the IR attribute of `kind`; `None` when `arg` is not a value for
/// `kind` (the caller names the attribute: [`BuildErrorKind::AttributeArg`](crate::BuildErrorKind::AttributeArg)).
pub fn attribute_from_arg(ctx: &IrContext, kind: AttrKind, arg: &AttrArg<'_>) -> Option<Attribute> {
    let array = |items: SmallVec<[Attribute; 8]>| ctx.array_attr(&items);
    Some(match (kind, *arg) {
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
        _ => return None,
    })
}

/// The infer-meta view of a Rust value.
pub fn attr_value_from_arg<'a>(arg: &AttrArg<'a>, kind: AttrKind) -> AttrValue<'a> {
    match *arg {
        AttrArg::Bool(v) => AttrValue::Bool(v),
        AttrArg::I32(v) => AttrValue::I32(v),
        AttrArg::I64(v) => AttrValue::I64(v),
        AttrArg::F32(v) => AttrValue::F32(v),
        AttrArg::F64(v) => AttrValue::F64(v),
        AttrArg::Str(v) => AttrValue::Str(Cow::Borrowed(v)),
        AttrArg::Bools(v) => AttrValue::Bools(v.to_vec()),
        AttrArg::I32s(v) => AttrValue::Ints(v.iter().map(|&x| i64::from(x)).collect()),
        AttrArg::I64s(v) if kind == AttrKind::IntArray => {
            AttrValue::IntArray(IntArrayArg::known(v))
        }
        AttrArg::I64s(v) => AttrValue::Ints(SmallVec::from_slice(v)),
        AttrArg::F32s(v) => AttrValue::Floats(v.iter().map(|&x| f64::from(x)).collect()),
        AttrArg::F64s(v) => AttrValue::Floats(v.to_vec()),
        AttrArg::Strs(v) => AttrValue::Strs(v.iter().map(|s| Cow::Borrowed(*s)).collect()),
        AttrArg::Scalar(s) => AttrValue::Scalar(Some(s)),
        AttrArg::Scalars(v) => AttrValue::Scalars(v.to_vec()),
        AttrArg::DataType(v) => AttrValue::DataType(v),
        AttrArg::DataLayout(v) => AttrValue::DataLayout(v),
        AttrArg::Place(v) => AttrValue::Place(v),
    }
}

/// The infer-meta view of an IR attribute of `kind`, or `None` when the data does not fit.
pub fn attr_value_of(ctx: &IrContext, a: Attribute, kind: AttrKind) -> Option<AttrValue<'_>> {
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
        (AttrKind::Str, AttrData::Str(v)) => AttrValue::Str(Cow::Borrowed(v)),
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
                        Some(Cow::Borrowed(&**s))
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
