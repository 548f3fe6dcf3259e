//! `define_ops_from_yaml!`: reads Paddle-schema yaml at compile time through
//! `pir_spec::yaml` and generates every op class through the shared code generator.
//!
//! ```text
//! define_ops_from_yaml! {
//!     dialect = "pd_op",
//!     ops = ["ops-yaml/ops.yaml", "ops-yaml/backward.yaml"],
//!     compat = "ops-yaml/op_compat.yaml",     // optional
//!     // or, instead of `ops` and `compat`: a folder in Paddle's layout, read with
//!     // `pir_spec::yaml::folder::YamlFolder` (every generator file present, op_compat.yaml)
//!     // folder = "${PIR_PADDLE_YAML}",
//!     infer_meta = crate::infer_meta::REGISTRY, // optional: where infer-meta functions live
//!     dialect_type = PdOpDialect,             // optional: defaults to PascalCase(dialect)+Dialect
//!     part = "2/4",                           // optional: see below
//! }
//! ```
//!
//! `part` splits a large dialect over several crates, which cargo compiles in parallel (rustc
//! type-checks one crate on one core): `part = "K/N"` generates only the K-th of N equal runs
//! of the classes (in the yaml set's order) and no dialect type; `part = "dialect"` generates
//! only the dialect type, listing every class by name (the crate glob-imports the parts).
//! `paddle-corpus` uses it; every part reads and tracks the whole yaml set.

use std::path::{Path, PathBuf};

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, LitStr, Token};

use pir_spec::known::{self, InterfaceImpl};
use pir_spec::yaml::folder::YamlFolder;
use pir_spec::yaml::{load_op_set, OpSet, SpecErrors, YamlSource};
use pir_spec::OpSchema;

use crate::codegen::{generate_dialect, generate_op, GenOp, InterfaceGen};

pub(crate) struct YamlInput {
    dialect: LitStr,
    ops: Vec<LitStr>,
    compat: Option<LitStr>,
    folder: Option<LitStr>,
    infer_meta: Option<syn::Path>,
    dialect_type: Option<Ident>,
    part: Option<Part>,
}

/// Which part of the dialect an invocation generates (`part = ...`).
#[derive(Clone, Copy)]
enum Part {
    /// The `index`-th (0-based) of `count` runs of classes, without the dialect type.
    Ops { index: usize, count: usize },
    /// Only the dialect type.
    Dialect,
}

impl Part {
    fn parse(lit: &LitStr) -> syn::Result<Part> {
        let v = lit.value();
        if v == "dialect" {
            return Ok(Part::Dialect);
        }
        let parsed = v.split_once('/').and_then(|(k, n)| {
            let (k, n) = (
                k.trim().parse::<usize>().ok()?,
                n.trim().parse::<usize>().ok()?,
            );
            (k >= 1 && k <= n).then_some(Part::Ops {
                index: k - 1,
                count: n,
            })
        });
        parsed.ok_or_else(|| {
            syn::Error::new(
                lit.span(),
                format!("`part = {v:?}`: expected \"K/N\" with 1 <= K <= N (e.g. \"2/4\") or \"dialect\""),
            )
        })
    }

    /// Whether the class at `position` of `total` belongs to this part.
    fn holds(self, position: usize, total: usize) -> bool {
        match self {
            Part::Ops { index, count } => {
                (index * total / count..(index + 1) * total / count).contains(&position)
            }
            Part::Dialect => false,
        }
    }
}

