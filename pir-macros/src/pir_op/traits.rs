//! `traits(...)` and `interfaces(...)`: pir-runtime's by their type's name (checked against the
//! vocabulary table `pir_spec::known`), any other by path; plus the ones Paddle's generator
//! attaches on its own (`InplaceTrait` on `_` ops, `OpYamlInfo` always, `InferMeta` with
//! `infer_meta`, `Vjp` with `backward`, `GetKernelTypeForVar` on `pd_op`).

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Ident, Path};

use pir_spec::known::{self, InterfaceImpl};

use super::lower::Identity;
use super::meta::{backticked, closest, Errors};
use super::options::OpArgs;
use crate::codegen::InterfaceGen;

/// What the generator attaches for a list of traits or interfaces.
#[derive(Default)]
pub(super) struct Attached<T> {
    /// The implementations (trait paths, or interface implementations).
    pub items: Vec<T>,
    /// Paddle names known now (`ReadOnlyTrait`).
    pub names: Vec<String>,
    /// Paddle names of the user's own, as constants (`<T as OpTrait>::NAME`).
    pub consts: Vec<TokenStream>,
}

/// Repeats in a `traits(...)` / `interfaces(...)` list (`ReadOnly` and `ReadOnlyTrait` are one
/// name), reported where they occur.
struct Repeats {
    suffix: &'static str,
    what: &'static str,
    seen: Vec<String>,
}

impl Repeats {
    fn new(suffix: &'static str, what: &'static str) -> Repeats {
        Repeats {
            suffix,
            what,
            seen: Vec::new(),
        }
    }

    /// Whether `p` is listed for the first time; a repeat is reported.
    fn first(&mut self, p: &Path, errors: &mut Errors) -> bool {
        let text = p.to_token_stream().to_string().replace(' ', "");
        let key = text.strip_suffix(self.suffix).unwrap_or(&text).to_string();
        if self.seen.contains(&key) {
            let what = self.what;
            errors.push(syn::Error::new(
                p.span(),
                format!("{what} `{text}` is listed twice"),
            ));
            return false;
        }
        self.seen.push(key);
        true
    }
}

