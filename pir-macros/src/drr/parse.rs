//! The syntax of `drr!`.
//!
//! ```text
//! drr! {
//!     schema = ["../ops-yaml/ops.yaml"],
//!     compat = "../ops-yaml/op_compat.yaml",   // optional
//!     /// docs
//!     pub static NAME: "PatternName" {
//!         source {
//!             t = pd_op.op(a, b) { attr: @capture };
//!             (x, y) = pd_op.other(t, none);
//!         }
//!         constraint path::to::fn;
//!         result {
//!             r = pd_op.op(a, x) { attr: @capture, other: compute_fn, flag: true, ..t };
//!         }
//!         replace { y => r }
//!         benefit 2;
//!     }
//! }
//! ```

use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{
    braced, bracketed, parenthesized, Attribute, Ident, Lit, LitStr, Path, Token, Visibility,
};

/// The whole input.
pub(crate) struct DrrInput {
    pub(crate) schema: Vec<LitStr>,
    pub(crate) compat: Option<LitStr>,
    pub(crate) patterns: Vec<PatternDef>,
}

/// One pattern.
pub(crate) struct PatternDef {
    pub(crate) attrs: Vec<Attribute>,
    pub(crate) vis: Visibility,
    pub(crate) ident: Ident,
    pub(crate) name: LitStr,
    pub(crate) source: Vec<OpCall>,
    pub(crate) constraint: Option<Path>,
    pub(crate) result: Vec<OpCall>,
    pub(crate) replace: Vec<(Ident, Ident)>,
    pub(crate) benefit: Option<syn::LitInt>,
}

/// `outputs = dialect.op(inputs) { attrs }`.
pub(crate) struct OpCall {
    pub(crate) outputs: Vec<Ident>,
    /// The span of the output list (for count errors).
    pub(crate) outputs_span: proc_macro2::Span,
    pub(crate) dialect: Ident,
    pub(crate) op: Ident,
    /// `None` stands for an absent optional operand (`none`).
    pub(crate) inputs: Vec<Option<Ident>>,
    pub(crate) inputs_span: proc_macro2::Span,
    pub(crate) attrs: Vec<(Ident, AttrValue)>,
    /// `..tensor`: copy every attribute of the source op that made `tensor`.
    pub(crate) copy_from: Option<Ident>,
}

impl OpCall {
    pub(crate) fn full_name(&self) -> String {
        format!("{}.{}", self.dialect, self.op)
    }
}

/// An attribute's value.
pub(crate) enum AttrValue {
    /// `@name`.
    Capture(Ident),
    /// A literal.
    Literal(Lit, bool),
    /// A function `fn(&MatchContext) -> Option<Attribute>`.
    Compute(Path),
}

impl Parse for DrrInput {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let key: Ident = input.parse()?;
        if key != "schema" {
            return Err(syn::Error::new(
                key.span(),
                "expected `schema = [\"ops.yaml\", ...]` first: the yaml files patterns are checked against",
            ));
        }
        input.parse::<Token![=]>()?;
        let content;
        bracketed!(content in input);
        let files: Punctuated<LitStr, Token![,]> =
            content.parse_terminated(|p| p.parse(), Token![,])?;
        if files.is_empty() {
            return Err(syn::Error::new(key.span(), "`schema` lists no yaml file"));
        }
        input.parse::<Token![,]>()?;
        // `compat = "op_compat.yaml",`: which attributes are mutable (operands).
        let mut compat = None;
        if input.peek(Ident) && input.peek2(Token![=]) {
            let key: Ident = input.parse()?;
            if key != "compat" {
                return Err(syn::Error::new(
                    key.span(),
                    "expected `compat = \"op_compat.yaml\"` or a pattern",
                ));
            }
            input.parse::<Token![=]>()?;
            compat = Some(input.parse()?);
            input.parse::<Token![,]>()?;
        }
        let mut patterns = Vec::new();
        while !input.is_empty() {
            patterns.push(input.parse()?);
        }
        Ok(DrrInput {
            schema: files.into_iter().collect(),
            compat,
            patterns,
        })
    }
}

