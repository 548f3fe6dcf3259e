//! The op's signature from its fields: inputs, attributes and outputs with their kinds, options
//! and docs (`lower_fields`), then the in-place and view pairs the outputs name
//! (`lower_pairs`). Each field's problems are reported at its tokens.

use proc_macro2::Span;
use quote::ToTokens;
use syn::{Ident, LitStr};

use pir_spec::{AttrKind, DefaultValue, Str, ValueKind};

use super::defaults::lower_default;
use super::fields::{Field, OpStruct, Role};
use super::lower::{s, Identity};
use super::meta::{backticked, closest, Errors};
use super::options::{AttrArgs, InputArgs, OutputArgs};
use super::types::{attr_type, value_type};

/// C++ build-argument types a `Scalar` may name with `data_type`.
const SCALAR_DATA_TYPES: &[&str] = &["bool", "int", "int64_t", "float", "double"];
/// C++ build-argument types an `IntArray` may name with `data_type`.
const INT_ARRAY_DATA_TYPES: &[&str] =
    &["std::vector<int64_t>", "std::vector<int>", "int64_t", "int"];

/// A tensor input.
pub(super) struct Input {
    pub name: String,
    pub kind: ValueKind,
    pub optional: bool,
    pub no_need_buffer: bool,
    /// Where `no_grad` is written, if it is.
    pub no_grad: Option<Span>,
    /// Where `grad` is written, if it is.
    pub grad: Option<Span>,
    pub doc: String,
}

/// An attribute (mutable or not).
pub(super) struct Attr {
    pub name: String,
    pub kind: AttrKind,
    pub data_type: String,
    pub default: Option<DefaultValue>,
    pub yaml_type: String,
    pub doc: String,
    pub mutable: bool,
}

/// An output.
pub(super) struct Output {
    pub ident: Ident,
    pub name: String,
    pub kind: ValueKind,
    pub optional: bool,
    pub intermediate: bool,
    pub size: Option<String>,
    pub doc: String,
    pub inplace: Option<Ident>,
    pub view: Option<Ident>,
}

/// The fields, by role, in field order.
#[derive(Default)]
pub(super) struct Signature {
    pub inputs: Vec<Input>,
    pub attrs: Vec<Attr>,
    pub outputs: Vec<Output>,
}

impl Signature {
    /// The inputs' then the attributes' names: what parameter lists may name.
    pub(super) fn arg_names(&self) -> Vec<String> {
        self.inputs
            .iter()
            .map(|i| i.name.clone())
            .chain(self.attrs.iter().map(|a| a.name.clone()))
            .collect()
    }
}

/// `DenseTensor`, `Vec<DenseTensor>`, `Option<...>`: a value type as a field writes it.
pub(super) fn type_text(kind: ValueKind, optional: bool) -> String {
    let t = match kind {
        ValueKind::Tensor(t) => t.short_name().to_string(),
        ValueKind::Vector(t) => format!("Vec<{}>", t.short_name()),
    };
    if optional {
        format!("Option<{t}>")
    } else {
        t
    }
}

/// Every field by its role; a field whose type does not fit its role is reported and skipped.
pub(super) fn lower_fields(st: &OpStruct, errors: &mut Errors) -> Signature {
    let mut sig = Signature::default();
    for f in &st.fields {
        match &f.role {
            Role::Input(o) => sig.inputs.extend(lower_input(f, o, errors)),
            Role::Attr(o) => sig.attrs.extend(lower_attr(f, o, errors)),
            Role::Output(o) => sig.outputs.extend(lower_output(f, o, errors)),
        }
    }
    sig
}

fn lower_input(f: &Field, o: &InputArgs, errors: &mut Errors) -> Option<Input> {
    let t = errors.ok(value_type(&f.ty, true))?;
    Some(Input {
        name: f.name.clone(),
        kind: t.kind,
        optional: t.optional,
        no_need_buffer: o.no_need_buffer.is_some(),
        no_grad: o.no_grad.as_ref().map(|g| g.0),
        grad: o.grad.as_ref().map(|g| g.0),
        doc: f.doc.clone(),
    })
}

