//! Procedural macros of pir-rs.
//!
//! - `#[pir_op(...)]` declares an op by annotating a struct.
//! - `define_ops_from_yaml! { ... }` generates a whole dialect from Paddle-schema yaml.
//!
//! Both lower into `pir_spec::OpSchema` and share one code generator, so an op declared either
//! way has the same API: a 4-byte `Copy` handle implementing `pir_runtime::Op`, accessors named
//! after its inputs and outputs, `build` / `build_with_attributes` / `build_with_values` /
//! `build_with_types`, the GetOpInfo tuple, and registration in its dialect.

mod codegen;
mod known;
mod yaml_front;

use proc_macro::TokenStream;

/// Generates every op of Paddle-schema yaml files, plus the dialect type that registers them.
///
/// ```ignore
/// pir_macros::define_ops_from_yaml! {
///     dialect = "pd_op",
///     ops = ["ops-yaml/ops.yaml", "ops-yaml/backward.yaml"],
///     compat = "ops-yaml/op_compat.yaml",          // optional
///     infer_meta = crate::infer_meta::REGISTRY,     // optional
/// }
/// ```
///
/// Paths are relative to the invoking crate's `CARGO_MANIFEST_DIR`; absolute paths work and
/// `${VAR}` expands an environment variable. A bad entry is a compile error naming the file,
/// the line, the op and the problem.
#[proc_macro]
pub fn define_ops_from_yaml(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as yaml_front::YamlInput);
    match yaml_front::expand(input) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}
