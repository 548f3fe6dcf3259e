//! `kernel(...)` and `infer_meta(...)` into the op's runtime info, with Paddle's defaults:
//! `kernel.param` defaults to the inputs then the attributes, `infer_meta.param` to
//! `kernel.param` (or to the inputs then the attributes without a kernel).

use proc_macro2::Span;
use quote::quote;
use syn::spanned::Spanned;
use syn::Ident;

use pir_spec::RuntimeInfo;

use super::lower::{list, s};
use super::meta::{backticked, closest, Errors};
use super::options::{InferMetaArgs, OpArgs};
use super::signature::{Pairs, Signature};
use crate::codegen::InterfaceGen;

/// The runtime info, and how the op gets its infer-meta function (if it names one).
pub(super) struct Runtime {
    pub info: RuntimeInfo,
    pub infer_meta: Option<InterfaceGen>,
}

/// Checks names in parameter lists: each must be an input or attribute of the op.
struct ParamNames<'a> {
    sig: &'a Signature,
    args: Vec<String>,
}

impl ParamNames<'_> {
    /// The names of `names` that are arguments; each other one is reported at its token.
    fn check(&self, errors: &mut Errors, names: &[Ident], key: &str) -> Vec<String> {
        let mut out = Vec::new();
        for n in names {
            let name = n.to_string();
            let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
            if self.args.contains(&name) {
                out.push(name);
            } else {
                errors.push(syn::Error::new(n.span(), self.message(&name, key)));
            }
        }
        out
    }

    fn message(&self, name: &str, key: &str) -> String {
        let is_output = self.sig.outputs.iter().any(|o| o.name == name);
        let all: Vec<&str> = self.args.iter().map(String::as_str).collect();
        let hint = closest(name, all.iter().copied())
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
        format!("`{key}` lists inputs and attributes, and `{name}` {why}{hint}; {known}")
    }
}

/// The kernel, the infer-meta function and the in-place/view pairs as runtime info.
pub(super) fn lower_runtime(
    args: &OpArgs,
    sig: &Signature,
    origin: &str,
    pairs: Pairs,
    errors: &mut Errors,
) -> Runtime {
    let params = ParamNames {
        sig,
        args: sig.arg_names(),
    };
    let mut info = RuntimeInfo::default();
    let kernel_param = lower_kernel(args, &params, origin, &mut info, errors);
    let infer_meta = args.infer_meta.as_ref().and_then(|im| {
        let default_param = kernel_param.unwrap_or_else(|| params.args.clone());
        lower_infer_meta(&im.0, im.1, &params, default_param, &mut info, errors)
    });
    info.inplace = list(pairs.inplace);
    info.view = list(pairs.view);
    Runtime { info, infer_meta }
}

/// `kernel(func, param, data_type, backend)`; returns `kernel.param` when there is a kernel.
fn lower_kernel(
    args: &OpArgs,
    params: &ParamNames<'_>,
    origin: &str,
    info: &mut RuntimeInfo,
    errors: &mut Errors,
) -> Option<Vec<String>> {
    let (k, span) = args.kernel.as_ref().map(|k| (&k.0, k.1))?;
    match &k.func {
        Some(f) => info.kernel_func = s(f.0.value()),
        None => errors.push(syn::Error::new(
            span,
            format!(
                "`kernel` needs its function: write `kernel(func = \"{}\")`",
                origin.trim_end_matches('_')
            ),
        )),
    }
    let kernel_param = match &k.param {
        Some(p) => params.check(errors, &p.0, "param"),
        None => params.args.clone(),
    };
    if let Some(d) = &k.data_type {
        let names = params.check(errors, &d.0, "data_type");
        info.kernel_key_dtype = list(names.into_iter().map(s).collect());
    }
    if let Some(b) = &k.backend {
        let names = params.check(errors, &b.0, "backend");
        info.kernel_key_backend = list(names.into_iter().map(s).collect());
    }
    info.kernel_param = list(kernel_param.iter().map(s).collect());
    Some(kernel_param)
}

/// `infer_meta(func | with, param, registry)`: the function's name and parameters, and where the
/// generated op finds it.
fn lower_infer_meta(
    im: &InferMetaArgs,
    span: Span,
    params: &ParamNames<'_>,
    default_param: Vec<String>,
    info: &mut RuntimeInfo,
    errors: &mut Errors,
) -> Option<InterfaceGen> {
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
    let param = match &im.param {
        Some(p) => params.check(errors, &p.0, "param"),
        None => default_param,
    };
    info.infer_meta_param = list(param.into_iter().map(s).collect());
    let func = func?;
    info.infer_meta_func = s(func.clone());
    Some(match &im.with {
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
    })
}
