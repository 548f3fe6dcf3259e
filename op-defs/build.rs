//! Generates the infer-meta registry (`$OUT_DIR/infer_meta_registry.rs`, included by
//! `src/infer_meta/mod.rs`): every function of `src/infer_meta/*.rs` written with
//! `#[infer_meta]`, sorted by Paddle's name, so no list is kept by hand.
//!
//! Functions sharing a Paddle name are overloads of different arity (Paddle's signature
//! changed between versions); the registry dispatches on the number of arguments. A duplicate
//! of the same arity, or a function the registry cannot reach (private), fails the build with
//! `file:line`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

const DIR: &str = "src/infer_meta";

/// One `#[infer_meta]` function under one of its names.
struct Found {
    /// Whether the name is one of its `also` names.
    alias: bool,
    module: String,
    rust: String,
    /// `file:line`.
    at: String,
    /// Number of parameters before the outputs; `None` for the positional convention.
    arity: Option<usize>,
}

fn main() {
    println!("cargo::rerun-if-changed={DIR}");
    let mut by_name: BTreeMap<String, Vec<Found>> = BTreeMap::new();
    let mut errors = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(DIR)
        .unwrap_or_else(|e| panic!("cannot read {DIR}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    for path in &files {
        scan(path, &mut by_name, &mut errors);
    }
    let code = generate(&by_name, &mut errors);
    if !errors.is_empty() {
        for e in &errors {
            eprintln!("error: {e}");
        }
        std::process::exit(1);
    }
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("infer_meta_registry.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
}

/// Paddle's name from a Rust name (`conv_infer_meta` → `ConvInferMeta`), the rule of
/// `#[infer_meta]` (the registry's compile-time order check catches a disagreement).
fn paddle_name(rust: &str) -> String {
    rust.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| w[..1].to_ascii_uppercase() + &w[1..])
        .collect()
}

/// The Paddle names of `#[infer_meta(name = "...", also = [...])]`: the name given or derived,
/// then the `also` names; `None` if `attr` is not `#[infer_meta]`.
fn infer_meta_names(attr: &syn::Attribute, rust: &str) -> Option<Vec<String>> {
    if attr.path().segments.last()?.ident != "infer_meta" {
        return None;
    }
    let mut name = None;
    let mut also = Vec::new();
    // A malformed attribute is left to the macro, which reports it at the token.
    if let syn::Meta::List(_) = &attr.meta {
        let _ = attr.parse_nested_meta(|m| {
            if m.path.is_ident("name") {
                let lit: syn::LitStr = m.value()?.parse()?;
                name = Some(lit.value());
            } else if m.path.is_ident("also") {
                let list: syn::ExprArray = m.value()?.parse()?;
                for e in list.elems {
                    if let syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(l),
                        ..
                    }) = e
                    {
                        also.push(l.value());
                    }
                }
            }
            Ok(())
        });
    }
    let mut names = vec![name.unwrap_or_else(|| paddle_name(rust))];
    names.extend(also);
    Some(names)
}

fn last_segment_is(ty: &syn::Type, names: &[&str]) -> bool {
    match ty {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| names.iter().any(|n| s.ident == n)),
        syn::Type::Reference(r) => last_segment_is(&r.elem, names),
        _ => false,
    }
}

fn scan(path: &Path, by_name: &mut BTreeMap<String, Vec<Found>>, errors: &mut Vec<String>) {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    // A file that does not parse is left to rustc, which reports it better.
    let Ok(file) = syn::parse_file(&text) else {
        return;
    };
    let module = path.file_stem().unwrap().to_string_lossy().into_owned();
    let shown = format!("op-defs/{DIR}/{module}.rs");
    for item in &file.items {
        let syn::Item::Fn(f) = item else { continue };
        let rust = f.sig.ident.to_string();
        let Some(names) = f.attrs.iter().find_map(|a| infer_meta_names(a, &rust)) else {
            continue;
        };
        let at = format!("{shown}:{}", line_of(&text, &rust));
        if matches!(f.vis, syn::Visibility::Inherited) {
            errors.push(format!(
                "{at}: `{rust}` has `#[infer_meta]` but is private; make it `pub` so the \
                 registry can list it"
            ));
        }
        let inputs: Vec<&syn::Type> = f
            .sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(t) => Some(&*t.ty),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let positional = inputs.len() == 1 && last_segment_is(inputs[0], &["InferMetaCtx"]);
        let arity = (!positional).then(|| {
            inputs
                .iter()
                .filter(|t| !last_segment_is(t, &["Output", "OutputList"]))
                .count()
        });
        for (k, name) in names.into_iter().enumerate() {
            by_name.entry(name).or_default().push(Found {
                alias: k > 0,
                module: module.clone(),
                rust: rust.clone(),
                at: at.clone(),
                arity,
            });
        }
    }
}

