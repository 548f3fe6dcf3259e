//! IR attributes: interned, compared by handle.
//!
//! The builtin attributes (bool, int32, int64, index, float, double, complex, str, array, type),
//! the pd attributes (IntArray, DataType, DataLayout, Place; a Scalar is stored as the builtin
//! number it holds, as in Paddle), and the dictionary an operation keeps its attributes in —
//! sorted by name, interned like any attribute, so an op's attribute map is one handle (a
//! 4-byte index in the op's storage).
//!
//! ```
//! use pir_runtime::IrContext;
//! let ctx = IrContext::new();
//! let one = ctx.i32_attr(1);
//! let strides = ctx.array_attr(&[one, one]);
//! assert_eq!(strides, ctx.array_attr(&[ctx.i32_attr(1), ctx.i32_attr(1)]));
//! assert_eq!(strides.display(&ctx).to_string(), "[1,1]");
//! assert_eq!(ctx.f32_attr(1e-5).display(&ctx).to_string(), "1e-05");
//! ```

use std::fmt;
use std::hash::{Hash, Hasher};
use std::num::NonZeroU32;

use crate::context::IrContext;
use crate::intern::{Internable, Seeds, ShortKey};
use crate::meta::Scalar;
use crate::phi::{DataLayout, DataType, Place};
use crate::types::Type;

/// A handle to an interned attribute: 8 bytes (its index and the identity of its
/// [`IrContext`], so an attribute of another context is never read as this one's), `Copy`,
/// equality is identity.
///
/// ```
/// use pir_runtime::{Attribute, IrContext};
/// let ctx = IrContext::new();
/// let a: Attribute = ctx.str_attr("relu");
/// assert_eq!(std::mem::size_of::<Attribute>(), 8);
/// assert_eq!(a, ctx.str_attr("relu")); // interned: compared by handle
/// assert_eq!(a.display(&ctx).to_string(), "\"relu\"");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Attribute {
    bits: NonZeroU32,
    ctx: u32,
}

static_assertions::assert_eq_size!(Attribute, u64);

impl Attribute {
    pub(crate) fn from_index(idx: u32, ctx: u32) -> Attribute {
        Attribute {
            bits: NonZeroU32::new(idx + 1).expect("attribute index overflow"),
            ctx,
        }
    }

    pub(crate) fn index(self) -> u32 {
        self.bits.get() - 1
    }

    /// The raw index word (never 0), as programs store it.
    #[inline(always)]
    pub(crate) fn raw(self) -> u32 {
        self.bits.get()
    }

    /// The index word, as programs store it.
    #[inline(always)]
    pub(crate) fn bits(self) -> NonZeroU32 {
        self.bits
    }

    /// The attribute of context `ctx` whose index word is `bits`.
    #[inline(always)]
    pub(crate) fn from_bits(bits: NonZeroU32, ctx: u32) -> Attribute {
        Attribute { bits, ctx }
    }

    /// The identity of the context that interned it.
    #[inline(always)]
    pub(crate) fn ctx_id(self) -> u32 {
        self.ctx
    }

    /// The attribute's data.
    ///
    /// ```
    /// use pir_runtime::{AttrData, IrContext};
    /// let ctx = IrContext::new();
    /// let a = ctx.array_attr(&[ctx.i64_attr(1), ctx.i64_attr(2)]);
    /// let AttrData::Array(items) = a.data(&ctx) else { panic!() };
    /// assert_eq!(items.len(), 2);
    /// assert!(matches!(items[1].data(&ctx), AttrData::Int64(2)));
    /// ```
    pub fn data(self, ctx: &IrContext) -> &AttrData {
        ctx.attr_data(self)
    }

    /// A value that prints the attribute as Paddle does.
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// let d = ctx.dict_attr(&[("eps", ctx.f32_attr(1e-5)), ("axes", ctx.int_array_attr(&[0, 1]))]);
    /// assert_eq!(d.display(&ctx).to_string(), "{axes:[0,1],eps:1e-05}");
    /// ```
    pub fn display(self, ctx: &IrContext) -> AttrDisplay<'_> {
        AttrDisplay { ctx, attr: self }
    }
}

