//! The field types of a `#[pir_op]` struct: markers naming what an input, attribute or output
//! carries (`DenseTensor`, `Vec<DenseTensor>`, `Option<DenseTensor>`, `i32`, `Vec<i64>`,
//! `IntArray`, `Scalar`, `DataType`, ...). They are never compiled as Rust types: the struct is
//! replaced by the generated op handle.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{GenericArgument, PathArguments, Type};

use std::borrow::Cow;

use pir_spec::{AttrKind, TensorKind, ValueKind};

use super::meta::backticked;

/// The tensor markers, for messages.
fn tensor_types() -> String {
    let names: Vec<&str> = TensorKind::ALL.iter().map(|t| t.short_name()).collect();
    format!(
        "{}, a `Vec<...>` of one, or an `Option<...>` of either",
        backticked(&names, "or")
    )
}

/// The attribute markers, for messages.
fn attr_types() -> String {
    let markers: Vec<&str> = AttrKind::ALL
        .iter()
        .filter_map(|k| k.pir_op_marker())
        .collect();
    backticked(&markers, "or")
}

/// A marker type: one bare name with at most one type argument.
struct Shape<'a> {
    name: String,
    arg: Option<&'a Type>,
    span: Span,
}

fn shape(ty: &Type) -> syn::Result<Shape<'_>> {
    let unsupported = |msg: &str| Err(syn::Error::new(ty.span(), msg.to_string()));
    match ty {
        Type::Group(g) => shape(&g.elem),
        Type::Paren(p) => shape(&p.elem),
        Type::Path(p) if p.qself.is_none() => {
            if p.path.segments.len() != 1 || p.path.leading_colon.is_some() {
                let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                return Err(syn::Error::new(
                    p.path.span(),
                    format!(
                        "write the marker `{last}` without a path: the field types of a `#[pir_op]` struct name what a field carries, they are not Rust types"
                    ),
                ));
            }
            let seg = &p.path.segments[0];
            let arg = match &seg.arguments {
                PathArguments::None => None,
                PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
                    GenericArgument::Type(t) => Some(t),
                    other => {
                        return Err(syn::Error::new(other.span(), "expected a type argument"))
                    }
                },
                other => {
                    return Err(syn::Error::new(
                        other.span(),
                        format!("`{}` takes one type argument", seg.ident),
                    ))
                }
            };
            Ok(Shape { name: seg.ident.to_string(), arg, span: ty.span() })
        }
        Type::Reference(r) => match &*r.elem {
            Type::Path(p) if p.path.is_ident("str") => {
                unsupported("write `String` for a string attribute")
            }
            Type::Slice(s) => Err(syn::Error::new(
                ty.span(),
                format!("write `Vec<{}>` for a list", quote::ToTokens::to_token_stream(&s.elem)),
            )),
            _ => unsupported("references are not field types of a `#[pir_op]` struct; write the marker type itself"),
        },
        Type::Array(a) => Err(syn::Error::new(
            ty.span(),
            format!("write `Vec<{}>` for a list", quote::ToTokens::to_token_stream(&a.elem)),
        )),
        Type::Slice(s) => Err(syn::Error::new(
            ty.span(),
            format!("write `Vec<{}>` for a list", quote::ToTokens::to_token_stream(&s.elem)),
        )),
        _ => unsupported("unsupported field type: write a marker such as `DenseTensor`, `Vec<DenseTensor>`, `i32` or `IntArray`"),
    }
}

/// A type as written, without the token spacing (`Vec<i32>`).
pub(crate) fn text(ty: &Type) -> String {
    quote::ToTokens::to_token_stream(ty)
        .to_string()
        .replace(' ', "")
}

fn tensor_kind(name: &str) -> Option<TensorKind> {
    TensorKind::ALL.into_iter().find(|t| t.short_name() == name)
}

/// The attribute kind of marker `name` (`i32`, `IntArray`) or `Vec<element>`.
fn attr_marker(name: &str, element: Option<&str>) -> Option<AttrKind> {
    let marker = match element {
        None => Cow::Borrowed(name),
        Some(e) => Cow::Owned(format!("{name}<{e}>")),
    };
    AttrKind::ALL
        .into_iter()
        .find(|k| k.pir_op_marker() == Some(&*marker))
}

