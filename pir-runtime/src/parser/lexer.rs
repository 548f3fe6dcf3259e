//! The lexer: a cursor over the text that tokenizes on demand.
//!
//! Paddle's text is context-sensitive at the character level (`tensor<-1x3xf32>` has no
//! separators between dims, `<<NULL TYPE>>` contains a space, a complex number prints as
//! `real:1 imag:0`), so the parser asks the cursor for the token it expects next instead of
//! reading a fixed token stream. Whitespace between tokens is insignificant. Positions are byte
//! offsets; line and column are computed only when an error is reported, so lexing costs no
//! per-line bookkeeping.
//!
//! ```
//! use pir_runtime::parser::Cursor;
//! let mut c = Cursor::new("  (%0, %arg_1) = \"pd_op.relu\"");
//! assert!(c.eat(b'('));
//! assert_eq!(c.value_name(), Some("0"));
//! assert!(c.eat(b','));
//! assert_eq!(c.value_name(), Some("arg_1"));
//! assert!(c.eat(b')') && c.eat(b'='));
//! assert_eq!(c.quoted().unwrap(), "pd_op.relu");
//! assert!(c.at_end());
//! ```

use std::borrow::Cow;

use super::error::{ParseError, ParseErrorKind};

/// A position in the text and the means to read tokens from it.
///
/// ```
/// use pir_runtime::parser::Cursor;
/// let mut c = Cursor::new("Place(gpu:0)");
/// assert_eq!(c.ident(), Some("Place"));
/// assert!(c.eat(b'(') && c.ident() == Some("gpu") && c.eat(b':'));
/// assert_eq!(c.int().unwrap(), 0);
/// assert_eq!(c.pos(), 11);
/// ```
#[derive(Clone, Debug)]
pub struct Cursor<'t> {
    text: &'t str,
    pos: usize,
}

/// Byte classes as bit sets, looked up in one table: identifier bytes and value-name bytes.
const IDENT: u8 = 1;
const NAME: u8 = 2;

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' {
            t[c] = IDENT | NAME;
        } else if b == b'$' || b == b'-' {
            t[c] = NAME;
        }
        c += 1;
    }
    t
};

/// Whether `b` may continue an identifier (`float8_e4m3fn`, `pd_op.tensor_array`).
#[inline]
pub(crate) fn is_ident_byte(b: u8) -> bool {
    CLASS[b as usize] & IDENT != 0
}

/// Whether `b` may appear in a value name after `%` (`%12`, `%arg_0`).
#[inline]
fn is_name_byte(b: u8) -> bool {
    CLASS[b as usize] & NAME != 0
}

impl<'t> Cursor<'t> {
    /// A cursor at the start of `text`.
    ///
    /// ```
    /// let c = pir_runtime::parser::Cursor::new("{}");
    /// assert_eq!(c.pos(), 0);
    /// ```
    pub fn new(text: &'t str) -> Cursor<'t> {
        Cursor { text, pos: 0 }
    }

    /// The whole text.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The current byte offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn set_pos(&mut self, pos: usize) {
        self.pos = pos;
    }

