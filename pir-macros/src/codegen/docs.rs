//! Documentation of generated items: the op's signature line and the doc comments of inputs,
//! outputs and attributes.

use proc_macro2::TokenStream;
use quote::quote;

use pir_spec::{AttributeSpec, InputKind, OpSchema, ValueKind};

pub(super) fn doc_attr(text: &str) -> TokenStream {
    quote!(#[doc = #text])
}

pub(super) fn signature_doc(s: &OpSchema) -> String {
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

/// `text`, followed by the field's own documentation when it has some.
pub(super) fn with_doc(text: String, doc: &str) -> String {
    if doc.is_empty() {
        text
    } else {
        format!("{text}\n\n{doc}")
    }
}

pub(super) fn attr_doc(a: &AttributeSpec) -> String {
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