impl fmt::Debug for Attribute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Attribute#{}", self.index())
    }
}

/// The data behind an [`Attribute`].
///
/// ```
/// use pir_runtime::{AttrData, IrContext, phi::DataType};
/// let ctx = IrContext::new();
/// let describe = |a| match ctx.attr_data(a) {
///     AttrData::Str(s) => format!("string {s}"),
///     AttrData::DataType(d) => format!("dtype {}", d.name()),
///     other => other.kind_name().to_string(),
/// };
/// assert_eq!(describe(ctx.str_attr("w")), "string w");
/// assert_eq!(describe(ctx.dtype_attr(DataType::Int64)), "dtype int64");
/// assert_eq!(describe(ctx.index_attr(0)), "pir::IndexAttribute");
/// ```
#[derive(Clone, Debug)]
pub enum AttrData {
    /// `pir::BoolAttribute`.
    Bool(bool),
    /// `pir::Int32Attribute`.
    Int32(i32),
    /// `pir::Int64Attribute`.
    Int64(i64),
    /// `pir::IndexAttribute`.
    Index(i64),
    /// `pir::FloatAttribute`.
    Float(f32),
    /// `pir::DoubleAttribute`.
    Double(f64),
    /// `pir::Complex64Attribute`.
    Complex64(f32, f32),
    /// `pir::Complex128Attribute`.
    Complex128(f64, f64),
    /// `pir::StrAttribute`.
    Str(Box<str>),
    /// `pir::ArrayAttribute`.
    Array(Box<[Attribute]>),
    /// `pir::TypeAttribute`.
    Type(Type),
    /// `paddle::dialect::IntArrayAttribute`.
    IntArray(Box<[i64]>),
    /// `paddle::dialect::DataTypeAttribute`.
    DataType(DataType),
    /// `paddle::dialect::DataLayoutAttribute`.
    DataLayout(DataLayout),
    /// `paddle::dialect::PlaceAttribute`.
    Place(Place),
    /// An attribute dictionary, sorted by name with unique names.
    Dict(Box<[(Box<str>, Attribute)]>),
}

impl AttrData {
    /// The value as a `phi::Scalar`, if this is one of the kinds a ScalarAttribute covers.
    ///
    /// ```
    /// use pir_runtime::{IrContext, meta::Scalar};
    /// let ctx = IrContext::new();
    /// assert_eq!(ctx.f64_attr(0.5).data(&ctx).as_scalar(), Some(Scalar::F64(0.5)));
    /// assert_eq!(ctx.i32_attr(3).data(&ctx).as_scalar(), Some(Scalar::I32(3)));
    /// assert_eq!(ctx.str_attr("x").data(&ctx).as_scalar(), None);
    /// ```
    pub fn as_scalar(&self) -> Option<Scalar> {
        Some(match *self {
            AttrData::Bool(v) => Scalar::Bool(v),
            AttrData::Int32(v) => Scalar::I32(v),
            AttrData::Int64(v) => Scalar::I64(v),
            AttrData::Float(v) => Scalar::F32(v),
            AttrData::Double(v) => Scalar::F64(v),
            AttrData::Complex64(r, i) => Scalar::C64(r, i),
            AttrData::Complex128(r, i) => Scalar::C128(r, i),
            _ => return None,
        })
    }

