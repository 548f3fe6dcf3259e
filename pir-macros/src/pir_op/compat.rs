//! `compat = "op_compat.yaml"`: the op's legacy (fluid) names, read from an op_compat.yaml
//! file as Paddle's `OpNameNormalizer` reads them for every op, hand-written ones included (the
//! translator maps `fetch_v2` to `fetch`, `expand_v2` to `expand` through them).

use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;

use pir_spec::yaml::{load_op_set, YamlSource};
use pir_spec::CompatSpec;

/// The entry for `op_name` in the file `lit` names (relative to the crate's
/// `CARGO_MANIFEST_DIR`, `${VAR}` expanded), and tokens that rebuild the crate when the file
/// changes.
pub(super) fn lower_compat(
    lit: &LitStr,
    dialect: &str,
    op_name: &str,
) -> syn::Result<(CompatSpec, TokenStream)> {
    let mut env_used = Vec::new();
    let (path, text) = crate::yaml_front::read(lit, &mut env_used)?;
    let label = lit.value();
    let source = YamlSource {
        path: &label,
        text: &text,
    };
    let set = load_op_set(dialect, &[], Some(source))
        .map_err(|e| syn::Error::new(lit.span(), e.to_string()))?;
    let entry = set.compat_entry(op_name).ok_or_else(|| {
        syn::Error::new(
            lit.span(),
            format!("{label} has no entry for `{op_name}`: add `- op : {op_name}` with its legacy names, or remove `compat`"),
        )
    })?;
    let shown = path.display().to_string();
    let envs = env_used.iter().map(|v| {
        quote!(
            const _: ::core::option::Option<&str> = ::core::option_env!(#v);
        )
    });
    let tracking = quote! {
        const _: &[u8] = ::core::include_bytes!(#shown);
        #(#envs)*
    };
    Ok((entry.spec(op_name), tracking))
}
