//! Attribute values.
//!
//! A value is first read by its syntax alone into a literal, then turned into an attribute of
//! the kind the op's schema (or the [`TextSyntax`] registry) declares for it. A value that does
//! not fit the declared kind (Paddle printing a `StrAttribute` where this project's yaml says
//! `DataLayout`, an integer too large for `int`) is read by its syntax instead and left to
//! `verify` to judge, so that every print reads back as written. Without a declared kind:
//!
//! | written | read as |
//! |---|---|
//! | `true`, `false` | `BoolAttribute` |
//! | `-1`, `7` | `Int32Attribute` (`Int64Attribute` beyond 32 bits) |
//! | `1e-05`, `0.5`, `inf`, `-nan` | `DoubleAttribute` |
//! | `"NCHW"` (only `\"` is an escape) | `StrAttribute` |
//! | `[a,b]` | `ArrayAttribute` of the elements so read |
//! | `float32`, `Undefined` | `DataTypeAttribute` |
//! | `NCHW`, `Undefined(AnyLayout)` | `DataLayoutAttribute` |
//! | `Place(cpu)`, `Place(gpu:0)` | `PlaceAttribute` |
//! | `real:1 imag:0` | `Complex128Attribute` |
//! | `{a:1,b:2}` | dictionary |
//! | a type (`tensor<2xf32>`, `f32`) | `TypeAttribute` |
//!
//! With a declared kind, numbers take it (`Scalar` by its data type: `float` → Float,
//! `double` → Double, `int` → Int32, `int64_t` → Int64, otherwise Double), arrays take the
//! element kind, and `IntArray` reads `[1,2]` as one `IntArrayAttribute`.
//!
//! ```
//! use pir_runtime::{parser, AttrData, IrContext};
//! let ctx = IrContext::new();
//! let a = parser::parse_attribute(&ctx, "[1,-2,3000000000]").unwrap();
//! assert_eq!(a, ctx.array_attr(&[ctx.i32_attr(1), ctx.i32_attr(-2), ctx.i64_attr(3_000_000_000)]));
//! let e = parser::parse_attribute(&ctx, "[1,").unwrap_err();
//! assert_eq!(e.to_string(), "1:4: expected an attribute value, found the end of the input");
//! ```

use std::borrow::Cow;

use pir_spec::AttrKind;
use smallvec::SmallVec;

use super::error::{ParseError, ParseErrorKind};
use super::lexer::{is_ident_byte, Cursor};
use super::syntax::{AttrSyntax, TextSyntax};
use super::types::{TypeParser, MAX_NESTING};
use crate::attributes::{AttrKey, Attribute};
use crate::context::IrContext;
use crate::phi::{AllocationType, DataLayout, DataType, Place};

/// Reads attribute values; handed to every [`AttrParseFn`](super::AttrParseFn).
///
/// ```
/// use pir_runtime::parser::{self, AttrParser, AttrSyntax, ParseError, TextSyntax};
/// use pir_runtime::{Attribute, IrContext};
/// // `seed:#42` in a toy dialect: a custom syntax for an int64.
/// fn hash_int(p: &mut AttrParser<'_, '_>) -> Result<Attribute, ParseError> {
///     p.cursor().expect(b'#', "`#`")?;
///     let v = p.cursor().int()?;
///     Ok(p.ctx().i64_attr(v))
/// }
/// let mut syntax = TextSyntax::new();
/// syntax.register_attr(None, "seed", AttrSyntax::Custom(hash_int));
/// let ctx = IrContext::new();
/// let text = "{\n    (%0) = \"builtin.constant\" () {seed:#42,value:1} : () -> i64\n}\n";
/// let prog = parser::parse_module_with(&ctx, text, &syntax).unwrap().program;
/// let op = prog.op(prog.first_op(prog.block()).unwrap());
/// assert_eq!(op.attr("seed"), Some(ctx.i64_attr(42)));
/// ```
pub struct AttrParser<'p, 't> {
    cur: &'p mut Cursor<'t>,
    ctx: &'p IrContext,
    syntax: &'p TextSyntax,
    depth: usize,
}