fn lower_attr(f: &Field, o: &AttrArgs, errors: &mut Errors) -> Option<Attr> {
    let kind = errors.ok(attr_type(&f.ty))?;
    let ty_text = f.ty.to_token_stream().to_string().replace(' ', "");
    let mutable = match &o.mutable {
        Some(m) if !matches!(kind, AttrKind::IntArray | AttrKind::Scalar) => {
            errors.push(syn::Error::new(
                m.0,
                format!(
                    "only `IntArray` and `Scalar` attributes can be mutable (arrive as an operand), and `{}` is `{ty_text}`",
                    f.name
                ),
            ));
            false
        }
        m => m.is_some(),
    };
    let data_type = attr_data_type(
        f,
        kind,
        o.data_type.as_ref().map(|d| &d.0),
        &ty_text,
        errors,
    );
    let yaml_type = match kind {
        AttrKind::Scalar if data_type != "float" => format!("Scalar({data_type})"),
        _ => kind.yaml_name().to_string(),
    };
    let default = o
        .default
        .as_ref()
        .and_then(|d| errors.ok(lower_default(&d.0, &f.name, kind, &data_type, &ty_text)));
    Some(Attr {
        name: f.name.clone(),
        kind,
        data_type,
        default,
        yaml_type,
        doc: f.doc.clone(),
        mutable,
    })
}

/// GetOpInfo's `data_type` of an attribute: as written for `Scalar` and `IntArray` (checked),
/// else the kind's own.
fn attr_data_type(
    f: &Field,
    kind: AttrKind,
    written: Option<&LitStr>,
    ty_text: &str,
    errors: &mut Errors,
) -> String {
    let Some(d) = written else {
        return kind.data_type().to_string();
    };
    let (allowed, what) = match kind {
        AttrKind::Scalar => (SCALAR_DATA_TYPES, "Scalar"),
        AttrKind::IntArray => (INT_ARRAY_DATA_TYPES, "IntArray"),
        _ => {
            errors.push(syn::Error::new(
                d.span(),
                format!(
                    "`data_type` applies to `Scalar` and `IntArray` attributes (the C++ type of their build argument), and `{}` is `{ty_text}`",
                    f.name
                ),
            ));
            return String::new();
        }
    };
    let v = d.value();
    if !allowed.contains(&v.as_str()) {
        let quoted: Vec<String> = allowed.iter().map(|a| format!("\"{a}\"")).collect();
        errors.push(syn::Error::new(
            d.span(),
            format!(
                "`{v}` is not a C++ build-argument type of a `{what}`: write one of {}",
                quoted.join(", ")
            ),
        ));
    }
    v
}

fn lower_output(f: &Field, o: &OutputArgs, errors: &mut Errors) -> Option<Output> {
    let t = errors.ok(value_type(&f.ty, false))?;
    let size = o.size.as_ref().and_then(|sz| {
        if matches!(t.kind, ValueKind::Vector(_)) {
            Some(sz.0.value())
        } else {
            errors.push(syn::Error::new(
                sz.0.span(),
                format!("`size` is the length of a vector output, and `{}` is one tensor; write it on a `Vec<DenseTensor>` output", f.name),
            ));
            None
        }
    });
    if let (Some(_), Some(v)) = (&o.inplace, &o.view) {
        errors.push(syn::Error::new(
            v.0.span(),
            format!("`{}` is given both `inplace` and `view`: an output is computed in place of an input or is a view of it, not both", f.name),
        ));
    }
    Some(Output {
        ident: f.ident.clone(),
        name: f.name.clone(),
        kind: t.kind,
        optional: t.optional,
        intermediate: o.intermediate.is_some(),
        size,
        doc: f.doc.clone(),
        inplace: o.inplace.as_ref().map(|i| i.0.clone()),
        // Both given is reported above; the view is then ignored.
        view: o
            .view
            .as_ref()
            .filter(|_| o.inplace.is_none())
            .map(|v| v.0.clone()),
    })
}

/// `no_grad` needs a backward op; `grad` (gradient semantics stated by hand, as Paddle's
/// hand-written classes do) needs none, and contradicts `no_grad`.
pub(super) fn check_no_grad(sig: &Signature, id: &Identity, errors: &mut Errors) {
    for i in &sig.inputs {
        if let (Some(span), None) = (i.no_grad, &id.backward) {
            errors.push(syn::Error::new(
                span,
                format!("`no_grad` says the backward op computes no gradient for `{}`, but this op declares no `backward = \"...\"`; remove `no_grad`", i.name),
            ));
        }
        match (i.grad, i.no_grad, &id.backward) {
            (Some(span), Some(_), _) => errors.push(syn::Error::new(
                span,
                format!("`grad` and `no_grad` contradict each other on `{}`; keep one", i.name),
            )),
            (Some(span), None, Some(b)) => errors.push(syn::Error::new(
                span,
                format!("`grad` is implied: with `backward = \"{b}\"` every input has gradient semantics unless marked `no_grad`; remove `grad`"),
            )),
            _ => {}
        }
    }
}

