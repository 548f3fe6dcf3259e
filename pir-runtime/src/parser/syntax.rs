//! What the parser knows beyond the context's op registry: the syntax of types, the kinds of
//! attributes no op schema declares, and op-specific fix-ups.
//!
//! The text format does not say which attribute kind a value has (`1` may be an
//! `Int32Attribute`, an `Int64Attribute` or a `Scalar` holding a double), so the parser takes the
//! kind from the op's schema when it declares the attribute, then from this registry, and
//! otherwise from the value's syntax (see [`super::attributes`]). Types are dispatched on their
//! leading keyword (`tensor`, `vec`, `pd_op.selectedrows`, `f32`, ...); a dialect that adds a
//! type registers its keyword here, and ops printed under another name than their registered
//! one (the kernel dialect's `"conv2d(phi_kernel)"`) register a name resolver. Nothing else in
//! the parser needs to change for a new dialect.
//!
//! ```
//! use pir_runtime::parser::{self, TextSyntax, TypeParser};
//! use pir_runtime::{IrContext, TypeKey, phi::DataType};
//! // A dialect type `toy.matrix<3x4xf32>`, interned as a custom type with two parameters.
//! fn matrix(p: &mut TypeParser<'_, '_>, _keyword: &str) -> Result<pir_runtime::Type, parser::ParseError> {
//!     p.cursor().expect(b'<', "`<`")?;
//!     let (dims, dtype) = p.dims_and_dtype()?;
//!     p.cursor().expect(b'>', "`>`")?;
//!     let ctx = p.ctx();
//!     let params = [ctx.int_array_attr(&dims), ctx.dtype_attr(dtype)];
//!     Ok(ctx.intern_type(TypeKey::Custom("toy", "matrix", &params)))
//! }
//! let mut syntax = TextSyntax::new();
//! syntax.register_type("toy.matrix", matrix);
//! let ctx = IrContext::new();
//! let t = parser::parse_type_with(&ctx, "toy.matrix<3x4xf32>", &syntax).unwrap().unwrap();
//! assert_eq!(t.display(&ctx).to_string(), "toy.matrix<[3,4],float32>");
//! ```

use std::sync::LazyLock;

use rustc_hash::FxHashMap;

use pir_spec::AttrKind;

use super::attributes::AttrParser;
use super::error::ParseError;
use super::types::{self, TypeParser};
use crate::attributes::Attribute;
use crate::context::IrContext;
use crate::op_def::OpDef;
use crate::phi::DataType;
use crate::program::{OpId, Program};
use crate::types::Type;

/// Parses the rest of a type after its keyword (which the parser has consumed and passes in).
pub type TypeParseFn = fn(&mut TypeParser<'_, '_>, &str) -> Result<Type, ParseError>;

/// Parses an attribute value of a custom syntax, starting at the value.
pub type AttrParseFn = fn(&mut AttrParser<'_, '_>) -> Result<Attribute, ParseError>;

/// Finds the definition of an op printed under a name that is not its registered name.
pub type OpNameResolver = fn(&IrContext, &str) -> Option<&'static OpDef>;

/// Runs after an op and its regions are parsed, to complete what the text leaves out (for
/// example the types of a loop body's block arguments); `Err` is reported at the op.
pub type OpHook = fn(&mut Program, OpId) -> Result<(), String>;

/// How the value of one attribute is read.
///
/// ```
/// use pir_runtime::parser::{self, AttrSyntax, TextSyntax};
/// use pir_runtime::{pir_spec::AttrKind, IrContext};
/// let ctx = IrContext::new();
/// let text = "{\n    (%0) = \"builtin.constant\" () {step:3,value:1} : () -> i64\n}\n";
/// // By its syntax, `3` is an Int32; registered as Int64, it reads as one.
/// let mut syntax = TextSyntax::new();
/// syntax.register_attr(Some("builtin.constant"), "step", AttrSyntax::Kind(AttrKind::Int64));
/// let prog = parser::parse_module_with(&ctx, text, &syntax).unwrap().program;
/// assert_eq!(prog.op(prog.first_op(prog.block()).unwrap()).attr("step"), Some(ctx.i64_attr(3)));
/// ```
#[derive(Clone, Copy, Debug)]
pub enum AttrSyntax {
    /// As an attribute of this kind (values that do not fit it are read by their syntax and
    /// left to `verify`).
    Kind(AttrKind),
    /// By a custom parser.
    Custom(AttrParseFn),
}

