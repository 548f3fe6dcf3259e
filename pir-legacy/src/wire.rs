//! The protobuf wire format, as much of it as `framework.proto` needs: a cursor over one
//! message's bytes ([`Reader`]), the field loop of a message ([`fields`]) and the readers of
//! each field kind. Problems are [`WireProblem`]s; the field loop places them in the field
//! they occurred in ([`WireError`]).
//!
//! The rules are protobuf's (and prost's): unknown fields are skipped, groups included; a
//! singular field seen twice keeps the last value; a repeated scalar may be packed or not; a
//! string must be UTF-8; messages and groups nest at most 100 deep.

use crate::error::{WireError, WireProblem};

/// Wire type of varints (`int32`, `int64`, `bool`, enums).
pub(crate) const VARINT: u8 = 0;
/// Wire type of `double` / `fixed64`.
pub(crate) const FIXED64: u8 = 1;
/// Wire type of strings, bytes, messages and packed runs.
pub(crate) const LEN: u8 = 2;
const START_GROUP: u8 = 3;
const END_GROUP: u8 = 4;
/// Wire type of `float` / `fixed32`.
pub(crate) const FIXED32: u8 = 5;

/// How deep messages and groups may nest (protobuf's and prost's default limit).
const RECURSION_LIMIT: u32 = 100;

/// A message of `framework.proto`: its name and field names, for error messages.
#[derive(Debug)]
pub(crate) struct Msg {
    /// The message name (`OpDesc.Attr`).
    pub(crate) name: &'static str,
    /// `(field number, field name)` of every field the message defines.
    pub(crate) fields: &'static [(u32, &'static str)],
}

impl Msg {
    fn field_name(&self, number: u32) -> &'static str {
        self.fields
            .iter()
            .find(|(n, _)| *n == number)
            .map_or("", |(_, name)| name)
    }
}

/// A cursor over wire data.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    #[inline]
    pub(crate) fn varint(&mut self) -> Result<u64, WireProblem> {
        // Keys, lengths and most values are one byte.
        if let Some((&byte, rest)) = self.buf.split_first() {
            if byte < 0x80 {
                self.buf = rest;
                return Ok(u64::from(byte));
            }
        }
        self.varint_slow()
    }

    #[cold]
    fn varint_slow(&mut self) -> Result<u64, WireProblem> {
        let mut value = 0u64;
        for i in 0..10 {
            let Some((&byte, rest)) = self.buf.split_first() else {
                return Err(WireProblem::Truncated);
            };
            self.buf = rest;
            // The tenth byte may only contribute bit 63.
            if i == 9 && byte > 1 {
                return Err(WireProblem::VarintOverflow);
            }
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte < 0x80 {
                return Ok(value);
            }
        }
        Err(WireProblem::VarintOverflow)
    }

    /// A field key: `(field number, wire type)`.
    #[inline]
    fn key(&mut self) -> Result<(u32, u8), WireProblem> {
        let key = u32::try_from(self.varint()?).map_err(|_| WireProblem::InvalidKey)?;
        let wire = (key & 7) as u8;
        if wire > FIXED32 {
            return Err(WireProblem::UnknownWireType(wire));
        }
        match key >> 3 {
            0 => Err(WireProblem::FieldZero),
            field => Ok((field, wire)),
        }
    }

    #[inline]
    fn take(&mut self, n: usize) -> Result<&'a [u8], WireProblem> {
        if n > self.buf.len() {
            return Err(WireProblem::Truncated);
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    #[inline]
    fn len_delimited(&mut self) -> Result<&'a [u8], WireProblem> {
        let n = usize::try_from(self.varint()?).map_err(|_| WireProblem::Truncated)?;
        self.take(n)
    }

    fn fixed<const N: usize>(&mut self) -> Result<[u8; N], WireProblem> {
        let bytes = self.take(N)?;
        bytes.try_into().map_err(|_| WireProblem::Truncated)
    }

    /// Skips the value of a field the message does not define; `budget` is how much deeper
    /// groups may nest here.
    fn skip(&mut self, field: u32, wire: u8, budget: u32) -> Result<(), WireProblem> {
        match wire {
            VARINT => self.varint().map(drop),
            FIXED64 => self.take(8).map(drop),
            LEN => self.len_delimited().map(drop),
            FIXED32 => self.take(4).map(drop),
            START_GROUP => self.skip_group(field, budget),
            _ => Err(WireProblem::UnexpectedEndGroup),
        }
    }

    /// Skips a group up to its end tag, nested groups included (without recursion).
    fn skip_group(&mut self, field: u32, budget: u32) -> Result<(), WireProblem> {
        if budget == 0 {
            return Err(WireProblem::TooDeep);
        }
        let mut open = vec![field];
        while let Some(&innermost) = open.last() {
            let (inner, wire) = self.key()?;
            match wire {
                END_GROUP if inner == innermost => {
                    open.pop();
                }
                END_GROUP => return Err(WireProblem::UnexpectedEndGroup),
                // A field of the group is one level deeper than the group.
                _ if open.len() as u32 >= budget => return Err(WireProblem::TooDeep),
                START_GROUP => open.push(inner),
                _ => self.skip(inner, wire, 0)?,
            }
        }
        Ok(())
    }
}

