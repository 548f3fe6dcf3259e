//! The compile-time check that an op's `infer_meta.param` list fits the parameters of the
//! function it names, in count and kind.
//!
//! A generated op whose infer-meta function comes from a registry gets a `const` item that asks
//! the registry (`InferMetaRegistry::fit_message`, a `const fn` reading the registry `static`)
//! and panics with the message when the arguments do not fit: the mismatch is a compile error
//! naming the op (with its yaml `file:line`), its param list and the Rust function with its
//! parameters. A function the registry lacks (not implemented yet) or holds without a
//! signature passes; the typed build then reports it at run time, as before.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

use pir_spec::{InputKind, OpSchema, ValueKind};

use super::{schema_tokens, GenOp, InterfaceGen};

/// The check for `g`, or nothing when its infer-meta function does not come from a registry.
pub(crate) fn fit_check(g: &GenOp) -> TokenStream {
    let Some((func, registry)) = g.interfaces.iter().find_map(|i| match i {
        InterfaceGen::InferMetaRegistry { func, registry } if !func.is_empty() => {
            Some((func, registry))
        }
        _ => None,
    }) else {
        return quote!();
    };
    let s = &g.schema;
    let Some(args) = arg_kinds(s) else {
        // A param naming neither an input nor an attribute: the build reports it.
        return quote!();
    };
    let args = args.iter().map(|(name, kind)| quote!((#name, #kind)));
    let op = match &s.source {
        Some(l) => format!("op `{}` ({}:{})", s.name, l.file, l.line),
        None => format!("op `{}`", s.name),
    };
    // The error points at the registry as the user wrote it.
    let span = registry
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span());
    quote_spanned! {span=>
        const _: () = {
            let message = #registry.fit_message(#func, #op, &[#(#args),*]);
            if !message.is_empty() {
                ::core::panic!("{}", message.as_str());
            }
        };
    }
}

/// `(name, pir_runtime::meta::ArgKind)` of each `infer_meta.param` entry, `None` if one names
/// neither an input nor an attribute.
fn arg_kinds(s: &OpSchema) -> Option<Vec<(String, TokenStream)>> {
    let rt = quote!(::pir_runtime::meta);
    s.runtime
        .infer_meta_param
        .iter()
        .map(|p| {
            let kind = if let Some(i) = s.input_index(p) {
                let input = &s.inputs[i];
                match (&input.kind, input.optional) {
                    (InputKind::Value(ValueKind::Tensor(_)), false) => quote!(#rt::ArgKind::Tensor),
                    (InputKind::Value(ValueKind::Tensor(_)), true) => {
                        quote!(#rt::ArgKind::OptionalTensor)
                    }
                    (InputKind::Value(ValueKind::Vector(_)), false) => {
                        quote!(#rt::ArgKind::TensorList)
                    }
                    (InputKind::Value(ValueKind::Vector(_)), true) => {
                        quote!(#rt::ArgKind::OptionalTensorList)
                    }
                    (InputKind::MutableAttribute(m), _) => {
                        let k = schema_tokens::attr_kind(m.kind);
                        quote!(#rt::ArgKind::Attr(#k))
                    }
                }
            } else if OpSchema::param_constant(p).is_some() {
                let k = schema_tokens::attr_kind(pir_spec::AttrKind::Bool);
                quote!(#rt::ArgKind::Attr(#k))
            } else {
                let a = &s.attributes[s.attribute_index(p)?];
                let k = schema_tokens::attr_kind(a.kind);
                quote!(#rt::ArgKind::Attr(#k))
            };
            Some((p.to_string(), kind))
        })
        .collect()
}
