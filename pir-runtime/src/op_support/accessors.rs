//! Typed attribute accessors of generated ops: `conv.strides(&prog)` is
//! [`attribute_as`]`::<Vec<i32>>(prog, op, "strides", AttrKind::Int32Array)`.

use std::borrow::Cow;

use pir_spec::AttrKind;

use crate::meta::{AttrValue, Scalar};
use crate::phi::{DataLayout, DataType, Place};
use crate::program::{OpId, Program};

use super::attrs::attr_value_of;

/// A Rust value an attribute of a generated op reads back as: `bool`, `i32`, `i64`, `f32`,
/// `f64`, `&str`, `Vec<..>` of those, [`Scalar`], [`DataType`], [`DataLayout`], [`Place`].
pub trait FromAttrValue<'p>: Sized {
    /// The value, if `v` holds this type.
    fn from_attr_value(v: AttrValue<'p>) -> Option<Self>;
}

macro_rules! from_variant {
    ($($t:ty => $variant:ident),* $(,)?) => {$(
        impl<'p> FromAttrValue<'p> for $t {
            fn from_attr_value(v: AttrValue<'p>) -> Option<Self> {
                match v {
                    AttrValue::$variant(x) => Some(x),
                    _ => None,
                }
            }
        }
    )*};
}

from_variant!(
    bool => Bool, i32 => I32, i64 => I64, f32 => F32, f64 => F64, Vec<bool> => Bools,
    Vec<Scalar> => Scalars, DataType => DataType, DataLayout => DataLayout, Place => Place,
);

impl<'p> FromAttrValue<'p> for &'p str {
    fn from_attr_value(v: AttrValue<'p>) -> Option<Self> {
        match v {
            AttrValue::Str(Cow::Borrowed(s)) => Some(s),
            _ => None,
        }
    }
}

impl<'p> FromAttrValue<'p> for Vec<&'p str> {
    fn from_attr_value(v: AttrValue<'p>) -> Option<Self> {
        match v {
            AttrValue::Strs(items) => items
                .into_iter()
                .map(|s| match s {
                    Cow::Borrowed(s) => Some(s),
                    Cow::Owned(_) => None,
                })
                .collect(),
            _ => None,
        }
    }
}

impl<'p> FromAttrValue<'p> for Vec<i64> {
    fn from_attr_value(v: AttrValue<'p>) -> Option<Self> {
        match v {
            AttrValue::Ints(x) => Some(x.to_vec()),
            AttrValue::IntArray(a) => a.values.map(|x| x.to_vec()),
            _ => None,
        }
    }
}

impl<'p> FromAttrValue<'p> for Vec<i32> {
    fn from_attr_value(v: AttrValue<'p>) -> Option<Self> {
        match v {
            AttrValue::Ints(x) => x.iter().map(|&i| i32::try_from(i).ok()).collect(),
            _ => None,
        }
    }
}

impl<'p> FromAttrValue<'p> for Vec<f64> {
    fn from_attr_value(v: AttrValue<'p>) -> Option<Self> {
        match v {
            AttrValue::Floats(x) => Some(x),
            _ => None,
        }
    }
}

impl<'p> FromAttrValue<'p> for Vec<f32> {
    fn from_attr_value(v: AttrValue<'p>) -> Option<Self> {
        match v {
            // float[] attributes hold f32 values (widened without loss).
            AttrValue::Floats(x) => Some(x.into_iter().map(|f| f as f32).collect()),
            _ => None,
        }
    }
}

impl<'p> FromAttrValue<'p> for Scalar {
    fn from_attr_value(v: AttrValue<'p>) -> Option<Self> {
        match v {
            AttrValue::Scalar(s) => s,
            _ => None,
        }
    }
}

/// Attribute `name` of `op` read as `T`, the Rust type of an attribute of `kind`: `None` when
/// the op has no such attribute or it holds another kind (an op built from an unchecked
/// attribute dictionary, say; [`verify`](crate::verify()) reports those).
///
/// ```
/// use pir_runtime::op_support::attribute_as;
/// use pir_runtime::pir_spec::AttrKind;
/// use pir_runtime::{builtin, phi::DataType, Builder, IrContext, Program};
///
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let mut b = Builder::at_end(&mut prog);
/// let w = builtin::parameter(&mut b, "w", ctx.dense_tensor_type(DataType::Float32, &[2])).unwrap();
/// let op = prog.defining_op(w).unwrap();
/// let name: Option<&str> = attribute_as(&prog, op, "parameter_name", AttrKind::Str);
/// assert_eq!(name, Some("w"));
/// assert_eq!(attribute_as::<i32>(&prog, op, "parameter_name", AttrKind::Int32), None);
/// assert_eq!(attribute_as::<&str>(&prog, op, "missing", AttrKind::Str), None);
/// ```
pub fn attribute_as<'p, T: FromAttrValue<'p>>(
    program: &'p Program,
    op: OpId,
    name: &str,
    kind: AttrKind,
) -> Option<T> {
    let a = program.op(op).attr(name)?;
    T::from_attr_value(attr_value_of(program.ctx(), a, kind)?)
}
