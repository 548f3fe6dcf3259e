//! The option lists of `#[pir_op(...)]` and of the field attributes `#[input(...)]`,
//! `#[attr(...)]`, `#[output(...)]`, as darling structs.

use darling::ast::NestedMeta;
use darling::FromMeta;
use proc_macro2::TokenStream;

use super::meta::{
    check_keys, to_syn, Checked, ExprArg, FlagArg, IdentArg, Keys, NamesArg, OptionList, PathArg,
    PathsArg, StrArg,
};

/// `#[pir_op(...)]`.
#[derive(FromMeta, Default)]
pub(crate) struct OpArgs {
    pub name: Option<StrArg>,
    pub kind: Option<StrArg>,
    pub origin: Option<StrArg>,
    pub traits: Option<PathsArg>,
    pub interfaces: Option<PathsArg>,
    pub infer_meta: Option<Checked<InferMetaArgs>>,
    pub kernel: Option<Checked<KernelArgs>>,
    pub backward: Option<StrArg>,
    pub forward: Option<StrArg>,
    pub verify: Option<PathArg>,
    pub custom_verify: Option<FlagArg>,
    pub unsuffixed_inplace: Option<FlagArg>,
    pub compat: Option<StrArg>,
}

pub(crate) const OP_KEYS: Keys = Keys {
    context: "`#[pir_op(...)]`",
    keys: &[
        "name",
        "kind",
        "origin",
        "traits",
        "interfaces",
        "infer_meta",
        "kernel",
        "backward",
        "forward",
        "verify",
        "custom_verify",
        "unsuffixed_inplace",
        "compat",
    ],
    hint: |k| {
        Some(match k {
            "dialect" => "the dialect is the part of `name` before the dot: `name = \"my_dialect.my_op\"`",
            "inplace" => "in-place pairs are written on the output: `#[output(inplace = x)] out: DenseTensor`",
            "view" => "view pairs are written on the output: `#[output(view = x)] out: DenseTensor`",
            "infer_shape" | "InferShape" => {
                "list the interface, `interfaces(InferShape)`, and implement `pir_runtime::interfaces::InferShapeOp` for the op"
            }
            "optional" | "intermediate" | "no_need_buffer" => {
                "it is an option of a field: `#[input(...)]`, `#[attr(...)]` or `#[output(...)]`"
            }
            _ => return None,
        })
    },
};

/// Parses the arguments of `#[pir_op(...)]`.
pub(crate) fn parse_op_args(args: TokenStream) -> syn::Result<OpArgs> {
    let items = NestedMeta::parse_meta_list(args)?;
    check_keys(&items, &OP_KEYS)?;
    OpArgs::from_list(&items).map_err(to_syn)
}

/// `infer_meta(...)`.
#[derive(FromMeta)]
pub(crate) struct InferMetaArgs {
    pub func: Option<StrArg>,
    pub param: Option<NamesArg>,
    pub registry: Option<PathArg>,
    pub with: Option<PathArg>,
}

impl OptionList for InferMetaArgs {
    const KEYS: Keys = Keys {
        context: "`infer_meta(...)`",
        keys: &["func", "param", "registry", "with"],
        hint: |k| match k {
            "fn" | "function" | "path" => {
                Some("a Rust function is given as `with = path::to::function`")
            }
            _ => None,
        },
    };
}

/// `kernel(...)`.
#[derive(FromMeta)]
pub(crate) struct KernelArgs {
    pub func: Option<StrArg>,
    pub param: Option<NamesArg>,
    pub data_type: Option<NamesArg>,
    pub backend: Option<NamesArg>,
}

impl OptionList for KernelArgs {
    const KEYS: Keys = Keys {
        context: "`kernel(...)`",
        keys: &["func", "param", "data_type", "backend"],
        hint: |_| None,
    };
}

/// `#[input(...)]`.
#[derive(FromMeta, Default)]
pub(crate) struct InputArgs {
    pub no_need_buffer: Option<FlagArg>,
    pub no_grad: Option<FlagArg>,
    pub grad: Option<FlagArg>,
}

impl OptionList for InputArgs {
    const KEYS: Keys = Keys {
        context: "`#[input(...)]`",
        keys: &["no_need_buffer", "no_grad", "grad"],
        hint: |k| {
            Some(match k {
                "optional" => "an input is optional by its type: write `x: Option<DenseTensor>`",
                "intermediate" => "`intermediate` applies to outputs: `#[output(intermediate)]`",
                "default" => "inputs have no default; attributes do: `#[attr(default = ...)]`",
                "mutable" => {
                    "a mutable attribute is an attribute that arrives as an operand: write `#[attr(mutable)] shape: IntArray`"
                }
                "inplace" | "view" => "in-place and view pairs are written on the output: `#[output(inplace = x)]`",
                _ => return None,
            })
        },
    };
}

/// `#[attr(...)]`.
#[derive(FromMeta, Default)]
pub(crate) struct AttrArgs {
    pub default: Option<ExprArg>,
    pub mutable: Option<FlagArg>,
    pub data_type: Option<StrArg>,
}

impl OptionList for AttrArgs {
    const KEYS: Keys = Keys {
        context: "`#[attr(...)]`",
        keys: &["default", "mutable", "data_type"],
        hint: |k| {
            Some(match k {
                "optional" => "attributes cannot be optional; give a default instead: `#[attr(default = ...)]`",
                "intermediate" => "`intermediate` applies to outputs: `#[output(intermediate)]`",
                "no_need_buffer" | "no_grad" | "grad" => "it applies to tensor inputs: `#[input(...)]`",
                _ => return None,
            })
        },
    };
}

/// `#[output(...)]`.
#[derive(FromMeta, Default)]
pub(crate) struct OutputArgs {
    pub intermediate: Option<FlagArg>,
    pub inplace: Option<IdentArg>,
    pub view: Option<IdentArg>,
    pub size: Option<StrArg>,
}

impl OptionList for OutputArgs {
    const KEYS: Keys = Keys {
        context: "`#[output(...)]`",
        keys: &["intermediate", "inplace", "view", "size"],
        hint: |k| {
            Some(match k {
                "optional" => "an output is optional by its type: write `out: Option<DenseTensor>`",
                "default" => "outputs have no default; attributes do: `#[attr(default = ...)]`",
                "no_need_buffer" | "no_grad" | "grad" => {
                    "it applies to tensor inputs: `#[input(...)]`"
                }
                "mutable" => "`mutable` applies to attributes: `#[attr(mutable)]`",
                _ => return None,
            })
        },
    };
}

/// Parses a field attribute's options: `#[input]` alone is all defaults.
pub(crate) fn parse_field_args<T: OptionList + Default>(meta: &syn::Meta) -> syn::Result<T> {
    match meta {
        syn::Meta::Path(_) => Ok(T::default()),
        syn::Meta::List(_) => Checked::<T>::from_meta(meta).map(|c| c.0).map_err(to_syn),
        syn::Meta::NameValue(nv) => {
            let key = nv
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            Err(syn::Error::new_spanned(
                nv,
                format!("write `#[{key}]` or `#[{key}(options...)]`, not `#[{key} = ...]`"),
            ))
        }
    }
}
