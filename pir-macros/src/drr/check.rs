//! Checks a pattern against the schemas and emits its `DrrPattern` table.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Ident, Lit};

use pir_spec::{AttrKind, DefaultValue, OpSchema};

use super::parse::{AttrValue, OpCall, PatternDef};

type Schemas<'a> = HashMap<&'a str, &'a OpSchema>;

fn err(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}

fn names<'a>(it: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = it.collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// The schema of `op`, or `None` for a builtin op; an unknown op is an error at its name.
fn schema_of<'a>(op: &OpCall, schemas: &Schemas<'a>) -> syn::Result<Option<&'a OpSchema>> {
    if op.dialect == "builtin" {
        return Ok(None);
    }
    let name = op.full_name();
    match schemas.get(name.as_str()) {
        Some(s) => Ok(Some(s)),
        None => Err(err(
            op.op.span(),
            format!("unknown op `{name}`: no op of this name in the schema yaml"),
        )),
    }
}

/// Operand and result counts against the schema.
fn check_counts(op: &OpCall, s: &OpSchema) -> syn::Result<()> {
    let name = op.full_name();
    if op.inputs.len() != s.inputs.len() {
        return Err(err(
            op.inputs_span,
            format!(
                "`{name}` takes {} operand(s) ({}), found {}",
                s.inputs.len(),
                names(s.inputs.iter().map(|i| &*i.name)),
                op.inputs.len()
            ),
        ));
    }
    if op.outputs.len() != s.outputs.len() {
        return Err(err(
            op.outputs_span,
            format!(
                "`{name}` makes {} result(s) ({}), found {}",
                s.outputs.len(),
                names(s.outputs.iter().map(|o| &*o.name)),
                op.outputs.len()
            ),
        ));
    }
    Ok(())
}

fn attr_kind(op: &OpCall, s: &OpSchema, name: &Ident) -> syn::Result<AttrKind> {
    s.attributes
        .iter()
        .find(|a| *a.name == *name.to_string())
        .map(|a| a.kind)
        .ok_or_else(|| {
            err(
                name.span(),
                format!(
                    "`{}` has no attribute `{name}`; its attributes are {}",
                    op.full_name(),
                    names(s.attributes.iter().map(|a| &*a.name))
                ),
            )
        })
}

