//! The one code generator: an [`OpSchema`] plus the Rust-side choices of its front end
//! ([`GenOp`]) become a typed op handle, its static tables and thin build functions that call
//! `pir_runtime::op_support`.

mod infer_meta_check;
mod schema_tokens;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;

use pir_spec::{AttrKind, AttributeSpec, DefaultValue, InputKind, OpKind, OpSchema, ValueKind};

pub(crate) use schema_tokens::float_lit;

/// How an interface's implementation is obtained.
pub(crate) enum InterfaceGen {
    /// `OpYamlInfo::new(&SCHEMA)`.
    OpYamlInfo,
    /// `InferMeta::from_registry(func, &registry)`.
    InferMetaRegistry { func: String, registry: TokenStream },
    /// `InferMeta::direct(func, path)`.
    InferMetaDirect { func: String, path: TokenStream },
    /// `Vjp { backward_op }`.
    Vjp { backward_op: String },
    /// `<path as OpInterfaceImpl<Op>>::IMPL`; the span points at the user's token.
    Generic { path: TokenStream, span: Span },
}

/// One op to generate.
pub(crate) struct GenOp {
    /// The specification.
    pub schema: OpSchema,
    /// The handle type's name (`Conv2dOp`).
    pub ident: Ident,
    /// Its visibility.
    pub vis: TokenStream,
    /// Attributes to put on the handle type (doc comments, ...).
    pub attrs: Vec<TokenStream>,
    /// Rust paths of the op's traits (types implementing `OpTrait`), with their spans.
    pub traits: Vec<TokenStream>,
    /// The op's interfaces.
    pub interfaces: Vec<InterfaceGen>,
    /// An extra verifier function path.
    pub extra_verify: Option<TokenStream>,
    /// Schema entries only known in the user's crate (`#[pir_op]`); empty for yaml ops.
    pub overrides: SchemaOverrides,
}

/// Schema entries a front end cannot spell as literals at expansion time: names that are
/// constants of the user's types and the definition's location. Empty (the default) leaves the
/// schema exactly as [`OpSchema`] says.
#[derive(Default)]
pub(crate) struct SchemaOverrides {
    /// More trait names, as `&'static str` constant expressions (`<T as OpTrait>::NAME`); merged
    /// with `schema.traits` and sorted at compile time.
    pub trait_names: Vec<TokenStream>,
    /// More interface names (`<I as Interface>::NAME`); merged with `schema.interfaces`.
    pub interface_names: Vec<TokenStream>,
    /// A `SourceLoc` expression replacing `schema.source` (`file!()` / `line!()`).
    pub source: Option<TokenStream>,
}

/// Rust keywords that need `r#` (or a suffix where raw identifiers are not allowed).
const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try", "gen",
];

/// An identifier for `name`: raw for keywords, suffixed `_` where raw is not allowed.
pub(crate) fn ident(name: &str, span: Span) -> Ident {
    match name {
        "self" | "Self" | "super" | "crate" | "_" => Ident::new(&format!("{name}_"), span),
        n if KEYWORDS.contains(&n) => Ident::new_raw(n, span),
        n => Ident::new(n, span),
    }
}

/// Method names of the generated handle that accessors must not take.
const RESERVED: &[&str] = &[
    "build",
    "build_with_attributes",
    "build_with_values",
    "build_with_types",
    "schema",
    "get_op_info",
    "id",
    "cast",
    "from_id_unchecked",
    "op",
    "clone",
    "eq",
    "hash",
    "fmt",
];

fn rt() -> TokenStream {
    quote!(::pir_runtime)
}