/// A value read by its syntax alone.
#[derive(Debug)]
enum Lit<'t> {
    Bool(bool),
    /// A number as written.
    Num(&'t str),
    Str(Cow<'t, str>),
    /// A bare word: a data type or layout name.
    Word(&'t str),
    Array(Vec<(usize, Lit<'t>)>),
    Dict(Vec<(&'t str, usize, Lit<'t>)>),
    Place(Place),
    Complex(&'t str, &'t str),
    Attr(Attribute),
}

/// How a value is read: by its syntax, as a declared kind (with the schema's data type, for
/// Scalars), or by a registered parser.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Hint<'a> {
    Infer,
    Kind(AttrKind, &'a str),
    Custom(super::syntax::AttrParseFn),
}

impl Hint<'static> {
    /// How attribute `name` of op `def` is read: the kind the op's schema declares, else the
    /// syntax's registry entry, else by its syntax.
    pub(crate) fn of(
        syntax: &TextSyntax,
        def: Option<&'static crate::op_def::OpDef>,
        name: &str,
    ) -> Hint<'static> {
        if let Some(s) = def.and_then(|d| d.schema) {
            if let Some(a) = s.attributes.iter().find(|a| a.name == name) {
                return Hint::Kind(a.kind, &a.data_type);
            }
        }
        match syntax.attr_syntax(def.map_or("", |d| d.name), name) {
            Some(AttrSyntax::Kind(k)) => Hint::Kind(k, ""),
            Some(AttrSyntax::Custom(f)) => Hint::Custom(f),
            None => Hint::Infer,
        }
    }

    /// A key for caching values read with this hint; `None` for custom parsers.
    pub(crate) fn cache_key(self) -> Option<(u8, &'static str)> {
        match self {
            Hint::Infer => Some((0, "")),
            Hint::Kind(k, d) => Some((k as u8 + 1, d)),
            Hint::Custom(_) => None,
        }
    }
}

impl<'p, 't> AttrParser<'p, 't> {
    pub(crate) fn new(
        cur: &'p mut Cursor<'t>,
        ctx: &'p IrContext,
        syntax: &'p TextSyntax,
        depth: usize,
    ) -> AttrParser<'p, 't> {
        AttrParser {
            cur,
            ctx,
            syntax,
            depth,
        }
    }

    /// The cursor.
    pub fn cursor(&mut self) -> &mut Cursor<'t> {
        self.cur
    }

    /// The context attributes are interned in.
    pub fn ctx(&self) -> &'p IrContext {
        self.ctx
    }

    /// A value read by its syntax alone (see the module's table).
    pub fn parse_value(&mut self) -> Result<Attribute, ParseError> {
        self.cur.skip_ws();
        let pos = self.cur.pos();
        let lit = self.literal(self.depth)?;
        self.infer(pos, lit)
    }

    /// A type (for attribute syntaxes that embed one).
    pub fn parse_type(&mut self) -> Result<Option<crate::types::Type>, ParseError> {
        TypeParser::new(self.cur, self.ctx, self.syntax, self.depth + 1).parse_type()
    }

    /// A value read as `hint` says.
    pub(crate) fn parse_hinted(&mut self, hint: Hint<'_>) -> Result<Attribute, ParseError> {
        if let Hint::Custom(f) = hint {
            return f(self);
        }
        self.cur.skip_ws();
        let pos = self.cur.pos();
        let lit = self.literal(self.depth)?;
        if let Hint::Kind(kind, data_type) = hint {
            if let Some(a) = self.convert(&lit, kind, data_type) {
                return Ok(a);
            }
        }
        self.infer(pos, lit)
    }

    fn too_deep(&self) -> ParseError {
        self.cur.error_at(
            self.cur.pos(),
            ParseErrorKind::TooDeep { limit: MAX_NESTING },
        )
    }

    /// Reads one value by its syntax.
    fn literal(&mut self, depth: usize) -> Result<Lit<'t>, ParseError> {
        if depth >= MAX_NESTING {
            return Err(self.too_deep());
        }
        match self.cur.peek() {
            Some(b'"') => return Ok(Lit::Str(self.cur.quoted()?)),
            Some(b'[') => return self.array(depth),
            Some(b'{') => return self.dict(depth),
            _ => {}
        }
        if let Some(n) = self.cur.number() {
            return Ok(Lit::Num(n));
        }
        let start = self.cur.pos();
        let Some(word) = self.cur.ident() else {
            return Err(self.cur.expected("an attribute value"));
        };
        match (word, self.cur.peek_raw()) {
            ("true", _) => Ok(Lit::Bool(true)),
            ("false", _) => Ok(Lit::Bool(false)),
            ("Place", Some(b'(')) => self.place(),
            ("real", Some(b':')) => self.complex(),
            (_, Some(b'<' | b'[')) => self.type_literal(start, depth),
            (_, Some(b'(')) => {
                // `Undefined(AnyLayout)`: a word with a parenthesised suffix.
                let close = self.cur.text()[self.cur.pos()..].find(')');
                match close {
                    Some(i) => {
                        let end = self.cur.pos() + i + 1;
                        self.cur.set_pos(end);
                        Ok(Lit::Word(&self.cur.text()[start..end]))
                    }
                    None => Err(self.cur.expected("`)`")),
                }
            }
            _ => Ok(Lit::Word(word)),
        }
    }

    fn type_literal(&mut self, start: usize, depth: usize) -> Result<Lit<'t>, ParseError> {
        self.cur.set_pos(start);
        let t =
            TypeParser::new(self.cur, self.ctx, self.syntax, depth + 1).parse_non_null_type()?;
        Ok(Lit::Attr(self.ctx.type_attr(t)))
    }

    fn array(&mut self, depth: usize) -> Result<Lit<'t>, ParseError> {
        self.cur.expect(b'[', "`[`")?;
        let mut items = Vec::new();
        if self.cur.eat(b']') {
            return Ok(Lit::Array(items));
        }
        loop {
            self.cur.skip_ws();
            let pos = self.cur.pos();
            items.push((pos, self.literal(depth + 1)?));
            if self.cur.eat(b']') {
                return Ok(Lit::Array(items));
            }
            self.cur.expect(b',', "`,` or `]`")?;
        }
    }

    fn dict(&mut self, depth: usize) -> Result<Lit<'t>, ParseError> {
        self.cur.expect(b'{', "`{`")?;
        let mut entries = Vec::new();
        if self.cur.eat(b'}') {
            return Ok(Lit::Dict(entries));
        }
        loop {
            let name = entry_name(self.cur)?;
            self.cur.expect(b':', "`:` after the attribute name")?;
            self.cur.skip_ws();
            let pos = self.cur.pos();
            entries.push((name, pos, self.literal(depth + 1)?));
            if self.cur.eat(b'}') {
                return Ok(Lit::Dict(entries));
            }
            self.cur.expect(b',', "`,` or `}`")?;
        }
    }

    /// `Place(cpu)`, `Place(gpu:0)`, `Place(undefined:0)` (after the word `Place`).
    fn place(&mut self) -> Result<Lit<'t>, ParseError> {
        self.cur.expect(b'(', "`(`")?;
        self.cur.skip_ws();
        let at = self.cur.pos();
        let kinds = [
            AllocationType::Undefined,
            AllocationType::Cpu,
            AllocationType::Gpu,
            AllocationType::GpuPinned,
            AllocationType::Xpu,
            AllocationType::Ipu,
            AllocationType::Custom,
        ];
        let word = self.cur.ident().unwrap_or("");
        let Some(kind) = kinds.into_iter().find(|k| k.name() == word) else {
            self.cur.set_pos(at);
            return Err(self.cur.expected(
                "a device kind (undefined, cpu, gpu, gpu_pinned, xpu, ipu, custom_device)",
            ));
        };
        let mut device = 0i8;
        if self.cur.eat(b':') {
            self.cur.skip_ws();
            let p = self.cur.pos();
            let v = self.cur.int()?;
            device = i8::try_from(v).map_err(|_| {
                self.cur.error_at(
                    p,
                    ParseErrorKind::OutOfRange {
                        text: v.to_string(),
                        what: "a device id (8-bit)",
                    },
                )
            })?;
        }
        self.cur.expect(b')', "`)` closing the place")?;
        Ok(Lit::Place(Place { kind, device }))
    }

    /// `real:R imag:I` (after the word `real`).
    fn complex(&mut self) -> Result<Lit<'t>, ParseError> {
        self.cur.expect(b':', "`:`")?;
        let re = self
            .cur
            .number()
            .ok_or_else(|| self.cur.expected("the real part (a number)"))?;
        if !self.cur.eat_keyword("imag") {
            return Err(self.cur.expected("`imag:`"));
        }
        self.cur.expect(b':', "`:`")?;
        let im = self
            .cur
            .number()
            .ok_or_else(|| self.cur.expected("the imaginary part (a number)"))?;
        Ok(Lit::Complex(re, im))
    }

    /// The attribute of `kind`, if the literal fits it.
    fn convert(&self, lit: &Lit<'t>, kind: AttrKind, data_type: &str) -> Option<Attribute> {
        let ctx = self.ctx;
        Some(match (kind, lit) {
            (AttrKind::Bool, Lit::Bool(b)) => ctx.bool_attr(*b),
            (AttrKind::Int32, Lit::Num(n)) => ctx.i32_attr(int_text(n)?.parse().ok()?),
            (AttrKind::Int64 | AttrKind::Long, Lit::Num(n)) => {
                ctx.i64_attr(int_text(n)?.parse().ok()?)
            }
            (AttrKind::SizeT, Lit::Num(n)) => ctx.index_attr(int_text(n)?.parse().ok()?),
            (AttrKind::Float, Lit::Num(n)) => ctx.f32_attr(n.parse().ok()?),
            (AttrKind::Double, Lit::Num(n)) => ctx.f64_attr(n.parse().ok()?),
            (AttrKind::Str, Lit::Str(s)) => ctx.str_attr(s),
            (AttrKind::IntArray, Lit::Array(items)) => {
                let mut v: SmallVec<[i64; 8]> = SmallVec::new();
                for (_, item) in items {
                    match item {
                        Lit::Num(n) => v.push(int_text(n)?.parse().ok()?),
                        _ => return None,
                    }
                }
                ctx.int_array_attr(&v)
            }
            (AttrKind::Scalar, lit) => scalar(ctx, lit, data_type)?,
            (AttrKind::DataType, Lit::Word(w)) => ctx.dtype_attr(data_type_named(w)?),
            (AttrKind::DataLayout, Lit::Word(w)) => ctx.layout_attr(layout_named(w)?),
            (AttrKind::Place, Lit::Place(p)) => ctx.place_attr(*p),
            (k, Lit::Array(items)) => {
                let elem = k.element()?;
                // `std::vector<Scalar>`: elements hold doubles unless written as bools.
                let elem_type = if k == AttrKind::ScalarArray {
                    "double"
                } else {
                    ""
                };
                let mut v: SmallVec<[Attribute; 8]> = SmallVec::new();
                for (_, item) in items {
                    v.push(self.convert(item, elem, elem_type)?);
                }
                ctx.array_attr(&v)
            }
            _ => return None,
        })
    }

    /// The attribute a literal's syntax alone gives (see the module's table).
    fn infer(&self, pos: usize, lit: Lit<'t>) -> Result<Attribute, ParseError> {
        let ctx = self.ctx;
        Ok(match lit {
            Lit::Bool(b) => ctx.bool_attr(b),
            Lit::Num(n) => match int_text(n) {
                Some(i) => match i.parse::<i64>() {
                    Ok(v) => match i32::try_from(v) {
                        Ok(v) => ctx.i32_attr(v),
                        Err(_) => ctx.i64_attr(v),
                    },
                    Err(_) => {
                        return Err(self.cur.error_at(
                            pos,
                            ParseErrorKind::OutOfRange {
                                text: n.to_string(),
                                what: "a 64-bit integer",
                            },
                        ))
                    }
                },
                None => ctx.f64_attr(parse_float(n)),
            },
            Lit::Str(s) => ctx.str_attr(&s),
            Lit::Word(w) => {
                if let Some(d) = data_type_named(w) {
                    ctx.dtype_attr(d)
                } else if let Some(l) = layout_named(w) {
                    ctx.layout_attr(l)
                } else if let Some(t) = self.word_type(w) {
                    ctx.type_attr(t)
                } else {
                    return Err(self.cur.error_at(
                        pos,
                        ParseErrorKind::Expected {
                            expected: "an attribute value (a number, string, bool, array, \
                                       data type, layout, place or type)"
                                .into(),
                            found: format!("`{w}`"),
                        },
                    ));
                }
            }
            Lit::Array(items) => {
                let mut v: SmallVec<[Attribute; 8]> = SmallVec::new();
                for (p, item) in items {
                    v.push(self.infer(p, item)?);
                }
                ctx.array_attr(&v)
            }
            Lit::Dict(entries) => {
                let mut v: Vec<(&str, Attribute)> = Vec::with_capacity(entries.len());
                let mut names = Names::default();
                for (name, p, item) in entries {
                    if !names.first_time(name) {
                        return Err(self.cur.error_at(
                            p,
                            ParseErrorKind::DuplicateAttribute {
                                name: name.to_string(),
                            },
                        ));
                    }
                    v.push((name, self.infer(p, item)?));
                }
                ctx.dict_attr(&v)
            }
            Lit::Place(p) => ctx.place_attr(p),
            Lit::Complex(re, im) => {
                ctx.intern_attr(AttrKey::Complex128(parse_float(re), parse_float(im)))
            }
            Lit::Attr(a) => a,
        })
    }

    /// A bare word that is a registered type keyword with nothing after it (`f32`).
    fn word_type(&self, w: &str) -> Option<crate::types::Type> {
        if !self.syntax.has_type_keyword(w) {
            return None;
        }
        let mut c = Cursor::new(w);
        let t = TypeParser::new(&mut c, self.ctx, self.syntax, self.depth + 1)
            .parse_type()
            .ok()??;
        c.at_end().then_some(t)
    }
}

