//! The parsed JSON document: a tree that borrows its strings from the text and leaves the ops of
//! every block unparsed until they are read.
//!
//! `serde_json::Value` made reading a 28 MB program take 914 MB: a small object (a type, an
//! attribute, an operand) became a B-tree node of hundreds of bytes and each string a heap
//! copy. Here objects and arrays are exact-size boxed slices, strings borrow the text (unless they
//! hold escapes), and the elements of a block's `ops` array are kept as raw text
//! ([`RawValue`]: checked by the parser, not built). The reader builds one op's tree at a time
//! and drops it after (nested blocks defer their ops the same way), so reading takes the text,
//! the program and one op's tree, not a tree of the whole file.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::Deserializer;
use serde_json::value::RawValue;
use serde_json::Number;

use crate::error::JsonError;

/// A JSON value borrowing from the document text `'a`.
#[derive(Debug)]
pub(crate) enum Json<'a> {
    Null,
    Bool(bool),
    Number(Number),
    Str(Cow<'a, str>),
    Array(Box<[Json<'a>]>),
    /// Entries in file order; a repeated key's last value is the one that counts, at the place
    /// of its first occurrence (as `serde_json::Map` keeps them).
    Object(Box<[(Cow<'a, str>, Json<'a>)]>),
    /// An op of a block, not parsed yet (see [`parse_op`]).
    Raw(&'a RawValue),
}

/// Parses a document (a leading UTF-8 byte-order mark is skipped, as nlohmann::json does).
pub(crate) fn parse(json: &str) -> Result<Json<'_>, JsonError> {
    let json = json.strip_prefix('\u{feff}').unwrap_or(json);
    let mut de = serde_json::Deserializer::from_str(json);
    let v = Seed(Mode::Any)
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| JsonError::from_serde(&e))?;
    Ok(v)
}

/// The tree of a raw op (its own nested blocks' ops stay raw).
pub(crate) fn parse_op(raw: &RawValue) -> Result<Json<'_>, JsonError> {
    parse(raw.get())
}

impl<'a> Json<'a> {
    /// The value of `key`, if this is an object that has it.
    pub(crate) fn get(&self, key: &str) -> Option<&Json<'a>> {
        match self {
            Json::Object(entries) => entries.iter().rev().find(|(k, _)| k == key).map(|e| &e.1),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub(crate) fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    pub(crate) fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    /// The keys of an object, each once, in the order of their first occurrence.
    pub(crate) fn keys(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = Vec::new();
        if let Json::Object(entries) = self {
            for (k, _) in entries.iter() {
                if !keys.contains(&&**k) {
                    keys.push(k);
                }
            }
        }
        keys
    }
}

impl fmt::Display for Json<'_> {
    /// Compact JSON (numbers as serde_json prints them); a raw op as its text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Json::Null => f.write_str("null"),
            Json::Bool(b) => write!(f, "{b}"),
            Json::Number(n) => write!(f, "{n}"),
            Json::Str(s) => write!(f, "{}", serde_json::Value::from(&**s)),
            Json::Array(items) => {
                f.write_str("[")?;
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str("]")
            }
            Json::Object(entries) => {
                f.write_str("{")?;
                for (i, (k, x)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{}:{x}", serde_json::Value::from(&**k))?;
                }
                f.write_str("}")
            }
            Json::Raw(r) => f.write_str(r.get()),
        }
    }
}

/// Where a value is, for deciding which arrays of ops stay raw: the elements of an array under
/// the key `blocks` are blocks, and the elements of a block's `ops` are ops.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Any,
    Blocks,
    Block,
    Ops,
}

struct Seed(Mode);

impl<'de> DeserializeSeed<'de> for Seed {
    type Value = Json<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Json<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

/// A string, borrowed from the text when it has no escapes.
struct Text;

impl<'de> DeserializeSeed<'de> for Text {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Text {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

/// One raw op.
struct RawOp;

impl<'de> DeserializeSeed<'de> for RawOp {
    type Value = Json<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Json<'de>, D::Error> {
        let raw: &'de RawValue = serde::Deserialize::deserialize(d)?;
        Ok(Json::Raw(raw))
    }
}

impl<'de> Visitor<'de> for Seed {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json<'de>, E> {
        // serde_json never hands over a non-finite number.
        Ok(Number::from_f64(v).map_or(Json::Null, Json::Number))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Owned(v.to_string())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Json<'de>, E> {
        Ok(Json::Str(Cow::Owned(v)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        match self.0 {
            Mode::Ops => {
                while let Some(v) = seq.next_element_seed(RawOp)? {
                    items.push(v);
                }
            }
            mode => {
                let inner = if mode == Mode::Blocks {
                    Mode::Block
                } else {
                    Mode::Any
                };
                while let Some(v) = seq.next_element_seed(Seed(inner))? {
                    items.push(v);
                }
            }
        }
        Ok(Json::Array(items.into_boxed_slice()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(16));
        while let Some(k) = map.next_key_seed(Text)? {
            let mode = match (&*k, self.0) {
                ("blocks", _) => Mode::Blocks,
                ("ops", Mode::Block) => Mode::Ops,
                _ => Mode::Any,
            };
            let v = map.next_value_seed(Seed(mode))?;
            entries.push((k, v));
        }
        Ok(Json::Object(entries.into_boxed_slice()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_of_blocks_stay_raw_and_the_rest_is_a_tree() {
        let doc = r##"{"program":{"regions":[{"blocks":[{"ops":[{"#":"a","regions":[{"blocks":[{"ops":[{"x":1}]}]}]}],"x":{"ops":[1]}}]}]},"ops":[2]}"##;
        let v = parse(doc).unwrap();
        let block = &v.get("program").unwrap().get("regions").unwrap();
        let Json::Array(regions) = block else {
            panic!()
        };
        let Json::Array(blocks) = regions[0].get("blocks").unwrap() else {
            panic!()
        };
        let Json::Array(ops) = blocks[0].get("ops").unwrap() else {
            panic!()
        };
        let Json::Raw(raw) = &ops[0] else {
            panic!("{:?}", ops[0])
        };
        // Parsed on demand, with its own nested block's ops raw again.
        let op = parse_op(raw).unwrap();
        assert_eq!(op.get("#").and_then(Json::as_str), Some("a"));
        let nested = op.get("regions").unwrap().to_string();
        assert_eq!(nested, r##"[{"blocks":[{"ops":[{"x":1}]}]}]"##);
        // `ops` outside a block, and under a block's other keys, are ordinary arrays.
        assert!(
            matches!(blocks[0].get("x").unwrap().get("ops"), Some(Json::Array(a)) if matches!(a[0], Json::Number(_)))
        );
        assert!(matches!(v.get("ops"), Some(Json::Array(a)) if matches!(a[0], Json::Number(_))));
    }

    #[test]
    fn strings_borrow_unless_escaped_and_repeated_keys_keep_the_last_value() {
        let v = parse(r#"{"a":"plain","b":"esc\"aped","a":"again"}"#).unwrap();
        assert!(matches!(v.get("b"), Some(Json::Str(Cow::Owned(s))) if s == "esc\"aped"));
        assert!(matches!(
            v.get("a"),
            Some(Json::Str(Cow::Borrowed("again")))
        ));
        assert_eq!(v.keys(), ["a", "b"]);
        assert!(parse("{\"a\":1} x").is_err(), "trailing characters");
        assert!(parse("\u{feff}[1]").is_ok(), "a byte-order mark is skipped");
    }
}
