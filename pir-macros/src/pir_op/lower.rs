//! Validation and lowering: the parsed options and fields become an [`OpSchema`] (with Paddle's
//! defaults) and the Rust-side choices of a [`GenOp`] (trait paths, interface implementations,
//! verifier). Every error points at the token to change and says what to write.

use std::borrow::Cow;

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Ident, LitStr, Path};

use pir_spec::known::{self, InterfaceImpl};
use pir_spec::{
    AttrKind, AttributeSpec, DefaultValue, InputKind, InputSpec, MutableAttr, OpKind, OpSchema,
    OutputSpec, RuntimeInfo, Str, ValueKind,
};

use super::defaults::lower_default;
use super::fields::{OpStruct, Role};
use super::meta::{backticked, closest, Errors};
use super::options::OpArgs;
use super::types::{attr_type, value_type};
use crate::codegen::{GenOp, InterfaceGen, SchemaOverrides};

/// pir-runtime's traits, by the short name `traits(...)` accepts (its type's name).
fn runtime_traits() -> Vec<&'static str> {
    known::TRAITS.iter().filter_map(|t| t.runtime).collect()
}

/// pir-runtime's interfaces, by the short name `interfaces(...)` accepts.
fn runtime_interfaces() -> Vec<&'static str> {
    known::INTERFACES.iter().map(|i| i.runtime).collect()
}

/// C++ build-argument types a `Scalar` may name with `data_type`.
const SCALAR_DATA_TYPES: &[&str] = &["bool", "int", "int64_t", "float", "double"];
/// C++ build-argument types an `IntArray` may name with `data_type`.
const INT_ARRAY_DATA_TYPES: &[&str] =
    &["std::vector<int64_t>", "std::vector<int>", "int64_t", "int"];

fn s(v: impl Into<String>) -> Str {
    Cow::Owned(v.into())
}

fn list<T: Clone>(v: Vec<T>) -> Cow<'static, [T]> {
    Cow::Owned(v)
}

fn is_name(v: &str) -> bool {
    !v.is_empty()
        && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !v.starts_with(|c: char| c.is_ascii_digit())
}

/// `dialect.op` → (`dialect`, `op`).
fn split_name(lit: &LitStr) -> syn::Result<(String, String)> {
    let full = lit.value();
    let Some((dialect, op)) = full.split_once('.') else {
        let fix = if is_name(&full) {
            format!("`name = \"my_dialect.{full}\"`")
        } else {
            "`name = \"my_dialect.my_op\"`".to_string()
        };
        return Err(syn::Error::new(
            lit.span(),
            format!("the op name `{full}` has no dialect: write {fix} (the part before the dot is the dialect)"),
        ));
    };
    if !is_name(dialect) || !is_name(op) {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "`{full}` is not a valid op name: write `dialect.op`, each part letters, digits and `_`, as in `name = \"pd_op.conv2d\"`"
            ),
        ));
    }
    Ok((dialect.to_string(), op.to_string()))
}

/// An op name given without its dialect (`backward = "conv2d_grad"`).
fn plain_name(lit: &LitStr, key: &str) -> syn::Result<String> {
    let v = lit.value();
    if let Some((_, op)) = v.split_once('.') {
        return Err(syn::Error::new(
            lit.span(),
            format!("write the op name without its dialect: `{key} = \"{op}\"`"),
        ));
    }
    if !is_name(&v) {
        let example = if key == "backward" {
            "my_op_grad"
        } else {
            "my_op"
        };
        return Err(syn::Error::new(
            lit.span(),
            format!("`{v}` is not a valid op name: use letters, digits and `_`, as in `{key} = \"{example}\"`"),
        ));
    }
    Ok(v)
}

struct Input {
    name: String,
    kind: ValueKind,
    optional: bool,
    no_need_buffer: bool,
    no_grad: Option<Span>,
    doc: String,
}

struct Attr {
    name: String,
    kind: AttrKind,
    data_type: String,
    default: Option<DefaultValue>,
    yaml_type: String,
    doc: String,
    mutable: bool,
}

struct Output {
    ident: Ident,
    name: String,
    kind: ValueKind,
    optional: bool,
    intermediate: bool,
    size: Option<String>,
    doc: String,
    inplace: Option<Ident>,
    view: Option<Ident>,
}

