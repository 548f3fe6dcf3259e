//! Attribute values in generated code: the Rust types of typed builds and accessors (read from
//! [`AttrKind`]'s facts), `AttrArg` wrappers, and defaults as Rust expressions.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Ident;

use pir_spec::{AttrKind, DefaultValue};

use super::rt;
use super::schema_tokens::{self, float_lit};

/// The Rust type of one value of `kind` (`AttrKind::rust_type`), `str` borrowed for `lt`.
fn rust_value_type(kind: AttrKind, lt: TokenStream) -> TokenStream {
    let mut segments = kind.rust_type().split("::");
    let first = segments.next().map(|n| Ident::new(n, Span::call_site()));
    let rest: Vec<Ident> = segments.map(|n| Ident::new(n, Span::call_site())).collect();
    match (first, rest.is_empty()) {
        (Some(id), true) if id == "str" => quote!(&#lt #id),
        (Some(id), true) => quote!(#id),
        (first, _) => {
            let rt = rt();
            quote!(#rt::#first #(::#rest)*)
        }
    }
}

/// The Rust type of an attribute value in the typed build.
pub(super) fn attr_rust_type(kind: AttrKind) -> TokenStream {
    let value = rust_value_type(kind, quote!('a));
    if kind.is_rust_list() {
        quote!(&'a [#value])
    } else {
        value
    }
}

/// The Rust type an attribute accessor returns (borrowing from the program for `'p`).
pub(super) fn attr_getter_type(kind: AttrKind) -> TokenStream {
    let value = rust_value_type(kind, quote!('p));
    if kind.is_rust_list() {
        quote!(::std::vec::Vec<#value>)
    } else {
        value
    }
}

/// `AttrArg::X(value)` for an attribute of `kind`.
pub(super) fn attr_arg(kind: AttrKind, value: TokenStream) -> TokenStream {
    let rt = rt();
    let v = Ident::new(kind.attr_arg(), Span::call_site());
    quote!(#rt::op_support::AttrArg::#v(#value))
}

/// The Rust scalar variant a `Scalar` of C++ build type `data_type` takes.
fn scalar_expr(data_type: &str, d: &DefaultValue) -> Option<TokenStream> {
    let rt = rt();
    let as_f64 = match d {
        DefaultValue::Int(i) => *i as f64,
        DefaultValue::Float(f) => *f,
        DefaultValue::Bool(b) => f64::from(u8::from(*b)),
        _ => return None,
    };
    Some(match (data_type, d) {
        ("bool", DefaultValue::Bool(b)) => quote!(#rt::meta::Scalar::Bool(#b)),
        ("int" | "int32_t", _) => {
            let v = proc_macro2::Literal::i32_suffixed(as_f64 as i32);
            quote!(#rt::meta::Scalar::I32(#v))
        }
        ("int64_t" | "long", _) => {
            let v = proc_macro2::Literal::i64_suffixed(as_f64 as i64);
            quote!(#rt::meta::Scalar::I64(#v))
        }
        ("double", _) => {
            let v = float_lit(as_f64);
            quote!(#rt::meta::Scalar::F64(#v))
        }
        (_, DefaultValue::Int(i)) if data_type.is_empty() => {
            let v = proc_macro2::Literal::i64_suffixed(*i);
            quote!(#rt::meta::Scalar::I64(#v))
        }
        _ => {
            let v = proc_macro2::Literal::f32_suffixed(as_f64 as f32);
            quote!(#rt::meta::Scalar::F32(#v))
        }
    })
}

/// The Rust expression of a default value for an attribute of `kind`; `None` if it does not
/// fit (the front ends validate defaults first, so this is a safety net).
pub(super) fn default_expr(
    kind: AttrKind,
    data_type: &str,
    d: &DefaultValue,
) -> Option<TokenStream> {
    Some(match (kind, d) {
        (AttrKind::Scalar, d) => scalar_expr(data_type, d)?,
        (AttrKind::ScalarArray, DefaultValue::FloatList(v)) => {
            let items: Option<Vec<_>> = v
                .iter()
                .map(|x| scalar_expr(data_type, &DefaultValue::Float(*x)))
                .collect();
            let items = items?;
            quote!(&[#(#items),*])
        }
        (AttrKind::ScalarArray, DefaultValue::IntList(v)) if v.is_empty() => quote!(&[]),
        (AttrKind::ScalarArray, _) => return None,
        (AttrKind::DataType, DefaultValue::DataType(d)) => schema_tokens::data_type(*d),
        (AttrKind::DataLayout, DefaultValue::DataLayout(l)) => schema_tokens::data_layout(*l),
        (AttrKind::DataLayout, DefaultValue::Str(s)) => {
            schema_tokens::data_layout(pir_spec::phi::DataLayout::from_name(s)?)
        }
        (AttrKind::Place, DefaultValue::Place(p)) => schema_tokens::place(*p),
        (AttrKind::DataType | AttrKind::DataLayout | AttrKind::Place, _) => return None,
        (k, d) if k.is_rust_list() => {
            let items: Option<Vec<_>> = list_items(d)?
                .iter()
                .map(|x| value_literal(k.rust_type(), x))
                .collect();
            let items = items?;
            quote!(&[#(#items),*])
        }
        (k, d) => value_literal(k.rust_type(), d)?,
    })
}

/// The items of a list default, each as a one-value default; an empty list fits any list.
fn list_items(d: &DefaultValue) -> Option<Vec<DefaultValue>> {
    Some(match d {
        DefaultValue::IntList(v) => v.iter().map(|x| DefaultValue::Int(*x)).collect(),
        DefaultValue::FloatList(v) => v.iter().map(|x| DefaultValue::Float(*x)).collect(),
        DefaultValue::BoolList(v) => v.iter().map(|x| DefaultValue::Bool(*x)).collect(),
        DefaultValue::StrList(v) => v.iter().map(|x| DefaultValue::Str(x.clone())).collect(),
        _ => return None,
    })
}

/// A literal of Rust type `rust` (`AttrKind::rust_type` of a bool, integer, float or string
/// kind) for a one-value default: integers fit their type, and floats take integers.
fn value_literal(rust: &str, d: &DefaultValue) -> Option<TokenStream> {
    use proc_macro2::Literal;
    Some(match (rust, d) {
        ("bool", DefaultValue::Bool(b)) => quote!(#b),
        ("i32", DefaultValue::Int(i)) => {
            let v = Literal::i32_suffixed(i32::try_from(*i).ok()?);
            quote!(#v)
        }
        ("i64", DefaultValue::Int(i)) => {
            let v = Literal::i64_suffixed(*i);
            quote!(#v)
        }
        ("f32", DefaultValue::Float(f)) => {
            let v = Literal::f32_suffixed(*f as f32);
            quote!(#v)
        }
        ("f32", DefaultValue::Int(i)) => {
            let v = Literal::f32_suffixed(*i as f32);
            quote!(#v)
        }
        ("f64", DefaultValue::Float(f)) => float_lit(*f),
        ("f64", DefaultValue::Int(i)) => float_lit(*i as f64),
        ("str", DefaultValue::Str(s)) => {
            let s: &str = s;
            quote!(#s)
        }
        _ => return None,
    })
}