impl Parse for YamlInput {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut dialect = None;
        let mut ops = None;
        let mut compat = None;
        let mut folder = None;
        let mut infer_meta = None;
        let mut dialect_type = None;
        let mut part = None;
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let dup = |what: &Option<_>| {
                if what.is_some() {
                    Err(syn::Error::new(
                        key.span(),
                        format!("`{key}` is given twice"),
                    ))
                } else {
                    Ok(())
                }
            };
            match key.to_string().as_str() {
                "dialect" => {
                    dup(&dialect.as_ref().map(|_: &LitStr| ()))?;
                    dialect = Some(input.parse()?);
                }
                "ops" => {
                    dup(&ops.as_ref().map(|_: &Vec<LitStr>| ()))?;
                    let content;
                    syn::bracketed!(content in input);
                    let items: Punctuated<LitStr, Token![,]> = content.parse_terminated(|p| p.parse(), Token![,])?;
                    if items.is_empty() {
                        return Err(syn::Error::new(key.span(), "`ops` lists no yaml file; write `ops = [\"ops.yaml\", ...]`"));
                    }
                    ops = Some(items.into_iter().collect());
                }
                "compat" => {
                    dup(&compat.as_ref().map(|_: &LitStr| ()))?;
                    compat = Some(input.parse()?);
                }
                "folder" => {
                    dup(&folder.as_ref().map(|_: &LitStr| ()))?;
                    folder = Some(input.parse()?);
                }
                "infer_meta" => {
                    dup(&infer_meta.as_ref().map(|_: &syn::Path| ()))?;
                    infer_meta = Some(input.parse()?);
                }
                "dialect_type" => {
                    dup(&dialect_type.as_ref().map(|_: &Ident| ()))?;
                    dialect_type = Some(input.parse()?);
                }
                "part" => {
                    dup(&part.as_ref().map(|_: &Part| ()))?;
                    part = Some(Part::parse(&input.parse()?)?);
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!("unknown key `{other}`; expected `dialect`, `ops`, `compat`, `folder`, `infer_meta`, `dialect_type` or `part`"),
                    ))
                }
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        let dialect = dialect.ok_or_else(|| {
            input.error("missing `dialect = \"...\"` (e.g. `dialect = \"pd_op\"`)")
        })?;
        let ops = match (ops, &folder, &compat) {
            (Some(_), Some(f), _) | (None, Some(f), Some(_)) => {
                return Err(syn::Error::new(
                    f.span(),
                    "`folder` reads the generator files and op_compat.yaml itself; give either `folder` or `ops`/`compat`",
                ))
            }
            (Some(ops), None, _) => ops,
            (None, Some(_), None) => Vec::new(),
            (None, None, _) => {
                return Err(input.error(
                    "missing `ops = [\"...\"]` (the yaml files to read) or `folder = \"...\"`",
                ))
            }
        };
        Ok(YamlInput {
            dialect,
            ops,
            compat,
            folder,
            infer_meta,
            dialect_type,
            part,
        })
    }
}

