//! AttributeTranslator: a legacy attribute value → the IR attribute of the target op's
//! attribute kind (Paddle's `attribute_translator.cc`).
//!
//! Paddle picks a visitor by the target's GetOpInfo type name and falls back to a general one:
//!
//! | target kind | legacy value → IR attribute |
//! |---|---|
//! | any (general) | INT→`Int32`, LONG→`Int64`, FLOAT→`Float`, FLOAT64→`Double`, BOOLEAN→`Bool`, STRING→`Str`, INTS→`[Int32]`, LONGS→`[Int64]`, FLOATS→`[Float]`, FLOAT64S→`[Double]`, BOOLEANS→`[Bool]`, STRINGS→`[Str]`, SCALARS→`[Scalar]`; missing, BLOCK(S), VAR(S)→none; SCALAR→unsupported |
//! | `IntArray` | INTS or LONGS → `IntArray` (int64 elements) |
//! | `DataType` | INT (a legacy `VarType` code) → its phi type; missing → `Undefined` |
//! | `Place` | missing → `Place(undefined)` |
//! | `int64_t[]` | INTS → `[Int64]` (int vectors widen); missing → `[]` |
//! | `int[]` | LONGS → `[Int32]` |
//! | `int64_t` | INT → `Int64` |
//! | `bool` | INT or LONG → `v != 0`; missing → `false` |
//!
//! One addition: a STRING for a `DataLayout` attribute becomes a `DataLayoutAttribute`
//! (Paddle's general visitor would leave a `StrAttribute`, which this runtime's verifier
//! rejects). The caller checks that the result fits the target kind
//! ([`pir_runtime::op_support::attribute_fits`]) and reports a located error otherwise.

use pir_runtime::phi::{DataLayout, DataType, Place};
use pir_runtime::pir_spec::AttrKind;
use pir_runtime::{AttrData, AttrKey, Attribute, IrContext};
use smallvec::SmallVec;

use pir_legacy::{data_type_to_phi, AttrValue, ScalarValue, VarKind};

/// A legacy value the translator cannot turn into an IR attribute.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AttributeTranslateError {
    /// Paddle's translator does not translate this legacy attribute type either.
    #[error("legacy {0} attributes cannot be translated")]
    Unsupported(&'static str),
}

/// The phi data type of a legacy `VarType` code (Paddle's `TransToPhiDataType(int)`):
/// `Undefined` for codes that are not element types.
///
/// ```
/// use pir_runtime::phi::DataType;
/// assert_eq!(pir_translator::phi_dtype_of_code(5), DataType::Float32);
/// assert_eq!(pir_translator::phi_dtype_of_code(7), DataType::Undefined); // DENSE_TENSOR
/// ```
pub fn phi_dtype_of_code(code: i32) -> DataType {
    VarKind::try_from(code)
        .ok()
        .and_then(data_type_to_phi)
        .unwrap_or(DataType::Undefined)
}

fn scalar_attr(ctx: &IrContext, s: &ScalarValue) -> Attribute {
    match *s {
        ScalarValue::Bool(b) => ctx.bool_attr(b),
        ScalarValue::Int(i) => ctx.i64_attr(i),
        ScalarValue::Float(f) => ctx.f64_attr(f),
        ScalarValue::Complex { re, im } => ctx.intern_attr(AttrKey::Complex128(re, im)),
    }
}

fn array<T>(ctx: &IrContext, items: &[T], f: impl Fn(&T) -> Attribute) -> Attribute {
    let items: SmallVec<[Attribute; 8]> = items.iter().map(f).collect();
    ctx.array_attr(&items)
}

/// Paddle's general visitor (`AttributeTranslator::operator()(attr)`, no target type): what
/// handlers use where Paddle translates a legacy attribute without a GetOpInfo type (e.g.
/// `one_hot_v2`'s `depth`, `increment`'s `step`). `Ok(None)` for a missing, block or variable
/// attribute.
///
/// ```
/// use pir_translator::{translate_general_attribute, AttrValue};
/// let ctx = pir_runtime::IrContext::new();
/// let a = translate_general_attribute(&ctx, Some(&AttrValue::Int(6))).unwrap().unwrap();
/// assert_eq!(a.display(&ctx).to_string(), "6");
/// assert!(translate_general_attribute(&ctx, None).unwrap().is_none());
/// ```
pub fn translate_general_attribute(
    ctx: &IrContext,
    value: Option<&AttrValue>,
) -> Result<Option<Attribute>, AttributeTranslateError> {
    general(ctx, value)
}