/// A scalar attribute marker: its kind.
fn scalar_attr(name: &str) -> Option<AttrKind> {
    attr_marker(name, None)
}

/// A list attribute marker `Vec<element>`: its kind.
fn list_attr(element: &str) -> Option<AttrKind> {
    attr_marker("Vec", Some(element))
}

fn is_attr_marker(s: &Shape<'_>) -> bool {
    match (s.name.as_str(), s.arg) {
        (n, None) => scalar_attr(n).is_some(),
        ("Vec", Some(t)) => shape(t).is_ok_and(|e| e.arg.is_none() && list_attr(&e.name).is_some()),
        _ => false,
    }
}

/// What an input or output carries.
#[derive(Clone, Copy)]
pub(crate) struct ValueTy {
    /// One tensor or a vector of tensors.
    pub kind: ValueKind,
    /// `Option<...>`.
    pub optional: bool,
}

/// The marker of an input (`input == true`) or output field.
pub(crate) fn value_type(ty: &Type, input: bool) -> syn::Result<ValueTy> {
    let role = if input { "input" } else { "output" };
    let s = shape(ty)?;
    let (s, optional) = match (s.name.as_str(), s.arg) {
        ("Option", Some(inner)) => {
            let inner = shape(inner)?;
            if inner.name == "Option" {
                return Err(syn::Error::new(inner.span, "`Option` is given twice"));
            }
            (inner, true)
        }
        _ => (s, false),
    };
    let kind = match (s.name.as_str(), s.arg) {
        (n, None) if tensor_kind(n).is_some() => tensor_kind(n).map(ValueKind::Tensor),
        ("Vec", Some(t)) => {
            let e = shape(t)?;
            match (tensor_kind(&e.name), e.arg) {
                (Some(k), None) => Some(ValueKind::Vector(k)),
                _ if is_attr_marker(&s) => None,
                _ => {
                    return Err(syn::Error::new(
                        e.span,
                        format!("a vector {role} holds tensors: write `Vec<DenseTensor>` (or another tensor marker)"),
                    ))
                }
            }
        }
        _ => None,
    };
    if let Some(kind) = kind {
        return Ok(ValueTy { kind, optional });
    }
    let msg = if input && matches!(s.name.as_str(), "IntArray" | "Scalar") && s.arg.is_none() {
        format!(
            "an `{}` that arrives as an operand is a mutable attribute: write `#[attr(mutable)]` instead of `#[input]`",
            s.name
        )
    } else if is_attr_marker(&s) {
        format!(
            "`{}` is an attribute type, not a tensor: mark the field `#[attr]`, or give the {role} a tensor type: {}",
            text(ty),
            tensor_types()
        )
    } else {
        format!(
            "unknown {role} type `{}`; an {role} is {}",
            text(ty),
            tensor_types()
        )
    };
    Err(syn::Error::new(s.span, msg))
}

/// The marker of an attribute field.
pub(crate) fn attr_type(ty: &Type) -> syn::Result<AttrKind> {
    let s = shape(ty)?;
    let text = text(ty);
    match (s.name.as_str(), s.arg) {
        (n, None) => {
            if let Some(kind) = scalar_attr(n) {
                return Ok(kind);
            }
            if tensor_kind(n).is_some() {
                return Err(syn::Error::new(
                    s.span,
                    format!("`{n}` is a tensor type, not an attribute: mark the field `#[input]` or `#[output]`"),
                ));
            }
        }
        ("Vec", Some(t)) => {
            let e = shape(t)?;
            if e.arg.is_none() {
                if let Some(kind) = list_attr(&e.name) {
                    return Ok(kind);
                }
                if tensor_kind(&e.name).is_some() {
                    return Err(syn::Error::new(
                        s.span,
                        format!("`{text}` is a tensor list, not an attribute: mark the field `#[input]` or `#[output]`"),
                    ));
                }
            }
        }
        ("Option", Some(_)) => {
            return Err(syn::Error::new(
                s.span,
                "attributes cannot be optional: drop the `Option` and give a default instead, `#[attr(default = ...)]`",
            ))
        }
        _ => {}
    }
    Err(syn::Error::new(
        s.span,
        format!(
            "unsupported attribute type `{text}`; an attribute is {}",
            attr_types()
        ),
    ))
}