/// The 1-based line of `fn <name>` in `text`.
fn line_of(text: &str, name: &str) -> usize {
    let needle = format!("fn {name}");
    text.match_indices(&needle)
        .find(|(i, _)| {
            text[i + needle.len()..]
                .chars()
                .next()
                .is_some_and(|c| c == '(' || c == '<' || c.is_whitespace())
        })
        .map_or(0, |(i, _)| text[..i].matches('\n').count() + 1)
}

fn konst(f: &Found) -> String {
    format!("{}::__{}", f.module, f.rust.to_uppercase())
}

fn generate(by_name: &BTreeMap<String, Vec<Found>>, errors: &mut Vec<String>) -> String {
    let mut entries = String::new();
    let mut dispatchers = String::new();
    for (name, fs) in by_name {
        if let [f] = &fs[..] {
            if f.alias {
                writeln!(
                    entries,
                    "    ::pir_runtime::meta::InferMetaEntry {{\n        name: {name:?},\n        \
                     ..{}\n    }},",
                    konst(f)
                )
                .unwrap();
            } else {
                writeln!(entries, "    {},", konst(f)).unwrap();
            }
            continue;
        }
        // Overloads: typed, of different arities.
        let mut seen: BTreeMap<usize, &Found> = BTreeMap::new();
        for f in fs {
            match f.arity {
                None => errors.push(format!(
                    "{}: `{}` is registered as {name} like {}; functions sharing a name must \
                     be typed overloads of different arity",
                    f.at,
                    f.rust,
                    fs.iter()
                        .find(|g| g.at != f.at)
                        .map_or("", |g| g.at.as_str())
                )),
                Some(n) => {
                    if let Some(g) = seen.insert(n, f) {
                        errors.push(format!(
                            "{}: `{}` and `{}` ({}) are both registered as {name} with {n} \
                             parameters; give one another name",
                            f.at, f.rust, g.rust, g.at
                        ));
                    }
                }
            }
        }
        let ident = name.to_lowercase();
        let sigs: Vec<String> = fs
            .iter()
            .map(|f| format!("{}.signatures[0]", konst(f)))
            .collect();
        let arms: String = fs
            .iter()
            .map(|f| {
                format!(
                    "        n if n == {k}.signatures[0].params.len() => ({k}.func)(ctx),\n",
                    k = konst(f)
                )
            })
            .collect();
        let counts: Vec<String> = seen.keys().map(|n| n.to_string()).collect();
        writeln!(
            dispatchers,
            "/// `{name}`: one of its overloads by the number of arguments.\n\
             fn __dispatch_{ident}(\n    ctx: &mut ::pir_runtime::meta::InferMetaCtx<'_>,\n) \
             -> ::core::result::Result<(), ::pir_runtime::meta::InferMetaError> {{\n    \
             match ctx.num_args() {{\n{arms}        n => ::core::result::Result::Err(\
             ::pir_runtime::meta::InferMetaError::new(::std::format!(\n            \
             \"{name} takes {} arguments, got {{n}}\"\n        ))),\n    }}\n}}\n",
            counts.join(" or ")
        )
        .unwrap();
        // A static of its own: an array of values read out of other consts is not promoted
        // to `'static` inside the registry's initializer.
        writeln!(
            dispatchers,
            "/// The signatures of `{name}`'s overloads.\n\
             static __SIGNATURES_{upper}: [::pir_runtime::meta::InferMetaSignature; {}] = [{}];\n",
            sigs.len(),
            sigs.join(", "),
            upper = ident.to_uppercase()
        )
        .unwrap();
        writeln!(
            entries,
            "    ::pir_runtime::meta::InferMetaEntry {{\n        name: {name:?},\n        \
             func: __dispatch_{ident},\n        signatures: &__SIGNATURES_{},\n    }},",
            ident.to_uppercase()
        )
        .unwrap();
    }
    format!(
        "// Generated by op-defs/build.rs from {DIR}/*.rs; do not edit.\n\n\
         /// Every implemented infer-meta function by Paddle's name (`\"UnchangedInferMeta\"`, ...),\n\
         /// sorted byte-wise for binary search: each function of this module written with\n\
         /// `#[infer_meta]`, with its typed signature (generated by `op-defs/build.rs`).\n\
         pub static REGISTRY: ::pir_runtime::meta::InferMetaRegistry =\n    \
         ::pir_runtime::meta::InferMetaRegistry::from_entries(&[\n{entries}    ]);\n\n\
         const _: () = ::core::assert!(\n    REGISTRY.is_sorted(),\n    \
         \"the registry's names are out of order: #[infer_meta] and op-defs/build.rs derive \
         a Paddle name differently\"\n);\n\n{dispatchers}"
    )
}