/// The Rust type of one value of `kind` (`AttrKind::rust_type`), `str` borrowed for `lt`.
fn rust_value_type(kind: AttrKind, lt: TokenStream) -> TokenStream {
    let mut segments = kind.rust_type().split("::");
    let first = segments.next().map(|n| Ident::new(n, Span::call_site()));
    let rest: Vec<Ident> = segments.map(|n| Ident::new(n, Span::call_site())).collect();
    match (first, rest.is_empty()) {
        (Some(id), true) if id == "str" => quote!(&#lt #id),
        (Some(id), true) => quote!(#id),
        (first, _) => {
            let rt = rt();
            quote!(#rt::#first #(::#rest)*)
        }
    }
}

/// The Rust type of an attribute value in the typed build.
fn attr_rust_type(kind: AttrKind) -> TokenStream {
    let value = rust_value_type(kind, quote!('a));
    if kind.is_rust_list() {
        quote!(&'a [#value])
    } else {
        value
    }
}

/// The Rust type an attribute accessor returns (borrowing from the program for `'p`).
fn attr_getter_type(kind: AttrKind) -> TokenStream {
    let value = rust_value_type(kind, quote!('p));
    if kind.is_rust_list() {
        quote!(::std::vec::Vec<#value>)
    } else {
        value
    }
}

/// `AttrArg::X(value)` for an attribute of `kind`.
fn attr_arg(kind: AttrKind, value: TokenStream) -> TokenStream {
    let rt = rt();
    let v = Ident::new(kind.attr_arg(), Span::call_site());
    quote!(#rt::op_support::AttrArg::#v(#value))
}

/// The Rust scalar variant a `Scalar` of C++ build type `data_type` takes.
fn scalar_expr(data_type: &str, d: &DefaultValue) -> Option<TokenStream> {
    let rt = rt();
    let as_f64 = match d {
        DefaultValue::Int(i) => *i as f64,
        DefaultValue::Float(f) => *f,
        DefaultValue::Bool(b) => f64::from(u8::from(*b)),
        _ => return None,
    };
    Some(match (data_type, d) {
        ("bool", DefaultValue::Bool(b)) => quote!(#rt::meta::Scalar::Bool(#b)),
        ("int" | "int32_t", _) => {
            let v = proc_macro2::Literal::i32_suffixed(as_f64 as i32);
            quote!(#rt::meta::Scalar::I32(#v))
        }
        ("int64_t" | "long", _) => {
            let v = proc_macro2::Literal::i64_suffixed(as_f64 as i64);
            quote!(#rt::meta::Scalar::I64(#v))
        }
        ("double", _) => {
            let v = float_lit(as_f64);
            quote!(#rt::meta::Scalar::F64(#v))
        }
        (_, DefaultValue::Int(i)) if data_type.is_empty() => {
            let v = proc_macro2::Literal::i64_suffixed(*i);
            quote!(#rt::meta::Scalar::I64(#v))
        }
        _ => {
            let v = proc_macro2::Literal::f32_suffixed(as_f64 as f32);
            quote!(#rt::meta::Scalar::F32(#v))
        }
    })
}

/// The Rust expression of a default value for an attribute of `kind`; `None` if it does not
/// fit (the front ends validate defaults first, so this is a safety net).
pub(crate) fn default_expr(
    kind: AttrKind,
    data_type: &str,
    d: &DefaultValue,
) -> Option<TokenStream> {
    use proc_macro2::Literal;
    let ints = |v: &[i64], f: fn(i64) -> Literal| {
        let items = v.iter().map(|x| f(*x));
        quote!(&[#(#items),*])
    };
    Some(match (kind, d) {
        (AttrKind::Bool, DefaultValue::Bool(b)) => quote!(#b),
        (AttrKind::Int32, DefaultValue::Int(i)) => {
            let v = Literal::i32_suffixed(i32::try_from(*i).ok()?);
            quote!(#v)
        }
        (AttrKind::Int64 | AttrKind::Long | AttrKind::SizeT, DefaultValue::Int(i)) => {
            let v = Literal::i64_suffixed(*i);
            quote!(#v)
        }
        (AttrKind::Float, DefaultValue::Float(f)) => {
            let v = Literal::f32_suffixed(*f as f32);
            quote!(#v)
        }
        (AttrKind::Float, DefaultValue::Int(i)) => {
            let v = Literal::f32_suffixed(*i as f32);
            quote!(#v)
        }
        (AttrKind::Double, DefaultValue::Float(f)) => float_lit(*f),
        (AttrKind::Double, DefaultValue::Int(i)) => float_lit(*i as f64),
        (AttrKind::Str, DefaultValue::Str(s)) => {
            let s: &str = s;
            quote!(#s)
        }
        (AttrKind::BoolArray, DefaultValue::BoolList(v)) => quote!(&[#(#v),*]),
        (
            AttrKind::BoolArray
            | AttrKind::StrArray
            | AttrKind::FloatArray
            | AttrKind::DoubleArray
            | AttrKind::ScalarArray,
            DefaultValue::IntList(v),
        ) if v.is_empty() => {
            quote!(&[])
        }
        (AttrKind::Int32Array, DefaultValue::IntList(v)) => {
            for x in v.iter() {
                i32::try_from(*x).ok()?;
            }
            ints(v, |x| Literal::i32_suffixed(x as i32))
        }
        (AttrKind::Int64Array | AttrKind::IntArray, DefaultValue::IntList(v)) => {
            ints(v, Literal::i64_suffixed)
        }
        (AttrKind::FloatArray, DefaultValue::FloatList(v)) => {
            let items = v.iter().map(|x| Literal::f32_suffixed(*x as f32));
            quote!(&[#(#items),*])
        }
        (AttrKind::FloatArray, DefaultValue::IntList(v)) => {
            let items = v.iter().map(|x| Literal::f32_suffixed(*x as f32));
            quote!(&[#(#items),*])
        }
        (AttrKind::DoubleArray, DefaultValue::FloatList(v)) => {
            let items = v.iter().map(|x| float_lit(*x));
            quote!(&[#(#items),*])
        }
        (AttrKind::DoubleArray, DefaultValue::IntList(v)) => {
            let items = v.iter().map(|x| float_lit(*x as f64));
            quote!(&[#(#items),*])
        }
        (AttrKind::StrArray, DefaultValue::StrList(v)) => {
            let items = v.iter().map(|x| {
                let x: &str = x;
                quote!(#x)
            });
            quote!(&[#(#items),*])
        }
        (AttrKind::Scalar, d) => scalar_expr(data_type, d)?,
        (AttrKind::ScalarArray, DefaultValue::FloatList(v)) => {
            let items = v
                .iter()
                .map(|x| scalar_expr(data_type, &DefaultValue::Float(*x)));
            let items: Option<Vec<_>> = items.collect();
            let items = items?;
            quote!(&[#(#items),*])
        }
        (AttrKind::DataType, DefaultValue::DataType(d)) => schema_tokens::data_type(*d),
        (AttrKind::DataLayout, DefaultValue::DataLayout(l)) => schema_tokens::data_layout(*l),
        (AttrKind::DataLayout, DefaultValue::Str(s)) => {
            schema_tokens::data_layout(pir_spec::phi::DataLayout::from_name(s)?)
        }
        (AttrKind::Place, DefaultValue::Place(p)) => schema_tokens::place(*p),
        _ => return None,
    })
}

struct Names {
    inputs: Vec<Ident>,
    outputs: Vec<Ident>,
    /// Fields of the typed build's attribute struct.
    attrs: Vec<Ident>,
    /// Attribute accessors (the attribute's name, with `_` appended on a clash).
    attr_getters: Vec<Ident>,
}

fn accessor_names(s: &OpSchema) -> Names {
    let mut taken: Vec<String> = RESERVED.iter().map(|s| s.to_string()).collect();
    let mut pick = |name: &str| {
        let mut n = name.to_string();
        while taken.contains(&n) {
            n.push('_');
        }
        taken.push(n.clone());
        ident(&n, Span::call_site())
    };
    let inputs = s.inputs.iter().map(|i| pick(&i.name)).collect();
    let outputs = s.outputs.iter().map(|o| pick(&o.name)).collect();
    let attr_getters = s.attributes.iter().map(|a| pick(&a.name)).collect();
    let attrs = s
        .attributes
        .iter()
        .map(|a| ident(&a.name, Span::call_site()))
        .collect();
    Names {
        inputs,
        outputs,
        attrs,
        attr_getters,
    }
}

fn doc_attr(text: &str) -> TokenStream {
    quote!(#[doc = #text])
}

fn signature_doc(s: &OpSchema) -> String {
    let mut inputs: Vec<String> = Vec::new();
    for i in s.inputs.iter() {
        let ty = match &i.kind {
            InputKind::Value(ValueKind::Tensor(_)) => "Tensor".to_string(),
            InputKind::Value(ValueKind::Vector(_)) => "Tensor[]".to_string(),
            InputKind::MutableAttribute(m) => format!("{} (mutable)", m.kind.yaml_name()),
        };
        inputs.push(format!(
            "{ty} {}{}",
            i.name,
            if i.optional { "?" } else { "" }
        ));
    }
    for a in s.attributes.iter() {
        inputs.push(format!(
            "{} {}",
            if a.yaml_type.is_empty() {
                a.kind.type_name()
            } else {
                &a.yaml_type
            },
            a.name
        ));
    }
    let outputs: Vec<String> = s
        .outputs
        .iter()
        .map(|o| {
            format!(
                "{}({}){}",
                if matches!(o.kind, ValueKind::Vector(_)) {
                    "Tensor[]"
                } else {
                    "Tensor"
                },
                o.name,
                if o.optional || o.intermediate {
                    "?"
                } else {
                    ""
                }
            )
        })
        .collect();
    format!(
        "`{}` ({}) -> {}",
        s.name,
        inputs.join(", "),
        outputs.join(", ")
    )
}

/// Generates one op.
pub(crate) fn generate_op(g: &GenOp) -> TokenStream {
    let rt = rt();
    let s = &g.schema;
    let ident = &g.ident;
    let vis = &g.vis;
    let attrs = &g.attrs;
    let fit_check = infer_meta_check::fit_check(g);
    let names = accessor_names(s);
    let upper = ident.to_string();
    let schema_static = format_ident!("__PIR_SCHEMA_{}", upper);
    let traits_static = format_ident!("__PIR_TRAITS_{}", upper);
    let ifaces_static = format_ident!("__PIR_INTERFACES_{}", upper);
    let def_static = format_ident!("__PIR_DEF_{}", upper);
    let attrs_ident = format_ident!("{}Attrs", ident);

    // Names known only as constants of the user's types are merged and sorted at compile time.
    let mut name_consts = Vec::new();
    let mut merged_names = |what: &str, known: &[pir_spec::Str], extra: &[TokenStream]| {
        if extra.is_empty() {
            return None;
        }
        let konst = format_ident!("__PIR_{}_NAMES_{}", what, upper);
        let n = known.len() + extra.len();
        let known = known.iter().map(|k| -> &str { k });
        name_consts.push(quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            const #konst: [&str; #n] = #rt::op_def::sort_names([#(#known,)* #(#extra),*]);
        });
        let items = (0..n).map(|i| quote!(::std::borrow::Cow::Borrowed(#konst[#i])));
        Some(quote!(::std::borrow::Cow::Borrowed(&[#(#items),*])))
    };
    let schema_traits = merged_names("TRAIT", &s.traits, &g.overrides.trait_names);
    let schema_ifaces = merged_names("INTERFACE", &s.interfaces, &g.overrides.interface_names);
    let schema_init = schema_tokens::schema_with(
        s,
        schema_tokens::Overrides {
            traits: schema_traits,
            interfaces: schema_ifaces,
            source: g.overrides.source.clone(),
        },
    );
    let name = &*s.name;
    let dialect = &*s.dialect;

    // Traits, sorted at compile time.
    let trait_entries = g
        .traits
        .iter()
        .map(|p| quote!(#rt::op_def::TraitEntry::of::<#p>()));
    let n_traits = g.traits.len();

    // Interfaces: one static implementation each, then the sorted entry table.
    let mut iface_statics = Vec::new();
    let mut iface_entries = Vec::new();
    for (k, i) in g.interfaces.iter().enumerate() {
        let st = format_ident!("__PIR_IFACE_{}_{}", upper, k);
        let (ty, init) = match i {
            InterfaceGen::OpYamlInfo => (
                quote!(#rt::interfaces::OpYamlInfo),
                quote!(#rt::interfaces::OpYamlInfo::new(&#schema_static)),
            ),
            InterfaceGen::InferMetaRegistry { func, registry } => (
                quote!(#rt::interfaces::InferMeta),
                quote!(#rt::interfaces::InferMeta::from_registry(#func, &#registry)),
            ),
            InterfaceGen::InferMetaDirect { func, path } => (
                quote!(#rt::interfaces::InferMeta),
                quote!(#rt::interfaces::InferMeta::direct(#func, #path)),
            ),
            InterfaceGen::Vjp { backward_op } => (
                quote!(#rt::interfaces::Vjp),
                quote!(#rt::interfaces::Vjp { backward_op: #backward_op }),
            ),
            InterfaceGen::Generic { path, span } => (
                path.clone(),
                quote_spanned!(*span=> <#path as #rt::OpInterfaceImpl<#ident>>::IMPL),
            ),
        };
        iface_statics.push(quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            static #st: #ty = #init;
        });
        iface_entries.push(quote!(#rt::op_def::InterfaceEntry::of::<#ty>(&#st)));
    }
    let n_ifaces = g.interfaces.len();
    let attribute_names: Vec<&str> = s.attributes.iter().map(|a| &*a.name).collect();
    // The extra verifier through a shim, so that it may return a `VerifyErrorKind` or anything
    // converting into one (free text as `String`).
    let verify = match &g.extra_verify {
        Some(p) => quote!(::core::option::Option::Some({
            fn __pir_extra_verify(
                op: #rt::OpRef<'_>,
            ) -> ::core::result::Result<(), #rt::VerifyErrorKind> {
                ::core::result::Result::map_err(#p(op), ::core::convert::Into::into)
            }
            __pir_extra_verify
        })),
        None => quote!(::core::option::Option::None),
    };
    // Tables the runtime would otherwise derive on every build: the attributes sorted by name,
    // and where each infer-meta argument comes from.
    let mut order: Vec<u16> = (0..s.attributes.len() as u16).collect();
    order.sort_by(|&a, &b| {
        s.attributes[a as usize]
            .name
            .cmp(&s.attributes[b as usize].name)
    });
    let infer_params = infer_param_table(g);

    // Accessors.
    let mut accessors = Vec::new();
    for (i, (input, id)) in s.inputs.iter().zip(&names.inputs).enumerate() {
        let doc = doc_attr(&with_doc(
            format!(
                "Input {i}, `{}`{}.",
                input.name,
                if input.optional {
                    " (optional: `None` when absent)"
                } else {
                    ""
                }
            ),
            &input.doc,
        ));
        accessors.push(quote! {
            #doc
            #[inline]
            pub fn #id(self, program: &#rt::Program) -> ::core::option::Option<#rt::Value> {
                program.op(self.0).operand(#i)
            }
        });
    }
    for (i, (output, id)) in s.outputs.iter().zip(&names.outputs).enumerate() {
        let doc = doc_attr(&with_doc(
            format!("Result {i}, `{}`.", output.name),
            &output.doc,
        ));
        accessors.push(quote! {
            #doc
            #[inline]
            pub fn #id(self, program: &#rt::Program) -> #rt::Value {
                program.op(self.0).result(#i)
            }
        });
    }

    for (a, id) in s.attributes.iter().zip(&names.attr_getters) {
        let doc = doc_attr(&with_doc(
            format!(
                "Attribute `{}` (`{}`); `None` if the op lacks it or it holds another kind.",
                a.name, a.data_type
            ),
            &a.doc,
        ));
        let ty = attr_getter_type(a.kind);
        let kind = schema_tokens::attr_kind(a.kind);
        let name = &*a.name;
        accessors.push(quote! {
            #doc
            #[inline]
            pub fn #id<'p>(self, program: &'p #rt::Program) -> ::core::option::Option<#ty> {
                #rt::op_support::attribute_as(program, self.0, #name, #kind)
            }
        });
    }

    // The attributes struct of the typed build.
    let has_attrs = !s.attributes.is_empty();
    let needs_lifetime = s.attributes.iter().any(|a| a.kind.borrows());
    let lt = if needs_lifetime {
        quote!(<'a>)
    } else {
        quote!()
    };
    let lt_anon = if needs_lifetime {
        quote!(<'_>)
    } else {
        quote!()
    };
    let lt_static = if needs_lifetime {
        quote!(<'static>)
    } else {
        quote!()
    };
    let fields = s.attributes.iter().zip(&names.attrs).map(|(a, id)| {
        let ty = attr_rust_type(a.kind);
        let doc = doc_attr(&attr_doc(a));
        quote!(#doc pub #id: #ty)
    });
    let defaults: Option<Vec<TokenStream>> = s
        .attributes
        .iter()
        .zip(&names.attrs)
        .map(|(a, id)| {
            let d = a.default.as_ref()?;
            let e = default_expr(a.kind, &a.data_type, d)?;
            Some(quote!(#id: #e))
        })
        .collect();
    let attrs_struct = if has_attrs {
        let doc = format!("Attributes of [`{ident}`]'s typed build, in order.");
        let default_impl = defaults.as_ref().map(|d| {
            quote! {
                impl ::core::default::Default for #attrs_ident #lt_static {
                    fn default() -> Self {
                        #attrs_ident { #(#d),* }
                    }
                }
            }
        });
        // `new(required...)`: the attributes without a default as arguments, the rest defaulted.
        let new_fn = if defaults.is_none() {
            let mut params = Vec::new();
            let mut inits = Vec::new();
            let mut ok = true;
            for (a, id) in s.attributes.iter().zip(&names.attrs) {
                let ty = attr_rust_type(a.kind);
                match a
                    .default
                    .as_ref()
                    .map(|d| default_expr(a.kind, &a.data_type, d))
                {
                    Some(Some(e)) => inits.push(quote!(#id: #e)),
                    Some(None) => ok = false,
                    None if a.kind == AttrKind::Scalar => {
                        params.push(
                            quote!(#id: impl ::core::convert::Into<::pir_runtime::meta::Scalar>),
                        );
                        inits.push(quote!(#id: #id.into()));
                    }
                    None => {
                        params.push(quote!(#id: #ty));
                        inits.push(quote!(#id));
                    }
                }
            }
            ok.then(|| {
                let new_doc = "The attributes without a default, the others at their defaults.";
                quote! {
                    impl<'a> #attrs_ident #lt {
                        #[doc = #new_doc]
                        #[allow(clippy::too_many_arguments, clippy::new_without_default)]
                        pub fn new(#(#params),*) -> Self {
                            #attrs_ident { #(#inits),* }
                        }
                    }
                }
            })
        } else {
            None
        };
        quote! {
            #[doc = #doc]
            #[derive(Clone, Copy, Debug, PartialEq)]
            #vis struct #attrs_ident #lt { #(#fields),* }
            #default_impl
            #new_fn
        }
    } else {
        quote!()
    };
    let attr_args = s
        .attributes
        .iter()
        .zip(&names.attrs)
        .map(|(a, id)| attr_arg(a.kind, quote!(attrs.#id)));
    let attrs_param = if has_attrs {
        quote!(attrs: #attrs_ident #lt_anon,)
    } else {
        quote!()
    };

    // Build parameters: tensor inputs, then mutable attributes.
    let mut tensor_params = Vec::new();
    let mut tensor_args = Vec::new();
    let mut mutable_params = Vec::new();
    let mut mutable_args = Vec::new();
    let mut mutable_value_params = Vec::new();
    let mut mutable_value_args = Vec::new();
    for (input, id) in s.inputs.iter().zip(&names.inputs) {
        match &input.kind {
            InputKind::Value(_) if input.optional => {
                tensor_params.push(quote!(#id: ::core::option::Option<#rt::Value>));
                tensor_args.push(quote!(#id));
            }
            InputKind::Value(_) => {
                tensor_params.push(quote!(#id: #rt::Value));
                tensor_args.push(quote!(::core::option::Option::Some(#id)));
            }
            InputKind::MutableAttribute(m) => {
                if m.kind == AttrKind::IntArray {
                    mutable_params.push(quote!(#id: &[i64]));
                    mutable_args.push(quote!(#rt::op_support::AttrArg::I64s(#id)));
                } else {
                    mutable_params.push(quote!(#id: impl ::core::convert::Into<#rt::meta::Scalar>));
                    mutable_args.push(quote!(#rt::op_support::AttrArg::Scalar(#id.into())));
                }
                mutable_value_params.push(quote!(#id: #rt::Value));
                mutable_value_args.push(quote!(::core::option::Option::Some(#id)));
            }
        }
    }
    let has_mutable = !mutable_params.is_empty();
    let sig = signature_doc(s);
    let build_doc = format!(
        "Builds {sig}, inferring result types{}. Mutable attributes are given as values and become `pd_op.full_int_array` / `pd_op.full` ops.",
        if s.runtime.infer_meta_func.is_empty() { "" } else { " with its infer-meta function" }
    );
    let build_with_values = has_mutable.then(|| {
        quote! {
            /// Builds the op with its mutable attributes given as IR values (Paddle's third
            /// `Build` overload); the other attributes as Rust values.
            pub fn build_with_values(
                builder: &mut #rt::Builder<'_>,
                #(#tensor_params,)*
                #(#mutable_value_params,)*
                #attrs_param
            ) -> ::core::result::Result<Self, #rt::BuildError> {
                #rt::op_support::build_with_values(
                    builder, &#def_static,
                    &[#(#tensor_args,)* #(#mutable_value_args,)*],
                    &[#(#attr_args.clone(),)*],
                ).map(Self)
            }
        }
    });
    let attr_args2 = s
        .attributes
        .iter()
        .zip(&names.attrs)
        .map(|(a, id)| attr_arg(a.kind, quote!(attrs.#id)));
    let build_with_attributes = (has_attrs || has_mutable).then(|| {
        quote! {
            /// Builds the op from an attribute dictionary (Paddle's second `Build` overload);
            /// mutable attributes found in it are materialised as ops; extra entries are kept.
            pub fn build_with_attributes(
                builder: &mut #rt::Builder<'_>,
                #(#tensor_params,)*
                attributes: #rt::Attribute,
            ) -> ::core::result::Result<Self, #rt::BuildError> {
                #rt::op_support::build_from_dict(builder, &#def_static, &[#(#tensor_args),*], attributes).map(Self)
            }
        }
    });
    let struct_doc = if s.doc.is_empty() {
        None
    } else {
        Some(doc_attr(&s.doc))
    };
    let sig_doc = doc_attr(&format!(
        "\n\nGenerated op {sig}{}.",
        match &s.source {
            Some(l) => format!(", defined at {}:{}", l.file, l.line),
            None => String::new(),
        }
    ));
    let name_doc = format!("`{}`", s.name);

    quote! {
        #(#attrs)*
        #struct_doc
        #sig_doc
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        #vis struct #ident(#rt::OpId);

        #(#name_consts)*
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #schema_static: #rt::pir_spec::OpSchema = #schema_init;
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #traits_static: [#rt::op_def::TraitEntry; #n_traits] =
            #rt::op_def::sort_traits([#(#trait_entries),*]);
        #(#iface_statics)*
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #ifaces_static: [#rt::op_def::InterfaceEntry; #n_ifaces] =
            #rt::op_def::sort_interfaces([#(#iface_entries),*]);
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        static #def_static: #rt::OpDef = #rt::OpDef {
            name: #name,
            dialect: #dialect,
            traits: &#traits_static,
            interfaces: &#ifaces_static,
            attribute_names: &[#(#attribute_names),*],
            verify: #verify,
            schema: ::core::option::Option::Some(&#schema_static),
            print: ::core::option::Option::None,
            attr_order: &[#(#order),*],
            infer_params: #infer_params,
            attr_cache: #rt::op_def::AttrCache::new(),
        };

        #rt::__private::static_assertions::assert_eq_size!(#ident, u32);

        impl #rt::Op for #ident {
            const DEF: &'static #rt::OpDef = &#def_static;
            #[inline]
            fn from_id_unchecked(id: #rt::OpId) -> Self {
                #ident(id)
            }
            #[inline]
            fn id(self) -> #rt::OpId {
                self.0
            }
        }

        #[allow(non_snake_case, clippy::too_many_arguments)]
        impl #ident {
            #[doc = #name_doc]
            pub const NAME: &'static str = #name;
            /// Names of the (non-mutable) attributes, in order.
            pub const ATTRIBUTE_NAMES: &'static [&'static str] = &[#(#attribute_names),*];

            /// The op's specification.
            pub fn schema() -> &'static #rt::pir_spec::OpSchema {
                &#schema_static
            }

            /// Paddle's GetOpInfo tuple.
            pub fn get_op_info() -> #rt::pir_spec::OpInfoTuple {
                #schema_static.op_info_tuple()
            }

            /// The op id.
            #[inline]
            pub fn op(self) -> #rt::OpId {
                self.0
            }

            #(#accessors)*

            #[doc = #build_doc]
            pub fn build(
                builder: &mut #rt::Builder<'_>,
                #(#tensor_params,)*
                #(#mutable_params,)*
                #attrs_param
            ) -> ::core::result::Result<Self, #rt::BuildError> {
                #rt::op_support::build_typed(
                    builder, &#def_static,
                    &[#(#tensor_args),*],
                    &[#(#mutable_args),*],
                    &[#(#attr_args2),*],
                ).map(Self)
            }

            #build_with_values
            #build_with_attributes

            /// Builds the op with explicit result types (no inference), as the translator does.
            pub fn build_with_types(
                builder: &mut #rt::Builder<'_>,
                operands: &[::core::option::Option<#rt::Value>],
                attributes: #rt::Attribute,
                result_types: &[::core::option::Option<#rt::Type>],
            ) -> ::core::result::Result<Self, #rt::BuildError> {
                #rt::op_support::build_with_types(builder, &#def_static, operands, attributes, result_types).map(Self)
            }
        }

        #attrs_struct
        #fit_check
    }
}

/// `text`, followed by the field's own documentation when it has some.
fn with_doc(text: String, doc: &str) -> String {
    if doc.is_empty() {
        text
    } else {
        format!("{text}\n\n{doc}")
    }
}

/// `Some(&[ParamRef...])` for ops whose infer-meta arguments resolve at compile time:
/// `infer_meta.param` names for an InferMeta function, inputs then attributes for InferShape.
/// `None` otherwise (the runtime resolves, or reports, at build time).
fn infer_param_table(g: &GenOp) -> TokenStream {
    let s = &g.schema;
    let rt = rt();
    let none = quote!(::core::option::Option::None);
    let input = |i: usize| quote!(#rt::op_def::ParamRef::Input(#i as u16));
    let attr = |i: usize| quote!(#rt::op_def::ParamRef::Attr(#i as u16));
    let has_infer_meta = g.interfaces.iter().any(|i| {
        matches!(
            i,
            InterfaceGen::InferMetaRegistry { .. } | InterfaceGen::InferMetaDirect { .. }
        )
    });
    let refs: Vec<TokenStream> = if has_infer_meta {
        let mut refs = Vec::new();
        for p in s.runtime.infer_meta_param.iter() {
            if let Some(i) = s.input_index(p) {
                refs.push(input(i));
            } else if let Some(i) = s.attribute_index(p) {
                refs.push(attr(i));
            } else {
                return none;
            }
        }
        refs
    } else if s.has_interface("InferShapeInterface") {
        (0..s.inputs.len())
            .map(input)
            .chain((0..s.attributes.len()).map(attr))
            .collect()
    } else {
        return none;
    };
    quote!(::core::option::Option::Some(&[#(#refs),*]))
}

fn attr_doc(a: &AttributeSpec) -> String {
    let mut d = format!("`{}`", a.name);
    if !a.yaml_type.is_empty() {
        d.push_str(&format!(" ({})", a.yaml_type));
    }
    if !a.doc.is_empty() {
        d.push_str(": ");
        d.push_str(&a.doc);
    }
    d
}

/// Generates the dialect type registering `ops`.
pub(crate) fn generate_dialect(
    vis: &TokenStream,
    ident: &Ident,
    dialect: &str,
    ops: &[Ident],
) -> TokenStream {
    let rt = rt();
    let n = ops.len();
    let doc = format!("The `{dialect}` dialect: {n} generated ops.");
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #ident;

        impl #rt::Dialect for #ident {
            const NAME: &'static str = #dialect;
            fn op_defs() -> &'static [&'static #rt::OpDef] {
                static OPS: [&#rt::OpDef; #n] = [#(<#ops as #rt::Op>::DEF),*];
                &OPS
            }
        }
    }
}

/// Whether the op is a backward op (used by front ends for defaults).
#[allow(dead_code)]
pub(crate) fn is_backward(s: &OpSchema) -> bool {
    s.kind == OpKind::Backward
}
