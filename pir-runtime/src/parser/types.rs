//! Types: `tensor<-1x3x224x224xf32>`, `tensor<f32>`, `vec[t0,t1]`, `<<NULL TYPE>>`,
//! `pd_op.selectedrows<2x3xf32>`, `pd_op.tensor_array<f32>`, `pd_op.sparsecootensor<4x5xf32>`,
//! `pd_op.sparsecsrtensor<3x3xf32>`, the element types (`f32`, `i64`,
//! `b`, ...), a downstream dialect's `dialect.name<params>`, and whatever keyword a dialect
//! registers in [`TextSyntax`].
//!
//! ```
//! use pir_runtime::{parser, IrContext, phi::DataType};
//! let ctx = IrContext::new();
//! let t = parser::parse_type(&ctx, "vec[tensor<-1x3xf32>,tensor<i64>]").unwrap().unwrap();
//! let f = ctx.dense_tensor_type(DataType::Float32, &[-1, 3]);
//! let i = ctx.dense_tensor_type(DataType::Int64, &[]);
//! assert_eq!(t, ctx.vector_type(&[f, i]));
//! assert_eq!(parser::parse_type(&ctx, "<<NULL TYPE>>").unwrap(), None);
//! let e = parser::parse_type(&ctx, "tensor<2xf33>").unwrap_err();
//! assert_eq!(e.to_string(), "1:10: unknown element type `f33` (expected f32, i64, b, bf16, ...)");
//! ```

use smallvec::SmallVec;

use super::attributes::AttrParser;
use super::error::{ParseError, ParseErrorKind};
use super::lexer::Cursor;
use super::syntax::TextSyntax;
use crate::context::IrContext;
use crate::phi::{DataLayout, DataType};
use crate::types::{TensorKey, Type, TypeKey};

/// How deep types and attributes may nest (`vec[vec[...]]`, `[[...]]`).
pub const MAX_NESTING: usize = 64;

/// What Paddle prints for the null type, and for an undefined element type.
pub(crate) const NULL_TYPE: &str = "<<NULL TYPE>>";

/// Reads types; handed to every [`TypeParseFn`](super::TypeParseFn) (see
/// [`TextSyntax`] for a registered type).
///
/// ```
/// use pir_runtime::{parser, IrContext, phi::DataType};
/// let ctx = IrContext::new();
/// // The builtin keywords go through it too: `tensor` reads `<`, dims and dtype, `>`.
/// let t = parser::parse_type(&ctx, "tensor<-1x8xbf16>").unwrap().unwrap();
/// assert_eq!(t, ctx.dense_tensor_type(DataType::BFloat16, &[-1, 8]));
/// ```
pub struct TypeParser<'p, 't> {
    cur: &'p mut Cursor<'t>,
    ctx: &'p IrContext,
    syntax: &'p TextSyntax,
    depth: usize,
}

impl<'p, 't> TypeParser<'p, 't> {
    pub(crate) fn new(
        cur: &'p mut Cursor<'t>,
        ctx: &'p IrContext,
        syntax: &'p TextSyntax,
        depth: usize,
    ) -> TypeParser<'p, 't> {
        TypeParser {
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

    /// The context types are interned in.
    pub fn ctx(&self) -> &'p IrContext {
        self.ctx
    }

    /// The syntax tables.
    pub fn syntax(&self) -> &'p TextSyntax {
        self.syntax
    }

    /// A (nested) type; `None` is `<<NULL TYPE>>`.
    pub fn parse_type(&mut self) -> Result<Option<Type>, ParseError> {
        if self.depth >= MAX_NESTING {
            let pos = self.cur.pos();
            return Err(self
                .cur
                .error_at(pos, ParseErrorKind::TooDeep { limit: MAX_NESTING }));
        }
        if self.cur.eat_str(NULL_TYPE) {
            return Ok(None);
        }
        self.cur.skip_ws();
        let start = self.cur.pos();
        let Some(keyword) = self.cur.ident() else {
            return Err(self.cur.expected("a type"));
        };
        let parse = match self.syntax.type_parser(keyword) {
            Some(f) => f,
            // `dialect.name<params>`: a downstream dialect's parametric type.
            None if keyword.contains('.') => custom,
            None => {
                return Err(self.cur.error_at(
                    start,
                    ParseErrorKind::UnknownType {
                        name: keyword.to_string(),
                    },
                ))
            }
        };
        let mut nested = TypeParser::new(self.cur, self.ctx, self.syntax, self.depth + 1);
        parse(&mut nested, keyword).map(Some)
    }

