//! Option lists and option values of `#[pir_op]`, parsed with darling.
//!
//! darling maps `key = value` / `key(...)` / `key` items onto the option structs of
//! `options.rs`. Its own messages are terse, so every list is first checked here (unknown and
//! repeated keys, with suggestions), and every value goes through one of the wrappers below,
//! whose `FromMeta` says what shape the key takes and points at the offending tokens.

use darling::ast::NestedMeta;
use darling::FromMeta;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Lit, LitStr, Meta, Path};

/// Collects errors so one expansion reports every problem it can find.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    /// Records an error.
    pub(crate) fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    /// Records the error of `r`, if any, and returns its value.
    pub(crate) fn ok<T>(&mut self, r: syn::Result<T>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                self.push(e);
                None
            }
        }
    }

    /// `Err` with every recorded error, or `Ok`.
    pub(crate) fn finish(self) -> syn::Result<()> {
        match self.0 {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// A darling error as a `syn::Error`, keeping every message and span.
pub(crate) fn to_syn(e: darling::Error) -> syn::Error {
    syn::Error::from(e)
}

/// A `syn::Error` (possibly several) as a darling error.
fn to_darling(e: syn::Error) -> darling::Error {
    darling::Error::multiple(e.into_iter().map(darling::Error::from).collect())
}

fn err(span: Span, msg: impl std::fmt::Display) -> darling::Error {
    darling::Error::custom(msg).with_span(&span)
}

/// The keys an option list accepts, for checks and messages.
pub(crate) struct Keys {
    /// Where the list is written (`#[pir_op(...)]`), for messages.
    pub context: &'static str,
    /// The accepted keys.
    pub keys: &'static [&'static str],
    /// A targeted explanation for a key that is not accepted here (`optional` on an input).
    pub hint: fn(&str) -> Option<&'static str>,
}

/// `` `a`, `b` and `c` `` (with `conj` = "and") or `` `a`, `b` or `c` ``.
pub(crate) fn backticked(items: &[&str], conj: &str) -> String {
    let quoted: Vec<String> = items.iter().map(|k| format!("`{k}`")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} {conj} {last}", rest.join(", ")),
    }
}

/// Levenshtein distance, for "did you mean" suggestions.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(row[j]).min(row[j + 1])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// The candidate closest to `word`, if it is close enough to be a likely typo.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let lower = word.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|c| (distance(&lower, &c.to_ascii_lowercase()), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Checks an option list: every item is `key`, `key = value` or `key(...)` with a known key,
/// and no key is given twice.
pub(crate) fn check_keys(items: &[NestedMeta], k: &Keys) -> syn::Result<()> {
    let mut errors = Errors::default();
    let mut seen: Vec<String> = Vec::new();
    let all = backticked(k.keys, "and");
    for item in items {
        let meta = match item {
            NestedMeta::Lit(lit) => {
                errors.push(syn::Error::new(
                    lit.span(),
                    format!(
                        "unexpected literal in {}: options are written `key = value`, `key(...)` or `key`; the keys are {all}",
                        k.context
                    ),
                ));
                continue;
            }
            NestedMeta::Meta(m) => m,
        };
        let path = meta.path();
        let Some(key) = path.get_ident().map(|i| i.to_string()) else {
            errors.push(syn::Error::new(
                path.span(),
                format!("unknown key in {}; the keys are {all}", k.context),
            ));
            continue;
        };
        if !k.keys.contains(&key.as_str()) {
            let msg = match ((k.hint)(&key), closest(&key, k.keys.iter().copied())) {
                (Some(hint), _) => format!("`{key}` is not an option of {}: {hint}", k.context),
                (None, Some(s)) => format!(
                    "unknown key `{key}` in {}; did you mean `{s}`? The keys are {all}",
                    k.context
                ),
                (None, None) => format!("unknown key `{key}` in {}; the keys are {all}", k.context),
            };
            errors.push(syn::Error::new(path.span(), msg));
            continue;
        }
        if seen.contains(&key) {
            errors.push(syn::Error::new(
                path.span(),
                format!("`{key}` is given twice in {}; keep one", k.context),
            ));
            continue;
        }
        seen.push(key);
    }
    errors.finish()
}

fn key_of(item: &Meta) -> String {
    item.path()
        .get_ident()
        .map(|i| i.to_string())
        .unwrap_or_default()
}

/// An option list that is key-checked before darling reads it: `infer_meta(...)`.
pub(crate) trait OptionList: FromMeta {
    /// The accepted keys.
    const KEYS: Keys;
}

/// A nested option list, checked with [`check_keys`] first.
pub(crate) struct Checked<T>(pub T, pub Span);

impl<T: OptionList> FromMeta for Checked<T> {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        match item {
            Meta::List(l) => {
                let items = NestedMeta::parse_meta_list(l.tokens.clone()).map_err(to_darling)?;
                check_keys(&items, &T::KEYS).map_err(to_darling)?;
                T::from_list(&items).map(|v| Checked(v, item.span()))
            }
            _ => {
                let key = key_of(item);
                Err(err(
                    item.span(),
                    format!(
                        "`{key}` takes a list of options: `{key}(...)` with keys {}",
                        backticked(T::KEYS.keys, "and")
                    ),
                ))
            }
        }
    }
}

