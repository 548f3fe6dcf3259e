//! Paddle's text format, read back: the inverse of the [`printer`](crate::printer).
//!
//! Every op is created through the context's registry by the name it is printed with, so any
//! registered dialect parses, generated or hand-written. The format does not say which kind
//! an attribute has (`1` may be `Int32`, `Int64` or a `Scalar` holding a double); the op's
//! schema does, so an attribute reads back as the kind its op declares (see [`attributes`]).
//! Types are read by their keyword ([`types`]), and [`TextSyntax`] is where a dialect registers
//! new type keywords, attribute syntaxes, printed op names and fix-ups. The op grammar
//! ([`ops`]) takes Paddle's general form and the shapes its custom printers use (regions,
//! `else`, `^` block arguments, labelled operands, `[id:N]`).
//!
//! Errors carry line and column, the op being read, and what was expected versus found; no
//! input panics, and parsing is linear in the size of the text.
//!
//! ```
//! use pir_runtime::{parser, verify, IrContext};
//! let ctx = IrContext::new();
//! let text = concat!(
//!     "{\n",
//!     "    (%0) = \"builtin.parameter\" () {parameter_name:\"w\",persistable:[true]} : () -> tensor<6x5xf32>\n",
//!     "    () = \"builtin.shadow_output\" (%0) {output_name:\"out\"} : (tensor<6x5xf32>) -> \n",
//!     "}\n",
//! );
//! let prog = parser::parse_program(&ctx, text).unwrap();
//! verify(&prog).unwrap();
//! assert_eq!(prog.to_string(), text); // print(parse(text)) == text
//!
//! let bad = text.replace("(%0) {output", "(%1) {output");
//! let err = parser::parse_program(&ctx, &bad).unwrap_err();
//! assert_eq!(err.to_string(),
//!     "3:35: op `builtin.shadow_output`: value `%1` is not defined by an earlier op result or block argument in scope");
//! ```

pub mod attributes;
mod compare;
mod dicts;
pub mod error;
mod lexer;
pub mod ops;
mod scope;
pub mod syntax;
pub mod types;

use std::fmt;
use std::sync::Arc;

pub use attributes::AttrParser;
pub use compare::first_difference;
pub use error::{ParseError, ParseErrorKind};
pub use lexer::Cursor;
pub use syntax::{AttrParseFn, AttrSyntax, OpHook, OpNameResolver, TextSyntax, TypeParseFn};
pub use types::TypeParser;

use crate::attributes::Attribute;
use crate::context::IrContext;
use crate::printer::{print_program_with_ids, OpIds};
use crate::program::Program;
use crate::types::Type;

/// A parsed program with the op ids its text printed (`[id:N]`), so it prints back as read.
///
/// ```
/// use pir_runtime::{parser, IrContext};
/// let ctx = IrContext::new();
/// let text = "{\n    (%0) = \"builtin.parameter\" [id:7] () {parameter_name:\"w\"} : () -> tensor<2xf32>\n}\n";
/// let parsed = parser::parse_module(&ctx, text).unwrap();
/// assert_eq!(parsed.op_ids.len(), 1);
/// assert_eq!(parsed.to_string(), text);
/// assert!(!parsed.program.to_string().contains("[id:7]")); // the program alone prints no ids
/// ```
#[derive(Debug)]
pub struct ParsedProgram {
    /// The program.
    pub program: Program,
    /// The ids the text gave its ops.
    pub op_ids: OpIds,
}

impl fmt::Display for ParsedProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print_program_with_ids(f, &self.program, &self.op_ids)
    }
}

/// Parses a program printed by Paddle or by [`Program`]'s `Display`, with the standard
/// syntax; op ids (`[id:N]`) are read and dropped (see [`parse_module`] to keep them).
///
/// # Errors
///
/// [`ParseError`] at the first problem: its line and column, the op being read, and what was
/// expected versus found (unknown op, undefined or redefined value, operand count, type or
/// attribute syntax, ...).
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// let prog = pir_runtime::parser::parse_program(&ctx, "{\n}\n").unwrap();
/// assert_eq!(prog.block_len(prog.block()), 0);
/// ```
pub fn parse_program(ctx: &Arc<IrContext>, text: &str) -> Result<Program, ParseError> {
    Ok(parse_module(ctx, text)?.program)
}

