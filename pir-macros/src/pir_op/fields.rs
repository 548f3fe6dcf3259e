//! The annotated item: a struct with named fields, each marked `#[input]`, `#[attr]` or
//! `#[output]`, plus doc comments.

use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Fields, Ident, Item, ItemStruct, Lit, Meta, Type, Visibility};

use super::meta::{closest, Errors};
use super::options::{parse_field_args, AttrArgs, InputArgs, OutputArgs};

/// The struct `#[pir_op]` annotates.
pub(crate) struct OpStruct {
    /// The handle type's name.
    pub ident: Ident,
    /// Its visibility.
    pub vis: Visibility,
    /// Attributes kept on the handle type (not doc comments).
    pub attrs: Vec<Attribute>,
    /// The doc comments, joined.
    pub doc: String,
    /// The fields in order.
    pub fields: Vec<Field>,
}

/// What a field is.
pub(crate) enum Role {
    /// `#[input(...)]`.
    Input(InputArgs),
    /// `#[attr(...)]`.
    Attr(AttrArgs),
    /// `#[output(...)]`.
    Output(OutputArgs),
}

/// One field.
pub(crate) struct Field {
    /// The field's identifier.
    pub ident: Ident,
    /// Its name in the IR (the identifier without `r#`).
    pub name: String,
    /// The marker type.
    pub ty: Type,
    /// Doc comments, joined.
    pub doc: String,
    /// Its role.
    pub role: Role,
}

const ROLES: [&str; 3] = ["input", "attr", "output"];

/// The role a likely misspelt field attribute meant.
fn meant_role(key: &str) -> Option<&'static str> {
    match key {
        "attribute" | "attrs" | "attributes" => Some("attr"),
        "inputs" | "operand" | "operands" | "arg" => Some("input"),
        "outputs" | "result" | "results" => Some("output"),
        k => closest(k, ROLES),
    }
}

