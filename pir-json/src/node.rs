//! A JSON value together with its path from the document root, so that every error names the
//! exact place (`$.program.regions[0].blocks[0].ops[3].O[0].TT`). The path is only rendered when
//! an error is made.

use crate::error::{JsonError, Location};
use crate::tree::Json;

type Value<'v> = Json<'v>;

#[derive(Clone, Copy)]
enum Seg {
    Root,
    Key(&'static str),
    Index(usize),
}

pub(crate) use crate::tree::parse;

/// A JSON value and where it is. `'v`: the document; `'p`: the parent chain on the stack.
#[derive(Clone, Copy)]
pub(crate) struct Node<'v, 'p> {
    pub(crate) value: &'v Value<'v>,
    parent: Option<&'p Node<'v, 'p>>,
    seg: Seg,
}

impl<'v, 'p> Node<'v, 'p> {
    pub(crate) fn root(value: &'v Value<'v>) -> Node<'v, 'v> {
        Node {
            value,
            parent: None,
            seg: Seg::Root,
        }
    }

    /// The JSON path of this node.
    pub(crate) fn path(&self) -> String {
        let mut segs = Vec::new();
        let mut cur = Some(self);
        while let Some(n) = cur {
            segs.push(n.seg);
            cur = n.parent;
        }
        let mut out = String::from("$");
        for s in segs.iter().rev() {
            match s {
                Seg::Root => {}
                Seg::Key(k) if k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                    out.push('.');
                    out.push_str(k);
                }
                Seg::Key(k) => {
                    out.push_str("[\"");
                    out.push_str(k);
                    out.push_str("\"]");
                }
                Seg::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
            }
        }
        out
    }

    pub(crate) fn location(&self) -> Location {
        Location {
            path: self.path(),
            op: None,
        }
    }

    /// `expected ..., found <this value>`.
    #[cold]
    pub(crate) fn unexpected(&self, expected: impl Into<String>) -> JsonError {
        JsonError::Unexpected {
            location: self.location(),
            expected: expected.into(),
            found: describe(self.value),
        }
    }

    /// `expected ..., found <found>` (when the value itself is not the whole story).
    #[cold]
    pub(crate) fn unexpected_found(
        &self,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> JsonError {
        JsonError::Unexpected {
            location: self.location(),
            expected: expected.into(),
            found: found.into(),
        }
    }

    #[cold]
    pub(crate) fn unsupported(&self, what: impl Into<String>) -> JsonError {
        JsonError::Unsupported {
            location: self.location(),
            what: what.into(),
        }
    }

    /// This node at the same place, holding `value` (an op's tree in place of its raw text).
    pub(crate) fn with_value<'w>(&self, value: &'w Value<'w>) -> Node<'w, 'p>
    where
        'v: 'w,
        'p: 'w,
    {
        Node {
            value,
            parent: self.parent,
            seg: self.seg,
        }
    }

    fn child(&self, value: &'v Value<'v>, seg: Seg) -> Node<'v, '_> {
        Node {
            value,
            parent: Some(self),
            seg,
        }
    }

    /// The value of `key` in this object; `expected` says what the key should hold.
    pub(crate) fn key(&self, key: &'static str, expected: &str) -> Result<Node<'v, '_>, JsonError> {
        match self.opt_key(key, expected)? {
            Some(n) => Ok(n),
            None => Err(JsonError::MissingKey {
                location: self.location(),
                key: key.to_string(),
                expected: expected.to_string(),
            }),
        }
    }

    /// The value of `key` in this object, if present.
    pub(crate) fn opt_key(
        &self,
        key: &'static str,
        expected: &str,
    ) -> Result<Option<Node<'v, '_>>, JsonError> {
        match self.value {
            Value::Object(_) => Ok(self.value.get(key).map(|v| self.child(v, Seg::Key(key)))),
            _ => Err(self.unexpected(format!("an object with key {key:?} ({expected})"))),
        }
    }

    /// The elements of this array.
    pub(crate) fn elements(&self, expected: &str) -> Result<Elements<'v, '_>, JsonError> {
        match self.value {
            Value::Array(items) => Ok(Elements {
                parent: self,
                items,
                next: 0,
            }),
            _ => Err(self.unexpected(expected)),
        }
    }

    /// The elements of this array, which must have exactly `n`.
    pub(crate) fn exact_elements(
        &self,
        n: usize,
        expected: &str,
    ) -> Result<Elements<'v, '_>, JsonError> {
        let e = self.elements(expected)?;
        if e.items.len() != n {
            return Err(self.unexpected(expected));
        }
        Ok(e)
    }

    pub(crate) fn str(&self, expected: &str) -> Result<&'v str, JsonError> {
        self.value.as_str().ok_or_else(|| self.unexpected(expected))
    }

