//! Validation and lowering: the parsed options and fields become an [`OpSchema`] (with Paddle's
//! defaults) and the Rust-side choices of a [`GenOp`] (trait paths, interface implementations,
//! verifier). Every error points at the token to change and says what to write.
//!
//! [`lower`] runs the steps in order, collecting every error: the op's identity (name, kind,
//! related ops) here; its signature (`signature`: fields, then in-place and view pairs); its
//! runtime info (`runtime_info`: kernel and infer-meta); its traits and interfaces
//! (`traits`); then the schema and the [`GenOp`] are assembled here.

use std::borrow::Cow;

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::{LitStr, Path};

use pir_spec::{
    AttributeSpec, InputKind, InputSpec, MutableAttr, OpKind, OpSchema, OutputSpec, RuntimeInfo,
    Str,
};

use super::compat::lower_compat;
use super::fields::OpStruct;
use super::meta::Errors;
use super::options::OpArgs;
use super::runtime_info::lower_runtime;
use super::signature::{check_no_grad, lower_fields, lower_pairs, Signature};
use super::traits::{lower_interfaces, lower_traits, Attached};
use crate::codegen::{GenOp, InterfaceGen, SchemaOverrides};

pub(super) fn s(v: impl Into<String>) -> Str {
    Cow::Owned(v.into())
}

pub(super) fn list<T: Clone>(v: Vec<T>) -> Cow<'static, [T]> {
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

/// Who the op is: its name and kind, and the ops it names.
pub(super) struct Identity {
    /// The `name = "..."` literal, for messages about the name.
    pub name_lit: LitStr,
    pub dialect: String,
    /// The name without the dialect (`relu_`).
    pub op_name: String,
    /// `dialect.op_name`.
    pub full_name: String,
    pub kind: OpKind,
    pub backward: Option<String>,
    pub forward: Option<String>,
    /// GetOpInfo's origin op name.
    pub origin: String,
}

/// The name (required: most other checks need it), the kind, and `backward`, `forward` and
/// `origin`.
fn lower_identity(args: &OpArgs, errors: &mut Errors) -> syn::Result<Identity> {
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
    Ok(Identity {
        name_lit,
        dialect,
        op_name,
        full_name,
        kind,
        backward,
        forward,
        origin,
    })
}

/// Lowers `#[pir_op(args)] st` into the op to generate, and tokens tracking the files it read.
pub(crate) fn lower(args: OpArgs, st: OpStruct) -> syn::Result<(GenOp, TokenStream)> {
    let mut errors = Errors::default();
    let id = lower_identity(&args, &mut errors)?;
    let sig = lower_fields(&st, &mut errors);
    check_no_grad(&sig, &id, &mut errors);
    let pairs = lower_pairs(&sig, &id, args.unsuffixed_inplace.is_some(), &mut errors);
    let runtime = lower_runtime(&args, &sig, &id.origin, pairs, &mut errors);
    let traits = lower_traits(&args, &id, &mut errors);
    let interfaces = lower_interfaces(&args, &id, runtime.infer_meta, &mut errors);
    let compat = args
        .compat
        .as_ref()
        .and_then(|c| errors.ok(lower_compat(&c.0, &id.dialect, &id.op_name)));
    errors.finish()?;
    let mut schema = assemble_schema(&args, &st, &id, &sig, runtime.info, &traits, &interfaces);
    let tracking = compat.map(|(spec, tracking)| {
        schema.compat = Some(spec);
        tracking
    });
    Ok((
        gen_op(&args, &st, schema, traits, interfaces),
        tracking.unwrap_or_default(),
    ))
}

/// The op's schema: tensor inputs then mutable attributes as operands, the other attributes,
/// the outputs, and the sorted trait and interface names.
fn assemble_schema(
    args: &OpArgs,
    st: &OpStruct,
    id: &Identity,
    sig: &Signature,
    runtime: RuntimeInfo,
    traits: &Attached<TokenStream>,
    interfaces: &Attached<InterfaceGen>,
) -> OpSchema {
    let with_grad = id.backward.is_some();
    let mut inputs: Vec<InputSpec> = sig
        .inputs
        .iter()
        .map(|i| InputSpec {
            name: s(&i.name),
            kind: InputKind::Value(i.kind),
            optional: i.optional,
            no_need_buffer: i.no_need_buffer,
            with_grad_semantic: (with_grad && i.no_grad.is_none()) || i.grad.is_some(),
            doc: s(&i.doc),
        })
        .collect();
    inputs.extend(sig.attrs.iter().filter(|a| a.mutable).map(|a| InputSpec {
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
    let attributes: Vec<AttributeSpec> = sig
        .attrs
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
    let outputs: Vec<OutputSpec> = sig
        .outputs
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
    OpSchema {
        dialect: s(&id.dialect),
        op_name: s(&id.op_name),
        name: s(&id.full_name),
        class_name: s(pir_spec::yaml::class_name(&id.op_name)),
        origin_name: s(&id.origin),
        kind: id.kind,
        inputs: list(inputs),
        attributes: list(attributes),
        outputs: list(outputs),
        runtime,
        traits: sorted_names(&traits.names),
        interfaces: sorted_names(&interfaces.names),
        backward: id.backward.clone().map(s),
        forward: id.forward.clone().map(s),
        invoke: None,
        verify_signature: id.kind == OpKind::Forward && args.custom_verify.is_none(),
        compat: None,
        extra: Cow::Borrowed(&[]),
        source: None,
        doc: s(&st.doc),
    }
}

fn sorted_names(names: &[String]) -> Cow<'static, [Str]> {
    let mut names = names.to_vec();
    names.sort();
    names.dedup();
    list(names.into_iter().map(s).collect())
}

/// The op to generate: the schema, plus what only the user's crate knows (its trait and
/// interface constants, the struct's location) and the handle's Rust-side choices.
fn gen_op(
    args: &OpArgs,
    st: &OpStruct,
    schema: OpSchema,
    traits: Attached<TokenStream>,
    interfaces: Attached<InterfaceGen>,
) -> GenOp {
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
    GenOp {
        schema,
        ident: st.ident.clone(),
        vis: quote!(#vis),
        attrs: st.attrs.iter().map(|a| quote!(#a)).collect(),
        traits: traits.items,
        interfaces: interfaces.items,
        extra_verify,
        overrides: SchemaOverrides {
            trait_names: traits.consts,
            interface_names: interfaces.consts,
            source: Some(source),
        },
    }
}
