//! The attribute dictionaries of recent typed builds, by op and argument values.
//!
//! A network builds the same op with the same attribute values over and over (every 3×3
//! convolution of a ResNet stage). Converting six Rust values to interned attributes and
//! interning their dictionary costs far more than the op itself, so each program remembers, for
//! a few recent (op, values) pairs, the dictionary they made. The values are kept as an owned
//! copy compared bit for bit (floats by their bits: `-0.0` is not `0.0`, a NaN matches only
//! itself), so a hit returns what converting again would.

use crate::attributes::Attribute;
use crate::meta::Scalar;
use crate::op_def::OpDef;

use super::attrs::AttrArg;
use super::infer::Inference;

const WAYS: usize = 16;

/// A scalar as its variant and bits.
type ScalarBits = (u8, u64, u64);

fn scalar_bits(s: Scalar) -> ScalarBits {
    match s {
        Scalar::Bool(v) => (0, u64::from(v), 0),
        Scalar::I32(v) => (1, u64::from(v as u32), 0),
        Scalar::I64(v) => (2, v as u64, 0),
        Scalar::F32(v) => (3, u64::from(v.to_bits()), 0),
        Scalar::F64(v) => (4, v.to_bits(), 0),
        Scalar::C64(r, i) => (5, u64::from(r.to_bits()), u64::from(i.to_bits())),
        Scalar::C128(r, i) => (6, r.to_bits(), i.to_bits()),
    }
}

/// An owned copy of one [`AttrArg`], exact to the bit.
#[derive(Debug, PartialEq)]
enum Kept {
    /// A value of one word: the variant's tag and the word.
    Word(u8, u64),
    Str(Box<str>),
    Bools(Box<[bool]>),
    I32s(Box<[i32]>),
    I64s(Box<[i64]>),
    F32s(Box<[u32]>),
    F64s(Box<[u64]>),
    Strs(Box<[Box<str>]>),
    Scalar(ScalarBits),
    Scalars(Box<[ScalarBits]>),
}

/// The tag and word of a one-word value.
#[inline]
fn word_of(a: &AttrArg<'_>) -> Option<(u8, u64)> {
    Some(match *a {
        AttrArg::Bool(v) => (0, u64::from(v)),
        AttrArg::I32(v) => (1, u64::from(v as u32)),
        AttrArg::I64(v) => (2, v as u64),
        AttrArg::F32(v) => (3, u64::from(v.to_bits())),
        AttrArg::F64(v) => (4, v.to_bits()),
        AttrArg::DataType(v) => (5, v as u64),
        AttrArg::DataLayout(v) => (6, v as u64),
        AttrArg::Place(v) => (7, (v.kind as u64) << 8 | u64::from(v.device as u8)),
        _ => return None,
    })
}

impl Kept {
    fn of(a: &AttrArg<'_>) -> Kept {
        if let Some((tag, w)) = word_of(a) {
            return Kept::Word(tag, w);
        }
        match *a {
            AttrArg::Str(v) => Kept::Str(v.into()),
            AttrArg::Bools(v) => Kept::Bools(v.into()),
            AttrArg::I32s(v) => Kept::I32s(v.into()),
            AttrArg::I64s(v) => Kept::I64s(v.into()),
            AttrArg::F32s(v) => Kept::F32s(v.iter().map(|x| x.to_bits()).collect()),
            AttrArg::F64s(v) => Kept::F64s(v.iter().map(|x| x.to_bits()).collect()),
            AttrArg::Strs(v) => Kept::Strs(v.iter().map(|&s| s.into()).collect()),
            AttrArg::Scalar(s) => Kept::Scalar(scalar_bits(s)),
            AttrArg::Scalars(v) => Kept::Scalars(v.iter().map(|&s| scalar_bits(s)).collect()),
            // One-word values are handled above.
            _ => Kept::Word(u8::MAX, 0),
        }
    }

    /// Whether `a` is the value kept.
    #[inline]
    fn is(&self, a: &AttrArg<'_>) -> bool {
        match (self, a) {
            (Kept::Word(tag, w), a) => word_of(a) == Some((*tag, *w)),
            (Kept::Str(k), AttrArg::Str(v)) => same(k.as_bytes(), v.as_bytes()),
            (Kept::Bools(k), AttrArg::Bools(v)) => same(k, v),
            (Kept::I32s(k), AttrArg::I32s(v)) => same(k, v),
            (Kept::I64s(k), AttrArg::I64s(v)) => same(k, v),
            (Kept::F32s(k), AttrArg::F32s(v)) => {
                k.len() == v.len() && k.iter().zip(*v).all(|(k, x)| *k == x.to_bits())
            }
            (Kept::F64s(k), AttrArg::F64s(v)) => {
                k.len() == v.len() && k.iter().zip(*v).all(|(k, x)| *k == x.to_bits())
            }
            (Kept::Strs(k), AttrArg::Strs(v)) => {
                k.len() == v.len() && k.iter().zip(*v).all(|(k, s)| **k == **s)
            }
            (Kept::Scalar(k), AttrArg::Scalar(s)) => *k == scalar_bits(*s),
            (Kept::Scalars(k), AttrArg::Scalars(v)) => {
                k.len() == v.len() && k.iter().zip(*v).all(|(k, &s)| *k == scalar_bits(s))
            }
            _ => false,
        }
    }
}

