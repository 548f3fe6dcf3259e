//! Accessors of the op handle: one per input (`Option<Value>`), output (`Value`) and attribute
//! (the typed value, read through `op_support::attribute_as`).

use proc_macro2::TokenStream;
use quote::quote;

use super::docs::{doc_attr, with_doc};
use super::values::attr_getter_type;
use super::{rt, schema_tokens, OpGen};

/// An accessor per input, then per output, named after them.
pub(super) fn emit_accessors(op: &OpGen<'_>) -> TokenStream {
    let (s, names) = (op.s, &op.names);
    let rt = rt();
    let mut out = TokenStream::new();
    for (i, (input, id)) in s.inputs.iter().zip(&names.inputs).enumerate() {
        let optional = if input.optional {
            " (optional: `None` when absent)"
        } else {
            ""
        };
        let doc = doc_attr(&with_doc(
            format!("Input {i}, `{}`{optional}.", input.name),
            &input.doc,
        ));
        out.extend(quote! {
            #doc
            #[inline]
            pub fn #id(self, program: &#rt::Program) -> ::core::option::Option<#rt::Value> {
                program.op(self.0).operand(#i)
            }
        });
    }
    for (i, (output, id)) in s.outputs.iter().zip(&names.outputs).enumerate() {
        let doc = doc_attr(&with_doc(
            format!("Result {i}, `{}`.", output.name),
            &output.doc,
        ));
        out.extend(quote! {
            #doc
            #[inline]
            pub fn #id(self, program: &#rt::Program) -> #rt::Value {
                program.op(self.0).result(#i)
            }
        });
    }
    out
}

/// A typed accessor per attribute (`None` when the op lacks it or it holds another kind).
pub(super) fn emit_attr_accessors(op: &OpGen<'_>) -> TokenStream {
    let rt = rt();
    let mut out = TokenStream::new();
    for (a, id) in op.s.attributes.iter().zip(&op.names.attr_getters) {
        let doc = doc_attr(&with_doc(
            format!(
                "Attribute `{}` (`{}`); `None` if the op lacks it or it holds another kind.",
                a.name, a.data_type
            ),
            &a.doc,
        ));
        let ty = attr_getter_type(a.kind);
        let kind = schema_tokens::attr_kind(a.kind);
        let name = &*a.name;
        out.extend(quote! {
            #doc
            #[inline]
            pub fn #id<'p>(self, program: &'p #rt::Program) -> ::core::option::Option<#ty> {
                #rt::op_support::attribute_as(program, self.0, #name, #kind)
            }
        });
    }
    out
}