/// The parser's extensible syntax tables. [`TextSyntax::new`] knows every type and attribute
/// the runtime defines.
///
/// ```
/// use pir_runtime::parser::{AttrSyntax, TextSyntax};
/// use pir_runtime::pir_spec::AttrKind;
/// let mut syntax = TextSyntax::new();
/// assert!(syntax.has_type_keyword("tensor") && syntax.has_type_keyword("bf16"));
/// syntax.register_attr(Some("toy.op"), "seed", AttrSyntax::Kind(AttrKind::Int64));
/// assert!(matches!(syntax.attr_syntax("toy.op", "seed"), Some(AttrSyntax::Kind(AttrKind::Int64))));
/// assert!(syntax.attr_syntax("toy.other", "seed").is_none());
/// ```
#[derive(Clone)]
pub struct TextSyntax {
    types: FxHashMap<&'static str, TypeParseFn>,
    /// Attribute syntax by attribute name, then op name (`""`: every op).
    attrs: FxHashMap<&'static str, Vec<(&'static str, AttrSyntax)>>,
    resolvers: Vec<OpNameResolver>,
    hooks: FxHashMap<&'static str, OpHook>,
}

impl std::fmt::Debug for TextSyntax {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut keywords: Vec<_> = self.types.keys().collect();
        keywords.sort();
        f.debug_struct("TextSyntax")
            .field("type_keywords", &keywords)
            .field("attrs", &self.attrs.len())
            .field("resolvers", &self.resolvers.len())
            .field("hooks", &self.hooks.len())
            .finish()
    }
}

static DEFAULT: LazyLock<TextSyntax> = LazyLock::new(TextSyntax::new);

impl Default for TextSyntax {
    fn default() -> Self {
        TextSyntax::new()
    }
}

impl TextSyntax {
    /// The runtime's syntax: dense tensors, vectors, selected rows, tensor arrays, the builtin
    /// element types, and the attributes Paddle adds to ops outside their schemas.
    pub fn new() -> TextSyntax {
        let mut s = TextSyntax {
            types: FxHashMap::default(),
            attrs: FxHashMap::default(),
            resolvers: Vec::new(),
            hooks: FxHashMap::default(),
        };
        s.register_type("tensor", types::dense_tensor);
        s.register_type("vec", types::vector);
        s.register_type("pd_op.selectedrows", types::selected_rows);
        s.register_type("pd_op.tensor_array", types::tensor_array);
        s.register_type("pd_op.sparsecootensor", types::sparse_coo);
        s.register_type("pd_op.sparsecsrtensor", types::sparse_csr);
        for d in DataType::ALL {
            if d != DataType::Undefined {
                s.register_type(d.type_suffix(), types::scalar);
            }
        }
        // The id of the op a pass started from (`pir::Int64Attribute` in Paddle).
        s.register_attr(None, "origin_id", AttrSyntax::Kind(AttrKind::Int64));
        // The op's role in training (forward, backward, optimize) (`pir::Int32Attribute`).
        s.register_attr(None, "op_role", AttrSyntax::Kind(AttrKind::Int32));
        s
    }