/// Paddle's general visitor.
fn general(
    ctx: &IrContext,
    value: Option<&AttrValue>,
) -> Result<Option<Attribute>, AttributeTranslateError> {
    let Some(value) = value else {
        return Ok(None);
    };
    Ok(Some(match value {
        AttrValue::Int(i) => ctx.i32_attr(*i),
        AttrValue::Long(l) => ctx.i64_attr(*l),
        AttrValue::Float(f) => ctx.f32_attr(*f),
        AttrValue::Float64(d) => ctx.f64_attr(*d),
        AttrValue::Bool(b) => ctx.bool_attr(*b),
        AttrValue::String(s) => ctx.str_attr(s),
        AttrValue::Ints(v) => array(ctx, v, |&x| ctx.i32_attr(x)),
        AttrValue::Longs(v) => array(ctx, v, |&x| ctx.i64_attr(x)),
        AttrValue::Floats(v) => array(ctx, v, |&x| ctx.f32_attr(x)),
        AttrValue::Float64s(v) => array(ctx, v, |&x| ctx.f64_attr(x)),
        AttrValue::Bools(v) => array(ctx, v, |&x| ctx.bool_attr(x)),
        AttrValue::Strings(v) => array(ctx, v, |x| ctx.str_attr(x)),
        AttrValue::Scalars(v) => array(ctx, v, |x| scalar_attr(ctx, x)),
        AttrValue::Scalar(_) => return Err(AttributeTranslateError::Unsupported("SCALAR")),
        AttrValue::Block(_) | AttrValue::Blocks(_) | AttrValue::Var(_) | AttrValue::Vars(_) => {
            return Ok(None)
        }
    }))
}

/// Translates legacy attribute `value` (`None`: the op does not have it) for a target
/// attribute of kind `target`. `Ok(None)` is Paddle's null attribute (nothing to set).
///
/// ```
/// use pir_runtime::pir_spec::AttrKind;
/// use pir_translator::{translate_attribute, AttrValue};
/// let ctx = pir_runtime::IrContext::new();
/// let show = |a: Option<pir_runtime::Attribute>| a.unwrap().display(&ctx).to_string();
/// let ints = AttrValue::Ints(vec![2, 2]);
/// assert_eq!(show(translate_attribute(&ctx, AttrKind::Int64Array, Some(&ints)).unwrap()), "[2,2]");
/// assert_eq!(show(translate_attribute(&ctx, AttrKind::DataType, Some(&AttrValue::Int(5))).unwrap()), "float32");
/// assert_eq!(show(translate_attribute(&ctx, AttrKind::Place, None).unwrap()), "Place(undefined:0)");
/// assert!(translate_attribute(&ctx, AttrKind::Int32, None).unwrap().is_none());
/// ```
pub fn translate_attribute(
    ctx: &IrContext,
    target: AttrKind,
    value: Option<&AttrValue>,
) -> Result<Option<Attribute>, AttributeTranslateError> {
    let special = match (target, value) {
        (AttrKind::IntArray, Some(AttrValue::Ints(v))) => {
            let v: SmallVec<[i64; 8]> = v.iter().map(|&x| i64::from(x)).collect();
            Some(ctx.int_array_attr(&v))
        }
        (AttrKind::IntArray, Some(AttrValue::Longs(v))) => Some(ctx.int_array_attr(v)),
        (AttrKind::DataType, Some(AttrValue::Int(code))) => {
            Some(ctx.dtype_attr(phi_dtype_of_code(*code)))
        }
        (AttrKind::DataType, None) => Some(ctx.dtype_attr(DataType::Undefined)),
        (AttrKind::Place, None) => Some(ctx.place_attr(Place::default())),
        (AttrKind::Int64Array, Some(AttrValue::Ints(v))) => {
            Some(array(ctx, v, |&x| ctx.i64_attr(i64::from(x))))
        }
        (AttrKind::Int64Array, None) => Some(ctx.array_attr(&[])),
        // `static_cast<int>` of each element, as Paddle's Int32ArrayAttributeVisitor does.
        (AttrKind::Int32Array, Some(AttrValue::Longs(v))) => {
            Some(array(ctx, v, |&x| ctx.i32_attr(x as i32)))
        }
        (AttrKind::Int64 | AttrKind::Long, Some(AttrValue::Int(i))) => {
            Some(ctx.i64_attr(i64::from(*i)))
        }
        (AttrKind::Bool, Some(AttrValue::Int(i))) => Some(ctx.bool_attr(*i != 0)),
        (AttrKind::Bool, Some(AttrValue::Long(l))) => Some(ctx.bool_attr(*l != 0)),
        (AttrKind::Bool, None) => Some(ctx.bool_attr(false)),
        (AttrKind::DataLayout, Some(AttrValue::String(s))) => {
            DataLayout::from_name(s).map(|l| ctx.layout_attr(l))
        }
        _ => None,
    };
    match special {
        Some(a) => Ok(Some(a)),
        None => general(ctx, value),
    }
}

