//! `#[infer_meta]`: a plain Rust function with typed, named parameters becomes a registered
//! infer-meta function, after Paddle's C++ signatures.
//!
//! ```text
//! #[infer_meta(name = "ConvInferMeta")]     // Paddle's name; derived from the Rust name if left out
//! pub fn conv_infer_meta(
//!     input: &TensorMeta,                   // const MetaTensor&
//!     filter: &TensorMeta,
//!     strides: &[i64],                      // const std::vector<int>& (zero-copy)
//!     ...
//!     groups: i64,                          // int
//!     data_format: &str,                    // const std::string&
//!     out: Output<'_>,                      // MetaTensor* out
//! ) -> Result<(), InferMetaError>           // MetaConfig is left out
//! ```
//!
//! Beside the function the macro emits `__CONV_INFER_META`, a `pir_runtime::meta::InferMetaEntry`
//! const: the uniform entry point builds call (`fn(&mut InferMetaCtx) -> Result<..>`, which
//! decodes each argument by position with the accessor its type names and hands out the output
//! slots), Paddle's name, and the signature (parameter names, kinds and Rust types, outputs,
//! `file:line`). A registry lists these consts; generated ops check their yaml against them.
//!
//! A function still written against `InferMetaCtx` (one `&mut InferMetaCtx<'_>` parameter)
//! gets an entry without a signature: registered, but not checked.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{FnArg, GenericParam, Ident, ItemFn, LitStr, Pat, ReturnType, Token, Type};

/// The attribute's arguments: `name = "..."`, `also = ["...", ...]`, or nothing.
struct Args {
    name: Option<LitStr>,
    also: Vec<LitStr>,
}

impl Parse for Args {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut name = None;
        let mut also = None;
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            let twice = || syn::Error::new(key.span(), format!("`{key}` is given twice"));
            input.parse::<Token![=]>()?;
            if key == "name" {
                if name.is_some() {
                    return Err(twice());
                }
                name = Some(input.parse()?);
            } else if key == "also" {
                if also.is_some() {
                    return Err(twice());
                }
                let content;
                syn::bracketed!(content in input);
                let names = content.parse_terminated(|p| p.parse::<LitStr>(), Token![,])?;
                also = Some(names.into_iter().collect());
            } else {
                return Err(syn::Error::new(
                    key.span(),
                    format!(
                        "unknown key `{key}`; `#[infer_meta]` takes `name = \"PaddleInferMeta\"` \
                         (Paddle's function name, derived from the Rust name when left out) and \
                         `also = [\"OtherInferMeta\"]` (more Paddle names of the same function)"
                    ),
                ));
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(Args {
            name,
            also: also.unwrap_or_default(),
        })
    }
}