    /// A short name of the attribute's kind, for messages (`pir::Int32Attribute`, ...).
    ///
    /// ```
    /// use pir_runtime::IrContext;
    /// let ctx = IrContext::new();
    /// assert_eq!(ctx.i32_attr(1).data(&ctx).kind_name(), "pir::Int32Attribute");
    /// assert_eq!(ctx.int_array_attr(&[]).data(&ctx).kind_name(), "paddle::dialect::IntArrayAttribute");
    /// ```
    pub fn kind_name(&self) -> &'static str {
        match self {
            AttrData::Bool(_) => "pir::BoolAttribute",
            AttrData::Int32(_) => "pir::Int32Attribute",
            AttrData::Int64(_) => "pir::Int64Attribute",
            AttrData::Index(_) => "pir::IndexAttribute",
            AttrData::Float(_) => "pir::FloatAttribute",
            AttrData::Double(_) => "pir::DoubleAttribute",
            AttrData::Complex64(..) => "pir::Complex64Attribute",
            AttrData::Complex128(..) => "pir::Complex128Attribute",
            AttrData::Str(_) => "pir::StrAttribute",
            AttrData::Array(_) => "pir::ArrayAttribute",
            AttrData::Type(_) => "pir::TypeAttribute",
            AttrData::IntArray(_) => "paddle::dialect::IntArrayAttribute",
            AttrData::DataType(_) => "paddle::dialect::DataTypeAttribute",
            AttrData::DataLayout(_) => "paddle::dialect::DataLayoutAttribute",
            AttrData::Place(_) => "paddle::dialect::PlaceAttribute",
            AttrData::Dict(_) => "pir::DictionaryAttribute",
        }
    }
}

/// The entries of a dictionary key: borrowed names (a lookup) or stored ones.
///
/// ```
/// use pir_runtime::{AttrKey, IrContext, attributes::DictEntries};
/// let ctx = IrContext::new();
/// let one = ctx.i32_attr(1);
/// let key = AttrKey::Dict(DictEntries::Borrowed(&[("a", one), ("b", one)]));
/// let d = ctx.intern_attr(key);
/// assert_eq!(d, ctx.dict_attr(&[("b", one), ("a", one)]));
/// assert_eq!(ctx.lookup_attr(key), Some(d));
/// ```
#[derive(Clone, Copy, Debug)]
pub enum DictEntries<'a> {
    /// Entries given by a caller, sorted by name with unique names.
    Borrowed(&'a [(&'a str, Attribute)]),
    /// Entries of a stored dictionary.
    Stored(&'a [(Box<str>, Attribute)]),
}

impl<'a> DictEntries<'a> {
    fn len(&self) -> usize {
        match self {
            DictEntries::Borrowed(e) => e.len(),
            DictEntries::Stored(e) => e.len(),
        }
    }

    fn get(&self, i: usize) -> (&'a str, Attribute) {
        match self {
            DictEntries::Borrowed(e) => e[i],
            DictEntries::Stored(e) => (&e[i].0, e[i].1),
        }
    }
}

impl PartialEq for DictEntries<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && (0..self.len()).all(|i| self.get(i) == other.get(i))
    }
}

impl Hash for DictEntries<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.len());
        for i in 0..self.len() {
            self.get(i).hash(state);
        }
    }
}