/// `(output, input)` pairs, in output order: computed in place, and views.
#[derive(Default)]
pub(super) struct Pairs {
    pub inplace: Vec<(Str, Str)>,
    pub view: Vec<(Str, Str)>,
}

/// The in-place and view pairs the outputs name; an op with any must be named `..._` unless
/// `unsuffixed` (Paddle's hand-written `array_pop` computes `array_out` in place of `array`).
pub(super) fn lower_pairs(
    sig: &Signature,
    id: &Identity,
    unsuffixed: bool,
    errors: &mut Errors,
) -> Pairs {
    let mut pairs = Pairs::default();
    // (output, input, "inplace" or "view") of each accepted pair.
    let mut used: Vec<(String, String, &str)> = Vec::new();
    for o in &sig.outputs {
        for (target, what, out) in [
            (&o.inplace, "inplace", &mut pairs.inplace),
            (&o.view, "view", &mut pairs.view),
        ] {
            let Some(target) = target else { continue };
            let Some(input) = pair_input(sig, o, target, what, errors) else {
                continue;
            };
            if let Some((prev, _, _)) = used.iter().find(|(_, i, _)| *i == input.name) {
                errors.push(syn::Error::new(
                    target.span(),
                    format!(
                        "input `{}` already shares its buffer with output `{prev}`; an input backs at most one output",
                        input.name
                    ),
                ));
                continue;
            }
            used.push((o.name.clone(), input.name.clone(), what));
            out.push((s(&o.name), s(&input.name)));
        }
    }
    if !used.is_empty() && !id.op_name.ends_with('_') && !unsuffixed {
        let (o, i, what) = used.first().cloned().unwrap_or_default();
        let how = if what == "view" {
            "as a view of"
        } else {
            "in place of"
        };
        let full_name = &id.full_name;
        errors.push(syn::Error::new(
            id.name_lit.span(),
            format!(
                "`{full_name}` computes `{o}` {how} `{i}`, so it is an in-place op, and in-place op names end with `_` (as Paddle's `relu_`): write `name = \"{full_name}_\"`"
            ),
        ));
    }
    pairs
}

/// The input output `o` names as its `what` (`inplace` / `view`) target, if it can back `o`.
fn pair_input<'s>(
    sig: &'s Signature,
    o: &Output,
    target: &Ident,
    what: &str,
    errors: &mut Errors,
) -> Option<&'s Input> {
    let relation = if what == "inplace" {
        format!("the input `{}` is computed in place of", o.name)
    } else {
        format!("the input `{}` is a view of", o.name)
    };
    let tname = target.to_string();
    let tname = tname.strip_prefix("r#").unwrap_or(&tname).to_string();
    let Some(input) = sig.inputs.iter().find(|i| i.name == tname) else {
        let names: Vec<&str> = sig.inputs.iter().map(|i| i.name.as_str()).collect();
        let known = if names.is_empty() {
            "the op has no tensor inputs".to_string()
        } else {
            format!("the op's tensor inputs are {}", backticked(&names, "and"))
        };
        let msg = if sig.attrs.iter().any(|a| a.name == tname) {
            format!(
                "`{what}` names {relation}, and `{tname}` is an attribute, not a tensor input; {known}"
            )
        } else {
            let hint = closest(&tname, names.iter().copied())
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            format!("`{what}` names {relation}, and this op has no input `{tname}`{hint}; {known}")
        };
        errors.push(syn::Error::new(target.span(), msg));
        return None;
    };
    if input.kind != o.kind {
        errors.push(syn::Error::new(
            target.span(),
            format!(
                "`{}` ({}) cannot share its buffer with `{}` ({}): they must be of the same tensor type",
                o.name,
                type_text(o.kind, o.optional),
                input.name,
                type_text(input.kind, input.optional)
            ),
        ));
        return None;
    }
    if input.optional && !o.optional {
        errors.push(syn::Error::new(
            o.ident.span(),
            format!(
                "`{}` shares its buffer with the optional input `{}`, so it is optional too: write `{}: {}`",
                o.name,
                input.name,
                o.name,
                type_text(o.kind, true)
            ),
        ));
    }
    Some(input)
}
