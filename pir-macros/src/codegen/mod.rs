//! The one code generator: an [`OpSchema`] plus the Rust-side choices of its front end
//! ([`GenOp`]) become a typed op handle, its static tables and thin build functions that call
//! `pir_runtime::op_support`.
//!
//! [`generate_op`] is a sequence of named emitters, each returning the tokens of one part of
//! the op (in the way serde_derive's and MLIR's `OpEmitter` are organised):
//!
//! | emitter | module | emits |
//! |---|---|---|
//! | `emit_handle` | here | the handle type `struct Op(OpId)` with its docs |
//! | `emit_schema_table` | `tables` | the `static` `OpSchema` |
//! | `emit_trait_table`, `emit_interface_table` | `tables` | sorted trait and interface entries |
//! | `emit_op_def` | `tables` | the `static` `OpDef` and `impl Op` |
//! | `emit_accessors`, `emit_attr_accessors` | `accessors` | input, output and attribute accessors |
//! | `emit_builders` | `builders` | `build`, `build_with_values`, `build_with_attributes`, `build_with_types` |
//! | `emit_attrs_struct` | `builders` | the typed build's `<Op>Attrs` struct |
//! | `fit_check` | `infer_meta_check` | the compile-time check that `infer_meta.param` fits the function |
//! | `vjp_init` | `vjp` | the Vjp interface with the op's Vjp table (`pir_spec::vjp::VjpRule`) |
//!
//! Shared pieces: `names` (identifiers), `values` (attribute values as Rust types and
//! expressions), `docs`, `schema_tokens` (any schema value as a `static` initializer).
//! [`generate_dialect`] emits a dialect through `pir_runtime::dialect!`, the one dialect
//! generator both front ends and hand-written dialects use.

mod accessors;
mod builders;
mod docs;
mod infer_meta_check;
mod names;
mod schema_tokens;
mod tables;
mod values;
mod vjp;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Ident;

use pir_spec::OpSchema;

use names::{accessor_names, Names, Statics};

/// How an interface's implementation is obtained.
pub(crate) enum InterfaceGen {
    /// `OpYamlInfo::new(&SCHEMA)`.
    OpYamlInfo,
    /// `InferMeta::from_registry(func, &registry)`.
    InferMetaRegistry { func: String, registry: TokenStream },
    /// `InferMeta::direct(func, path)`.
    InferMetaDirect { func: String, path: TokenStream },
    /// `Vjp::with_rule(backward_op, &RULE)` (or `Vjp::new` without a table).
    Vjp {
        backward_op: String,
        rule: Option<pir_spec::vjp::VjpRule>,
    },
    /// `<path as OpInterfaceImpl<Op>>::IMPL`; the span points at the user's token.
    Generic { path: TokenStream, span: Span },
    /// A declaration-only interface (a unit struct whose implementation is the same for every
    /// op): the entry points at a promoted `&path`, with no static or trait lookup per op.
    Unit { path: TokenStream },
}

/// One op to generate.
pub(crate) struct GenOp {
    /// The specification.
    pub schema: OpSchema,
    /// The handle type's name (`Conv2dOp`).
    pub ident: Ident,
    /// Its visibility.
    pub vis: TokenStream,
    /// Attributes to put on the handle type (doc comments, ...).
    pub attrs: Vec<TokenStream>,
    /// Rust paths of the op's traits (types implementing `OpTrait`), with their spans.
    pub traits: Vec<TokenStream>,
    /// The op's interfaces.
    pub interfaces: Vec<InterfaceGen>,
    /// An extra verifier function path.
    pub extra_verify: Option<TokenStream>,
    /// Schema entries only known in the user's crate (`#[pir_op]`); empty for yaml ops.
    pub overrides: SchemaOverrides,
}

/// Schema entries a front end cannot spell as literals at expansion time: names that are
/// constants of the user's types and the definition's location. Empty (the default) leaves the
/// schema exactly as [`OpSchema`] says.
#[derive(Default)]
pub(crate) struct SchemaOverrides {
    /// More trait names, as `&'static str` constant expressions (`<T as OpTrait>::NAME`); merged
    /// with `schema.traits` and sorted at compile time.
    pub trait_names: Vec<TokenStream>,
    /// More interface names (`<I as Interface>::NAME`); merged with `schema.interfaces`.
    pub interface_names: Vec<TokenStream>,
    /// A `SourceLoc` expression replacing `schema.source` (`file!()` / `line!()`).
    pub source: Option<TokenStream>,
}