    /// A type that must not be `<<NULL TYPE>>`.
    pub fn parse_non_null_type(&mut self) -> Result<Type, ParseError> {
        self.cur.skip_ws();
        let start = self.cur.pos();
        match self.parse_type()? {
            Some(t) => Ok(t),
            None => Err(self.cur.error_at(
                start,
                ParseErrorKind::Expected {
                    expected: "a type (not the null type)".into(),
                    found: format!("`{NULL_TYPE}`"),
                },
            )),
        }
    }

    /// An element type suffix: `f32`, `i64`, `b`, `bf16`, ..., or `<<NULL TYPE>>` (undefined).
    ///
    /// ```
    /// # use pir_runtime::{parser, IrContext, phi::DataType};
    /// # let ctx = IrContext::new();
    /// // via a tensor type, which reads dims then this suffix:
    /// let t = parser::parse_type(&ctx, "tensor<2x<<NULL TYPE>>>").unwrap().unwrap();
    /// assert_eq!(t.as_dense_tensor(&ctx).unwrap().dtype, DataType::Undefined);
    /// ```
    pub fn data_type(&mut self) -> Result<DataType, ParseError> {
        if self.cur.eat_str(NULL_TYPE) {
            return Ok(DataType::Undefined);
        }
        self.cur.skip_ws();
        let start = self.cur.pos();
        let Some(name) = self.cur.ident() else {
            return Err(self.cur.expected("an element type (f32, i64, b, ...)"));
        };
        data_type_of_suffix(name).ok_or_else(|| {
            self.cur.error_at(
                start,
                ParseErrorKind::UnknownDataType {
                    name: name.to_string(),
                },
            )
        })
    }

    /// `D0xD1x...xDTYPE` as in `tensor<...>`: the dims (`-1` for unknown) and the element
    /// type; no dims for rank 0 (`f32`).
    pub fn dims_and_dtype(&mut self) -> Result<(SmallVec<[i64; 8]>, DataType), ParseError> {
        let mut dims = SmallVec::new();
        loop {
            self.cur.skip_ws();
            match self.cur.peek_raw() {
                Some(b) if b.is_ascii_digit() || b == b'-' => {
                    dims.push(self.cur.int()?);
                    if self.cur.peek_raw() != Some(b'x') {
                        return Err(self.cur.expected("`x` after a dimension"));
                    }
                    self.cur.set_pos(self.cur.pos() + 1);
                }
                _ => return Ok((dims, self.data_type()?)),
            }
        }
    }
}

/// The data type printed as element-type suffix `s` (`f32` → float32).
pub(crate) fn data_type_of_suffix(s: &str) -> Option<DataType> {
    DataType::ALL
        .into_iter()
        .find(|d| *d != DataType::Undefined && d.type_suffix() == s)
}

/// `tensor<DIMSxDTYPE>`.
pub(crate) fn dense_tensor(p: &mut TypeParser<'_, '_>, _: &str) -> Result<Type, ParseError> {
    p.cur.expect(b'<', "`<`")?;
    let (dims, dtype) = p.dims_and_dtype()?;
    p.cur.expect(b'>', "`>` closing the tensor type")?;
    Ok(p.ctx
        .intern_type(TypeKey::DenseTensor(TensorKey::new(dtype, &dims))))
}

/// `pd_op.selectedrows<DIMSxDTYPE>`.
pub(crate) fn selected_rows(p: &mut TypeParser<'_, '_>, _: &str) -> Result<Type, ParseError> {
    p.cur.expect(b'<', "`<`")?;
    let (dims, dtype) = p.dims_and_dtype()?;
    p.cur.expect(b'>', "`>` closing the selected-rows type")?;
    Ok(p.ctx
        .intern_type(TypeKey::SelectedRows(TensorKey::new(dtype, &dims))))
}