/// Reads every field of message `msg` (nested `depth` levels below `ProgramDesc`):
/// `on_field(number, wire type, reader)` reads the value of a field it knows and returns
/// `Ok(true)`, or returns `Ok(false)` to have the field skipped. Errors are placed in the
/// field being read.
#[inline]
pub(crate) fn fields<'a>(
    bytes: &'a [u8],
    msg: &'static Msg,
    depth: u32,
    mut on_field: impl FnMut(u32, u8, &mut Reader<'a>) -> Result<bool, WireError>,
) -> Result<(), WireError> {
    let mut r = Reader::new(bytes);
    while !r.is_empty() {
        let (field, wire) = r
            .key()
            .map_err(|p| WireError::new(p).in_message(msg.name, None))?;
        let place = |e: WireError| e.in_message(msg.name, Some((field, msg.field_name(field))));
        if !on_field(field, wire, &mut r).map_err(place)? {
            r.skip(field, wire, RECURSION_LIMIT.saturating_sub(depth))
                .map_err(|p| place(p.into()))?;
        }
    }
    Ok(())
}

#[inline]
fn expect(wire: u8, expected: u8) -> Result<(), WireProblem> {
    if wire == expected {
        Ok(())
    } else {
        Err(WireProblem::WrongWireType {
            found: wire,
            expected,
        })
    }
}

/// A varint field (`int64`, `uint64`).
#[inline]
pub(crate) fn varint(r: &mut Reader<'_>, wire: u8) -> Result<u64, WireProblem> {
    expect(wire, VARINT)?;
    r.varint()
}

/// An `int32` or enum field (the low 32 bits of the varint, as protobuf reads it).
#[inline]
pub(crate) fn int32(r: &mut Reader<'_>, wire: u8) -> Result<i32, WireProblem> {
    varint(r, wire).map(|v| v as i32)
}

/// An `int64` field.
#[inline]
pub(crate) fn int64(r: &mut Reader<'_>, wire: u8) -> Result<i64, WireProblem> {
    varint(r, wire).map(|v| v as i64)
}

/// A `bool` field.
#[inline]
pub(crate) fn boolean(r: &mut Reader<'_>, wire: u8) -> Result<bool, WireProblem> {
    varint(r, wire).map(|v| v != 0)
}

/// A `float` field.
#[inline]
pub(crate) fn float(r: &mut Reader<'_>, wire: u8) -> Result<f32, WireProblem> {
    expect(wire, FIXED32)?;
    r.fixed().map(f32::from_le_bytes)
}

/// A `double` field.
#[inline]
pub(crate) fn double(r: &mut Reader<'_>, wire: u8) -> Result<f64, WireProblem> {
    expect(wire, FIXED64)?;
    r.fixed().map(f64::from_le_bytes)
}

/// The bytes of a message field.
#[inline]
pub(crate) fn message<'a>(r: &mut Reader<'a>, wire: u8) -> Result<&'a [u8], WireProblem> {
    expect(wire, LEN)?;
    r.len_delimited()
}

/// A `string` field.
#[inline]
pub(crate) fn string<'a>(r: &mut Reader<'a>, wire: u8) -> Result<&'a str, WireProblem> {
    std::str::from_utf8(message(r, wire)?).map_err(|_| WireProblem::InvalidUtf8)
}

/// One element of a repeated scalar field, or a packed run of them. `elem_wire` is the
/// element's wire type (`VARINT`, `FIXED32` or `FIXED64`), `conv` turns its bits into a value.
#[inline]
pub(crate) fn repeated<T>(
    r: &mut Reader<'_>,
    wire: u8,
    elem_wire: u8,
    out: &mut Vec<T>,
    conv: impl Fn(u64) -> T,
) -> Result<(), WireProblem> {
    if wire == LEN && elem_wire != LEN {
        let mut run = Reader::new(r.len_delimited()?);
        while !run.is_empty() {
            out.push(conv(scalar(&mut run, elem_wire)?));
        }
        return Ok(());
    }
    expect(wire, elem_wire)?;
    out.push(conv(scalar(r, elem_wire)?));
    Ok(())
}

/// The bits of a scalar of wire type `wire`.
#[inline]
fn scalar(r: &mut Reader<'_>, wire: u8) -> Result<u64, WireProblem> {
    match wire {
        FIXED32 => r.fixed().map(|b| u64::from(u32::from_le_bytes(b))),
        FIXED64 => r.fixed().map(u64::from_le_bytes),
        _ => r.varint(),
    }
}