fn rt() -> TokenStream {
    quote!(::pir_runtime)
}

/// One op being generated: the front end's [`GenOp`] and what every emitter needs of it.
struct OpGen<'a> {
    g: &'a GenOp,
    s: &'a OpSchema,
    /// The handle's accessor and field names.
    names: Names,
    /// The op's hidden statics.
    statics: Statics,
    /// `` `pd_op.x` (Tensor x, ...) -> Tensor(out) ``, for docs.
    signature: String,
}

impl OpGen<'_> {
    fn attribute_names(&self) -> Vec<&str> {
        self.s.attributes.iter().map(|a| &*a.name).collect()
    }
}

/// Generates one op.
pub(crate) fn generate_op(g: &GenOp) -> TokenStream {
    let op = OpGen {
        g,
        s: &g.schema,
        names: accessor_names(&g.schema),
        statics: Statics::new(&g.ident),
        signature: docs::signature_doc(&g.schema),
    };
    let handle = emit_handle(&op);
    let schema_table = tables::emit_schema_table(&op);
    let trait_table = tables::emit_trait_table(&op);
    let interface_table = tables::emit_interface_table(&op);
    let op_def = tables::emit_op_def(&op);
    let methods = emit_methods(&op);
    let attrs_struct = builders::emit_attrs_struct(&op);
    let fit_check = infer_meta_check::fit_check(g);
    quote! {
        #handle
        #schema_table
        #trait_table
        #interface_table
        #op_def
        #methods
        #attrs_struct
        #fit_check
    }
}

/// The handle type: the front end's attributes, the op's docs and its signature.
fn emit_handle(op: &OpGen<'_>) -> TokenStream {
    let (g, s) = (op.g, op.s);
    let rt = rt();
    let (attrs, vis, ident) = (&g.attrs, &g.vis, &g.ident);
    let struct_doc = if s.doc.is_empty() {
        None
    } else {
        Some(docs::doc_attr(&s.doc))
    };
    let sig_doc = docs::doc_attr(&format!(
        "\n\nGenerated op {}{}.",
        op.signature,
        match &s.source {
            Some(l) => format!(", defined at {}:{}", l.file, l.line),
            None => String::new(),
        }
    ));
    quote! {
        #(#attrs)*
        #struct_doc
        #sig_doc
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        #vis struct #ident(#rt::OpId);
    }
}

/// The handle's inherent methods: names and schema, accessors, builds.
fn emit_methods(op: &OpGen<'_>) -> TokenStream {
    let rt = rt();
    let ident = &op.g.ident;
    let name = &*op.s.name;
    let name_doc = format!("`{name}`");
    let attribute_names = op.attribute_names();
    let schema_static = &op.statics.schema;
    let accessors = accessors::emit_accessors(op);
    let attr_accessors = accessors::emit_attr_accessors(op);
    let builders = builders::emit_builders(op);
    quote! {
        #[allow(non_snake_case, clippy::too_many_arguments)]
        impl #ident {
            #[doc = #name_doc]
            pub const NAME: &'static str = #name;
            /// Names of the (non-mutable) attributes, in order.
            pub const ATTRIBUTE_NAMES: &'static [&'static str] = &[#(#attribute_names),*];

            /// The op's specification.
            pub fn schema() -> &'static #rt::pir_spec::OpSchema {
                &#schema_static
            }

            /// Paddle's GetOpInfo tuple.
            pub fn get_op_info() -> #rt::pir_spec::OpInfoTuple {
                #schema_static.op_info_tuple()
            }

            /// The op id.
            #[inline]
            pub fn op(self) -> #rt::OpId {
                self.0
            }

            #accessors
            #attr_accessors
            #builders
        }
    }
}

/// Generates the dialect type registering `ops`, through `pir_runtime::dialect!` (the one
/// dialect generator: hand-written dialects of `#[pir_op]` ops use it directly).
pub(crate) fn generate_dialect(
    vis: &TokenStream,
    ident: &Ident,
    dialect: &str,
    ops: &[Ident],
) -> TokenStream {
    let rt = rt();
    let doc = format!("The `{dialect}` dialect: {} generated ops.", ops.len());
    quote! {
        #rt::dialect!(
            #[doc = #doc]
            #vis #ident = #dialect [#(#ops),*]
        );
    }
}