/// The value and element type of the `full` Paddle materialises a Scalar attribute as
/// (`InsertFullOperationForAttributeInput`): the number cast to `float`, and the dtype of the
/// attribute's class (`Float`→float32, `Double`→float64, `Int32`→int32, `Int64`→int64,
/// `Bool`→bool). `None` for attributes that are not numbers.
pub fn full_value_of(ctx: &IrContext, attr: Attribute) -> Option<(f32, DataType)> {
    Some(match ctx.attr_data(attr) {
        AttrData::Float(v) => (*v, DataType::Float32),
        AttrData::Double(v) => (*v as f32, DataType::Float64),
        AttrData::Int32(v) => (*v as f32, DataType::Int32),
        AttrData::Int64(v) => (*v as f32, DataType::Int64),
        AttrData::Bool(v) => (f32::from(u8::from(*v)), DataType::Bool),
        _ => return None,
    })
}

/// A short description of a legacy attribute's type, for messages (`INTS`, `FLOAT`, ...).
pub(crate) fn legacy_type_name(value: &AttrValue) -> &'static str {
    value.attr_type().proto_name()
}

/// The IR attribute of a yaml default (`int axis = -1`) for attribute `spec`, used where
/// Paddle would leave a null attribute for an attribute the legacy op lacks. `None` when the
/// default does not fit the kind.
pub fn default_attribute(
    ctx: &IrContext,
    spec: &pir_runtime::pir_spec::AttributeSpec,
    default: &pir_runtime::pir_spec::DefaultValue,
) -> Option<Attribute> {
    use pir_runtime::pir_spec::DefaultValue as D;
    Some(match (spec.kind, default) {
        (AttrKind::Bool, D::Bool(b)) => ctx.bool_attr(*b),
        (AttrKind::Int32, D::Int(i)) => ctx.i32_attr(i32::try_from(*i).ok()?),
        (AttrKind::Int64 | AttrKind::Long, D::Int(i)) => ctx.i64_attr(*i),
        (AttrKind::SizeT, D::Int(i)) => ctx.index_attr(*i),
        (AttrKind::Float, D::Float(f)) => ctx.f32_attr(*f as f32),
        (AttrKind::Float, D::Int(i)) => ctx.f32_attr(*i as f32),
        (AttrKind::Double, D::Float(f)) => ctx.f64_attr(*f),
        (AttrKind::Double, D::Int(i)) => ctx.f64_attr(*i as f64),
        (AttrKind::Str, D::Str(s)) => ctx.str_attr(s),
        (AttrKind::Scalar, d) => {
            let as_f64 = match d {
                D::Int(i) => *i as f64,
                D::Float(f) => *f,
                D::Bool(b) => f64::from(u8::from(*b)),
                _ => return None,
            };
            match &*spec.data_type {
                "int" | "int32_t" => ctx.i32_attr(as_f64 as i32),
                "int64_t" => ctx.i64_attr(as_f64 as i64),
                "float" => ctx.f32_attr(as_f64 as f32),
                "bool" => ctx.bool_attr(as_f64 != 0.0),
                _ => ctx.f64_attr(as_f64),
            }
        }
        (AttrKind::IntArray, D::IntList(v)) => ctx.int_array_attr(v),
        (AttrKind::Int32Array, D::IntList(v)) => array(ctx, v, |&x| {
            ctx.i32_attr(i32::try_from(x).unwrap_or(i32::MAX))
        }),
        (AttrKind::Int64Array, D::IntList(v)) => array(ctx, v, |&x| ctx.i64_attr(x)),
        (AttrKind::FloatArray, D::FloatList(v)) => array(ctx, v, |&x| ctx.f32_attr(x as f32)),
        (AttrKind::DoubleArray, D::FloatList(v)) => array(ctx, v, |&x| ctx.f64_attr(x)),
        (AttrKind::BoolArray, D::BoolList(v)) => array(ctx, v, |&x| ctx.bool_attr(x)),
        (AttrKind::StrArray, D::StrList(v)) => array(ctx, v, |x| ctx.str_attr(x)),
        (AttrKind::DataType, D::DataType(d)) => ctx.dtype_attr(*d),
        (AttrKind::DataLayout, D::DataLayout(l)) => ctx.layout_attr(*l),
        (AttrKind::DataLayout, D::Str(s)) => ctx.layout_attr(DataLayout::from_name(s)?),
        (AttrKind::Place, D::Place(p)) => ctx.place_attr(*p),
        _ => return None,
    })
}