/// A borrowed description of an attribute, to intern it or look it up without allocating.
/// Floats compare and hash by their bits.
///
/// ```
/// use pir_runtime::{AttrKey, IrContext};
/// let ctx = IrContext::new();
/// let a = ctx.intern_attr(AttrKey::Double(f64::NAN));
/// assert_eq!(a, ctx.intern_attr(AttrKey::Double(f64::NAN))); // floats compare by bits
/// assert_eq!(a.display(&ctx).to_string(), "nan");
/// assert_eq!(ctx.lookup_attr(AttrKey::Float(f32::NAN)), None); // a float is not a double
/// ```
#[derive(Clone, Copy, Debug)]
pub enum AttrKey<'a> {
    /// See [`AttrData::Bool`].
    Bool(bool),
    /// See [`AttrData::Int32`].
    Int32(i32),
    /// See [`AttrData::Int64`].
    Int64(i64),
    /// See [`AttrData::Index`].
    Index(i64),
    /// See [`AttrData::Float`].
    Float(f32),
    /// See [`AttrData::Double`].
    Double(f64),
    /// See [`AttrData::Complex64`].
    Complex64(f32, f32),
    /// See [`AttrData::Complex128`].
    Complex128(f64, f64),
    /// See [`AttrData::Str`].
    Str(&'a str),
    /// See [`AttrData::Array`].
    Array(&'a [Attribute]),
    /// See [`AttrData::Type`].
    Type(Type),
    /// See [`AttrData::IntArray`].
    IntArray(&'a [i64]),
    /// See [`AttrData::DataType`].
    DataType(DataType),
    /// See [`AttrData::DataLayout`].
    DataLayout(DataLayout),
    /// See [`AttrData::Place`].
    Place(Place),
    /// See [`AttrData::Dict`]; entries must be sorted by name with unique names (use
    /// [`IrContext::dict_attr`] to sort).
    Dict(DictEntries<'a>),
}

impl AttrKey<'_> {
    fn tag(&self) -> u8 {
        match self {
            AttrKey::Bool(_) => 0,
            AttrKey::Int32(_) => 1,
            AttrKey::Int64(_) => 2,
            AttrKey::Index(_) => 3,
            AttrKey::Float(_) => 4,
            AttrKey::Double(_) => 5,
            AttrKey::Complex64(..) => 6,
            AttrKey::Complex128(..) => 7,
            AttrKey::Str(_) => 8,
            AttrKey::Array(_) => 9,
            AttrKey::Type(_) => 10,
            AttrKey::IntArray(_) => 11,
            AttrKey::DataType(_) => 12,
            AttrKey::DataLayout(_) => 13,
            AttrKey::Place(_) => 14,
            AttrKey::Dict(_) => 15,
        }
    }

    pub(crate) fn to_data(self) -> AttrData {
        match self {
            AttrKey::Bool(v) => AttrData::Bool(v),
            AttrKey::Int32(v) => AttrData::Int32(v),
            AttrKey::Int64(v) => AttrData::Int64(v),
            AttrKey::Index(v) => AttrData::Index(v),
            AttrKey::Float(v) => AttrData::Float(v),
            AttrKey::Double(v) => AttrData::Double(v),
            AttrKey::Complex64(r, i) => AttrData::Complex64(r, i),
            AttrKey::Complex128(r, i) => AttrData::Complex128(r, i),
            AttrKey::Str(s) => AttrData::Str(s.into()),
            AttrKey::Array(a) => AttrData::Array(a.into()),
            AttrKey::Type(t) => AttrData::Type(t),
            AttrKey::IntArray(a) => AttrData::IntArray(a.into()),
            AttrKey::DataType(d) => AttrData::DataType(d),
            AttrKey::DataLayout(d) => AttrData::DataLayout(d),
            AttrKey::Place(p) => AttrData::Place(p),
            AttrKey::Dict(e) => AttrData::Dict(
                (0..e.len())
                    .map(|i| {
                        let (n, a) = e.get(i);
                        (Box::from(n), a)
                    })
                    .collect(),
            ),
        }
    }
}

impl PartialEq for AttrKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        use AttrKey::*;
        match (self, other) {
            (Bool(a), Bool(b)) => a == b,
            (Int32(a), Int32(b)) => a == b,
            (Int64(a), Int64(b)) | (Index(a), Index(b)) => a == b,
            (Float(a), Float(b)) => a.to_bits() == b.to_bits(),
            (Double(a), Double(b)) => a.to_bits() == b.to_bits(),
            (Complex64(a, b), Complex64(c, d)) => {
                a.to_bits() == c.to_bits() && b.to_bits() == d.to_bits()
            }
            (Complex128(a, b), Complex128(c, d)) => {
                a.to_bits() == c.to_bits() && b.to_bits() == d.to_bits()
            }
            (Str(a), Str(b)) => a == b,
            (Array(a), Array(b)) => a == b,
            (Type(a), Type(b)) => a == b,
            (IntArray(a), IntArray(b)) => a == b,
            (DataType(a), DataType(b)) => a == b,
            (DataLayout(a), DataLayout(b)) => a == b,
            (Place(a), Place(b)) => a == b,
            (Dict(a), Dict(b)) => a == b,
            _ => false,
        }
    }
}