/// Element-wise equality of two short lists, inline (attribute lists hold a few items: a
/// `memcmp` call costs more than the compare).
#[inline]
fn same<T: PartialEq + Copy>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| *x == *y)
}

struct Entry {
    def: usize,
    args: Box<[Kept]>,
    dict: Attribute,
}

/// A small direct-mapped cache of (op, argument values) → dictionary; one per program, so its
/// handles are of the program's context.
#[derive(Default)]
pub(crate) struct AttrMemo {
    entries: [Option<Entry>; WAYS],
    /// The inferences of recently built ops, by op (as `entries`).
    inferences: [Option<(usize, Inference)>; WAYS],
}

fn way(def: &'static OpDef) -> usize {
    (def as *const OpDef as usize >> 4) % WAYS
}

impl AttrMemo {
    /// The dictionary remembered for `def` built with the values `attrs`.
    #[inline]
    pub(crate) fn get(&self, def: &'static OpDef, attrs: &[AttrArg<'_>]) -> Option<Attribute> {
        match &self.entries[way(def)] {
            Some(e)
                if e.def == def as *const OpDef as usize
                    && e.args.len() == attrs.len()
                    && e.args.iter().zip(attrs).all(|(k, a)| k.is(a)) =>
            {
                Some(e.dict)
            }
            _ => None,
        }
    }

    /// `def`'s inference: remembered, else `find`'s (remembered when found).
    #[inline]
    pub(crate) fn inference(
        &mut self,
        def: &'static OpDef,
        find: impl FnOnce() -> Option<Inference>,
    ) -> Option<Inference> {
        let (w, key) = (way(def), def as *const OpDef as usize);
        match self.inferences[w] {
            Some((k, i)) if k == key => Some(i),
            _ => {
                let i = find()?;
                self.inferences[w] = Some((key, i));
                Some(i)
            }
        }
    }

    /// Remembers that `def` built with the values `attrs` has dictionary `dict`.
    pub(crate) fn put(&mut self, def: &'static OpDef, attrs: &[AttrArg<'_>], dict: Attribute) {
        self.entries[way(def)] = Some(Entry {
            def: def as *const OpDef as usize,
            args: attrs.iter().map(Kept::of).collect(),
            dict,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phi::{DataLayout, DataType, Place};

    #[test]
    fn a_hit_needs_the_same_values_to_the_bit() {
        let cases: [&[AttrArg<'_>]; 20] = [
            &[AttrArg::I32(1)],
            &[AttrArg::I64(1)],
            &[AttrArg::Bool(true)],
            &[AttrArg::I32s(&[1])],
            &[AttrArg::I32s(&[1, 0])],
            &[AttrArg::I64s(&[1, 0])],
            &[AttrArg::I32s(&[]), AttrArg::I32(0)],
            &[AttrArg::Str("ab")],
            &[AttrArg::Str("ab\0")],
            &[AttrArg::Strs(&["ab"])],
            &[AttrArg::Strs(&["a", "b"])],
            &[AttrArg::Scalar(Scalar::I32(1))],
            &[AttrArg::Scalar(Scalar::C64(1.0, -0.0))],
            &[AttrArg::Scalar(Scalar::C64(1.0, 0.0))],
            &[AttrArg::F32(-0.0)],
            &[AttrArg::F32(0.0)],
            &[AttrArg::F32s(&[f32::NAN])],
            &[AttrArg::DataType(DataType::Float32)],
            &[AttrArg::DataLayout(DataLayout::Nchw)],
            &[AttrArg::Place(Place::cpu())],
        ];
        static DEF: OpDef = OpDef::new("t.op", "t");
        let ctx = crate::IrContext::new();
        let dict = ctx.empty_dict();
        for (i, a) in cases.iter().enumerate() {
            let mut memo = AttrMemo::default();
            memo.put(&DEF, a, dict);
            for (j, b) in cases.iter().enumerate() {
                assert_eq!(i == j, memo.get(&DEF, b).is_some(), "{a:?} vs {b:?}");
            }
        }
    }
}