/// How a parameter's value is read from the call.
enum Decode {
    /// `ctx.<method>(i)?`.
    Method(&'static str),
    /// `ctx.<method>(i)?`, a [`ListArg`](pir_runtime::meta::ListArg) passed as `&value` (a
    /// list borrowed from the call, or widened on the stack: no cell, no allocation).
    List(&'static str),
    /// `ctx.float(i)? as f32`.
    F32,
    /// `ctx.int_array_values(i, "name")?`.
    IntArray,
}

/// An input or attribute parameter.
struct Param {
    name: String,
    kind: &'static str,
    decode: Decode,
    rust_type: String,
}

/// An output parameter.
struct OutputParam {
    name: String,
    list: bool,
}

/// Paddle's name from a Rust name: `conv_infer_meta` → `ConvInferMeta`.
///
/// `op-defs/build.rs` derives names with the same rule; the registry's compile-time order check
/// catches any disagreement.
pub(crate) fn paddle_name(rust: &str) -> String {
    rust.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// The last path segment's identifier of `ty`, if it is a path with no qualified self.
fn last_ident(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        Type::Group(g) => last_ident(&g.elem),
        Type::Paren(p) => last_ident(&p.elem),
        _ => None,
    }
}

fn is_named(ty: &Type, name: &str) -> bool {
    last_ident(ty).is_some_and(|s| {
        s.ident == name
            && match &s.arguments {
                syn::PathArguments::None => true,
                // Lifetimes only (`IntArray<'_>`).
                syn::PathArguments::AngleBracketed(a) => a
                    .args
                    .iter()
                    .all(|g| matches!(g, syn::GenericArgument::Lifetime(_))),
                syn::PathArguments::Parenthesized(_) => false,
            }
    })
}

/// `T` of `Option<T>`.
fn option_of(ty: &Type) -> Option<&Type> {
    let seg = last_ident(ty)?;
    if seg.ident != "Option" {
        return None;
    }
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// `T` of a shared reference `&T`.
fn shared_ref(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Reference(r) if r.mutability.is_none() => Some(&r.elem),
        _ => None,
    }
}

/// `T` of `&[T]`.
fn slice_of(ty: &Type) -> Option<&Type> {
    match shared_ref(ty)? {
        Type::Slice(s) => Some(&s.elem),
        _ => None,
    }
}

/// `&mut InferMetaCtx<'_>`: a function of the positional convention.
fn is_ctx(ty: &Type) -> bool {
    matches!(ty, Type::Reference(r) if r.mutability.is_some() && is_named(&r.elem, "InferMetaCtx"))
}

/// The parameter kind (a `pir_runtime::meta::ParamKind` variant) and decoding of an
/// input/attribute type, `None` when unsupported.
fn classify(ty: &Type) -> Option<(&'static str, Decode)> {
    use Decode::Method as M;
    if let Some(inner) = option_of(ty) {
        if shared_ref(inner).is_some_and(|t| is_named(t, "TensorMeta")) {
            return Some(("OptionalTensor", M("opt_tensor")));
        }
        if slice_of(inner).is_some_and(|t| is_named(t, "TensorMeta")) {
            return Some(("OptionalTensorList", M("opt_tensors")));
        }
        if is_named(inner, "Scalar") {
            return Some(("Scalar", M("scalar")));
        }
        return None;
    }
    if let Some(elem) = slice_of(ty) {
        let (kind, method) = match last_ident(elem)?.ident.to_string().as_str() {
            _ if is_named(elem, "TensorMeta") => ("TensorList", "tensors"),
            "i64" if is_named(elem, "i64") => return Some(("Ints", Decode::List("ints_arg"))),
            "f64" if is_named(elem, "f64") => return Some(("Floats", Decode::List("floats_arg"))),
            "bool" if is_named(elem, "bool") => ("Bools", "bools"),
            _ if is_named(elem, "Scalar") => ("Scalars", "scalars"),
            "Cow" => ("Strs", "strs"),
            _ => return None,
        };
        return Some((kind, M(method)));
    }
    if let Some(inner) = shared_ref(ty) {
        if is_named(inner, "TensorMeta") {
            return Some(("Tensor", M("tensor")));
        }
        if is_named(inner, "str") {
            return Some(("Str", M("str_or_layout")));
        }
        return None;
    }
    let name = last_ident(ty)?.ident.to_string();
    if !is_named(ty, &name) {
        return None;
    }
    Some(match name.as_str() {
        "bool" => ("Bool", M("bool")),
        "i64" => ("Int", M("int")),
        "i32" => ("Int", M("int32")),
        "f64" => ("Float", M("float")),
        "f32" => ("Float", Decode::F32),
        "IntArray" => ("IntArray", Decode::IntArray),
        "IntArrayArg" => ("IntArray", M("int_array")),
        "DataType" => ("DataType", M("dtype")),
        "DataLayout" => ("DataLayout", M("layout")),
        "Place" => ("Place", M("place")),
        _ => return None,
    })
}

const SUPPORTED: &str = "an infer-meta parameter is a tensor (`&TensorMeta`, \
    `Option<&TensorMeta>`, `&[TensorMeta]`, `Option<&[TensorMeta]>`), an attribute (`bool`, \
    `i32`, `i64`, `f32`, `f64`, `&str`, `&[i64]`, `&[f64]`, `&[bool]`, `&[Cow<'_, str>]`, `IntArray<'_>`, \
    `IntArrayArg`, `Option<Scalar>`, `&[Scalar]`, `DataType`, `DataLayout`, `Place`) or an \
    output (`Output<'_>`, `OutputList<'_>`), in Paddle's order: inputs and attributes, then \
    outputs";

fn type_text(ty: &Type) -> String {
    ty.to_token_stream()
        .to_string()
        .replace("& ", "&")
        .replace(" < ", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace("' _", "'_")
        .replace(" ,", ",")
        .replace("[ ", "[")
        .replace(" ]", "]")
}

/// Checks what the function looks like apart from its parameters.
fn check_shape(f: &ItemFn) -> syn::Result<()> {
    let sig = &f.sig;
    let no = |span: Span, what: &str| {
        Err(syn::Error::new(
            span,
            format!("an infer-meta function cannot be {what}"),
        ))
    };
    if let Some(t) = &sig.constness {
        return no(t.span(), "`const`");
    }
    if let Some(t) = &sig.asyncness {
        return no(t.span(), "`async`");
    }
    if let Some(t) = &sig.unsafety {
        return no(t.span(), "`unsafe`");
    }
    if let Some(t) = &sig.abi {
        return no(t.span(), "`extern`");
    }
    if let Some(v) = &sig.variadic {
        return no(v.span(), "variadic");
    }
    if let Some(g) = sig
        .generics
        .params
        .iter()
        .find(|g| !matches!(g, GenericParam::Lifetime(_)))
    {
        return no(g.span(), "generic over types or constants");
    }
    if let Some(w) = &sig.generics.where_clause {
        return no(w.span(), "constrained by a `where` clause");
    }
    if let ReturnType::Default = sig.output {
        return Err(syn::Error::new(
            sig.paren_token.span.close(),
            "an infer-meta function returns `Result<(), InferMetaError>`: write \
             `-> Result<(), InferMetaError>` and return `Ok(())` or an error",
        ));
    }
    Ok(())
}

/// The function's inputs, attributes and outputs; `None` for the positional convention.
#[allow(clippy::type_complexity)]
fn parameters(f: &ItemFn) -> syn::Result<Option<(Vec<Param>, Vec<OutputParam>)>> {
    let mut params = Vec::new();
    let mut outputs = Vec::new();
    let n = f.sig.inputs.len();
    for arg in &f.sig.inputs {
        let pt = match arg {
            FnArg::Receiver(r) => {
                return Err(syn::Error::new(
                    r.span(),
                    "an infer-meta function is a free function, not a method",
                ))
            }
            FnArg::Typed(pt) => pt,
        };
        if is_ctx(&pt.ty) {
            if n != 1 {
                return Err(syn::Error::new(
                    pt.ty.span(),
                    "a function reading `&mut InferMetaCtx` by position takes no other \
                     parameter; prefer typed parameters",
                ));
            }
            return Ok(None);
        }
        let ident = match &*pt.pat {
            Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => p.ident.clone(),
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    "an infer-meta parameter is a plain name (Paddle's parameter name)",
                ))
            }
        };
        let name = ident.to_string();
        let name = name
            .trim_start_matches("r#")
            .trim_start_matches('_')
            .to_string();
        let list = is_named(&pt.ty, "OutputList");
        if list || is_named(&pt.ty, "Output") {
            outputs.push(OutputParam { name, list });
            continue;
        }
        if !outputs.is_empty() {
            return Err(syn::Error::new(
                pt.span(),
                "inputs and attributes come before the outputs, as in Paddle's signatures",
            ));
        }
        let Some((kind, decode)) = classify(&pt.ty) else {
            return Err(syn::Error::new(
                pt.ty.span(),
                format!(
                    "unsupported parameter type `{}`: {SUPPORTED}",
                    type_text(&pt.ty)
                ),
            ));
        };
        params.push(Param {
            name,
            kind,
            decode,
            rust_type: type_text(&pt.ty),
        });
    }
    Ok(Some((params, outputs)))
}

