//! `IntArray` parameters as Paddle's generated `Build` decodes them.

use std::borrow::Cow;

use super::{attr_mismatch, AttrValue, InferMetaCtx, InferMetaError, IntArrayArg};
use crate::op_support::AttrArg;

/// The most values an `IntArray` fed by a computed tensor may stand for.
const MAX_UNKNOWN_VALUES: usize = 4096;

/// An `IntArray` argument (Paddle's `const IntArray&`) as Paddle's generated `Build` decodes
/// it: its values, or `-1`s with [`from_tensor`](IntArray::from_tensor) set when a computed
/// tensor feeds the mutable attribute. Known values are borrowed from the argument.
///
/// ```
/// use pir_runtime::meta::{AttrValue, InferMetaCtx, IntArrayArg, MetaArg};
/// let (known, fed) = (
///     AttrValue::IntArray(IntArrayArg::known(&[2, 3])),
///     AttrValue::IntArray(IntArrayArg::unknown(Some(2))),
/// );
/// let args = [MetaArg::Attr(&known), MetaArg::Attr(&fed)];
/// let ctx = InferMetaCtx::new(&args, &mut []);
/// let a = ctx.int_array_values(0, "shape").unwrap();
/// assert_eq!((a.values(), a.from_tensor()), (&[2, 3][..], false));
/// let b = ctx.int_array_values(1, "shape").unwrap();
/// assert_eq!((b.values(), b.from_tensor()), (&[-1, -1][..], true));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntArray<'a> {
    values: Cow<'a, [i64]>,
    from_tensor: bool,
}

impl<'a> IntArray<'a> {
    /// Known values.
    ///
    /// ```
    /// use pir_runtime::meta::IntArray;
    /// assert_eq!(IntArray::known(&[1, 2]).values(), [1, 2]);
    /// ```
    pub fn known(values: &'a [i64]) -> IntArray<'a> {
        IntArray {
            values: Cow::Borrowed(values),
            from_tensor: false,
        }
    }

    /// The values (`-1`s when they come from a tensor).
    pub fn values(&self) -> &[i64] {
        &self.values
    }

    /// Whether the values come from a tensor (unknown at build time).
    pub fn from_tensor(&self) -> bool {
        self.from_tensor
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl<'a> InferMetaCtx<'a> {
    /// `IntArray` argument `i` (an `int[]` counts as known values), decoded as Paddle's
    /// generated `Build` does; `name` is the parameter's name for messages. Values fed by a
    /// tensor become `-1`s; the tensor's number of values must be known.
    ///
    /// ```
    /// use pir_runtime::meta::{AttrValue, InferMetaCtx, IntArrayArg, MetaArg};
    /// let fed = AttrValue::IntArray(IntArrayArg::unknown(None));
    /// let args = [MetaArg::Attr(&fed)];
    /// let e = InferMetaCtx::new(&args, &mut []).int_array_values(0, "shape").unwrap_err();
    /// assert!(e.0.starts_with("`shape` comes from a tensor whose number of values is unknown"));
    /// ```
    pub fn int_array_values(&self, i: usize, name: &str) -> Result<IntArray<'a>, InferMetaError> {
        if let Some(AttrArg::I64s(v)) = self.raw(i) {
            return Ok(IntArray::known(v));
        }
        match self.attr(i)? {
            AttrValue::IntArray(IntArrayArg {
                values: Some(v), ..
            })
            | AttrValue::Ints(v) => Ok(IntArray::known(v)),
            AttrValue::IntArray(IntArrayArg { values: None, len }) => match *len {
                Some(n) if n <= MAX_UNKNOWN_VALUES => Ok(IntArray {
                    values: Cow::Owned(vec![-1; n]),
                    from_tensor: true,
                }),
                Some(n) => Err(InferMetaError(format!(
                    "`{name}` comes from a tensor of {n} values, more than any shape can hold"
                ))),
                None => Err(InferMetaError(format!(
                    "`{name}` comes from a tensor whose number of values is unknown at build \
                     time; give the tensor a static shape"
                ))),
            },
            other => Err(attr_mismatch(i, "IntArray", other)),
        }
    }
}