fn unwrap_group(e: &Expr) -> &Expr {
    match e {
        Expr::Group(g) => unwrap_group(&g.expr),
        Expr::Paren(p) => unwrap_group(&p.expr),
        e => e,
    }
}

/// `key = "text"`.
pub(crate) struct StrArg(pub LitStr);

impl FromMeta for StrArg {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        if let Meta::NameValue(nv) = item {
            if let Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) = unwrap_group(&nv.value)
            {
                return Ok(StrArg(s.clone()));
            }
            let key = key_of(item);
            return Err(err(
                nv.value.span(),
                format!("`{key}` takes a string: write `{key} = \"...\"`"),
            ));
        }
        let key = key_of(item);
        Err(err(
            item.span(),
            format!("`{key}` takes a string: write `{key} = \"...\"`"),
        ))
    }
}

/// `key` alone.
pub(crate) struct FlagArg(pub Span);

impl FromMeta for FlagArg {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        match item {
            Meta::Path(p) => Ok(FlagArg(p.span())),
            _ => {
                let key = key_of(item);
                Err(err(
                    item.span(),
                    format!("`{key}` is a flag: write `{key}` alone"),
                ))
            }
        }
    }
}

/// `key = path::to::item`.
pub(crate) struct PathArg(pub Path);

impl FromMeta for PathArg {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        let key = key_of(item);
        if let Meta::NameValue(nv) = item {
            match unwrap_group(&nv.value) {
                Expr::Path(p) if p.qself.is_none() => return Ok(PathArg(p.path.clone())),
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) => {
                    return Err(err(
                        s.span(),
                        format!(
                            "`{key}` takes a Rust path, not a string: write `{key} = {}`",
                            s.value()
                        ),
                    ))
                }
                other => {
                    return Err(err(
                        other.span(),
                        format!("`{key}` takes a Rust path: write `{key} = path::to::item`"),
                    ))
                }
            }
        }
        Err(err(
            item.span(),
            format!("`{key}` takes a Rust path: write `{key} = path::to::item`"),
        ))
    }
}

/// `key = name` (an input of the op).
pub(crate) struct IdentArg(pub Ident);

impl FromMeta for IdentArg {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        let key = key_of(item);
        let msg = format!("`{key}` takes the name of an input: write `{key} = x`");
        if let Meta::NameValue(nv) = item {
            return match unwrap_group(&nv.value) {
                Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => Ok(IdentArg(
                    p.path
                        .get_ident()
                        .cloned()
                        .unwrap_or_else(|| Ident::new("_", p.span())),
                )),
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) => Err(err(
                    s.span(),
                    format!(
                        "`{key}` takes the input's name, not a string: write `{key} = {}`",
                        s.value()
                    ),
                )),
                other => Err(err(other.span(), msg)),
            };
        }
        Err(err(item.span(), msg))
    }
}

/// `key = <expression>` (a default value).
pub(crate) struct ExprArg(pub Expr);

impl FromMeta for ExprArg {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        match item {
            Meta::NameValue(nv) => Ok(ExprArg(unwrap_group(&nv.value).clone())),
            _ => {
                let key = key_of(item);
                Err(err(
                    item.span(),
                    format!("`{key}` takes a value: write `{key} = ...`"),
                ))
            }
        }
    }
}

/// `key(a, b, c)`: names of inputs or attributes.
pub(crate) struct NamesArg(pub Vec<Ident>);

impl FromMeta for NamesArg {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        let key = key_of(item);
        let Meta::List(l) = item else {
            return Err(err(
                item.span(),
                format!(
                    "`{key}` takes a list of input and attribute names: write `{key}(x, axis)`"
                ),
            ));
        };
        let items = NestedMeta::parse_meta_list(l.tokens.clone()).map_err(to_darling)?;
        let mut names = Vec::new();
        let mut errors = darling::Error::accumulator();
        for i in &items {
            match i {
                NestedMeta::Meta(Meta::Path(p)) if p.get_ident().is_some() => {
                    names.extend(p.get_ident().cloned());
                }
                NestedMeta::Lit(Lit::Str(s)) => errors.push(err(
                    s.span(),
                    format!("write the name without quotes: `{key}({})`", s.value()),
                )),
                other => errors.push(err(
                    other.span(),
                    format!("`{key}` lists input and attribute names: write `{key}(x, axis)`"),
                )),
            }
        }
        errors.finish()?;
        Ok(NamesArg(names))
    }
}

/// `key(A, path::B)`: traits or interfaces.
pub(crate) struct PathsArg(pub Vec<Path>);

impl FromMeta for PathsArg {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        let key = key_of(item);
        let Meta::List(l) = item else {
            return Err(err(
                item.span(),
                format!("`{key}` takes a list: write `{key}(A, B)`"),
            ));
        };
        let items = NestedMeta::parse_meta_list(l.tokens.clone()).map_err(to_darling)?;
        let mut paths = Vec::new();
        let mut errors = darling::Error::accumulator();
        for i in &items {
            match i {
                NestedMeta::Meta(Meta::Path(p)) => paths.push(p.clone()),
                NestedMeta::Lit(Lit::Str(s)) => errors.push(err(
                    s.span(),
                    format!("write the name without quotes: `{key}({})`", s.value()),
                )),
                other => errors.push(err(
                    other.span(),
                    format!("`{key}` lists names or paths: write `{key}(A, some::path::B)`"),
                )),
            }
        }
        errors.finish()?;
        Ok(PathsArg(paths))
    }
}