/// Expands `#[infer_meta(...)]` on `item`.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    match expand_inner(args, item.clone()) {
        Ok(ts) => ts,
        // Keep the function so that one mistake does not cascade into unresolved names.
        Err(e) => {
            let err = e.to_compile_error();
            quote!(#err #item)
        }
    }
}

fn expand_inner(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let args: Args = syn::parse2(args)?;
    let mut f: ItemFn = syn::parse2(item).map_err(|e| {
        syn::Error::new(
            e.span(),
            "`#[infer_meta]` goes on a function such as \
             `fn unchanged_infer_meta(x: &TensorMeta, out: Output<'_>) -> Result<(), InferMetaError>`",
        )
    })?;
    check_shape(&f)?;
    // Paddle's signatures take as many parameters as the op has arguments.
    f.attrs
        .push(syn::parse_quote!(#[allow(clippy::too_many_arguments)]));
    let rust_name = f.sig.ident.to_string();
    let paddle = match &args.name {
        Some(l) if l.value().is_empty() => {
            return Err(syn::Error::new(l.span(), "the name must not be empty"))
        }
        Some(l) => l.value(),
        None => paddle_name(&rust_name),
    };
    if let Some(l) = args
        .also
        .iter()
        .find(|l| l.value().is_empty() || l.value() == paddle)
    {
        return Err(syn::Error::new(
            l.span(),
            "an `also` name must be another, non-empty Paddle name",
        ));
    }
    let vis = &f.vis;
    let fn_ident = &f.sig.ident;
    let konst = format_ident!("__{}", rust_name.to_uppercase(), span = fn_ident.span());
    let rt = quote!(::pir_runtime::meta);
    let doc =
        format!("The registry entry of [`{rust_name}`] (`{paddle}`), made by `#[infer_meta]`.");

    let Some((params, outputs)) = parameters(&f)? else {
        return Ok(quote! {
            #f
            #[doc = #doc]
            #[doc(hidden)]
            #vis const #konst: #rt::InferMetaEntry = #rt::InferMetaEntry::unchecked(#paddle, #fn_ident);
        });
    };

    // Arguments are read in order, so the first bad one is the one reported.
    let arg_ids: Vec<Ident> = (0..params.len())
        .map(|i| format_ident!("__arg{i}"))
        .collect();
    let out_ids: Vec<Ident> = (0..outputs.len())
        .map(|j| format_ident!("__out{j}"))
        .collect();
    let decodes = params
        .iter()
        .zip(&arg_ids)
        .enumerate()
        .map(|(i, (p, id))| match &p.decode {
            Decode::Method(m) | Decode::List(m) => {
                let m = Ident::new(m, Span::call_site());
                quote!(let #id = __ctx.#m(#i)?;)
            }
            Decode::F32 => quote!(let #id = __ctx.float(#i)? as f32;),
            Decode::IntArray => {
                let name = &p.name;
                quote!(let #id = __ctx.int_array_values(#i, #name)?;)
            }
        });
    let take_outputs = outputs.iter().zip(&out_ids).map(|(o, id)| {
        if o.list {
            quote!(let #id = __outputs.output_list();)
        } else {
            quote!(let #id = __outputs.output();)
        }
    });
    let call_args = params
        .iter()
        .zip(&arg_ids)
        .map(|(p, id)| match p.decode {
            Decode::List(_) => quote!(&#id),
            _ => quote!(#id),
        })
        .chain(out_ids.iter().map(|id| quote!(#id)));
    let param_specs = params.iter().map(|p| {
        let (name, ty) = (&p.name, &p.rust_type);
        let kind = Ident::new(p.kind, Span::call_site());
        quote!(#rt::ParamSpec { name: #name, kind: #rt::ParamKind::#kind, rust_type: #ty })
    });
    let output_specs = outputs.iter().map(|o| {
        let name = &o.name;
        let kind = if o.list {
            quote!(TensorList)
        } else {
            quote!(Tensor)
        };
        quote!(#rt::OutputSpec { name: #name, kind: #rt::OutputKind::#kind })
    });
    let outputs_binding = if outputs.is_empty() {
        quote!()
    } else {
        quote!(let mut __outputs = __ctx.outputs();)
    };
    // The call carries the return type's span: a function that does not return
    // `Result<(), InferMetaError>` is reported there.
    let ret_span = match &f.sig.output {
        ReturnType::Type(_, t) => t.span(),
        ReturnType::Default => fn_ident.span(),
    };
    let call = quote_spanned!(ret_span=> #fn_ident(#(#call_args),*));
    let line = quote_spanned!(fn_ident.span()=> ::core::line!());
    Ok(quote! {
        #f
        #[doc = #doc]
        #[doc(hidden)]
        #vis const #konst: #rt::InferMetaEntry = {
            fn __infer_meta_entry(
                __ctx: &mut #rt::InferMetaCtx<'_>,
            ) -> ::core::result::Result<(), #rt::InferMetaError> {
                #(#decodes)*
                #outputs_binding
                #(#take_outputs)*
                #call
            }
            #rt::InferMetaEntry {
                name: #paddle,
                func: __infer_meta_entry,
                signatures: &[#rt::InferMetaSignature {
                    rust_name: #rust_name,
                    params: &[#(#param_specs),*],
                    outputs: &[#(#output_specs),*],
                    location: ::core::concat!(::core::file!(), ":", #line),
                }],
            }
        };
    })
}

#[cfg(test)]
mod tests {
    use super::paddle_name;

    #[test]
    fn paddle_names_are_pascal_case() {
        assert_eq!(paddle_name("conv_infer_meta"), "ConvInferMeta");
        assert_eq!(
            paddle_name("unchanged_infer_meta_check_axis"),
            "UnchangedInferMetaCheckAxis"
        );
        assert_eq!(paddle_name("fft_c2c_infer_meta"), "FftC2cInferMeta");
    }
}