/// The constructor of an attribute of `kind` from a literal, or an error at the literal.
fn literal_attr(kind: AttrKind, lit: &Lit, neg: bool, attr: &Ident) -> syn::Result<TokenStream> {
    let sign = if neg { quote!(-) } else { quote!() };
    let bad = || {
        err(
            lit.span(),
            format!(
                "attribute `{attr}` is {}, which this literal is not",
                kind_name(kind)
            ),
        )
    };
    Ok(match (kind, lit) {
        (AttrKind::Bool, Lit::Bool(b)) if !neg => quote!(m.ctx().bool_attr(#b)),
        (AttrKind::Str, Lit::Str(s)) if !neg => quote!(m.ctx().str_attr(#s)),
        (AttrKind::Int32, Lit::Int(i)) => {
            let v: i32 = i.base10_parse()?;
            quote!(m.ctx().i32_attr(#sign #v))
        }
        (AttrKind::Int64 | AttrKind::Long | AttrKind::SizeT, Lit::Int(i)) => {
            let v: i64 = i.base10_parse()?;
            quote!(m.ctx().i64_attr(#sign #v))
        }
        (AttrKind::Float, Lit::Float(f)) => {
            let v: f32 = f.base10_parse()?;
            quote!(m.ctx().f32_attr(#sign #v))
        }
        (AttrKind::Double | AttrKind::Scalar, Lit::Float(f)) => {
            let v: f64 = f.base10_parse()?;
            quote!(m.ctx().f64_attr(#sign #v))
        }
        (AttrKind::Double | AttrKind::Scalar, Lit::Int(i)) => {
            let v: f64 = i.base10_parse::<i64>()? as f64;
            quote!(m.ctx().f64_attr(#sign #v))
        }
        _ => return Err(bad()),
    })
}

fn kind_name(kind: AttrKind) -> String {
    format!("{kind:?}")
}

/// The constructor of a schema default, or `None` if this kind of default is not supported.
fn default_attr(kind: AttrKind, d: &DefaultValue) -> Option<TokenStream> {
    Some(match (kind, d) {
        (AttrKind::Bool, DefaultValue::Bool(b)) => quote!(m.ctx().bool_attr(#b)),
        (AttrKind::Int32, DefaultValue::Int(v)) => {
            let v = i32::try_from(*v).ok()?;
            quote!(m.ctx().i32_attr(#v))
        }
        (AttrKind::Int64 | AttrKind::Long | AttrKind::SizeT, DefaultValue::Int(v)) => {
            quote!(m.ctx().i64_attr(#v))
        }
        (AttrKind::Float, DefaultValue::Float(v)) => {
            let v = *v as f32;
            quote!(m.ctx().f32_attr(#v))
        }
        (AttrKind::Float, DefaultValue::Int(v)) => {
            let v = *v as f32;
            quote!(m.ctx().f32_attr(#v))
        }
        (AttrKind::Double | AttrKind::Scalar, DefaultValue::Float(v)) => {
            quote!(m.ctx().f64_attr(#v))
        }
        (AttrKind::Double | AttrKind::Scalar, DefaultValue::Int(v)) => {
            let v = *v as f64;
            quote!(m.ctx().f64_attr(#v))
        }
        (AttrKind::Str, DefaultValue::Str(s)) => {
            let s: &str = s;
            quote!(m.ctx().str_attr(#s))
        }
        (AttrKind::IntArray, DefaultValue::IntList(v)) => {
            let v: Vec<i64> = v.to_vec();
            quote!(m.ctx().int_array_attr(&[#(#v),*]))
        }
        (AttrKind::Int64Array, DefaultValue::IntList(v)) => {
            let v: Vec<i64> = v.to_vec();
            quote!(m.ctx().array_attr(&[#(m.ctx().i64_attr(#v)),*]))
        }
        (AttrKind::Int32Array, DefaultValue::IntList(v)) => {
            let v: Vec<i32> = v
                .iter()
                .map(|&x| i32::try_from(x).ok())
                .collect::<Option<_>>()?;
            quote!(m.ctx().array_attr(&[#(m.ctx().i32_attr(#v)),*]))
        }
        (AttrKind::DataType, DefaultValue::DataType(t)) => {
            let t = format_ident!("{}", format!("{t:?}"));
            quote!(m.ctx().dtype_attr(::pir_runtime::phi::DataType::#t))
        }
        (AttrKind::DataLayout, DefaultValue::DataLayout(l)) => {
            let l = format_ident!("{}", format!("{l:?}"));
            quote!(m.ctx().layout_attr(::pir_runtime::phi::DataLayout::#l))
        }
        (AttrKind::Place, DefaultValue::Place(p)) => {
            let k = format_ident!("{}", format!("{:?}", p.kind));
            let d = p.device;
            quote!(m.ctx().place_attr(::pir_runtime::phi::Place { kind: ::pir_runtime::phi::AllocationType::#k, device: #d }))
        }
        _ => return None,
    })
}

fn compute(body: TokenStream) -> TokenStream {
    quote!(::pir_passes::drr::ResultAttr::Compute(|m| ::core::option::Option::Some(#body)))
}

struct Source<'a> {
    /// Tensor → (source op index, its span).
    made_by: HashMap<String, usize>,
    /// Every tensor the source pattern names.
    tensors: HashMap<String, Span>,
    /// Capture → attribute kind (`None` for builtin ops).
    captures: HashMap<String, Option<AttrKind>>,
    schemas: Vec<Option<&'a OpSchema>>,
}

/// Checks the source ops in order and returns what they bind with their `SourceOp` tables.
fn lower_source<'a>(
    p: &PatternDef,
    schemas: &Schemas<'a>,
) -> syn::Result<(Source<'a>, Vec<TokenStream>)> {
    let mut src = Source {
        made_by: HashMap::new(),
        tensors: HashMap::new(),
        captures: HashMap::new(),
        schemas: Vec::new(),
    };
    let mut tables = Vec::new();
    let mut readers: HashMap<String, usize> = HashMap::new();
    for (i, op) in p.source.iter().enumerate() {
        tables.push(lower_source_op(i, op, schemas, &mut src, &mut readers)?);
    }
    check_source_order(p, &src)?;
    check_one_anchor(p, &readers)?;
    Ok((src, tables))
}

/// Checks source op `i` and records what it binds in `src` (and the tensors it reads in
/// `readers`); returns its `SourceOp` table.
fn lower_source_op<'a>(
    i: usize,
    op: &OpCall,
    schemas: &Schemas<'a>,
    src: &mut Source<'a>,
    readers: &mut HashMap<String, usize>,
) -> syn::Result<TokenStream> {
    let s = schema_of(op, schemas)?;
    if let Some(s) = s {
        check_counts(op, s)?;
    }
    src.schemas.push(s);
    let attrs = source_attrs(op, s, &mut src.captures)?;
    let inputs: Vec<String> = op
        .inputs
        .iter()
        .map(|t| t.as_ref().map(|t| t.to_string()).unwrap_or_default())
        .collect();
    for t in op.inputs.iter().flatten() {
        src.tensors.entry(t.to_string()).or_insert(t.span());
        *readers.entry(t.to_string()).or_default() += 1;
    }
    let outputs = source_outputs(i, op, src)?;
    let name = op.full_name();
    Ok(quote!(::pir_passes::drr::SourceOp {
        name: #name,
        inputs: &[#(#inputs),*],
        outputs: &[#(#outputs),*],
        attrs: &[#(#attrs),*],
    }))
}

/// The `(attribute, capture)` pairs of a source op, each attribute binding a capture whose
/// kind is recorded in `captures` (one capture bound twice must keep its kind).
fn source_attrs(
    op: &OpCall,
    s: Option<&OpSchema>,
    captures: &mut HashMap<String, Option<AttrKind>>,
) -> syn::Result<Vec<TokenStream>> {
    let mut attrs = Vec::new();
    for (name, value) in &op.attrs {
        let kind = s.map(|s| attr_kind(op, s, name)).transpose()?;
        let AttrValue::Capture(cap) = value else {
            return Err(err(
                name.span(),
                format!("source attribute `{name}` must bind a capture (`{name}: @{name}`); compare values in the constraint"),
            ));
        };
        if let Some(prev) = captures.insert(cap.to_string(), kind) {
            if prev != kind {
                return Err(err(
                    cap.span(),
                    format!("capture `{cap}` is bound twice with different kinds"),
                ));
            }
        }
        let (n, c) = (name.to_string(), cap.to_string());
        attrs.push(quote!((#n, #c)));
    }
    Ok(attrs)
}

/// The result names of source op `i` (`_` becomes the unique `_{i}_{k}`), each recorded as
/// made by it; a tensor made twice is an error.
fn source_outputs(i: usize, op: &OpCall, src: &mut Source<'_>) -> syn::Result<Vec<String>> {
    let mut outputs = Vec::new();
    for (k, t) in op.outputs.iter().enumerate() {
        let name = if t == "_" {
            format!("_{i}_{k}")
        } else {
            t.to_string()
        };
        if src.made_by.insert(name.clone(), i).is_some() {
            return Err(err(
                t.span(),
                format!("tensor `{t}` is made twice in the source pattern"),
            ));
        }
        src.tensors.insert(name.clone(), t.span());
        outputs.push(name);
    }
    Ok(outputs)
}

/// A tensor read before the op making it: the pattern is not in order.
fn check_source_order(p: &PatternDef, src: &Source<'_>) -> syn::Result<()> {
    for (i, op) in p.source.iter().enumerate() {
        for t in op.inputs.iter().flatten() {
            if let Some(&j) = src.made_by.get(&t.to_string()) {
                if j >= i {
                    return Err(err(t.span(), format!("tensor `{t}` is read before the op making it; list source ops inputs first")));
                }
            }
        }
    }
    Ok(())
}

/// The source pattern must have one anchor: one op whose results no other source op reads.
fn check_one_anchor(p: &PatternDef, readers: &HashMap<String, usize>) -> syn::Result<()> {
    let anchors = p
        .source
        .iter()
        .filter(|op| {
            op.outputs
                .iter()
                .all(|t| !readers.contains_key(&t.to_string()))
        })
        .count();
    if anchors != 1 {
        return Err(err(
            p.name.span(),
            format!("the source pattern must have exactly one op whose results no other source op reads (its anchor); it has {anchors}"),
        ));
    }
    Ok(())
}

/// What the result ops have bound so far.
struct ResultScope {
    /// Every tensor a result op may read: the source pattern's and earlier results'.
    known: HashMap<String, Span>,
    /// The tensors the result pattern makes.
    made: HashMap<String, Span>,
}

/// Checks a pattern against the schemas and emits its `DrrPattern` static.
pub(crate) fn lower_pattern(p: &PatternDef, schemas: &Schemas<'_>) -> syn::Result<TokenStream> {
    let (src, source_tables) = lower_source(p, schemas)?;
    let mut scope = ResultScope {
        known: src.tensors.clone(),
        made: HashMap::new(),
    };
    let mut result_tables = Vec::new();
    for op in &p.result {
        result_tables.push(lower_result_op(op, schemas, &src, &mut scope)?);
    }
    let replace = lower_replace(p, &src, &scope.made)?;
    let constraint = match &p.constraint {
        Some(c) => quote!(::core::option::Option::Some(#c)),
        None => quote!(::core::option::Option::None),
    };
    let benefit = match &p.benefit {
        Some(b) => quote!(#b),
        None => quote!(1),
    };
    let (attrs, vis, ident, name) = (&p.attrs, &p.vis, &p.ident, &p.name);
    Ok(quote! {
        #(#attrs)*
        #vis static #ident: ::pir_passes::drr::DrrPattern = ::pir_passes::drr::DrrPattern {
            name: #name,
            source: &[#(#source_tables),*],
            constraint: #constraint,
            result: &[#(#result_tables),*],
            replace: &[#(#replace),*],
            benefit: #benefit,
        };
    })
}

/// Checks a result op against the source pattern and the results before it, records its
/// results in `scope`, and returns its `ResultOp` table.
fn lower_result_op(
    op: &OpCall,
    schemas: &Schemas<'_>,
    src: &Source<'_>,
    scope: &mut ResultScope,
) -> syn::Result<TokenStream> {
    let s = schema_of(op, schemas)?;
    if let Some(s) = s {
        check_counts(op, s)?;
    }
    let inputs = result_inputs(op, &scope.known)?;
    let copy = match &op.copy_from {
        Some(t) => match src.made_by.get(&t.to_string()) {
            Some(&i) => quote!(::core::option::Option::Some(#i)),
            None => return Err(err(t.span(), format!("`..{t}` copies the attributes of the source op making `{t}`, but no source op makes it"))),
        },
        None => quote!(::core::option::Option::None),
    };
    let attrs = result_attrs(op, s, src)?;
    let outputs = result_outputs(op, scope)?;
    let name = op.full_name();
    Ok(quote!(::pir_passes::drr::ResultOp {
        name: #name,
        inputs: &[#(#inputs),*],
        outputs: &[#(#outputs),*],
        attrs: &[#(#attrs),*],
        copy_attrs_of: #copy,
    }))
}

/// A result op's operand names (empty for an absent optional one), each bound already.
fn result_inputs(op: &OpCall, known: &HashMap<String, Span>) -> syn::Result<Vec<String>> {
    let mut inputs = Vec::new();
    for t in &op.inputs {
        match t {
            Some(t) => {
                if !known.contains_key(&t.to_string()) {
                    return Err(err(t.span(), format!("tensor `{t}` is bound neither by the source pattern nor by an earlier result op")));
                }
                inputs.push(t.to_string());
            }
            None => inputs.push(String::new()),
        }
    }
    Ok(inputs)
}

/// The `(attribute, ResultAttr)` pairs of a result op: the given ones, then (unless it copies
/// a source op's attributes) the schema's defaults for the rest.
fn result_attrs(
    op: &OpCall,
    s: Option<&OpSchema>,
    src: &Source<'_>,
) -> syn::Result<Vec<TokenStream>> {
    let mut attrs = Vec::new();
    let mut given = Vec::new();
    for (name, value) in &op.attrs {
        let kind = s.map(|s| attr_kind(op, s, name)).transpose()?;
        given.push(name.to_string());
        let n = name.to_string();
        let how = result_attr(op, name, kind, value, src)?;
        attrs.push(quote!((#n, #how)));
    }
    if let (Some(s), None) = (s, &op.copy_from) {
        default_attrs(op, s, &given, &mut attrs)?;
    }
    Ok(attrs)
}

/// The `ResultAttr` of attribute `name` (of `kind`, `None` for a builtin op) given as `value`:
/// a capture of the same kind, a literal of the attribute's kind, or a computing function.
fn result_attr(
    op: &OpCall,
    name: &Ident,
    kind: Option<AttrKind>,
    value: &AttrValue,
    src: &Source<'_>,
) -> syn::Result<TokenStream> {
    Ok(match value {
        AttrValue::Capture(cap) => {
            match src.captures.get(&cap.to_string()) {
                None => {
                    return Err(err(
                        cap.span(),
                        format!("capture `@{cap}` is not bound by the source pattern"),
                    ))
                }
                Some(&ck) => {
                    if let (Some(k), Some(ck)) = (kind, ck) {
                        if k != ck {
                            return Err(err(
                            cap.span(),
                            format!("attribute `{name}` of `{}` is {}, but capture `@{cap}` holds {}", op.full_name(), kind_name(k), kind_name(ck)),
                        ));
                        }
                    }
                    let c = cap.to_string();
                    quote!(::pir_passes::drr::ResultAttr::Capture(#c))
                }
            }
        }
        AttrValue::Literal(lit, neg) => {
            let Some(k) = kind else {
                return Err(err(
                    lit.span(),
                    "literal attributes need the op's schema; builtin ops take computed values",
                ));
            };
            compute(literal_attr(k, lit, *neg, name)?)
        }
        AttrValue::Compute(path) => quote!(::pir_passes::drr::ResultAttr::Compute(#path)),
    })
}

/// Schema attributes neither given nor copied: their defaults, or an error.
fn default_attrs(
    op: &OpCall,
    s: &OpSchema,
    given: &[String],
    attrs: &mut Vec<TokenStream>,
) -> syn::Result<()> {
    for a in s.attributes.iter() {
        if given.iter().any(|g| *g == *a.name) {
            continue;
        }
        let n: &str = &a.name;
        let Some(d) = a.default.as_ref().and_then(|d| default_attr(a.kind, d)) else {
            return Err(err(
                op.op.span(),
                format!(
                    "`{}` needs attribute `{n}` ({}), which has no default",
                    op.full_name(),
                    kind_name(a.kind)
                ),
            ));
        };
        let dv = compute(d);
        attrs.push(quote!((#n, #dv)));
    }
    Ok(())
}

/// A result op's result names, recorded in `scope`; a tensor made twice is an error.
fn result_outputs(op: &OpCall, scope: &mut ResultScope) -> syn::Result<Vec<String>> {
    let mut outputs = Vec::new();
    for t in &op.outputs {
        let name = t.to_string();
        if scope.made.insert(name.clone(), t.span()).is_some() {
            return Err(err(
                t.span(),
                format!("tensor `{t}` is made twice in the result pattern"),
            ));
        }
        scope.known.insert(name.clone(), t.span());
        outputs.push(name);
    }
    Ok(outputs)
}

/// The `(source tensor, result tensor)` replacements: each from a tensor the source makes, to
/// one the result makes or the source names.
fn lower_replace(
    p: &PatternDef,
    src: &Source<'_>,
    made_by_result: &HashMap<String, Span>,
) -> syn::Result<Vec<TokenStream>> {
    let mut replace = Vec::new();
    for (from, to) in &p.replace {
        if !src.made_by.contains_key(&from.to_string()) {
            return Err(err(
                from.span(),
                format!("`{from}` is not a tensor made by the source pattern"),
            ));
        }
        if !made_by_result.contains_key(&to.to_string())
            && !src.tensors.contains_key(&to.to_string())
        {
            return Err(err(
                to.span(),
                format!("`{to}` is not a tensor of the result pattern"),
            ));
        }
        let (f, t) = (from.to_string(), to.to_string());
        replace.push(quote!((#f, #t)));
    }
    Ok(replace)
}