impl Hash for AttrKey<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u8(self.tag());
        match self {
            AttrKey::Bool(v) => v.hash(state),
            AttrKey::Int32(v) => v.hash(state),
            AttrKey::Int64(v) | AttrKey::Index(v) => v.hash(state),
            AttrKey::Float(v) => v.to_bits().hash(state),
            AttrKey::Double(v) => v.to_bits().hash(state),
            AttrKey::Complex64(r, i) => (r.to_bits(), i.to_bits()).hash(state),
            AttrKey::Complex128(r, i) => (r.to_bits(), i.to_bits()).hash(state),
            AttrKey::Str(s) => s.hash(state),
            AttrKey::Array(a) => a.hash(state),
            AttrKey::Type(t) => t.hash(state),
            AttrKey::IntArray(a) => a.hash(state),
            AttrKey::DataType(d) => d.hash(state),
            AttrKey::DataLayout(d) => d.hash(state),
            AttrKey::Place(p) => p.hash(state),
            AttrKey::Dict(e) => e.hash(state),
        }
    }
}

/// Bytes `b` (at most 7) zero-padded into a little-endian word, from at most three loads:
/// `copy_from_slice` of a length known only at run time is a call to `memcpy`, which was a
/// fifth of a short string attribute's lookup.
#[inline(always)]
fn short_str_word(b: &[u8]) -> u64 {
    let n = b.len();
    debug_assert!(n <= 7);
    if n >= 4 {
        // Two overlapping 4-byte reads: the overlap holds the same bytes in both.
        let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]);
        u64::from(lo) | u64::from(hi) << (8 * (n - 4))
    } else if n > 0 {
        u64::from(b[0])
            | u64::from(b[n / 2]) << (8 * (n / 2))
            | u64::from(b[n - 1]) << (8 * (n - 1))
    } else {
        0
    }
}

impl Internable for AttrData {
    type Key<'a> = AttrKey<'a>;

    /// Numbers, handles, dtypes, layouts and places are short: kind = tag + 1, their bits.
    #[inline(always)]
    fn short_key(key: &AttrKey<'_>) -> Option<ShortKey> {
        let value = match *key {
            AttrKey::Bool(v) => u64::from(v),
            AttrKey::Int32(v) => u64::from(v as u32),
            AttrKey::Int64(v) | AttrKey::Index(v) => v as u64,
            AttrKey::Float(v) => u64::from(v.to_bits()),
            AttrKey::Double(v) => v.to_bits(),
            AttrKey::Complex64(r, i) => u64::from(r.to_bits()) | u64::from(i.to_bits()) << 32,
            AttrKey::Type(t) => u64::from(t.raw()),
            AttrKey::DataType(d) => d as u64,
            AttrKey::DataLayout(d) => d as u64,
            AttrKey::Place(p) => (p.kind as u64) << 8 | u64::from(p.device as u8),
            // Up to 7 bytes (names like "NCHW", "relu"): the bytes and the length.
            AttrKey::Str(v) if v.len() <= 7 => {
                short_str_word(v.as_bytes()) | (v.len() as u64) << 56
            }
            AttrKey::Complex128(..)
            | AttrKey::Str(_)
            | AttrKey::Array(_)
            | AttrKey::IntArray(_)
            | AttrKey::Dict(_) => return None,
        };
        Some(ShortKey {
            kind: key.tag() + 1,
            value,
        })
    }

    #[inline]
    fn long_hash(key: &AttrKey<'_>, s: &Seeds) -> u64 {
        let tag = u64::from(key.tag());
        match *key {
            AttrKey::Complex128(r, i) => s.words(tag, 2, [r.to_bits(), i.to_bits()].into_iter()),
            AttrKey::Array(a) => s.words(tag, a.len(), a.iter().map(|x| u64::from(x.raw()))),
            AttrKey::IntArray(a) => s.words(tag, a.len(), a.iter().map(|&x| x as u64)),
            AttrKey::Str(v) => s.bytes(tag, v.as_bytes()),
            _ => s.any(tag, key),
        }
    }