/// Parses a program and the op ids its text prints, with the standard syntax.
///
/// # Errors
///
/// As [`parse_program`].
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// let m = pir_runtime::parser::parse_module(&ctx, "{\n}\n").unwrap();
/// assert!(m.op_ids.is_empty());
/// ```
pub fn parse_module(ctx: &Arc<IrContext>, text: &str) -> Result<ParsedProgram, ParseError> {
    parse_module_with(ctx, text, TextSyntax::standard())
}

/// Parses a program with the given syntax tables.
///
/// # Errors
///
/// As [`parse_program`].
///
/// ```
/// use pir_runtime::parser::{parse_module_with, TextSyntax};
/// let ctx = pir_runtime::IrContext::new();
/// let m = parse_module_with(&ctx, "{\n}\n", &TextSyntax::new()).unwrap();
/// assert_eq!(m.to_string(), "{\n}\n");
/// ```
pub fn parse_module_with(
    ctx: &Arc<IrContext>,
    text: &str,
    syntax: &TextSyntax,
) -> Result<ParsedProgram, ParseError> {
    ops::ProgramParser::new(ctx, text, syntax).run()
}

/// Parses one type (`None` for `<<NULL TYPE>>`); the whole text must be the type.
///
/// # Errors
///
/// [`ParseError`] for anything that is not exactly one type.
///
/// ```
/// use pir_runtime::{parser, IrContext, phi::DataType};
/// let ctx = IrContext::new();
/// let t = parser::parse_type(&ctx, "tensor<-1x3xf32>").unwrap();
/// assert_eq!(t, Some(ctx.dense_tensor_type(DataType::Float32, &[-1, 3])));
/// ```
pub fn parse_type(ctx: &IrContext, text: &str) -> Result<Option<Type>, ParseError> {
    parse_type_with(ctx, text, TextSyntax::standard())
}

/// [`parse_type`] with the given syntax tables.
///
/// # Errors
///
/// As [`parse_type`].
///
/// ```
/// use pir_runtime::parser::{parse_type_with, TextSyntax};
/// let ctx = pir_runtime::IrContext::new();
/// assert!(parse_type_with(&ctx, "f32", &TextSyntax::new()).unwrap().is_some());
/// ```
pub fn parse_type_with(
    ctx: &IrContext,
    text: &str,
    syntax: &TextSyntax,
) -> Result<Option<Type>, ParseError> {
    let mut cur = Cursor::new(text);
    let t = TypeParser::new(&mut cur, ctx, syntax, 0).parse_type()?;
    expect_end(&mut cur)?;
    Ok(t)
}

/// Parses one attribute value by its syntax alone (no op says its kind; see [`attributes`]).
///
/// # Errors
///
/// [`ParseError`] for anything that is not exactly one attribute value.
///
/// ```
/// use pir_runtime::{parser, IrContext, phi::Place};
/// let ctx = IrContext::new();
/// assert_eq!(parser::parse_attribute(&ctx, "Place(cpu)").unwrap(), ctx.place_attr(Place::cpu()));
/// assert_eq!(parser::parse_attribute(&ctx, "[true]").unwrap(), ctx.bool_array_attr(&[true]));
/// ```
pub fn parse_attribute(ctx: &IrContext, text: &str) -> Result<Attribute, ParseError> {
    let mut cur = Cursor::new(text);
    let a = AttrParser::new(&mut cur, ctx, TextSyntax::standard(), 0).parse_value()?;
    expect_end(&mut cur)?;
    Ok(a)
}

fn expect_end(cur: &mut Cursor<'_>) -> Result<(), ParseError> {
    if cur.at_end() {
        Ok(())
    } else {
        let pos = cur.pos();
        let found = cur.found();
        Err(cur.error_at(pos, ParseErrorKind::TrailingInput { found }))
    }
}