/// The names of a dictionary read so far, to find a repeated one in linear time: printed
/// dictionaries are sorted, so a name after a smaller one is new; only out-of-order names need
/// the set.
#[derive(Default)]
pub(crate) struct Names<'t> {
    last: Option<&'t str>,
    all: Vec<&'t str>,
    set: Option<rustc_hash::FxHashSet<&'t str>>,
}

impl<'t> Names<'t> {
    /// Whether every name so far came after the one before.
    pub(crate) fn sorted(&self) -> bool {
        self.set.is_none()
    }

    /// Records `name`; `false` if it was seen before.
    pub(crate) fn first_time(&mut self, name: &'t str) -> bool {
        let sorted_so_far = self.set.is_none() && self.last.is_none_or(|l| l < name);
        self.last = Some(name);
        if sorted_so_far {
            self.all.push(name);
            return true;
        }
        let all = &self.all;
        self.set
            .get_or_insert_with(|| all.iter().copied().collect())
            .insert(name)
    }
}

/// An attribute name in a dictionary: a letter or `_`, then letters, digits, `_`, `.`, `@`,
/// `$`, `-`, `/`.
pub(crate) fn entry_name<'t>(cur: &mut Cursor<'t>) -> Result<&'t str, ParseError> {
    cur.skip_ws();
    let text = cur.text();
    let b = text.as_bytes();
    let start = cur.pos();
    if !b
        .get(start)
        .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
    {
        return Err(cur.expected("an attribute name"));
    }
    let mut end = start;
    while end < b.len() && (is_ident_byte(b[end]) || matches!(b[end], b'@' | b'$' | b'-' | b'/')) {
        end += 1;
    }
    if end == start {
        return Err(cur.expected("an attribute name"));
    }
    cur.set_pos(end);
    Ok(&text[start..end])
}