    fn key(&self) -> AttrKey<'_> {
        match self {
            AttrData::Bool(v) => AttrKey::Bool(*v),
            AttrData::Int32(v) => AttrKey::Int32(*v),
            AttrData::Int64(v) => AttrKey::Int64(*v),
            AttrData::Index(v) => AttrKey::Index(*v),
            AttrData::Float(v) => AttrKey::Float(*v),
            AttrData::Double(v) => AttrKey::Double(*v),
            AttrData::Complex64(r, i) => AttrKey::Complex64(*r, *i),
            AttrData::Complex128(r, i) => AttrKey::Complex128(*r, *i),
            AttrData::Str(s) => AttrKey::Str(s),
            AttrData::Array(a) => AttrKey::Array(a),
            AttrData::Type(t) => AttrKey::Type(*t),
            AttrData::IntArray(a) => AttrKey::IntArray(a),
            AttrData::DataType(d) => AttrKey::DataType(*d),
            AttrData::DataLayout(d) => AttrKey::DataLayout(*d),
            AttrData::Place(p) => AttrKey::Place(*p),
            AttrData::Dict(e) => AttrKey::Dict(DictEntries::Stored(e)),
        }
    }

    fn matches(&self, key: &AttrKey<'_>) -> bool {
        self.key() == *key
    }
}

/// Prints an attribute as Paddle does.
///
/// ```
/// use pir_runtime::{IrContext, phi::DataType};
/// let ctx = IrContext::new();
/// let t = ctx.type_attr(ctx.dense_tensor_type(DataType::Float32, &[2]));
/// let shown = t.display(&ctx);
/// assert_eq!(format!("<{shown}>"), "<tensor<2xf32>>");
/// ```
pub struct AttrDisplay<'a> {
    ctx: &'a IrContext,
    attr: Attribute,
}

impl fmt::Display for AttrDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_attr(f, self.ctx, self.attr)
    }
}

