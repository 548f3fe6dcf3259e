//! The op's static tables: its `OpSchema`, its sorted trait and interface entries (one static
//! implementation per interface), and the `OpDef` that ties them to the handle through
//! `impl pir_runtime::Op`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::{rt, schema_tokens, InterfaceGen, OpGen};

/// The `OpSchema` static, after the constants that merge names known only in the user's crate
/// (`<T as OpTrait>::NAME`) with the schema's own, sorted at compile time.
pub(super) fn emit_schema_table(op: &OpGen<'_>) -> TokenStream {
    let (g, s) = (op.g, op.s);
    let rt = rt();
    let mut name_consts = Vec::new();
    let mut merged_names = |what: &str, known: &[pir_spec::Str], extra: &[TokenStream]| {
        if extra.is_empty() {
            return None;
        }
        let konst = format_ident!("__PIR_{}_NAMES_{}", what, op.statics.upper);
        let n = known.len() + extra.len();
        let known = known.iter().map(|k| -> &str { k });
        name_consts.push(quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            const #konst: [&str; #n] = #rt::op_def::sort_names([#(#known,)* #(#extra),*]);
        });
        let items = (0..n).map(|i| quote!(::std::borrow::Cow::Borrowed(#konst[#i])));
        Some(quote!(::std::borrow::Cow::Borrowed(&[#(#items),*])))
    };
    let schema_traits = merged_names("TRAIT", &s.traits, &g.overrides.trait_names);
    let schema_ifaces = merged_names("INTERFACE", &s.interfaces, &g.overrides.interface_names);
    let schema_init = schema_tokens::schema_with(
        s,
        schema_tokens::Overrides {
            traits: schema_traits,
            interfaces: schema_ifaces,
            source: g.overrides.source.clone(),
        },
    );
    let schema_static = &op.statics.schema;
    quote! {
        #(#name_consts)*
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #schema_static: #rt::pir_spec::OpSchema = #schema_init;
    }
}

/// The trait entries, sorted at compile time.
pub(super) fn emit_trait_table(op: &OpGen<'_>) -> TokenStream {
    let rt = rt();
    let traits = &op.g.traits;
    let entries = traits
        .iter()
        .map(|p| quote!(#rt::op_def::TraitEntry::of::<#p>()));
    let n = traits.len();
    let traits_static = &op.statics.traits;
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #traits_static: [#rt::op_def::TraitEntry; #n] =
            #rt::op_def::sort_traits([#(#entries),*]);
    }
}

/// The interfaces: one static implementation each, then the sorted entry table.
pub(super) fn emit_interface_table(op: &OpGen<'_>) -> TokenStream {
    let rt = rt();
    let mut statics = Vec::new();
    let mut entries = Vec::new();
    for (k, i) in op.g.interfaces.iter().enumerate() {
        if let InterfaceGen::Unit { path } = i {
            entries.push(quote!(#rt::op_def::InterfaceEntry::of::<#path>(&#path)));
            continue;
        }
        let st = format_ident!("__PIR_IFACE_{}_{}", op.statics.upper, k);
        let (ty, init) = interface_impl(op, i);
        statics.push(quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            static #st: #ty = #init;
        });
        entries.push(quote!(#rt::op_def::InterfaceEntry::of::<#ty>(&#st)));
    }
    let n = op.g.interfaces.len();
    let ifaces_static = &op.statics.interfaces;
    quote! {
        #(#statics)*
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #ifaces_static: [#rt::op_def::InterfaceEntry; #n] =
            #rt::op_def::sort_interfaces([#(#entries),*]);
    }
}

/// The type and initializer of one interface's static implementation.
fn interface_impl(op: &OpGen<'_>, i: &InterfaceGen) -> (TokenStream, TokenStream) {
    let rt = rt();
    let schema_static = &op.statics.schema;
    let ident = &op.g.ident;
    match i {
        InterfaceGen::OpYamlInfo => (
            quote!(#rt::interfaces::OpYamlInfo),
            quote!(#rt::interfaces::OpYamlInfo::new(&#schema_static)),
        ),
        InterfaceGen::InferMetaRegistry { func, registry } => (
            quote!(#rt::interfaces::InferMeta),
            quote!(#rt::interfaces::InferMeta::from_registry(#func, &#registry)),
        ),
        InterfaceGen::InferMetaDirect { func, path } => (
            quote!(#rt::interfaces::InferMeta),
            quote!(#rt::interfaces::InferMeta::direct(#func, #path)),
        ),
        InterfaceGen::Vjp { backward_op, rule } => (
            quote!(#rt::interfaces::Vjp),
            super::vjp::vjp_init(backward_op, rule.as_ref()),
        ),
        InterfaceGen::Generic { path, span } => (
            path.clone(),
            quote_spanned!(*span=> <#path as #rt::OpInterfaceImpl<#ident>>::IMPL),
        ),
        InterfaceGen::Unit { path } => (path.clone(), path.clone()),
    }
}

/// The `OpDef` static (with the tables the runtime would otherwise derive on every build: the
/// attributes sorted by name, and where each infer-meta argument comes from), the handle's size
/// check and `impl Op`.
pub(super) fn emit_op_def(op: &OpGen<'_>) -> TokenStream {
    let (g, s) = (op.g, op.s);
    let rt = rt();
    let ident = &g.ident;
    let (name, dialect) = (&*s.name, &*s.dialect);
    let attribute_names = op.attribute_names();
    // The extra verifier through a shim, so that it may return a `VerifyErrorKind` or anything
    // converting into one (free text as `String`).
    let verify = match &g.extra_verify {
        Some(p) => quote!(::core::option::Option::Some({
            fn __pir_extra_verify(
                op: #rt::OpRef<'_>,
            ) -> ::core::result::Result<(), #rt::VerifyErrorKind> {
                ::core::result::Result::map_err(#p(op), ::core::convert::Into::into)
            }
            __pir_extra_verify
        })),
        None => quote!(::core::option::Option::None),
    };
    let mut order: Vec<u16> = (0..s.attributes.len() as u16).collect();
    order.sort_by(|&a, &b| {
        s.attributes[a as usize]
            .name
            .cmp(&s.attributes[b as usize].name)
    });
    let infer_params = infer_param_table(op);
    let st = &op.statics;
    let (schema_static, traits_static) = (&st.schema, &st.traits);
    let (ifaces_static, def_static) = (&st.interfaces, &st.def);
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #def_static: #rt::OpDef = #rt::OpDef {
            name: #name,
            dialect: #dialect,
            traits: &#traits_static,
            interfaces: &#ifaces_static,
            attribute_names: &[#(#attribute_names),*],
            verify: #verify,
            schema: ::core::option::Option::Some(&#schema_static),
            print: ::core::option::Option::None,
            attr_order: &[#(#order),*],
            infer_params: #infer_params,
            attr_cache: #rt::op_def::AttrCache::new(),
        };

        #rt::__private::static_assertions::assert_eq_size!(#ident, #rt::OpId);

        impl #rt::Op for #ident {
            const DEF: &'static #rt::OpDef = &#def_static;
            #[inline]
            fn from_id_unchecked(id: #rt::OpId) -> Self {
                #ident(id)
            }
            #[inline]
            fn id(self) -> #rt::OpId {
                self.0
            }
        }
    }
}

/// `Some(&[ParamRef...])` for ops whose infer-meta arguments resolve at compile time:
/// `infer_meta.param` names for an InferMeta function, inputs then attributes for InferShape.
/// `None` otherwise (the runtime resolves, or reports, at build time).
fn infer_param_table(op: &OpGen<'_>) -> TokenStream {
    let (g, s) = (op.g, op.s);
    let rt = rt();
    let none = quote!(::core::option::Option::None);
    let input = |i: usize| quote!(#rt::op_def::ParamRef::Input(#i as u16));
    let attr = |i: usize| quote!(#rt::op_def::ParamRef::Attr(#i as u16));
    let has_infer_meta = g.interfaces.iter().any(|i| {
        matches!(
            i,
            InterfaceGen::InferMetaRegistry { .. } | InterfaceGen::InferMetaDirect { .. }
        )
    });
    let refs: Vec<TokenStream> = if has_infer_meta {
        let mut refs = Vec::new();
        for p in s.runtime.infer_meta_param.iter() {
            if let Some(i) = s.input_index(p) {
                refs.push(input(i));
            } else if let Some(i) = s.attribute_index(p) {
                refs.push(attr(i));
            } else if let Some(b) = pir_spec::OpSchema::param_constant(p) {
                refs.push(quote!(#rt::op_def::ParamRef::Bool(#b)));
            } else {
                return none;
            }
        }
        refs
    } else if s.has_interface("InferShapeInterface") {
        (0..s.inputs.len())
            .map(input)
            .chain((0..s.attributes.len()).map(attr))
            .collect()
    } else {
        return none;
    };
    quote!(::core::option::Option::Some(&[#(#refs),*]))
}