/// The op's traits: pir-runtime's by short name, any other by path; `_` ops are in-place.
pub(super) fn lower_traits(
    args: &OpArgs,
    id: &Identity,
    errors: &mut Errors,
) -> Attached<TokenStream> {
    let mut out = Attached::default();
    let inplace_op = id.op_name.ends_with('_');
    let mut repeats = Repeats::new("Trait", "trait");
    for p in args.traits.iter().flat_map(|t| &t.0) {
        if !repeats.first(p, errors) {
            continue;
        }
        let Some(ident) = p.get_ident() else {
            out.items.push(quote!(#p));
            out.consts
                .push(quote_spanned!(p.span()=> <#p as ::pir_runtime::op_def::OpTrait>::NAME));
            continue;
        };
        let short = ident.to_string();
        let short = short.strip_suffix("Trait").unwrap_or(&short).to_string();
        if known::runtime_trait(&short).is_none() {
            errors.push(unknown_trait(ident));
            continue;
        }
        if short == "Inplace" {
            if !inplace_op {
                errors.push(syn::Error::new(
                    ident.span(),
                    format!("`Inplace` marks in-place ops, whose names end with `_` (it is attached to them automatically); name the op `{}_` or remove `Inplace`", id.full_name),
                ));
            }
            continue;
        }
        let rid = Ident::new(&short, ident.span());
        out.items
            .push(quote_spanned!(ident.span()=> ::pir_runtime::traits::#rid));
        out.names.push(format!("{short}Trait"));
    }
    if inplace_op {
        out.items.push(quote!(::pir_runtime::traits::Inplace));
        out.names.push("InplaceTrait".into());
    }
    out
}

fn unknown_trait(ident: &Ident) -> syn::Error {
    let traits: Vec<&str> = known::TRAITS.iter().filter_map(|t| t.runtime).collect();
    unknown(
        ident,
        "trait",
        &traits,
        "`declare_trait!`), write its path, e.g. `crate::MyTrait` or `self::MyTrait`",
    )
}

fn unknown_interface(ident: &Ident) -> syn::Error {
    let interfaces: Vec<&str> = known::INTERFACES.iter().map(|i| i.runtime).collect();
    unknown(
        ident,
        "interface",
        &interfaces,
        "`declare_interface!`), write its path, e.g. `crate::MyInterface`",
    )
}

/// An unknown trait or interface: the closest of pir-runtime's, all of them, and how to name
/// one of your own (`own`, after "declared with ").
fn unknown(ident: &Ident, what: &str, names: &[&str], own: &str) -> syn::Error {
    let hint = closest(&ident.to_string(), names.iter().copied())
        .map(|c| format!("did you mean `{c}`? "))
        .unwrap_or_default();
    syn::Error::new(
        ident.span(),
        format!(
            "unknown {what} `{ident}`; {hint}pir-runtime's {what}s are {}; for {} {what} of your own (declared with {own}",
            backticked(names, "and"),
            if what == "interface" { "an" } else { "a" }
        ),
    )
}

/// `pir_runtime::interfaces::<name>`, implemented through `OpInterfaceImpl`.
fn runtime_interface(name: &str, span: Span) -> InterfaceGen {
    let id = Ident::new(name, span);
    InterfaceGen::Generic {
        path: quote_spanned!(span=> ::pir_runtime::interfaces::#id),
        span,
    }
}

/// The op's interfaces: `OpYamlInfo` always, `InferMeta` with `infer_meta`, `Vjp` with
/// `backward`, `GetKernelTypeForVar` on `pd_op` (as Paddle's generator attaches them); the rest
/// as listed.
pub(super) fn lower_interfaces(
    args: &OpArgs,
    id: &Identity,
    infer_meta: Option<InterfaceGen>,
    errors: &mut Errors,
) -> Attached<InterfaceGen> {
    let mut out = Attached {
        items: vec![InterfaceGen::OpYamlInfo],
        names: vec!["OpYamlInfoInterface".into()],
        consts: Vec::new(),
    };
    let mut listed_kernel_type = false;
    let mut repeats = Repeats::new("Interface", "interface");
    for p in args.interfaces.iter().flat_map(|t| &t.0) {
        if !repeats.first(p, errors) {
            continue;
        }
        let Some(ident) = p.get_ident() else {
            out.items.push(InterfaceGen::Generic {
                path: quote!(#p),
                span: p.span(),
            });
            out.consts
                .push(quote_spanned!(p.span()=> <#p as ::pir_runtime::op_def::Interface>::NAME));
            continue;
        };
        let short = ident.to_string();
        let short = short
            .strip_suffix("Interface")
            .unwrap_or(&short)
            .to_string();
        let span = ident.span();
        match known::runtime_interface(&short).map(|k| k.implementation) {
            // Attached below from the op's own keys; listing them checks the keys are there.
            Some(InterfaceImpl::SchemaInfo) => {}
            Some(InterfaceImpl::InferMetaFunc) => {
                if args.infer_meta.is_none() {
                    errors.push(syn::Error::new(
                        span,
                        "`InferMeta` needs the op's infer-meta function: add `infer_meta(func = \"UnchangedInferMeta\", registry = crate::INFER_META)` or `infer_meta(with = crate::my_infer_meta)` to `#[pir_op(...)]`",
                    ));
                }
            }
            // With `backward = "..."` the Vjp is attached below (its table is derived from the
            // two schemas); without, the op writes it by hand (`impl VjpOp`).
            Some(InterfaceImpl::BackwardOp) => {
                if args.backward.is_none() {
                    out.items.push(runtime_interface("Vjp", span));
                    out.names.push("VjpInterface".into());
                }
            }
            Some(InterfaceImpl::OwnInferShape | InterfaceImpl::DeclarationOnly) => {
                if short == "GetKernelTypeForVar" {
                    listed_kernel_type = true;
                }
                out.items.push(runtime_interface(&short, span));
                out.names.push(format!("{short}Interface"));
            }
            None => errors.push(unknown_interface(ident)),
        }
    }
    if let Some(g) = infer_meta {
        out.items.push(g);
        out.names.push("InferMetaInterface".into());
    }
    if let Some(b) = &id.backward {
        out.items.push(InterfaceGen::Vjp {
            backward_op: format!("{}.{b}", id.dialect),
            rule: None,
        });
        out.names.push("VjpInterface".into());
    }
    if id.dialect == "pd_op" && !listed_kernel_type {
        out.items
            .push(runtime_interface("GetKernelTypeForVar", Span::call_site()));
        out.names.push("GetKernelTypeForVarInterface".into());
    }
    out
}
