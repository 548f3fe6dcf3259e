//! The attribute dictionaries of recent typed builds, by op and argument values.
//!
//! A network builds the same op with the same attribute values over and over (every 3×3
//! convolution of a ResNet stage). Converting six Rust values to interned attributes and
//! interning their dictionary costs far more than the op itself, so each program remembers, for
//! a few recent (op, values) pairs, the dictionary they made. The values are kept encoded as
//! words, exactly: a hit compares the encodings, so it returns what converting again would.

use smallvec::SmallVec;

use crate::attributes::Attribute;
use crate::meta::Scalar;
use crate::op_def::OpDef;

use super::attrs::AttrArg;

/// The encoded argument values of one build.
pub(crate) type Encoded = SmallVec<[u64; 24]>;

const WAYS: usize = 16;

struct Entry {
    def: usize,
    args: Box<[u64]>,
    dict: Attribute,
}

/// A small direct-mapped cache of (op, encoded values) → dictionary; one per program, so its
/// handles are of the program's context.
#[derive(Default)]
pub(crate) struct AttrMemo {
    entries: [Option<Entry>; WAYS],
}

fn way(def: &'static OpDef) -> usize {
    (def as *const OpDef as usize >> 4) % WAYS
}

impl AttrMemo {
    /// The dictionary remembered for `def` built with values `args`.
    #[inline]
    pub(crate) fn get(&self, def: &'static OpDef, args: &[u64]) -> Option<Attribute> {
        match &self.entries[way(def)] {
            Some(e) if e.def == def as *const OpDef as usize && *e.args == *args => Some(e.dict),
            _ => None,
        }
    }

    /// Remembers that `def` built with values `args` has dictionary `dict`.
    pub(crate) fn put(&mut self, def: &'static OpDef, args: &[u64], dict: Attribute) {
        self.entries[way(def)] = Some(Entry {
            def: def as *const OpDef as usize,
            args: args.into(),
            dict,
        });
    }
}

fn scalar_words(s: Scalar, out: &mut Encoded) {
    let (tag, bits) = match s {
        Scalar::Bool(v) => (0, u64::from(v)),
        Scalar::I32(v) => (1, u64::from(v as u32)),
        Scalar::I64(v) => (2, v as u64),
        Scalar::F32(v) => (3, u64::from(v.to_bits())),
        Scalar::F64(v) => (4, v.to_bits()),
        Scalar::C64(r, i) => (5, u64::from(r.to_bits()) | u64::from(i.to_bits()) << 32),
        Scalar::C128(r, i) => {
            out.push(6);
            out.push(r.to_bits());
            out.push(i.to_bits());
            return;
        }
    };
    out.push(tag);
    out.push(bits);
}

fn str_words(s: &str, out: &mut Encoded) {
    out.push(s.len() as u64);
    let mut chunks = s.as_bytes().chunks_exact(8);
    for c in chunks.by_ref() {
        out.push(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = 0u64;
        for (i, &b) in rest.iter().enumerate() {
            w |= u64::from(b) << (8 * i);
        }
        out.push(w);
    }
}

/// Appends `tag`, the length of `items`, then each item's word.
#[inline]
fn words<T: Copy>(tag: u64, items: &[T], word: impl Fn(T) -> u64, out: &mut Encoded) {
    out.reserve(items.len() + 2);
    out.push(tag);
    out.push(items.len() as u64);
    for &x in items {
        out.push(word(x));
    }
}

/// Appends the exact encoding of `args` to `out`: per value, a tag naming its variant, its
/// length where it has one, then its contents, so different values never encode alike.
pub(crate) fn encode(args: &[AttrArg<'_>], out: &mut Encoded) {
    for a in args {
        match *a {
            AttrArg::Bool(v) => one(0, u64::from(v), out),
            AttrArg::I32(v) => one(1, u64::from(v as u32), out),
            AttrArg::I64(v) => one(2, v as u64, out),
            AttrArg::F32(v) => one(3, u64::from(v.to_bits()), out),
            AttrArg::F64(v) => one(4, v.to_bits(), out),
            AttrArg::Str(v) => {
                out.push(5);
                str_words(v, out);
            }
            AttrArg::Bools(v) => words(6, v, u64::from, out),
            AttrArg::I32s(v) => words(7, v, |x| u64::from(x as u32), out),
            AttrArg::I64s(v) => words(8, v, |x| x as u64, out),
            AttrArg::F32s(v) => words(9, v, |x| u64::from(x.to_bits()), out),
            AttrArg::F64s(v) => words(10, v, f64::to_bits, out),
            AttrArg::Strs(v) => {
                out.push(11);
                out.push(v.len() as u64);
                for s in v {
                    str_words(s, out);
                }
            }
            AttrArg::Scalar(s) => {
                out.push(12);
                scalar_words(s, out);
            }
            AttrArg::Scalars(v) => {
                out.push(13);
                out.push(v.len() as u64);
                for &s in v {
                    scalar_words(s, out);
                }
            }
            AttrArg::DataType(v) => one(14, v as u64, out),
            AttrArg::DataLayout(v) => one(15, v as u64, out),
            AttrArg::Place(v) => one(16, (v.kind as u64) << 8 | u64::from(v.device as u8), out),
        }
    }
}

#[inline]
fn one(tag: u64, word: u64, out: &mut Encoded) {
    out.push(tag);
    out.push(word);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(args: &[AttrArg<'_>]) -> Encoded {
        let mut out = Encoded::new();
        encode(args, &mut out);
        out
    }

    #[test]
    fn different_values_encode_differently() {
        let cases: [&[AttrArg<'_>]; 12] = [
            &[AttrArg::I32(1)],
            &[AttrArg::I64(1)],
            &[AttrArg::I32s(&[1])],
            &[AttrArg::I32s(&[1, 0])],
            &[AttrArg::I32s(&[]), AttrArg::I32(0)],
            &[AttrArg::Str("ab")],
            &[AttrArg::Str("ab\0")],
            &[AttrArg::Strs(&["ab"])],
            &[AttrArg::Strs(&["a", "b"])],
            &[AttrArg::Scalar(Scalar::I32(1))],
            &[AttrArg::F32(-0.0)],
            &[AttrArg::F32(0.0)],
        ];
        for (i, a) in cases.iter().enumerate() {
            for (j, b) in cases.iter().enumerate() {
                assert_eq!(i == j, enc(a) == enc(b), "{a:?} vs {b:?}");
            }
        }
    }
}