    pub(crate) fn bool(&self, expected: &str) -> Result<bool, JsonError> {
        self.value
            .as_bool()
            .ok_or_else(|| self.unexpected(expected))
    }

    /// A bool written as a JSON bool or an integer (`0` false, anything else true), as Paddle
    /// writes the flags of the compressed parameter op.
    pub(crate) fn flag(&self, expected: &str) -> Result<bool, JsonError> {
        match self.value {
            Value::Bool(b) => Ok(*b),
            Value::Number(n) if n.is_i64() || n.is_u64() => Ok(n.as_i64() != Some(0)),
            _ => Err(self.unexpected(expected)),
        }
    }

    pub(crate) fn i64(&self, expected: &str) -> Result<i64, JsonError> {
        self.value.as_i64().ok_or_else(|| self.unexpected(expected))
    }

    pub(crate) fn u64(&self, expected: &str) -> Result<u64, JsonError> {
        self.value.as_u64().ok_or_else(|| self.unexpected(expected))
    }

    pub(crate) fn i32(&self, expected: &str) -> Result<i32, JsonError> {
        self.value
            .as_i64()
            .and_then(|v| i32::try_from(v).ok())
            .ok_or_else(|| self.unexpected(expected))
    }

    pub(crate) fn i8(&self, expected: &str) -> Result<i8, JsonError> {
        self.value
            .as_i64()
            .and_then(|v| i8::try_from(v).ok())
            .ok_or_else(|| self.unexpected(expected))
    }

    /// Any JSON number, as a double.
    pub(crate) fn f64(&self, expected: &str) -> Result<f64, JsonError> {
        match self.value {
            Value::Number(n) => n.as_f64().ok_or_else(|| self.unexpected(expected)),
            _ => Err(self.unexpected(expected)),
        }
    }
}

/// Iterator over the elements of an array node.
pub(crate) struct Elements<'v, 'p> {
    parent: &'p Node<'v, 'p>,
    items: &'v [Value<'v>],
    next: usize,
}

impl<'v, 'p> Elements<'v, 'p> {
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// Element `i` (the caller checked the length).
    pub(crate) fn at(&self, i: usize) -> Option<Node<'v, 'p>> {
        self.items.get(i).map(|v| Node {
            value: v,
            parent: Some(self.parent),
            seg: Seg::Index(i),
        })
    }
}

impl<'v, 'p> Iterator for Elements<'v, 'p> {
    type Item = Node<'v, 'p>;

    fn next(&mut self) -> Option<Node<'v, 'p>> {
        let n = self.at(self.next)?;
        self.next += 1;
        Some(n)
    }
}

/// A short description of a JSON value for messages: `12`, `null`, `a string "abc"`,
/// `an array of 3 element(s)`, `an object with keys "#", "D"`.
pub(crate) fn describe(v: &Value<'_>) -> String {
    const MAX: usize = 48;
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Str(s) => {
            if s.chars().count() > MAX {
                let cut: String = s.chars().take(MAX).collect();
                format!("a string {cut:?}...")
            } else {
                format!("a string {s:?}")
            }
        }
        Value::Array(a) => format!("an array of {} element(s)", a.len()),
        Value::Object(m) if m.is_empty() => "an empty object".into(),
        Value::Object(_) => {
            let all = v.keys();
            let keys: Vec<String> = all.iter().take(6).map(|k| format!("{k:?}")).collect();
            let more = if all.len() > 6 { ", ..." } else { "" };
            format!("an object with keys {}{more}", keys.join(", "))
        }
        // Ops are parsed before they are looked at; should one be described raw, say so.
        Value::Raw(_) => "an op".into(),
    }
}
