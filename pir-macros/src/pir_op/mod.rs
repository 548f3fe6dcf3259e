//! `#[pir_op]`: the attribute front end.
//!
//! An annotated struct goes through three steps:
//!
//! 1. **parse** (`options`, `fields`, `types`): the `#[pir_op(...)]` options and the field
//!    attributes are read with darling; each field gets its role (`#[input]`, `#[attr]`,
//!    `#[output]`), its marker type and its doc comments;
//! 2. **validate and lower** (`lower`, then `signature`, `defaults`, `runtime_info`, `traits`):
//!    names, types, defaults, in-place pairs, parameter lists, traits and interfaces are checked,
//!    each error pointing at the token to change, and the op becomes an
//!    [`OpSchema`](pir_spec::OpSchema) with Paddle's defaults plus the Rust-side choices of a
//!    [`GenOp`](crate::codegen::GenOp);
//! 3. **generate**: the shared code generator emits the op handle in place of the struct.

mod compat;
mod defaults;
mod fields;
mod lower;
mod meta;
mod options;
mod runtime_info;
mod signature;
mod traits;
mod types;

use proc_macro2::TokenStream;

/// Expands `#[pir_op(args)] item`; on error, the errors plus a placeholder unit struct of the
/// same name, so code using the op does not add "cannot find type" errors to the real ones.
pub(crate) fn expand_or_errors(args: TokenStream, item: TokenStream) -> TokenStream {
    let placeholder = match syn::parse2::<syn::ItemStruct>(item.clone()) {
        Ok(s) => {
            let (vis, ident) = (&s.vis, &s.ident);
            quote::quote!(#[allow(dead_code)] #vis struct #ident;)
        }
        Err(_) => TokenStream::new(),
    };
    match expand(args, item) {
        Ok(ts) => ts,
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(placeholder);
            out
        }
    }
}

/// Expands `#[pir_op(args)] item`.
fn expand(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    // Parse both before reporting, so errors in the options and in the fields show together.
    let args = options::parse_op_args(args);
    let st = syn::parse2::<syn::Item>(item).and_then(fields::parse_struct);
    let (args, st) = match (args, st) {
        (Ok(a), Ok(s)) => (a, s),
        (Err(mut a), Err(s)) => {
            a.combine(s);
            return Err(a);
        }
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
    let (op, tracking) = lower::lower(args, st)?;
    let mut out = crate::codegen::generate_op(&op);
    out.extend(tracking);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    const ARGS: &str = r#"name = "test.relu_", traits(ReadOnly, crate::MyTrait), interfaces(InferShape, InferMeta, Vjp, crate::MyIface), infer_meta(func = "UnchangedInferMeta", param(x, axis), registry = crate::REG), kernel(func = "relu", param(x), data_type(x), backend(place)), backward = "relu_grad", verify = crate::check"#;
    const ITEM: &str = r#"
        /// Docs.
        pub struct ReluInplaceOp {
            /// x.
            #[input(no_need_buffer)] x: DenseTensor,
            #[input] ys: Option<Vec<DenseTensor>>,
            #[attr(default = [1, 2])] strides: Vec<i32>,
            #[attr(mutable, data_type = "int", default = -1)] axis: Scalar,
            #[attr(default = Place::cpu())] place: Place,
            #[attr(default = DataType::Float32)] dtype: DataType,
            #[output(inplace = x)] out: DenseTensor,
            #[output(intermediate, size = "x.size()")] rest: Vec<DenseTensor>,
        }
    "#;

    /// The number of leaf tokens (not groups) of `s`, groups included recursively.
    fn leaves(t: TokenStream) -> usize {
        t.into_iter()
            .map(|tt| match tt {
                proc_macro2::TokenTree::Group(g) => leaves(g.stream()),
                _ => 1,
            })
            .sum()
    }

    /// Removes the `k`-th leaf token (depth-first) of `t`.
    fn remove_leaf(t: TokenStream, k: &mut usize) -> TokenStream {
        let mut out = TokenStream::new();
        for tt in t {
            match tt {
                proc_macro2::TokenTree::Group(g) => {
                    let inner = remove_leaf(g.stream(), k);
                    let mut ng = proc_macro2::Group::new(g.delimiter(), inner);
                    ng.set_span(g.span());
                    out.extend([proc_macro2::TokenTree::Group(ng)]);
                }
                leaf => {
                    if *k == 0 {
                        *k = usize::MAX;
                        continue;
                    }
                    if *k != usize::MAX {
                        *k -= 1;
                    }
                    out.extend([leaf]);
                }
            }
        }
        out
    }

    #[test]
    fn the_full_syntax_expands() {
        let args = TokenStream::from_str(ARGS).unwrap();
        let item = TokenStream::from_str(ITEM).unwrap();
        let out = expand(args, item).map_err(|e| e.to_string()).unwrap();
        assert!(out.to_string().contains("ReluInplaceOp"));
    }

    #[test]
    fn no_input_makes_the_macro_panic() {
        // Delete each leaf token of the options and of the struct in turn: every result must
        // expand or be reported as errors, never panic.
        let n_args = leaves(TokenStream::from_str(ARGS).unwrap());
        assert!(n_args > 50);
        for k in 0..n_args {
            let mut kk = k;
            let args = remove_leaf(TokenStream::from_str(ARGS).unwrap(), &mut kk);
            let _ = expand_or_errors(args, TokenStream::from_str(ITEM).unwrap());
        }
        let n_item = leaves(TokenStream::from_str(ITEM).unwrap());
        assert!(n_item > 50);
        for k in 0..n_item {
            let mut kk = k;
            let item = remove_leaf(TokenStream::from_str(ITEM).unwrap(), &mut kk);
            let _ = expand_or_errors(TokenStream::from_str(ARGS).unwrap(), item);
        }
        for (args, item) in [
            ("", ""),
            ("name", "struct A;"),
            ("name = 1", "struct A;"),
            ("name = \"a.b\"", "fn f() {}"),
            ("name = \"a.b\"", "struct A(u8);"),
            ("name = \"a.b\"", "struct A<'a> { #[input] x: &'a DenseTensor }"),
            ("name = \"a.b\", traits(::x::Y, 1, \"s\")", "struct A { #[attr(default = -)] x: i32 }"),
            ("name = \".\"", "struct A { #[attr(default = [[1]])] x: Vec<i32> }"),
            ("name = \"a.b_\"", "struct A { #[output(inplace = r#x)] r#x: DenseTensor }"),
            ("name = \"a.b\"", "struct A { #[attr(default = 99999999999999999999999999)] x: i64 }"),
            ("name = \"a.b\"", "struct A { #[attr(default = Place::gpu(1000))] p: Place }"),
            ("name = \"a.b\"", "struct A { #[input] x: Vec<Vec<DenseTensor>>, #[input] y: Option<Option<DenseTensor>> }"),
            ("name = \"a.b\"", "struct A { #[input] x: <T as U>::V, #[attr] y: fn(), #[output] z: (DenseTensor,) }"),
            ("kernel = 1, infer_meta, backward(x)", "struct A;"),
        ] {
            let args = TokenStream::from_str(args).unwrap();
            let item = TokenStream::from_str(item).unwrap();
            let _ = expand_or_errors(args, item);
        }
    }
}
