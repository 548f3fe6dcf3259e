//! `drr!`: declarative rewrite rules, checked against the ops' schemas at compile time and
//! lowered to the tables `pir_passes::drr` runs.
//!
//! Every op of a pattern is looked up in the schema yaml (`schema = [...]`, read through
//! `pir_spec::yaml` as `define_ops_from_yaml!` reads it). A compile error points at the
//! offending token for: an unknown op, a wrong number of operands or results, an unknown
//! attribute, an attribute of the wrong kind (a literal or a capture whose kind differs from
//! the schema's), a tensor or capture that is not bound, a replacement of an unknown tensor,
//! a result op missing a required attribute, and a source pattern without exactly one anchor.
//! Ops of the `builtin` dialect have no yaml schema and are not checked.

mod check;
mod parse;

use proc_macro2::TokenStream;
use syn::LitStr;

use pir_spec::yaml::{load_op_set, YamlSource};

pub(crate) use parse::DrrInput;

pub(crate) fn expand(input: DrrInput) -> syn::Result<TokenStream> {
    let mut env_used = Vec::new();
    let mut files = Vec::new();
    for lit in &input.schema {
        files.push(crate::yaml_front::read_file(lit, &mut env_used)?);
    }
    let sources: Vec<YamlSource<'_>> = files
        .iter()
        .map(|f| YamlSource {
            path: &f.label,
            text: &f.text,
        })
        .collect();
    let compat = match &input.compat {
        Some(lit) => Some(crate::yaml_front::read_file(lit, &mut env_used)?),
        None => None,
    };
    let compat_src = compat.as_ref().map(|f| YamlSource {
        path: &f.label,
        text: &f.text,
    });
    let set = load_op_set("pd_op", &sources, compat_src).map_err(|errors| {
        let first: &LitStr = &input.schema[0];
        syn::Error::new(
            first.span(),
            format!(
                "the schema yaml does not load: {}",
                errors
                    .iter()
                    .next()
                    .map(|e| e.to_string())
                    .unwrap_or_default()
            ),
        )
    })?;
    let schemas: std::collections::HashMap<&str, &pir_spec::OpSchema> =
        set.ops.iter().map(|s| (&*s.name, s)).collect();
    let mut out = TokenStream::new();
    for p in &input.patterns {
        out.extend(check::lower_pattern(p, &schemas)?);
    }
    out.extend(crate::yaml_front::tracking(
        files.iter().chain(&compat),
        &env_used,
    ));
    Ok(out)
}
