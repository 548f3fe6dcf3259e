//! The Vjp interface of a generated op: the backward op's name and, when the front end could
//! derive it, the op's Vjp table ([`VjpRule`]) as a `static` initializer, which
//! `pir-autodiff`'s one generic function interprets.

use proc_macro2::TokenStream;
use quote::quote;

use pir_spec::vjp::{VjpAttr, VjpOperand, VjpRule, VjpValue};

use super::schema_tokens::{default_value, s};

fn vjp() -> TokenStream {
    quote!(::pir_runtime::pir_spec::vjp)
}

fn value(v: VjpValue) -> TokenStream {
    let m = vjp();
    match v {
        VjpValue::Input(i) => quote!(#m::VjpValue::Input(#i)),
        VjpValue::Output(i) => quote!(#m::VjpValue::Output(#i)),
        VjpValue::OutputGrad(i) => quote!(#m::VjpValue::OutputGrad(#i)),
        VjpValue::Null => quote!(#m::VjpValue::Null),
    }
}

fn operand(o: &VjpOperand) -> TokenStream {
    let m = vjp();
    match o {
        VjpOperand::Value(v) => {
            let v = value(*v);
            quote!(#m::VjpOperand::Value(#v))
        }
        VjpOperand::FromAttr(i) => quote!(#m::VjpOperand::FromAttr(#i)),
        VjpOperand::Const(d) => {
            let d = default_value(d);
            quote!(#m::VjpOperand::Const(#d))
        }
    }
}

fn attr(a: &VjpAttr) -> TokenStream {
    let m = vjp();
    match a {
        VjpAttr::Forward(i) => quote!(#m::VjpAttr::Forward(#i)),
        VjpAttr::Const(d) => {
            let d = default_value(d);
            quote!(#m::VjpAttr::Const(#d))
        }
        VjpAttr::DtypeOf(v) => {
            let v = value(*v);
            quote!(#m::VjpAttr::DtypeOf(#v))
        }
    }
}

/// `&VjpRule { ... }`, every list borrowed.
fn rule(r: &VjpRule) -> TokenStream {
    let m = vjp();
    let op = s(&r.op);
    let operands = r.operands.iter().map(operand);
    let attributes = r.attributes.iter().map(attr);
    let outputs = r.outputs.iter().map(|o| match o {
        Some(i) => quote!(::core::option::Option::Some(#i)),
        None => quote!(::core::option::Option::None),
    });
    quote!(&#m::VjpRule {
        op: #op,
        operands: ::std::borrow::Cow::Borrowed(&[#(#operands),*]),
        attributes: ::std::borrow::Cow::Borrowed(&[#(#attributes),*]),
        outputs: ::std::borrow::Cow::Borrowed(&[#(#outputs),*]),
    })
}

/// The initializer of the op's `Vjp` static: with the table when there is one (its backward
/// op was in the same yaml set), else the name alone (the table is derived at run time).
pub(super) fn vjp_init(backward_op: &str, r: Option<&VjpRule>) -> TokenStream {
    match r {
        Some(r) => {
            let r = rule(r);
            quote!(::pir_runtime::interfaces::Vjp::with_rule(#backward_op, #r))
        }
        None => quote!(::pir_runtime::interfaces::Vjp::new(#backward_op)),
    }
}