    /// The shared instance of [`TextSyntax::new`].
    pub fn standard() -> &'static TextSyntax {
        &DEFAULT
    }

    /// Registers the parser of types that start with `keyword` (replacing any earlier one).
    pub fn register_type(&mut self, keyword: &'static str, parse: TypeParseFn) {
        self.types.insert(keyword, parse);
    }

    /// Whether `keyword` starts a registered type.
    pub fn has_type_keyword(&self, keyword: &str) -> bool {
        self.types.contains_key(keyword)
    }

    pub(crate) fn type_parser(&self, keyword: &str) -> Option<TypeParseFn> {
        self.types.get(keyword).copied()
    }

    /// Registers how attribute `name` is read, on op `op` (full name) or, with `None`, on any
    /// op whose schema does not declare it.
    pub fn register_attr(&mut self, op: Option<&'static str>, name: &'static str, s: AttrSyntax) {
        let op = op.unwrap_or("");
        let entries = self.attrs.entry(name).or_default();
        entries.retain(|(o, _)| *o != op);
        entries.push((op, s));
    }

    /// The registered syntax of attribute `name` of op `op`: the op's own entry, else the one
    /// for every op.
    pub fn attr_syntax(&self, op: &str, name: &str) -> Option<AttrSyntax> {
        let entries = self.attrs.get(name)?;
        entries
            .iter()
            .find(|(o, _)| *o == op)
            .or_else(|| entries.iter().find(|(o, _)| o.is_empty()))
            .map(|(_, s)| *s)
    }

    /// Registers a resolver for op names that are not registered names.
    ///
    /// ```
    /// use pir_runtime::parser::{self, TextSyntax};
    /// use pir_runtime::{IrContext, OpDef};
    /// static KERNEL: OpDef = OpDef::new("toy_kernel.phi_kernel", "toy_kernel");
    /// // Kernel ops print as `"<op>(phi_kernel)"`.
    /// fn kernel(ctx: &IrContext, name: &str) -> Option<&'static OpDef> {
    ///     name.ends_with("(phi_kernel)").then(|| ctx.op_def("toy_kernel.phi_kernel")).flatten()
    /// }
    /// let ctx = IrContext::new();
    /// ctx.register_ops("toy_kernel", &[&KERNEL]).unwrap();
    /// let mut syntax = TextSyntax::new();
    /// syntax.register_op_resolver(kernel);
    /// let text = "{\n    () = \"relu(phi_kernel)\" () {} : () -> \n}\n";
    /// let prog = parser::parse_module_with(&ctx, text, &syntax).unwrap().program;
    /// assert_eq!(prog.op(prog.first_op(prog.block()).unwrap()).name(), "toy_kernel.phi_kernel");
    /// ```
    pub fn register_op_resolver(&mut self, resolve: OpNameResolver) {
        self.resolvers.push(resolve);
    }

    pub(crate) fn resolve_op(&self, ctx: &IrContext, name: &str) -> Option<&'static OpDef> {
        self.resolvers.iter().find_map(|r| r(ctx, name))
    }

    /// Registers a hook run after every op named `op` (full registered name) is parsed.
    ///
    /// ```
    /// use pir_runtime::parser::{self, TextSyntax};
    /// use pir_runtime::{IrContext, OpDef, OpId, Program};
    /// static SRC: OpDef = OpDef::new("toy.src", "toy");
    /// // `toy.src` prints no result types; its result is always an i64 scalar.
    /// fn src_type(prog: &mut Program, op: OpId) -> Result<(), String> {
    ///     let v = prog.op(op).result(0);
    ///     let t = prog.ctx().scalar_type(pir_runtime::phi::DataType::Int64);
    ///     prog.set_value_type(v, Some(t));
    ///     Ok(())
    /// }
    /// let ctx = IrContext::new();
    /// ctx.register_ops("toy", &[&SRC]).unwrap();
    /// let mut syntax = TextSyntax::new();
    /// syntax.register_op_hook("toy.src", src_type);
    /// let prog = parser::parse_module_with(&ctx, "{\n    (%0) = \"toy.src\" ()\n}\n", &syntax).unwrap().program;
    /// let v = prog.op(prog.first_op(prog.block()).unwrap()).result(0);
    /// assert_eq!(prog.value_type(v).unwrap().display(&ctx).to_string(), "i64");
    /// ```
    pub fn register_op_hook(&mut self, op: &'static str, hook: OpHook) {
        self.hooks.insert(op, hook);
    }

    pub(crate) fn op_hook(&self, op: &str) -> Option<OpHook> {
        if self.hooks.is_empty() {
            return None;
        }
        self.hooks.get(op).copied()
    }
}