/// `n` if it is written as an integer (`-12`, not `1e3` or `1.0`).
fn int_text(n: &str) -> Option<&str> {
    let digits = n.strip_prefix(['-', '+']).unwrap_or(n);
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(n)
}

/// Every number the lexer accepts is a valid Rust float literal (`inf`, `-nan` included).
fn parse_float(n: &str) -> f64 {
    n.parse().unwrap_or(f64::NAN)
}

/// A data type by its printed name (`float32`, `Undefined`), exactly.
fn data_type_named(w: &str) -> Option<DataType> {
    DataType::ALL.into_iter().find(|d| d.name() == w)
}

/// A layout by its printed name (`NCHW`, `Undefined(AnyLayout)`), exactly.
fn layout_named(w: &str) -> Option<DataLayout> {
    DataLayout::ALL.into_iter().find(|l| l.name() == w)
}

/// A `ScalarAttribute` holds the builtin attribute of its value's type; the schema's data type
/// says which for numbers.
fn scalar(ctx: &IrContext, lit: &Lit<'_>, data_type: &str) -> Option<Attribute> {
    Some(match lit {
        Lit::Bool(b) => ctx.bool_attr(*b),
        Lit::Num(n) => match data_type {
            "float" => ctx.f32_attr(n.parse().ok()?),
            "int" | "int32_t" => ctx.i32_attr(int_text(n)?.parse().ok()?),
            "int64_t" | "long" => ctx.i64_attr(int_text(n)?.parse().ok()?),
            "bool" => return None,
            _ => ctx.f64_attr(n.parse().ok()?),
        },
        Lit::Complex(re, im) => match data_type {
            "float" => ctx.intern_attr(AttrKey::Complex64(re.parse().ok()?, im.parse().ok()?)),
            _ => ctx.intern_attr(AttrKey::Complex128(re.parse().ok()?, im.parse().ok()?)),
        },
        _ => return None,
    })
}
