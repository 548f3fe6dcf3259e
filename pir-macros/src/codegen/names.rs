//! Names in generated code: identifiers for yaml and field names (raw for keywords), the
//! handle's accessor names (kept clear of its own methods), and the hidden statics of an op.

use proc_macro2::Span;
use quote::format_ident;
use syn::Ident;

use pir_spec::OpSchema;

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

/// The handle's method and field names for an op's inputs, outputs and attributes.
pub(super) struct Names {
    pub inputs: Vec<Ident>,
    pub outputs: Vec<Ident>,
    /// Fields of the typed build's attribute struct.
    pub attrs: Vec<Ident>,
    /// Attribute accessors (the attribute's name, with `_` appended on a clash).
    pub attr_getters: Vec<Ident>,
}

/// Picks the names, appending `_` to a name a method (or an earlier name) already takes.
pub(super) fn accessor_names(s: &OpSchema) -> Names {
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

/// The hidden items of one op: its schema, trait, interface and definition statics, and the
/// typed build's attributes struct.
pub(super) struct Statics {
    /// The handle's name, upper-cased into the statics' names.
    pub upper: String,
    pub schema: Ident,
    pub traits: Ident,
    pub interfaces: Ident,
    pub def: Ident,
    pub attrs_struct: Ident,
}

impl Statics {
    pub(super) fn new(ident: &Ident) -> Statics {
        let upper = ident.to_string();
        Statics {
            schema: format_ident!("__PIR_SCHEMA_{}", upper),
            traits: format_ident!("__PIR_TRAITS_{}", upper),
            interfaces: format_ident!("__PIR_INTERFACES_{}", upper),
            def: format_ident!("__PIR_DEF_{}", upper),
            attrs_struct: format_ident!("{}Attrs", ident),
            upper,
        }
    }
}