/// Best effort: the first `string` field `field` of a message, read only as far as its wire
/// data is regular. Names a variable, op or attribute whose bytes are malformed further on.
pub(crate) fn first_string(bytes: &[u8], field: u32) -> Option<&str> {
    let mut r = Reader::new(bytes);
    while !r.is_empty() {
        let (number, wire) = r.key().ok()?;
        if number == field && wire == LEN {
            return std::str::from_utf8(r.len_delimited().ok()?).ok();
        }
        r.skip(number, wire, RECURSION_LIMIT).ok()?;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skip_all(bytes: &[u8], budget: u32) -> Result<(), WireProblem> {
        let mut r = Reader::new(bytes);
        while !r.is_empty() {
            let (field, wire) = r.key()?;
            r.skip(field, wire, budget)?;
        }
        Ok(())
    }

    #[test]
    fn varints_follow_protobuf() {
        let read = |b: &[u8]| Reader::new(b).varint();
        assert_eq!(read(&[0x96, 0x01]), Ok(150));
        assert_eq!(
            read(&[0xff; 9].iter().chain(&[0x01]).copied().collect::<Vec<_>>()),
            Ok(u64::MAX)
        );
        assert_eq!(
            read(&[0xff; 9].iter().chain(&[0x02]).copied().collect::<Vec<_>>()),
            Err(WireProblem::VarintOverflow)
        );
        assert_eq!(read(&[0x80, 0x80]), Err(WireProblem::Truncated));
    }

    #[test]
    fn keys_are_checked() {
        assert_eq!(Reader::new(&[0x08]).key(), Ok((1, VARINT)));
        assert_eq!(Reader::new(&[0x00]).key(), Err(WireProblem::FieldZero));
        assert_eq!(
            Reader::new(&[0x0e]).key(),
            Err(WireProblem::UnknownWireType(6))
        );
        // 2^32: one more than a key can be.
        assert_eq!(
            Reader::new(&[0x80, 0x80, 0x80, 0x80, 0x10]).key(),
            Err(WireProblem::InvalidKey)
        );
    }

    #[test]
    fn groups_are_skipped_and_checked() {
        // Field 1 group { field 2 varint 5, field 3 group {} } end, then field 4 varint.
        let ok = [0x0b, 0x10, 0x05, 0x1b, 0x1c, 0x0c, 0x20, 0x01];
        assert_eq!(skip_all(&ok, 100), Ok(()));
        assert_eq!(skip_all(&[0x0c], 100), Err(WireProblem::UnexpectedEndGroup));
        // Closed with the wrong field number.
        assert_eq!(
            skip_all(&[0x0b, 0x14], 100),
            Err(WireProblem::UnexpectedEndGroup)
        );
        assert_eq!(skip_all(&[0x0b, 0x10], 100), Err(WireProblem::Truncated));
        // Nesting: one group needs a budget of 1, a field inside it 2.
        assert_eq!(skip_all(&[0x0b, 0x0c], 1), Ok(()));
        assert_eq!(
            skip_all(&[0x0b, 0x10, 0x05, 0x0c], 1),
            Err(WireProblem::TooDeep)
        );
        assert_eq!(skip_all(&[0x0b, 0x0c], 0), Err(WireProblem::TooDeep));
        let deep: Vec<u8> = std::iter::repeat_n(0x0b, 100)
            .chain(std::iter::repeat_n(0x0c, 100))
            .collect();
        assert_eq!(skip_all(&deep, 100), Ok(()));
        assert_eq!(skip_all(&deep, 99), Err(WireProblem::TooDeep));
    }

    #[test]
    fn repeated_scalars_packed_or_not() {
        let mut out = Vec::new();
        // Unpacked element, then a packed run of two fixed32.
        repeated(&mut Reader::new(&[0x2a]), VARINT, VARINT, &mut out, |v| v).unwrap();
        let run = [0x08, 1, 0, 0, 0, 2, 0, 0, 0];
        repeated(&mut Reader::new(&run), LEN, FIXED32, &mut out, |v| v).unwrap();
        assert_eq!(out, [0x2a, 1, 2]);
        // A run whose length is not a whole number of elements.
        let bad = [0x03, 1, 0, 0];
        assert_eq!(
            repeated(&mut Reader::new(&bad), LEN, FIXED32, &mut out, |v| v),
            Err(WireProblem::Truncated)
        );
        assert_eq!(
            repeated(&mut Reader::new(&[0]), FIXED64, VARINT, &mut out, |v| v),
            Err(WireProblem::WrongWireType {
                found: FIXED64,
                expected: VARINT
            })
        );
    }

    #[test]
    fn first_string_survives_garbage() {
        // name "axis" (field 1) after an int field.
        let attr = [0x10, 0x00, 0x0a, 0x04, b'a', b'x', b'i', b's', 0x18, 0xff];
        assert_eq!(first_string(&attr, 1), Some("axis"));
        assert_eq!(first_string(&attr, 5), None);
        for cut in 0..attr.len() {
            let _ = first_string(&attr[..cut], 1);
        }
        assert_eq!(first_string(&[0xff; 12], 1), None);
        assert_eq!(first_string(&[0x0a, 0x05, b'a'], 1), None);
    }
}