impl Parse for PatternDef {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        input.parse::<Token![static]>()?;
        let ident: Ident = input.parse()?;
        input.parse::<Token![:]>()?;
        let name: LitStr = input.parse()?;
        let body;
        braced!(body in input);
        let mut def = PatternDef {
            attrs,
            vis,
            ident,
            name,
            source: Vec::new(),
            constraint: None,
            result: Vec::new(),
            replace: Vec::new(),
            benefit: None,
        };
        let mut seen_source = false;
        while !body.is_empty() {
            let section: Ident = body.parse()?;
            match section.to_string().as_str() {
                "source" => {
                    let ops;
                    braced!(ops in body);
                    def.source = parse_ops(&ops)?;
                    seen_source = true;
                }
                "result" => {
                    let ops;
                    braced!(ops in body);
                    def.result = parse_ops(&ops)?;
                }
                "constraint" => {
                    def.constraint = Some(body.parse()?);
                    body.parse::<Token![;]>()?;
                }
                "benefit" => {
                    def.benefit = Some(body.parse()?);
                    body.parse::<Token![;]>()?;
                }
                "replace" => {
                    let pairs;
                    braced!(pairs in body);
                    while !pairs.is_empty() {
                        let from: Ident = pairs.parse()?;
                        pairs.parse::<Token![=>]>()?;
                        let to: Ident = pairs.parse()?;
                        def.replace.push((from, to));
                        if !pairs.is_empty() {
                            pairs.parse::<Token![,]>()?;
                        }
                    }
                }
                other => {
                    return Err(syn::Error::new(
                        section.span(),
                        format!("unknown section `{other}`; expected `source`, `constraint`, `result`, `replace` or `benefit`"),
                    ))
                }
            }
        }
        if !seen_source || def.source.is_empty() {
            return Err(syn::Error::new(
                def.name.span(),
                "the pattern has no source ops; write `source { out = dialect.op(inputs); }`",
            ));
        }
        Ok(def)
    }
}

fn parse_ops(input: ParseStream<'_>) -> syn::Result<Vec<OpCall>> {
    let mut ops = Vec::new();
    while !input.is_empty() {
        ops.push(parse_op(input)?);
        input.parse::<Token![;]>()?;
    }
    Ok(ops)
}

fn parse_op(input: ParseStream<'_>) -> syn::Result<OpCall> {
    // Results: `x =`, `(x, y) =`, or nothing for an op without results.
    let (outputs, outputs_span) = if input.peek(syn::token::Paren) {
        let content;
        let p = parenthesized!(content in input);
        let names: Punctuated<Ident, Token![,]> =
            content.parse_terminated(Ident::parse, Token![,])?;
        input.parse::<Token![=]>()?;
        (names.into_iter().collect(), p.span.join())
    } else if input.peek2(Token![=]) && !input.peek2(Token![=>]) {
        let name: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        let span = name.span();
        (vec![name], span)
    } else {
        (Vec::new(), input.span())
    };
    let dialect: Ident = input.parse()?;
    input.parse::<Token![.]>()?;
    let op: Ident = input.parse()?;
    let content;
    let p = parenthesized!(content in input);
    let mut inputs = Vec::new();
    while !content.is_empty() {
        let name: Ident = content.parse()?;
        inputs.push((name != "none").then_some(name));
        if !content.is_empty() {
            content.parse::<Token![,]>()?;
        }
    }
    let mut attrs = Vec::new();
    let mut copy_from = None;
    if input.peek(syn::token::Brace) {
        let body;
        braced!(body in input);
        while !body.is_empty() {
            if body.peek(Token![..]) {
                body.parse::<Token![..]>()?;
                copy_from = Some(body.parse()?);
            } else {
                let name: Ident = body.parse()?;
                body.parse::<Token![:]>()?;
                attrs.push((name, parse_value(&body)?));
            }
            if !body.is_empty() {
                body.parse::<Token![,]>()?;
            }
        }
    }
    Ok(OpCall {
        outputs,
        outputs_span,
        dialect,
        op,
        inputs,
        inputs_span: p.span.join(),
        attrs,
        copy_from,
    })
}

fn parse_value(input: ParseStream<'_>) -> syn::Result<AttrValue> {
    if input.peek(Token![@]) {
        input.parse::<Token![@]>()?;
        return Ok(AttrValue::Capture(input.parse()?));
    }
    if input.peek(Token![-]) {
        input.parse::<Token![-]>()?;
        return Ok(AttrValue::Literal(input.parse()?, true));
    }
    if input.peek(Lit) {
        return Ok(AttrValue::Literal(input.parse()?, false));
    }
    Ok(AttrValue::Compute(input.parse()?))
}