/// Resolves a path as the macro's contract says: `${VAR}` expands environment variables, a
/// relative path is relative to the invoking crate's manifest directory.
fn resolve(lit: &LitStr, env_used: &mut Vec<String>) -> syn::Result<PathBuf> {
    let raw = lit.value();
    let mut out = String::new();
    let mut rest = raw.as_str();
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find('}').ok_or_else(|| {
            syn::Error::new(lit.span(), format!("unterminated `${{` in path {raw:?}"))
        })?;
        let var = &after[..end];
        env_used.push(var.to_string());
        let value = std::env::var(var).map_err(|_| {
            syn::Error::new(
                lit.span(),
                format!("environment variable `{var}` (used in {raw:?}) is not set"),
            )
        })?;
        out.push_str(&value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    let p = PathBuf::from(&out);
    if p.is_absolute() {
        return Ok(p);
    }
    let base = std::env::var("CARGO_MANIFEST_DIR").map_err(|_| {
        syn::Error::new(
            lit.span(),
            "CARGO_MANIFEST_DIR is not set; give an absolute path",
        )
    })?;
    Ok(Path::new(&base).join(p))
}

pub(crate) fn read(lit: &LitStr, env_used: &mut Vec<String>) -> syn::Result<(PathBuf, String)> {
    let path = resolve(lit, env_used)?;
    let text = std::fs::read_to_string(&path)
        .map_err(|e| syn::Error::new(lit.span(), format!("cannot read {}: {e}", path.display())))?;
    Ok((path, text))
}

/// A yaml file the macro read: its label for messages (as written, or resolved when it uses
/// `${VAR}`), its resolved path and its text.
pub(crate) struct ReadFile {
    pub(crate) label: String,
    pub(crate) path: PathBuf,
    pub(crate) text: String,
    /// The path literal, where errors about the file point.
    span: Span,
}

pub(crate) fn expand(input: YamlInput) -> syn::Result<TokenStream> {
    let dialect = input.dialect.value();
    check_dialect_name(&input.dialect)?;
    let mut env_used = Vec::new();
    let (files, compat) = match &input.folder {
        Some(lit) => read_folder(lit, &mut env_used)?,
        None => {
            let mut files = Vec::new();
            for lit in &input.ops {
                files.push(read_file(lit, &mut env_used)?);
            }
            let compat = match &input.compat {
                Some(lit) => Some(read_file(lit, &mut env_used)?),
                None => None,
            };
            (files, compat)
        }
    };
    let sources: Vec<YamlSource<'_>> = files
        .iter()
        .map(|f| YamlSource {
            path: &f.label,
            text: &f.text,
        })
        .collect();
    let compat_src = compat.as_ref().map(|f| YamlSource {
        path: &f.label,
        text: &f.text,
    });
    let set = match load_op_set(&dialect, &sources, compat_src) {
        Ok(set) => set,
        Err(errors) => return Ok(load_errors(&errors, files.iter().chain(&compat))),
    };
    let registry = input
        .infer_meta
        .as_ref()
        .map(|p| quote!(#p))
        .unwrap_or_else(|| quote!(::pir_runtime::meta::EMPTY_REGISTRY));
    let mut out = TokenStream::new();
    let mut errors = Vec::new();
    let mut idents = Vec::new();
    let total = set.ops.len();
    for (position, s) in set.ops.iter().enumerate() {
        if let Some(Part::Dialect) = input.part {
            // The parts report the errors; the dialect lists the classes they define.
            idents.push(Ident::new(&s.class_name, Span::call_site()));
            continue;
        }
        if input.part.is_some_and(|p| !p.holds(position, total)) {
            continue;
        }
        match gen_for(s, &registry, &set) {
            Ok(g) => {
                idents.push(g.ident.clone());
                out.extend(generate_op(&g));
            }
            Err(m) => errors.push(m),
        }
    }
    if !errors.is_empty() {
        let msgs = errors.iter().map(|m| quote!(::core::compile_error!(#m);));
        return Ok(quote!(#(#msgs)*));
    }
    if let Some(Part::Ops { .. }) = input.part {
        out.extend(tracking(files.iter().chain(&compat), &env_used));
        return Ok(out);
    }
    let dialect_ident = input
        .dialect_type
        .clone()
        .unwrap_or_else(|| format_ident!("{}Dialect", pir_spec::yaml::pascal_case(&dialect)));
    out.extend(generate_dialect(
        &quote!(pub),
        &dialect_ident,
        &dialect,
        &idents,
    ));
    out.extend(tracking(files.iter().chain(&compat), &env_used));
    Ok(out)
}

fn check_dialect_name(lit: &LitStr) -> syn::Result<()> {
    let dialect = lit.value();
    if dialect.is_empty()
        || !dialect
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(syn::Error::new(
            lit.span(),
            "the dialect name must be a non-empty identifier such as \"pd_op\"",
        ));
    }
    Ok(())
}

/// Reads the file `lit` names; messages name it as written, or by its resolved path when it
/// uses `${VAR}`.
pub(crate) fn read_file(lit: &LitStr, env_used: &mut Vec<String>) -> syn::Result<ReadFile> {
    let (path, text) = read(lit, env_used)?;
    let raw = lit.value();
    let label = if raw.contains("${") {
        path.display().to_string()
    } else {
        raw
    };
    Ok(ReadFile {
        label,
        path,
        text,
        span: lit.span(),
    })
}

/// Reads a yaml folder the one way every user does ([`YamlFolder::read`]): the generator files
/// present, in Paddle's order, and op_compat.yaml if present. Messages name resolved paths and
/// point at the folder literal.
fn read_folder(
    lit: &LitStr,
    env_used: &mut Vec<String>,
) -> syn::Result<(Vec<ReadFile>, Option<ReadFile>)> {
    let dir = resolve(lit, env_used)?;
    let folder = YamlFolder::read(&dir).map_err(|e| syn::Error::new(lit.span(), e.to_string()))?;
    let file = |(path, text): (&str, &str)| ReadFile {
        label: path.to_string(),
        path: PathBuf::from(path),
        text: text.to_string(),
        span: lit.span(),
    };
    let files = folder
        .files()
        .iter()
        .map(|(p, t)| file((p.as_str(), t.as_str())))
        .collect();
    Ok((files, folder.compat().map(file)))
}

/// The load errors as `compile_error!`s, each pointing at the path literal of its file.
fn load_errors<'a>(
    errors: &SpecErrors,
    files: impl Iterator<Item = &'a ReadFile> + Clone,
) -> TokenStream {
    let msgs = errors.iter().map(|e| {
        let m = e.to_string();
        let span = files
            .clone()
            .find(|f| f.label == e.file)
            .map_or(Span::call_site(), |f| f.span);
        quote::quote_spanned!(span=> ::core::compile_error!(#m);)
    });
    quote!(#(#msgs)*)
}

/// Makes cargo rebuild when a yaml file or a variable in a path changes.
pub(crate) fn tracking<'a>(
    files: impl Iterator<Item = &'a ReadFile>,
    env_used: &[String],
) -> TokenStream {
    let tracked = files.map(|f| {
        let p = f.path.display().to_string();
        quote!(
            const _: &[u8] = ::core::include_bytes!(#p);
        )
    });
    let envs = env_used.iter().map(|v| {
        quote!(
            const _: ::core::option::Option<&str> = ::core::option_env!(#v);
        )
    });
    quote!(#(#tracked)* #(#envs)*)
}

fn gen_for(s: &OpSchema, registry: &TokenStream, set: &OpSet) -> Result<GenOp, String> {
    let at = match &s.source {
        Some(l) => format!("{}:{}: op `{}`", l.file, l.line, s.op_name),
        None => format!("op `{}`", s.op_name),
    };
    let mut traits = Vec::new();
    for t in s.traits.iter() {
        let Some(path) = known::find_trait(t).and_then(|k| k.runtime) else {
            return Err(format!(
                "{at}: unknown trait `{t}`; pir-runtime implements {}",
                yaml_names(
                    known::TRAITS
                        .iter()
                        .filter(|k| k.runtime.is_some())
                        .map(|k| k.name)
                )
            ));
        };
        let id = Ident::new(path, Span::call_site());
        traits.push(quote!(::pir_runtime::traits::#id));
    }
    let mut interfaces = Vec::new();
    for i in s.interfaces.iter() {
        // `InferShape` needs the op's own Rust implementation, which yaml cannot give.
        let from_yaml =
            |k: &&known::KnownInterface| k.implementation != InterfaceImpl::OwnInferShape;
        let Some(k) = known::find_interface(i).filter(from_yaml) else {
            return Err(format!(
                "{at}: unknown interface `{i}`; pir-runtime implements {}",
                yaml_names(known::INTERFACES.iter().filter(from_yaml).map(|k| k.name))
            ));
        };
        interfaces.push(match k.implementation {
            InterfaceImpl::SchemaInfo => InterfaceGen::OpYamlInfo,
            InterfaceImpl::InferMetaFunc => InterfaceGen::InferMetaRegistry {
                func: s.runtime.infer_meta_func.to_string(),
                registry: registry.clone(),
            },
            InterfaceImpl::BackwardOp => InterfaceGen::Vjp {
                backward_op: match &s.backward {
                    Some(b) => format!("{}.{b}", s.dialect),
                    None => String::new(),
                },
                // The Vjp table, when the backward entry is in the same yaml set (a
                // hand-written backward class's entry too: its `invoke` decides, as in
                // Paddle's generator); else the runtime derives it from the registered schemas.
                rule: pir_spec::vjp::vjp_rule(s, |n| set.backward_entry(n)).ok(),
            },
            InterfaceImpl::DeclarationOnly => {
                let id = Ident::new(k.runtime, Span::call_site());
                InterfaceGen::Unit {
                    path: quote!(::pir_runtime::interfaces::#id),
                }
            }
            InterfaceImpl::OwnInferShape => {
                let id = Ident::new(k.runtime, Span::call_site());
                InterfaceGen::Generic {
                    path: quote!(::pir_runtime::interfaces::#id),
                    span: Span::call_site(),
                }
            }
        });
    }
    let ident = Ident::new(&s.class_name, Span::call_site());
    Ok(GenOp {
        schema: s.clone(),
        ident,
        vis: quote!(pub),
        attrs: Vec::new(),
        traits,
        interfaces,
        extra_verify: None,
        overrides: Default::default(),
    })
}

/// `a, b, c`: names for messages.
fn yaml_names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.collect::<Vec<_>>().join(", ")
}