    #[inline]
    fn bytes(&self) -> &'t [u8] {
        self.text.as_bytes()
    }

    /// Skips whitespace (spaces, tabs, carriage returns and newlines).
    #[inline]
    pub fn skip_ws(&mut self) {
        let b = self.bytes();
        // Bytes above the space are never whitespace: one compare for the common case.
        while let Some(&c) = b.get(self.pos) {
            if c > b' ' || !matches!(c, b' ' | b'\n' | b'\t' | b'\r') {
                return;
            }
            self.pos += 1;
        }
    }

    /// The next byte after whitespace, without consuming it.
    ///
    /// ```
    /// let mut c = pir_runtime::parser::Cursor::new("  x");
    /// assert_eq!(c.peek(), Some(b'x'));
    /// ```
    #[inline]
    pub fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.bytes().get(self.pos).copied()
    }

    /// The byte at the cursor, whitespace included.
    #[inline]
    pub(crate) fn peek_raw(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    /// The byte `n` places after the cursor, whitespace included.
    #[inline]
    pub(crate) fn peek_raw_at(&self, n: usize) -> Option<u8> {
        self.bytes().get(self.pos + n).copied()
    }

    /// Whether only whitespace is left.
    pub fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// Consumes byte `b` (after whitespace) if it is next.
    #[inline]
    pub fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes `s` (after whitespace) if it is next.
    ///
    /// ```
    /// let mut c = pir_runtime::parser::Cursor::new(" -> t");
    /// assert!(c.eat_str("->"));
    /// assert!(!c.eat_str("->"));
    /// ```
    pub fn eat_str(&mut self, s: &str) -> bool {
        self.skip_ws();
        if self.text[self.pos..].starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    /// Consumes keyword `word` if it is next and not followed by an identifier byte.
    pub fn eat_keyword(&mut self, word: &str) -> bool {
        self.skip_ws();
        let rest = &self.bytes()[self.pos..];
        if rest.starts_with(word.as_bytes())
            && !rest.get(word.len()).copied().is_some_and(is_ident_byte)
        {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    /// Consumes byte `b` or fails with "expected `what`".
    ///
    /// ```
    /// let mut c = pir_runtime::parser::Cursor::new("]");
    /// let e = c.expect(b')', "`)`").unwrap_err();
    /// assert_eq!(e.to_string(), "1:1: expected `)`, found `]`");
    /// ```
    pub fn expect(&mut self, b: u8, what: &str) -> Result<(), ParseError> {
        if self.eat(b) {
            Ok(())
        } else {
            Err(self.expected(what))
        }
    }

    /// Consumes `s` or fails with "expected `s`".
    pub fn expect_str(&mut self, s: &str) -> Result<(), ParseError> {
        if self.eat_str(s) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{s}`")))
        }
    }

    /// An identifier (`[A-Za-z_][A-Za-z0-9_.]*`) after whitespace, if one is next.
    ///
    /// ```
    /// let mut c = pir_runtime::parser::Cursor::new(" pd_op.tensor_array<f32>");
    /// assert_eq!(c.ident(), Some("pd_op.tensor_array"));
    /// assert_eq!(c.ident(), None); // `<` is next
    /// ```
    #[inline]
    pub fn ident(&mut self) -> Option<&'t str> {
        self.skip_ws();
        let b = self.bytes();
        let start = self.pos;
        if start >= b.len() || !(b[start].is_ascii_alphabetic() || b[start] == b'_') {
            return None;
        }
        let mut end = start + 1;
        while end < b.len() && is_ident_byte(b[end]) {
            end += 1;
        }
        self.pos = end;
        Some(&self.text[start..end])
    }

    /// A value name after `%` (`0`, `arg_3`), consuming the `%`; `None` if `%` is not next.
    #[inline]
    pub fn value_name(&mut self) -> Option<&'t str> {
        self.skip_ws();
        let b = self.bytes();
        if b.get(self.pos) != Some(&b'%') {
            return None;
        }
        let start = self.pos + 1;
        let mut end = start;
        while end < b.len() && is_name_byte(b[end]) {
            end += 1;
        }
        if end == start {
            return None;
        }
        self.pos = end;
        Some(&self.text[start..end])
    }

    /// A number as written (`-1`, `1e-05`, `0.9`, `-inf`, `nan`), not yet converted.
    ///
    /// ```
    /// let mut c = pir_runtime::parser::Cursor::new("1.23457e+08,-inf]");
    /// assert_eq!(c.number(), Some("1.23457e+08"));
    /// assert!(c.eat(b','));
    /// assert_eq!(c.number(), Some("-inf"));
    /// ```
    pub fn number(&mut self) -> Option<&'t str> {
        self.skip_ws();
        let b = self.bytes();
        let start = self.pos;
        let mut i = start;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        for word in ["inf", "nan"] {
            if b[i..].starts_with(word.as_bytes())
                && !b.get(i + 3).copied().is_some_and(is_ident_byte)
            {
                self.pos = i + 3;
                return Some(&self.text[start..i + 3]);
            }
        }
        let digits_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        if i == digits_start || (i == digits_start + 1 && b[digits_start] == b'.') {
            return None;
        }
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            let mut j = i + 1;
            if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
                j += 1;
            }
            let exp_digits = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j > exp_digits {
                i = j;
            }
        }
        self.pos = i;
        Some(&self.text[start..i])
    }

    /// A decimal integer that fits in `i64`, with an optional `-`.
    ///
    /// ```
    /// let mut c = pir_runtime::parser::Cursor::new("-12x");
    /// assert_eq!(c.int().unwrap(), -12);
    /// assert!(c.eat(b'x'));
    /// assert!(c.int().is_err());
    /// ```
    pub fn int(&mut self) -> Result<i64, ParseError> {
        self.skip_ws();
        let b = self.bytes();
        let start = self.pos;
        let mut i = start;
        if i < b.len() && b[i] == b'-' {
            i += 1;
        }
        let digits = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == digits {
            return Err(self.expected("an integer"));
        }
        let s = &self.text[start..i];
        match s.parse::<i64>() {
            Ok(v) => {
                self.pos = i;
                Ok(v)
            }
            Err(_) => Err(self.error_at(
                start,
                ParseErrorKind::OutOfRange {
                    text: s.to_string(),
                    what: "a 64-bit integer",
                },
            )),
        }
    }

    /// A double-quoted string. Paddle's printer escapes only `"` (as `\"`), so `\"` reads as a
    /// quote and any other backslash is taken literally.
    ///
    /// ```
    /// let mut c = pir_runtime::parser::Cursor::new(r#""say \"hi\" C:\dir""#);
    /// assert_eq!(c.quoted().unwrap(), r#"say "hi" C:\dir"#);
    /// ```
    pub fn quoted(&mut self) -> Result<Cow<'t, str>, ParseError> {
        self.skip_ws();
        let b = self.bytes();
        if b.get(self.pos) != Some(&b'"') {
            return Err(self.expected("a string in double quotes"));
        }
        let open = self.pos;
        let start = open + 1;
        let mut i = start;
        let mut owned: Option<String> = None;
        let mut seg = start;
        while i < b.len() {
            match b[i] {
                b'"' => {
                    self.pos = i + 1;
                    return Ok(match owned {
                        None => Cow::Borrowed(&self.text[start..i]),
                        Some(mut s) => {
                            s.push_str(&self.text[seg..i]);
                            Cow::Owned(s)
                        }
                    });
                }
                b'\\' if b.get(i + 1) == Some(&b'"') => {
                    let s = owned.get_or_insert_with(String::new);
                    s.push_str(&self.text[seg..i]);
                    s.push('"');
                    i += 2;
                    seg = i;
                }
                _ => i += 1,
            }
        }
        Err(self.error_at(open, ParseErrorKind::UnterminatedString))
    }

    /// The end of the string opened at `open` (a `"`), by the rule of [`Cursor::quoted`].
    pub(crate) fn string_end(b: &[u8], open: usize) -> Option<usize> {
        let mut i = open + 1;
        while i < b.len() {
            match b[i] {
                b'"' => return Some(i + 1),
                b'\\' if b.get(i + 1) == Some(&b'"') => i += 2,
                _ => i += 1,
            }
        }
        None
    }

    /// A short description of what is at the cursor, for "found ..." in messages.
    ///
    /// ```
    /// let mut c = pir_runtime::parser::Cursor::new("  tensor<2xf32>");
    /// assert_eq!(c.found(), "`tensor`");
    /// assert_eq!(pir_runtime::parser::Cursor::new("").found(), "the end of the input");
    /// ```
    pub fn found(&mut self) -> String {
        self.skip_ws();
        describe_at(self.text, self.pos)
    }

    /// An error at the cursor: expected `what`, found what is there.
    pub fn expected(&mut self, what: &str) -> ParseError {
        let found = self.found();
        self.error_at(
            self.pos,
            ParseErrorKind::Expected {
                expected: what.to_string(),
                found,
            },
        )
    }

    /// An error of `kind` at byte `pos`.
    pub fn error_at(&self, pos: usize, kind: ParseErrorKind) -> ParseError {
        ParseError::at(self.text, pos, kind)
    }
}