fn type_text(kind: ValueKind, optional: bool) -> String {
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

/// Lowers `#[pir_op(args)] st` into the op to generate.
pub(crate) fn lower(args: OpArgs, st: OpStruct) -> syn::Result<GenOp> {
    let mut errors = Errors::default();

    // The name first: most other checks need it.
    let Some(name_lit) = args.name.as_ref().map(|n| n.0.clone()) else {
        return Err(syn::Error::new(
            Span::call_site(),
            "`#[pir_op]` needs the op's full name: write `#[pir_op(name = \"my_dialect.my_op\")]`",
        ));
    };
    let (dialect, op_name) = split_name(&name_lit)?;
    let full_name = format!("{dialect}.{op_name}");

    // By name unless given: Paddle's backward ops are the `..._grad` (and `..._grad_`) ones.
    let by_name = if op_name.trim_end_matches('_').ends_with("_grad") {
        OpKind::Backward
    } else {
        OpKind::Forward
    };
    let kind = match &args.kind {
        None => by_name,
        Some(k) => match k.0.value().as_str() {
            "forward" => OpKind::Forward,
            "backward" => OpKind::Backward,
            other => {
                errors.push(syn::Error::new(
                    k.0.span(),
                    format!("unknown op kind `{other}`: write `kind = \"forward\"` or `kind = \"backward\"`"),
                ));
                by_name
            }
        },
    };
    let backward = args
        .backward
        .as_ref()
        .and_then(|b| errors.ok(plain_name(&b.0, "backward")));
    let forward = args.forward.as_ref().and_then(|f| {
        let name = errors.ok(plain_name(&f.0, "forward"))?;
        if kind == OpKind::Forward {
            errors.push(syn::Error::new(
                f.0.span(),
                "`forward` names the forward op of a backward op, and this op is a forward op: name it `..._grad` or add `kind = \"backward\"`",
            ));
        }
        Some(name)
    });
    let origin = args
        .origin
        .as_ref()
        .and_then(|o| errors.ok(plain_name(&o.0, "origin")))
        .unwrap_or_else(|| op_name.clone());

    // Fields.
    let mut inputs: Vec<Input> = Vec::new();
    let mut attrs: Vec<Attr> = Vec::new();
    let mut outputs: Vec<Output> = Vec::new();
    for f in &st.fields {
        match &f.role {
            Role::Input(o) => {
                let Some(t) = errors.ok(value_type(&f.ty, true)) else {
                    continue;
                };
                inputs.push(Input {
                    name: f.name.clone(),
                    kind: t.kind,
                    optional: t.optional,
                    no_need_buffer: o.no_need_buffer.is_some(),
                    no_grad: o.no_grad.as_ref().map(|g| g.0),
                    doc: f.doc.clone(),
                });
            }
            Role::Attr(o) => {
                let Some(kind) = errors.ok(attr_type(&f.ty)) else {
                    continue;
                };
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
                let data_type = match (&o.data_type, kind) {
                    (None, _) => kind.data_type().to_string(),
                    (Some(d), AttrKind::Scalar | AttrKind::IntArray) => {
                        let (allowed, what) = if kind == AttrKind::Scalar {
                            (SCALAR_DATA_TYPES, "Scalar")
                        } else {
                            (INT_ARRAY_DATA_TYPES, "IntArray")
                        };
                        let v = d.0.value();
                        if !allowed.contains(&v.as_str()) {
                            let quoted: Vec<String> =
                                allowed.iter().map(|a| format!("\"{a}\"")).collect();
                            errors.push(syn::Error::new(
                                d.0.span(),
                                format!(
                                    "`{v}` is not a C++ build-argument type of a `{what}`: write one of {}",
                                    quoted.join(", ")
                                ),
                            ));
                        }
                        v
                    }
                    (Some(d), _) => {
                        errors.push(syn::Error::new(
                            d.0.span(),
                            format!(
                                "`data_type` applies to `Scalar` and `IntArray` attributes (the C++ type of their build argument), and `{}` is `{ty_text}`",
                                f.name
                            ),
                        ));
                        String::new()
                    }
                };
                let yaml_type = match kind {
                    AttrKind::Scalar if data_type != "float" => format!("Scalar({data_type})"),
                    _ => kind.yaml_name().to_string(),
                };
                let default = o.default.as_ref().and_then(|d| {
                    errors.ok(lower_default(&d.0, &f.name, kind, &data_type, &ty_text))
                });
                attrs.push(Attr {
                    name: f.name.clone(),
                    kind,
                    data_type,
                    default,
                    yaml_type,
                    doc: f.doc.clone(),
                    mutable,
                });
            }
            Role::Output(o) => {
                let Some(t) = errors.ok(value_type(&f.ty, false)) else {
                    continue;
                };
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
                outputs.push(Output {
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
                });
            }
        }
    }

    for i in &inputs {
        if let (Some(span), None) = (i.no_grad, &backward) {
            errors.push(syn::Error::new(
                span,
                format!("`no_grad` says the backward op computes no gradient for `{}`, but this op declares no `backward = \"...\"`; remove `no_grad`", i.name),
            ));
        }
    }

    // In-place and view pairs: (output, input) in output order.
    let mut inplace: Vec<(Str, Str)> = Vec::new();
    let mut view: Vec<(Str, Str)> = Vec::new();
    let mut used: Vec<(String, String, &str)> = Vec::new();
    for o in &outputs {
        for (target, what, pairs) in [
            (&o.inplace, "inplace", &mut inplace),
            (&o.view, "view", &mut view),
        ] {
            let Some(target) = target else { continue };
            let relation = if what == "inplace" {
                format!("the input `{}` is computed in place of", o.name)
            } else {
                format!("the input `{}` is a view of", o.name)
            };
            let tname = target.to_string();
            let tname = tname.strip_prefix("r#").unwrap_or(&tname).to_string();
            let Some(input) = inputs.iter().find(|i| i.name == tname) else {
                let names: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
                let known = if names.is_empty() {
                    "the op has no tensor inputs".to_string()
                } else {
                    format!("the op's tensor inputs are {}", backticked(&names, "and"))
                };
                let msg = if attrs.iter().any(|a| a.name == tname) {
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
                continue;
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
                continue;
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
            pairs.push((s(&o.name), s(&input.name)));
        }
    }
    if !used.is_empty() && !op_name.ends_with('_') {
        let (o, i, what) = used.first().cloned().unwrap_or_default();
        let how = if what == "view" {
            "as a view of"
        } else {
            "in place of"
        };
        errors.push(syn::Error::new(
            name_lit.span(),
            format!(
                "`{full_name}` computes `{o}` {how} `{i}`, so it is an in-place op, and in-place op names end with `_` (as Paddle's `relu_`): write `name = \"{full_name}_\"`"
            ),
        ));
    }

    // Runtime info, with Paddle's defaults: kernel.param defaults to inputs + attributes,
    // infer_meta.param to kernel.param (or inputs + attributes without a kernel).
    let all_args: Vec<String> = inputs
        .iter()
        .map(|i| i.name.clone())
        .chain(attrs.iter().map(|a| a.name.clone()))
        .collect();
    let check_names = |errors: &mut Errors, names: &[Ident], key: &str| -> Vec<String> {
        let mut out = Vec::new();
        for n in names {
            let name = n.to_string();
            let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
            if all_args.contains(&name) {
                out.push(name);
            } else {
                let is_output = outputs.iter().any(|o| o.name == name);
                let all: Vec<&str> = all_args.iter().map(String::as_str).collect();
                let hint = closest(&name, all.iter().copied())
                    .filter(|_| !is_output)
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default();
                let why = if is_output {
                    "is an output"
                } else {
                    "is neither"
                };
                let known = if all.is_empty() {
                    "the op has no inputs or attributes".to_string()
                } else {
                    format!("this op has {}", backticked(&all, "and"))
                };
                errors.push(syn::Error::new(
                    n.span(),
                    format!(
                        "`{key}` lists inputs and attributes, and `{name}` {why}{hint}; {known}"
                    ),
                ));
            }
        }
        out
    };
    let mut runtime = RuntimeInfo::default();
    let mut kernel_param: Option<Vec<String>> = None;
    if let Some(k) = &args.kernel {
        let k = &k.0;
        match &k.func {
            Some(f) => runtime.kernel_func = s(f.0.value()),
            None => errors.push(syn::Error::new(
                args.kernel
                    .as_ref()
                    .map(|c| c.1)
                    .unwrap_or_else(Span::call_site),
                format!(
                    "`kernel` needs its function: write `kernel(func = \"{}\")`",
                    origin.trim_end_matches('_')
                ),
            )),
        }
        let params = match &k.param {
            Some(p) => check_names(&mut errors, &p.0, "param"),
            None => all_args.clone(),
        };
        if let Some(d) = &k.data_type {
            runtime.kernel_key_dtype = list(
                check_names(&mut errors, &d.0, "data_type")
                    .into_iter()
                    .map(s)
                    .collect(),
            );
        }
        if let Some(b) = &k.backend {
            runtime.kernel_key_backend = list(
                check_names(&mut errors, &b.0, "backend")
                    .into_iter()
                    .map(s)
                    .collect(),
            );
        }
        runtime.kernel_param = list(params.iter().map(s).collect());
        kernel_param = Some(params);
    }
    let mut infer_meta_gen: Option<InterfaceGen> = None;
    if let Some(im) = &args.infer_meta {
        let (im, span) = (&im.0, im.1);
        let func = match (&im.func, &im.with) {
            (Some(f), _) => Some(f.0.value()),
            (None, Some(w)) => w.0.segments.last().map(|s| s.ident.to_string()),
            (None, None) => {
                errors.push(syn::Error::new(
                    span,
                    "`infer_meta` needs its function: write `infer_meta(func = \"UnchangedInferMeta\", registry = crate::INFER_META)` (looked up by name) or `infer_meta(with = crate::my_infer_meta)` (a Rust function)",
                ));
                None
            }
        };
        if let (Some(_), Some(w)) = (&im.registry, &im.with) {
            errors.push(syn::Error::new(
                w.0.span(),
                "give either `registry` (look the function up by name) or `with` (call this Rust function), not both",
            ));
        }
        let params = match &im.param {
            Some(p) => check_names(&mut errors, &p.0, "param"),
            None => kernel_param.clone().unwrap_or_else(|| all_args.clone()),
        };
        runtime.infer_meta_param = list(params.into_iter().map(s).collect());
        if let Some(func) = func {
            runtime.infer_meta_func = s(func.clone());
            infer_meta_gen = Some(match &im.with {
                Some(w) => {
                    let p = &w.0;
                    InterfaceGen::InferMetaDirect {
                        func,
                        path: quote!(#p),
                    }
                }
                None => {
                    let registry = match &im.registry {
                        Some(r) => {
                            let p = &r.0;
                            quote!(#p)
                        }
                        None => quote!(::pir_runtime::meta::EMPTY_REGISTRY),
                    };
                    InterfaceGen::InferMetaRegistry { func, registry }
                }
            });
        }
    }
    runtime.inplace = list(inplace);
    runtime.view = list(view);

    // Traits: pir-runtime's by short name, any other by path; `_` ops are in-place.
    let mut trait_paths: Vec<TokenStream> = Vec::new();
    let mut trait_names: Vec<String> = Vec::new();
    let mut trait_consts: Vec<TokenStream> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let inplace_op = op_name.ends_with('_');
    for p in args
        .traits
        .as_ref()
        .map(|t| t.0.as_slice())
        .unwrap_or_default()
    {
        // `ReadOnly` and `ReadOnlyTrait` are one trait.
        let text = p.to_token_stream().to_string().replace(' ', "");
        let key = text.strip_suffix("Trait").unwrap_or(&text).to_string();
        if seen.contains(&key) {
            errors.push(syn::Error::new(
                p.span(),
                format!("trait `{text}` is listed twice"),
            ));
            continue;
        }
        seen.push(key);
        match p.get_ident() {
            Some(id) => {
                let short = id.to_string();
                let short = short.strip_suffix("Trait").unwrap_or(&short).to_string();
                if known::runtime_trait(&short).is_none() {
                    let traits = runtime_traits();
                    let hint = closest(&id.to_string(), traits.iter().copied())
                        .map(|c| format!("did you mean `{c}`? "))
                        .unwrap_or_default();
                    errors.push(syn::Error::new(
                        id.span(),
                        format!(
                            "unknown trait `{id}`; {hint}pir-runtime's traits are {}; for a trait of your own (declared with `declare_trait!`), write its path, e.g. `crate::MyTrait` or `self::MyTrait`",
                            backticked(&traits, "and")
                        ),
                    ));
                    continue;
                }
                if short == "Inplace" {
                    if !inplace_op {
                        errors.push(syn::Error::new(
                            id.span(),
                            format!("`Inplace` marks in-place ops, whose names end with `_` (it is attached to them automatically); name the op `{full_name}_` or remove `Inplace`"),
                        ));
                    }
                    continue;
                }
                let rid = Ident::new(&short, id.span());
                trait_paths.push(quote_spanned!(id.span()=> ::pir_runtime::traits::#rid));
                trait_names.push(format!("{short}Trait"));
            }
            None => {
                trait_paths.push(quote!(#p));
                trait_consts
                    .push(quote_spanned!(p.span()=> <#p as ::pir_runtime::op_def::OpTrait>::NAME));
            }
        }
    }
    if inplace_op {
        trait_paths.push(quote!(::pir_runtime::traits::Inplace));
        trait_names.push("InplaceTrait".into());
    }

    // Interfaces: OpYamlInfo always, InferMeta with `infer_meta`, Vjp with `backward`,
    // GetKernelTypeForVar on `pd_op` (as Paddle's generator attaches them); the rest as listed.
    let mut ifaces: Vec<InterfaceGen> = vec![InterfaceGen::OpYamlInfo];
    let mut iface_names: Vec<String> = vec!["OpYamlInfoInterface".into()];
    let mut iface_consts: Vec<TokenStream> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut listed_kernel_type = false;
    let generic = |name: &str, span: Span| {
        let id = Ident::new(name, span);
        InterfaceGen::Generic {
            path: quote_spanned!(span=> ::pir_runtime::interfaces::#id),
            span,
        }
    };
    for p in args
        .interfaces
        .as_ref()
        .map(|t| t.0.as_slice())
        .unwrap_or_default()
    {
        // `InferShape` and `InferShapeInterface` are one interface.
        let text = p.to_token_stream().to_string().replace(' ', "");
        let key = text.strip_suffix("Interface").unwrap_or(&text).to_string();
        if seen.contains(&key) {
            errors.push(syn::Error::new(
                p.span(),
                format!("interface `{text}` is listed twice"),
            ));
            continue;
        }
        seen.push(key);
        let Some(id) = p.get_ident() else {
            ifaces.push(InterfaceGen::Generic {
                path: quote!(#p),
                span: p.span(),
            });
            iface_consts
                .push(quote_spanned!(p.span()=> <#p as ::pir_runtime::op_def::Interface>::NAME));
            continue;
        };
        let short = id.to_string();
        let short = short
            .strip_suffix("Interface")
            .unwrap_or(&short)
            .to_string();
        let span = id.span();
        match known::runtime_interface(&short).map(|k| k.implementation) {
            Some(InterfaceImpl::SchemaInfo) => {}
            Some(InterfaceImpl::InferMetaFunc) => {
                if args.infer_meta.is_none() {
                    errors.push(syn::Error::new(
                        span,
                        "`InferMeta` needs the op's infer-meta function: add `infer_meta(func = \"UnchangedInferMeta\", registry = crate::INFER_META)` or `infer_meta(with = crate::my_infer_meta)` to `#[pir_op(...)]`",
                    ));
                }
            }
            Some(InterfaceImpl::BackwardOp) => {
                if args.backward.is_none() {
                    errors.push(syn::Error::new(
                        span,
                        format!("`Vjp` needs the backward op: add `backward = \"{}_grad\"` to `#[pir_op(...)]`", op_name.trim_end_matches('_')),
                    ));
                }
            }
            Some(InterfaceImpl::OwnInferShape | InterfaceImpl::DeclarationOnly) => {
                if short == "GetKernelTypeForVar" {
                    listed_kernel_type = true;
                }
                ifaces.push(generic(&short, span));
                iface_names.push(format!("{short}Interface"));
            }
            None => {
                let interfaces = runtime_interfaces();
                let hint = closest(&id.to_string(), interfaces.iter().copied())
                    .map(|c| format!("did you mean `{c}`? "))
                    .unwrap_or_default();
                errors.push(syn::Error::new(
                    span,
                    format!(
                        "unknown interface `{id}`; {hint}pir-runtime's interfaces are {}; for an interface of your own (declared with `declare_interface!`), write its path, e.g. `crate::MyInterface`",
                        backticked(&interfaces, "and")
                    ),
                ));
            }
        }
    }
    if let Some(g) = infer_meta_gen {
        ifaces.push(g);
        iface_names.push("InferMetaInterface".into());
    }
    if let Some(b) = &backward {
        ifaces.push(InterfaceGen::Vjp {
            backward_op: format!("{dialect}.{b}"),
        });
        iface_names.push("VjpInterface".into());
    }
    if dialect == "pd_op" && !listed_kernel_type {
        ifaces.push(generic("GetKernelTypeForVar", Span::call_site()));
        iface_names.push("GetKernelTypeForVarInterface".into());
    }

    errors.finish()?;

    // The schema.
    let with_grad = backward.is_some();
    let mut schema_inputs: Vec<InputSpec> = inputs
        .iter()
        .map(|i| InputSpec {
            name: s(&i.name),
            kind: InputKind::Value(i.kind),
            optional: i.optional,
            no_need_buffer: i.no_need_buffer,
            with_grad_semantic: with_grad && i.no_grad.is_none(),
            doc: s(&i.doc),
        })
        .collect();
    schema_inputs.extend(attrs.iter().filter(|a| a.mutable).map(|a| InputSpec {
        name: s(&a.name),
        kind: InputKind::MutableAttribute(MutableAttr {
            kind: a.kind,
            data_type: s(&a.data_type),
            default: a.default.clone(),
        }),
        optional: false,
        no_need_buffer: false,
        with_grad_semantic: false,
        doc: s(&a.doc),
    }));
    let attributes: Vec<AttributeSpec> = attrs
        .iter()
        .filter(|a| !a.mutable)
        .map(|a| AttributeSpec {
            name: s(&a.name),
            kind: a.kind,
            data_type: s(&a.data_type),
            default: a.default.clone(),
            yaml_type: s(&a.yaml_type),
            doc: s(&a.doc),
        })
        .collect();
    let schema_outputs: Vec<OutputSpec> = outputs
        .iter()
        .map(|o| OutputSpec {
            name: s(&o.name),
            kind: o.kind,
            optional: o.optional,
            intermediate: o.intermediate,
            size_expr: o.size.clone().map(s),
            doc: s(&o.doc),
        })
        .collect();
    trait_names.sort();
    trait_names.dedup();
    iface_names.sort();
    iface_names.dedup();
    let schema = OpSchema {
        dialect: s(&dialect),
        op_name: s(&op_name),
        name: s(&full_name),
        class_name: s(pir_spec::yaml::class_name(&op_name)),
        origin_name: s(origin),
        kind,
        inputs: list(schema_inputs),
        attributes: list(attributes),
        outputs: list(schema_outputs),
        runtime,
        traits: list(trait_names.into_iter().map(s).collect()),
        interfaces: list(iface_names.into_iter().map(s).collect()),
        backward: backward.map(s),
        forward: forward.map(s),
        invoke: None,
        verify_signature: kind == OpKind::Forward && args.custom_verify.is_none(),
        compat: None,
        extra: Cow::Borrowed(&[]),
        source: None,
        doc: s(&st.doc),
    };

    let line = quote_spanned!(st.ident.span()=> ::core::line!());
    let source = quote!(::pir_runtime::pir_spec::SourceLoc {
        file: ::std::borrow::Cow::Borrowed(::core::file!()),
        line: #line,
    });
    let vis = &st.vis;
    let extra_verify = args.verify.as_ref().map(|v| {
        let p: &Path = &v.0;
        quote!(#p)
    });
    Ok(GenOp {
        schema,
        ident: st.ident.clone(),
        vis: quote!(#vis),
        attrs: st.attrs.iter().map(|a| quote!(#a)).collect(),
        traits: trait_paths,
        interfaces: ifaces,
        extra_verify,
        overrides: SchemaOverrides {
            trait_names: trait_consts,
            interface_names: iface_consts,
            source: Some(source),
        },
    })
}
