//! The typed builds: the `<Op>Attrs` struct of the attributes (with `Default` when every
//! attribute has one, else `new(required...)`), and `build`, `build_with_values`,
//! `build_with_attributes` and `build_with_types`, each a call into `pir_runtime::op_support`.

use proc_macro2::TokenStream;
use quote::quote;

use pir_spec::{AttrKind, InputKind};

use super::docs::{attr_doc, doc_attr};
use super::values::{attr_arg, attr_rust_type, default_expr};
use super::{rt, OpGen};

/// `<'a>`-style generics of the attributes struct: with a lifetime when a field borrows.
struct Lifetimes {
    decl: TokenStream,
    anon: TokenStream,
    statik: TokenStream,
}

fn lifetimes(op: &OpGen<'_>) -> Lifetimes {
    if op.s.attributes.iter().any(|a| a.kind.borrows()) {
        Lifetimes {
            decl: quote!(<'a>),
            anon: quote!(<'_>),
            statik: quote!(<'static>),
        }
    } else {
        Lifetimes {
            decl: quote!(),
            anon: quote!(),
            statik: quote!(),
        }
    }
}

/// The attributes struct of the typed build; nothing for an op without attributes.
pub(super) fn emit_attrs_struct(op: &OpGen<'_>) -> TokenStream {
    let (s, names) = (op.s, &op.names);
    if s.attributes.is_empty() {
        return quote!();
    }
    let attrs_ident = &op.statics.attrs_struct;
    let lt = lifetimes(op);
    let fields = s.attributes.iter().zip(&names.attrs).map(|(a, id)| {
        let ty = attr_rust_type(a.kind);
        let doc = doc_attr(&attr_doc(a));
        quote!(#doc pub #id: #ty)
    });
    let defaults: Option<Vec<TokenStream>> = s
        .attributes
        .iter()
        .zip(&names.attrs)
        .map(|(a, id)| {
            let d = a.default.as_ref()?;
            let e = default_expr(a.kind, &a.data_type, d)?;
            Some(quote!(#id: #e))
        })
        .collect();
    let default_impl = defaults.as_ref().map(|d| {
        let statik = &lt.statik;
        quote! {
            impl ::core::default::Default for #attrs_ident #statik {
                fn default() -> Self {
                    #attrs_ident { #(#d),* }
                }
            }
        }
    });
    let new_fn = if defaults.is_none() {
        emit_new_fn(op, &lt.decl)
    } else {
        None
    };
    let doc = format!("Attributes of [`{}`]'s typed build, in order.", op.g.ident);
    let (vis, decl) = (&op.g.vis, &lt.decl);
    quote! {
        #[doc = #doc]
        // Named after the op's type, which follows Paddle's class names (`Increment_Op`).
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq)]
        #vis struct #attrs_ident #decl { #(#fields),* }
        #default_impl
        #new_fn
    }
}

/// `new(required...)`: the attributes without a default as arguments, the rest defaulted;
/// `None` when a default cannot be written in Rust.
fn emit_new_fn(op: &OpGen<'_>, lt: &TokenStream) -> Option<TokenStream> {
    let mut params = Vec::new();
    let mut inits = Vec::new();
    for (a, id) in op.s.attributes.iter().zip(&op.names.attrs) {
        let ty = attr_rust_type(a.kind);
        match a
            .default
            .as_ref()
            .map(|d| default_expr(a.kind, &a.data_type, d))
        {
            Some(Some(e)) => inits.push(quote!(#id: #e)),
            Some(None) => return None,
            None if a.kind == AttrKind::Scalar => {
                params.push(quote!(#id: impl ::core::convert::Into<::pir_runtime::meta::Scalar>));
                inits.push(quote!(#id: #id.into()));
            }
            None => {
                params.push(quote!(#id: #ty));
                inits.push(quote!(#id));
            }
        }
    }
    let attrs_ident = &op.statics.attrs_struct;
    let new_doc = "The attributes without a default, the others at their defaults.";
    Some(quote! {
        impl<'a> #attrs_ident #lt {
            #[doc = #new_doc]
            #[allow(clippy::too_many_arguments, clippy::new_without_default)]
            pub fn new(#(#params),*) -> Self {
                #attrs_ident { #(#inits),* }
            }
        }
    })
}

/// Parameters and arguments of the builds: tensor inputs, then mutable attributes (as Rust
/// values in `build`, as IR values in `build_with_values`), then the attributes struct.
#[derive(Default)]
struct BuildParams {
    tensor_params: Vec<TokenStream>,
    tensor_args: Vec<TokenStream>,
    mutable_params: Vec<TokenStream>,
    mutable_args: Vec<TokenStream>,
    mutable_value_params: Vec<TokenStream>,
    mutable_value_args: Vec<TokenStream>,
    attrs_param: TokenStream,
    attr_args: Vec<TokenStream>,
}

fn build_params(op: &OpGen<'_>) -> BuildParams {
    let (s, names) = (op.s, &op.names);
    let rt = rt();
    let mut p = BuildParams::default();
    for (input, id) in s.inputs.iter().zip(&names.inputs) {
        match &input.kind {
            InputKind::Value(_) if input.optional => {
                p.tensor_params
                    .push(quote!(#id: ::core::option::Option<#rt::Value>));
                p.tensor_args.push(quote!(#id));
            }
            InputKind::Value(_) => {
                p.tensor_params.push(quote!(#id: #rt::Value));
                p.tensor_args
                    .push(quote!(::core::option::Option::Some(#id)));
            }
            InputKind::MutableAttribute(m) => {
                if m.kind == AttrKind::IntArray {
                    p.mutable_params.push(quote!(#id: &[i64]));
                    p.mutable_args.push(attr_arg(m.kind, quote!(#id)));
                } else {
                    p.mutable_params
                        .push(quote!(#id: impl ::core::convert::Into<#rt::meta::Scalar>));
                    p.mutable_args.push(attr_arg(m.kind, quote!(#id.into())));
                }
                p.mutable_value_params.push(quote!(#id: #rt::Value));
                p.mutable_value_args
                    .push(quote!(::core::option::Option::Some(#id)));
            }
        }
    }
    if !s.attributes.is_empty() {
        let attrs_ident = &op.statics.attrs_struct;
        let anon = lifetimes(op).anon;
        p.attrs_param = quote!(attrs: #attrs_ident #anon,);
    }
    p.attr_args = s
        .attributes
        .iter()
        .zip(&names.attrs)
        .map(|(a, id)| attr_arg(a.kind, quote!(attrs.#id)))
        .collect();
    p
}

/// `build`, then `build_with_values` (ops with mutable attributes), `build_with_attributes`
/// (ops with attributes of either kind) and `build_with_types`.
pub(super) fn emit_builders(op: &OpGen<'_>) -> TokenStream {
    let rt = rt();
    let def_static = &op.statics.def;
    let p = build_params(op);
    let BuildParams {
        tensor_params,
        tensor_args,
        mutable_params,
        mutable_args,
        mutable_value_params,
        mutable_value_args,
        attrs_param,
        attr_args,
    } = &p;
    let has_mutable = !mutable_params.is_empty();
    let build_doc = format!(
        "Builds {}, inferring result types{}. Mutable attributes are given as values and become `pd_op.full_int_array` / `pd_op.full` ops.",
        op.signature,
        if op.s.runtime.infer_meta_func.is_empty() { "" } else { " with its infer-meta function" }
    );
    let build_with_values = has_mutable.then(|| {
        quote! {
            /// Builds the op with its mutable attributes given as IR values (Paddle's third
            /// `Build` overload); the other attributes as Rust values.
            pub fn build_with_values(
                builder: &mut #rt::Builder<'_>,
                #(#tensor_params,)*
                #(#mutable_value_params,)*
                #attrs_param
            ) -> ::core::result::Result<Self, #rt::BuildError> {
                #rt::op_support::build_with_values(
                    builder, &#def_static,
                    &[#(#tensor_args,)* #(#mutable_value_args,)*],
                    &[#(#attr_args.clone(),)*],
                ).map(Self)
            }
        }
    });
    let build_with_attributes = (!op.s.attributes.is_empty() || has_mutable).then(|| {
        quote! {
            /// Builds the op from an attribute dictionary (Paddle's second `Build` overload);
            /// mutable attributes found in it are materialised as ops; extra entries are kept.
            pub fn build_with_attributes(
                builder: &mut #rt::Builder<'_>,
                #(#tensor_params,)*
                attributes: #rt::Attribute,
            ) -> ::core::result::Result<Self, #rt::BuildError> {
                #rt::op_support::build_from_dict(builder, &#def_static, &[#(#tensor_args),*], attributes).map(Self)
            }
        }
    });
    quote! {
        #[doc = #build_doc]
        pub fn build(
            builder: &mut #rt::Builder<'_>,
            #(#tensor_params,)*
            #(#mutable_params,)*
            #attrs_param
        ) -> ::core::result::Result<Self, #rt::BuildError> {
            #rt::op_support::build_typed(
                builder, &#def_static,
                &[#(#tensor_args),*],
                &[#(#mutable_args),*],
                &[#(#attr_args),*],
            ).map(Self)
        }

        #build_with_values
        #build_with_attributes

        /// Builds the op with explicit result types (no inference), as the translator does.
        pub fn build_with_types(
            builder: &mut #rt::Builder<'_>,
            operands: &[::core::option::Option<#rt::Value>],
            attributes: #rt::Attribute,
            result_types: &[::core::option::Option<#rt::Type>],
        ) -> ::core::result::Result<Self, #rt::BuildError> {
            #rt::op_support::build_with_types(builder, &#def_static, operands, attributes, result_types).map(Self)
        }
    }
}