/// Whether `text[at..]` starts with `s`: eight bytes at a time, inline (the parser compares
/// many short names and types with ones it read before; a `memcmp` call costs more than that).
#[inline]
pub(crate) fn starts_with_at(text: &[u8], at: usize, s: &[u8]) -> bool {
    let Some(mut t) = text.get(at..at + s.len()) else {
        return false;
    };
    let mut s = s;
    while let (Some((a, ra)), Some((b, rb))) =
        (t.split_first_chunk::<8>(), s.split_first_chunk::<8>())
    {
        if a != b {
            return false;
        }
        t = ra;
        s = rb;
    }
    t.iter().zip(s).all(|(x, y)| x == y)
}

/// What is at byte `pos` of `text`, as quoted in error messages: a word, a number or one
/// character, or "the end of the input".
pub(crate) fn describe_at(text: &str, pos: usize) -> String {
    let b = text.as_bytes();
    let Some(&first) = b.get(pos) else {
        return "the end of the input".to_string();
    };
    let mut end = pos + 1;
    if first.is_ascii_alphanumeric() || first == b'_' || first == b'-' || first == b'%' {
        while end < b.len() && end - pos < 40 && (is_ident_byte(b[end]) || b[end] == b'-') {
            end += 1;
        }
    } else if first == b'\n' {
        return "the end of the line".to_string();
    } else {
        // One whole character.
        while !text.is_char_boundary(end) {
            end += 1;
        }
    }
    format!("`{}`", &text[pos..end])
}