/// `pd_op.tensor_array<DTYPE>`. Paddle prints neither the element dims nor the layout; they
/// read back as rank 0 (`[]`) and NCHW.
pub(crate) fn tensor_array(p: &mut TypeParser<'_, '_>, _: &str) -> Result<Type, ParseError> {
    p.cur.expect(b'<', "`<`")?;
    let dtype = p.data_type()?;
    p.cur.expect(b'>', "`>` closing the tensor-array type")?;
    Ok(p.ctx.dense_tensor_array_type(dtype, &[], DataLayout::Nchw))
}

/// `pd_op.sparsecootensor<DIMSxDTYPE>`. The text holds neither the non-zero dims nor the
/// index and value parts; they read back as Paddle's builds make them
/// ([`IrContext::sparse_coo_type_of`]).
pub(crate) fn sparse_coo(p: &mut TypeParser<'_, '_>, _: &str) -> Result<Type, ParseError> {
    p.cur.expect(b'<', "`<`")?;
    let (dims, dtype) = p.dims_and_dtype()?;
    p.cur.expect(b'>', "`>` closing the sparse COO type")?;
    Ok(p.ctx
        .sparse_coo_type_of(&crate::meta::TensorMeta::new(dtype, &dims)))
}

/// `pd_op.sparsecsrtensor<DIMSxDTYPE>` (pir-rs's spelling; Paddle prints nothing after
/// `pd_op.` for this type). Its parts read back null ([`IrContext::sparse_csr_type_of`]).
pub(crate) fn sparse_csr(p: &mut TypeParser<'_, '_>, _: &str) -> Result<Type, ParseError> {
    p.cur.expect(b'<', "`<`")?;
    let (dims, dtype) = p.dims_and_dtype()?;
    p.cur.expect(b'>', "`>` closing the sparse CSR type")?;
    Ok(p.ctx
        .sparse_csr_type_of(&crate::meta::TensorMeta::new(dtype, &dims)))
}

/// `vec[T0,T1,...]`. Paddle's vectors may hold null types (a translated `rnn_grad` returns
/// `vec[<<NULL TYPE>>,<<NULL TYPE>>]`); such an element is held as the undefined element type,
/// which prints the same.
pub(crate) fn vector(p: &mut TypeParser<'_, '_>, _: &str) -> Result<Type, ParseError> {
    p.cur.expect(b'[', "`[`")?;
    let mut elems: SmallVec<[Type; 8]> = SmallVec::new();
    if !p.cur.eat(b']') {
        loop {
            let t = p.parse_type()?;
            elems.push(t.unwrap_or_else(|| p.ctx.scalar_type(DataType::Undefined)));
            if p.cur.eat(b']') {
                break;
            }
            p.cur.expect(b',', "`,` or `]` in a vector type")?;
        }
    }
    Ok(p.ctx.vector_type(&elems))
}

/// An element type: `f32`, `i64`, ...
pub(crate) fn scalar(p: &mut TypeParser<'_, '_>, keyword: &str) -> Result<Type, ParseError> {
    match data_type_of_suffix(keyword) {
        Some(d) => Ok(p.ctx.scalar_type(d)),
        None => Err(p.cur.expected("an element type")),
    }
}

/// `dialect.name` or `dialect.name<A0,A1,...>` with attribute parameters.
fn custom(p: &mut TypeParser<'_, '_>, keyword: &str) -> Result<Type, ParseError> {
    let (dialect, name) = keyword.split_once('.').unwrap_or(("", keyword));
    let mut params = Vec::new();
    if p.cur.peek_raw() == Some(b'<') {
        p.cur.expect(b'<', "`<`")?;
        if !p.cur.eat(b'>') {
            loop {
                let mut a = AttrParser::new(p.cur, p.ctx, p.syntax, p.depth + 1);
                params.push(a.parse_value()?);
                if p.cur.eat(b'>') {
                    break;
                }
                p.cur.expect(b',', "`,` or `>` in the type's parameters")?;
            }
        }
    }
    Ok(p.ctx.intern_type(TypeKey::Custom(dialect, name, &params)))
}
