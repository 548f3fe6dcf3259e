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
    for c in s.as_bytes().chunks(8) {
        let mut w = [0u8; 8];
        w[..c.len()].copy_from_slice(c);
        out.push(u64::from_le_bytes(w));
    }
}

/// Appends the exact encoding of `args` to `out`: per value, a tag naming its variant, its
/// length where it has one, then its contents, so different values never encode alike.
pub(crate) fn encode(args: &[AttrArg<'_>], out: &mut Encoded) {
    for a in args {
        match *a {
            AttrArg::Bool(v) => out.extend([0, u64::from(v)]),
            AttrArg::I32(v) => out.extend([1, u64::from(v as u32)]),
            AttrArg::I64(v) => out.extend([2, v as u64]),
            AttrArg::F32(v) => out.extend([3, u64::from(v.to_bits())]),
            AttrArg::F64(v) => out.extend([4, v.to_bits()]),
            AttrArg::Str(v) => {
                out.push(5);
                str_words(v, out);
            }
            AttrArg::Bools(v) => {
                out.extend([6, v.len() as u64]);
                out.extend(v.iter().map(|&x| u64::from(x)));
            }
            AttrArg::I32s(v) => {
                out.extend([7, v.len() as u64]);
                out.extend(v.iter().map(|&x| u64::from(x as u32)));
            }
            AttrArg::I64s(v) => {
                out.extend([8, v.len() as u64]);
                out.extend(v.iter().map(|&x| x as u64));
            }
            AttrArg::F32s(v) => {
                out.extend([9, v.len() as u64]);
                out.extend(v.iter().map(|&x| u64::from(x.to_bits())));
            }
            AttrArg::F64s(v) => {
                out.extend([10, v.len() as u64]);
                out.extend(v.iter().map(|&x| x.to_bits()));
            }
            AttrArg::Strs(v) => {
                out.extend([11, v.len() as u64]);
                for s in v {
                    str_words(s, out);
                }
            }
            AttrArg::Scalar(s) => {
                out.push(12);
                scalar_words(s, out);
            }
            AttrArg::Scalars(v) => {
                out.extend([13, v.len() as u64]);
                for &s in v {
                    scalar_words(s, out);
                }
            }
            AttrArg::DataType(v) => out.extend([14, v as u64]),
            AttrArg::DataLayout(v) => out.extend([15, v as u64]),
            AttrArg::Place(v) => out.extend([16, (v.kind as u64) << 8 | u64::from(v.device as u8)]),
        }
    }
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