/// Joins doc comments (`/// text` is `#[doc = " text"]`), dropping one leading space per line.
/// Returns `None` for a `#[doc = ...]` whose value is not a literal (kept as an attribute).
fn doc_text(attr: &Attribute) -> Option<String> {
    let Meta::NameValue(nv) = &attr.meta else {
        return None;
    };
    let Expr::Lit(syn::ExprLit {
        lit: Lit::Str(s), ..
    }) = &nv.value
    else {
        return None;
    };
    let v = s.value();
    Some(
        v.lines()
            .map(|l| l.strip_prefix(' ').unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

fn push_doc(doc: &mut String, line: String) {
    if !doc.is_empty() {
        doc.push('\n');
    }
    doc.push_str(&line);
}

/// The struct of the annotated item; `#[pir_op]` on anything else is an error.
fn item_struct(item: Item) -> syn::Result<ItemStruct> {
    match item {
        Item::Struct(s) => Ok(s),
        Item::Enum(e) => Err(syn::Error::new(
            e.enum_token.span,
            "`#[pir_op]` goes on a struct with named fields (the op's inputs, attributes and outputs), not on an enum",
        )),
        Item::Union(u) => Err(syn::Error::new(
            u.union_token.span,
            "`#[pir_op]` goes on a struct with named fields (the op's inputs, attributes and outputs), not on a union",
        )),
        other => Err(syn::Error::new(
            other.span(),
            "`#[pir_op]` goes on a struct with named fields (the op's inputs, attributes and outputs)",
        )),
    }
}

/// Parses the annotated item.
pub(crate) fn parse_struct(item: Item) -> syn::Result<OpStruct> {
    let s = item_struct(item)?;
    let mut errors = Errors::default();
    if !s.generics.params.is_empty() || s.generics.where_clause.is_some() {
        errors.push(syn::Error::new(
            s.generics.span(),
            "a `#[pir_op]` struct cannot be generic: it becomes an op handle, and its fields describe the op; remove the generic parameters",
        ));
    }
    let ident = s.ident.clone();
    if ident.to_string().starts_with("r#") {
        errors.push(syn::Error::new(
            ident.span(),
            "a `#[pir_op]` struct needs a plain (not raw) name such as `AbsOp`",
        ));
    }
    let (doc, attrs) = struct_attrs(s.attrs, &mut errors);
    let mut fields: Vec<Field> = Vec::new();
    for f in named_fields(s.fields, &mut errors) {
        if let Some(field) = parse_field(f, &fields, &mut errors) {
            fields.push(field);
        }
    }
    errors.finish()?;
    Ok(OpStruct {
        ident,
        vis: s.vis,
        attrs,
        doc,
        fields,
    })
}

/// Struct attributes: doc comments become the op's documentation; the rest stay on the handle.
fn struct_attrs(all: Vec<Attribute>, errors: &mut Errors) -> (String, Vec<Attribute>) {
    let mut doc = String::new();
    let mut attrs = Vec::new();
    for a in all {
        let path = a.path();
        if path.is_ident("doc") {
            match doc_text(&a) {
                Some(line) => push_doc(&mut doc, line),
                None => attrs.push(a),
            }
        } else if path.is_ident("derive") {
            errors.push(syn::Error::new(
                path.span(),
                "the generated op handle already derives `Clone`, `Copy`, `PartialEq`, `Eq`, `Hash` and `Debug`; remove this `#[derive]`",
            ));
        } else if path.is_ident("cfg") || path.is_ident("cfg_attr") {
            errors.push(syn::Error::new(
                path.span(),
                "`#[pir_op]` generates several items; put the struct in a module with this attribute instead",
            ));
        } else if path.segments.last().is_some_and(|s| s.ident == "pir_op") {
            errors.push(syn::Error::new(
                path.span(),
                "`#[pir_op]` is given twice; merge the options into one",
            ));
        } else {
            attrs.push(a);
        }
    }
    (doc, attrs)
}

/// The named fields (none for a unit struct; a tuple struct is an error).
fn named_fields(fields: Fields, errors: &mut Errors) -> Vec<syn::Field> {
    match fields {
        Fields::Named(n) => n.named.into_iter().collect(),
        Fields::Unit => Vec::new(),
        Fields::Unnamed(u) => {
            errors.push(syn::Error::new(
                u.paren_token.span.join(),
                "the fields of a `#[pir_op]` struct must be named (the names are the op's input, attribute and output names): write `struct MyOp { #[input] x: DenseTensor, #[output] out: DenseTensor }`",
            ));
            Vec::new()
        }
    }
}

/// One field with its role and docs; `None` (reported) for a repeated name or a missing role.
fn parse_field(f: syn::Field, earlier: &[Field], errors: &mut Errors) -> Option<Field> {
    let fid = f.ident.clone()?;
    let name = fid.unraw().to_string();
    if let Some(prev) = earlier.iter().find(|p| p.name == name) {
        let what = match prev.role {
            Role::Input(_) => "an input",
            Role::Attr(_) => "an attribute",
            Role::Output(_) => "an output",
        };
        errors.push(syn::Error::new(
            fid.span(),
            format!("duplicate name `{name}`: it is already {what} of this op; inputs, attributes and outputs need distinct names"),
        ));
        return None;
    }
    let mut doc = String::new();
    let mut role: Option<(Role, &'static str)> = None;
    let mut misplaced = false;
    for a in &f.attrs {
        let path = a.path();
        if path.is_ident("doc") {
            if let Some(line) = doc_text(a) {
                push_doc(&mut doc, line);
            }
            continue;
        }
        let key = path.get_ident().map(|i| i.to_string()).unwrap_or_default();
        let Some(this) = ROLES.iter().copied().find(|r| *r == key) else {
            misplaced = true;
            errors.push(not_a_role(path, &key));
            continue;
        };
        if let Some((_, prev)) = &role {
            let msg = if *prev == this {
                format!("`#[{this}]` is given twice on `{name}`; merge the options into one `#[{this}(...)]`")
            } else {
                format!("`{name}` is already marked `#[{prev}]`: a field is exactly one of `#[input]`, `#[attr]` or `#[output]`")
            };
            errors.push(syn::Error::new(path.span(), msg));
            continue;
        }
        role = Some((field_role(a, this, errors), this));
    }
    let Some((role, _)) = role else {
        // A misplaced attribute's error already says which roles exist.
        if !misplaced {
            errors.push(syn::Error::new(
                fid.span(),
                format!("field `{name}` has no role: mark it `#[input]`, `#[attr]` or `#[output]`"),
            ));
        }
        return None;
    };
    Some(Field {
        ident: fid,
        name,
        ty: f.ty,
        doc,
        role,
    })
}

/// The error for a field attribute that is not a role, with the role it likely meant.
fn not_a_role(path: &syn::Path, key: &str) -> syn::Error {
    let shown = quote::ToTokens::to_token_stream(path)
        .to_string()
        .replace(' ', "");
    let msg = match meant_role(key) {
        Some(r) if !key.is_empty() => format!(
            "unknown field attribute `#[{shown}]`; did you mean `#[{r}]`? A field of a `#[pir_op]` struct is marked `#[input]`, `#[attr]` or `#[output]`"
        ),
        _ => format!(
            "`#[{shown}]` is not allowed on a field of a `#[pir_op]` struct: mark the field `#[input]`, `#[attr]` or `#[output]` (doc comments are kept)"
        ),
    };
    syn::Error::new(path.span(), msg)
}

/// The role `#[this(...)]` gives; on a bad option list the error is reported and the role kept
/// (with default options), so later checks do not also report a missing one.
fn field_role(a: &Attribute, this: &str, errors: &mut Errors) -> Role {
    let parsed = match this {
        "input" => parse_field_args::<InputArgs>(&a.meta).map(Role::Input),
        "attr" => parse_field_args::<AttrArgs>(&a.meta).map(Role::Attr),
        _ => parse_field_args::<OutputArgs>(&a.meta).map(Role::Output),
    };
    parsed.unwrap_or_else(|e| {
        errors.push(e);
        match this {
            "input" => Role::Input(InputArgs::default()),
            "attr" => Role::Attr(AttrArgs::default()),
            _ => Role::Output(OutputArgs::default()),
        }
    })
}