/// Formats `v` as C++'s `std::ostream << double` does by default (`%g`, 6 significant digits):
/// `1e-05`, `0.9`, `2`, `-0.738549`, `inf`, `nan`.
///
/// ```
/// let mut s = String::new();
/// pir_runtime::attributes::write_float_g(&mut s, 1e-5).unwrap();
/// assert_eq!(s, "1e-05");
/// ```
pub fn write_float_g(out: &mut (impl fmt::Write + ?Sized), v: f64) -> fmt::Result {
    const PRECISION: i32 = 6;
    if v.is_nan() {
        return out.write_str(if v.is_sign_negative() { "-nan" } else { "nan" });
    }
    if v.is_infinite() {
        return out.write_str(if v < 0.0 { "-inf" } else { "inf" });
    }
    if v == 0.0 {
        return out.write_str(if v.is_sign_negative() { "-0" } else { "0" });
    }
    // Round to PRECISION significant digits first; the exponent of the rounded value decides
    // between fixed and scientific notation, exactly as printf's %g does.
    let sci = format!("{:.*e}", (PRECISION - 1) as usize, v);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..PRECISION).contains(&exp) {
        let mantissa = trim_fraction(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        write!(out, "{mantissa}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (PRECISION - 1 - exp).max(0) as usize;
        let fixed = format!("{v:.decimals$}");
        out.write_str(trim_fraction(&fixed))
    }
}

fn trim_fraction(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

pub(crate) fn write_attr(
    out: &mut (impl fmt::Write + ?Sized),
    ctx: &IrContext,
    a: Attribute,
) -> fmt::Result {
    match ctx.attr_data(a) {
        AttrData::Bool(v) => out.write_str(if *v { "true" } else { "false" }),
        AttrData::Int32(v) => write!(out, "{v}"),
        AttrData::Int64(v) | AttrData::Index(v) => write!(out, "{v}"),
        AttrData::Float(v) => write_float_g(out, f64::from(*v)),
        AttrData::Double(v) => write_float_g(out, *v),
        // phi::dtype::complex's operator<<.
        AttrData::Complex64(r, i) => {
            out.write_str("real:")?;
            write_float_g(out, f64::from(*r))?;
            out.write_str(" imag:")?;
            write_float_g(out, f64::from(*i))
        }
        AttrData::Complex128(r, i) => {
            out.write_str("real:")?;
            write_float_g(out, *r)?;
            out.write_str(" imag:")?;
            write_float_g(out, *i)
        }
        // Paddle escapes only the double quote.
        AttrData::Str(s) => {
            out.write_char('"')?;
            for (i, part) in s.split('"').enumerate() {
                if i > 0 {
                    out.write_str("\\\"")?;
                }
                out.write_str(part)?;
            }
            out.write_char('"')
        }
        AttrData::Array(items) => {
            out.write_char('[')?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_char(',')?;
                }
                write_attr(out, ctx, *item)?;
            }
            out.write_char(']')
        }
        AttrData::Type(t) => crate::types::write_type(out, ctx, *t),
        AttrData::IntArray(v) => {
            out.write_char('[')?;
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    out.write_char(',')?;
                }
                write!(out, "{x}")?;
            }
            out.write_char(']')
        }
        AttrData::DataType(d) => out.write_str(d.name()),
        AttrData::DataLayout(d) => out.write_str(d.name()),
        AttrData::Place(p) => write!(out, "{p}"),
        AttrData::Dict(entries) => {
            out.write_char('{')?;
            for (i, (name, value)) in entries.iter().enumerate() {
                if i > 0 {
                    out.write_char(',')?;
                }
                out.write_str(name)?;
                out.write_char(':')?;
                write_attr(out, ctx, *value)?;
            }
            out.write_char('}')
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(v: f64) -> String {
        let mut s = String::new();
        write_float_g(&mut s, v).unwrap();
        s
    }

    /// The short string word is the bytes zero-padded, for every length and every byte
    /// position (distinct bytes, so a byte in the wrong place or lost shows).
    #[test]
    fn short_str_word_is_the_padded_bytes() {
        let src = [0x11u8, 0x22, 0x33, 0x44, 0x55, 0x66, 0xf7];
        for n in 0..=7 {
            let mut b = [0u8; 8];
            b[..n].copy_from_slice(&src[..n]);
            assert_eq!(
                short_str_word(&src[..n]),
                u64::from_le_bytes(b),
                "length {n}"
            );
        }
        // Distinct strings of up to 7 bytes keep distinct attributes, "" included.
        let ctx = crate::IrContext::new();
        let names = [
            "", "a", "ab", "ba", "abc", "NCHW", "NHWC", "relu6", "abcdefg", "abcdef",
        ];
        let attrs: Vec<_> = names.iter().map(|n| ctx.str_attr(n)).collect();
        for (i, a) in attrs.iter().enumerate() {
            assert_eq!(ctx.str_attr(names[i]), *a);
            assert!(attrs[..i].iter().all(|b| b != a), "{:?}", names[i]);
        }
    }

    #[test]
    fn floats_print_like_cpp_ostream() {
        assert_eq!(g(1e-5), "1e-05");
        assert_eq!(g(0.9), "0.9");
        assert_eq!(g(2.0), "2");
        assert_eq!(g(-0.738549), "-0.738549");
        assert_eq!(g(f64::from(-0.738_549_1_f32)), "-0.738549");
        assert_eq!(g(1e-8), "1e-08");
        assert_eq!(g(1.5), "1.5");
        assert_eq!(g(100000.0), "100000");
        assert_eq!(g(1000000.0), "1e+06");
        assert_eq!(g(123456789.0), "1.23457e+08");
        assert_eq!(g(0.0001), "0.0001");
        assert_eq!(g(0.00012345678), "0.000123457");
        assert_eq!(g(0.272166), "0.272166");
        assert_eq!(g(f64::from(0.9_f32)), "0.9");
        assert_eq!(g(999999.5), "1e+06");
        assert_eq!(g(-0.0), "-0");
        assert_eq!(g(f64::INFINITY), "inf");
        assert_eq!(g(-100.0), "-100");
    }
}
