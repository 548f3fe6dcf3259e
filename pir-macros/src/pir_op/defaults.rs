//! Default values of attributes (`#[attr(default = ...)]`), checked against the attribute's type
//! and lowered to [`DefaultValue`].

use std::borrow::Cow;

use syn::spanned::Spanned;
use syn::{Expr, Lit, UnOp};

use pir_spec::phi::{DataLayout, DataType, Place};
use pir_spec::{AttrKind, DefaultValue};

fn unwrap(e: &Expr) -> &Expr {
    match e {
        Expr::Group(g) => unwrap(&g.expr),
        Expr::Paren(p) => unwrap(&p.expr),
        e => e,
    }
}

fn int(e: &Expr) -> Option<i128> {
    match unwrap(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse::<i128>().ok(),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => int(&u.expr).map(|v| -v),
        _ => None,
    }
}

fn float(e: &Expr) -> Option<f64> {
    match unwrap(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Float(f) => f.base10_parse::<f64>().ok(),
            Lit::Int(i) => i.base10_parse::<i64>().ok().map(|v| v as f64),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => float(&u.expr).map(|v| -v),
        _ => None,
    }
}

fn boolean(e: &Expr) -> Option<bool> {
    match unwrap(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Bool(b) => Some(b.value),
            _ => None,
        },
        _ => None,
    }
}

fn string(e: &Expr) -> Option<String> {
    match unwrap(e) {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

/// The elements of `[a, b, c]`.
fn elements(e: &Expr) -> Option<Vec<&Expr>> {
    match unwrap(e) {
        Expr::Array(a) => Some(a.elems.iter().collect()),
        _ => None,
    }
}

/// The text of a path expression, without spaces (`DataType::Float32`).
fn path_text(e: &Expr) -> Option<String> {
    match unwrap(e) {
        Expr::Path(p) if p.qself.is_none() => Some(
            quote::ToTokens::to_token_stream(&p.path)
                .to_string()
                .replace(' ', ""),
        ),
        _ => None,
    }
}

fn dtype(e: &Expr) -> Option<DataType> {
    let text = path_text(e)?;
    let last = text.rsplit("::").next().unwrap_or(&text);
    DataType::ALL
        .into_iter()
        .find(|d| format!("{d:?}") == last)
        .or_else(|| DataType::from_yaml(last))
}

fn data_layout(e: &Expr) -> Option<DataLayout> {
    if let Some(s) = string(e) {
        return DataLayout::from_name(&s);
    }
    let text = path_text(e)?;
    let last = text.rsplit("::").next().unwrap_or(&text);
    DataLayout::ALL
        .into_iter()
        .find(|l| format!("{l:?}") == last)
        .or_else(|| DataLayout::from_name(last))
}

fn place(e: &Expr) -> Option<Place> {
    let Expr::Call(c) = unwrap(e) else {
        return None;
    };
    let func = path_text(&c.func)?;
    let args: Vec<&Expr> = c.args.iter().collect();
    match (func.as_str(), args.as_slice()) {
        ("Place::cpu", []) => Some(Place::cpu()),
        ("Place::default" | "Place::undefined", []) => Some(Place::default()),
        ("Place::gpu", [d]) => i8::try_from(int(d)?).ok().map(Place::gpu),
        _ => {
            // Paddle's spellings: `CPUPlace()`, `GPUPlace(1)`.
            let text = quote::ToTokens::to_token_stream(c)
                .to_string()
                .replace(' ', "");
            Place::from_yaml(&text)
        }
    }
}

/// A scalar of C++ type `data_type` (`int`, `float`, ...).
fn scalar(e: &Expr, data_type: &str) -> Option<DefaultValue> {
    match data_type {
        "bool" => boolean(e).map(DefaultValue::Bool),
        "int" | "int32_t" => int(e)
            .and_then(|v| i32::try_from(v).ok())
            .map(|v| DefaultValue::Int(i64::from(v))),
        "int64_t" | "long" => int(e)
            .and_then(|v| i64::try_from(v).ok())
            .map(DefaultValue::Int),
        _ => float(e).map(DefaultValue::Float),
    }
}

/// What a default of `kind` looks like, for messages.
fn example(kind: AttrKind, data_type: &str) -> &'static str {
    match kind {
        AttrKind::Bool => "`true` or `false`",
        AttrKind::Int32 => "an integer in `i32`'s range, e.g. `default = 1`",
        AttrKind::Int64 | AttrKind::Long => "an integer, e.g. `default = -1`",
        AttrKind::SizeT => "a non-negative integer, e.g. `default = 0`",
        AttrKind::Float | AttrKind::Double => "a number, e.g. `default = 1.0`",
        AttrKind::Str => "a string, e.g. `default = \"NCHW\"`",
        AttrKind::BoolArray => "a list of `true`/`false`, e.g. `default = [true]`",
        AttrKind::Int32Array => "a list of `i32` integers, e.g. `default = [1, 1]`",
        AttrKind::Int64Array | AttrKind::IntArray => "a list of integers, e.g. `default = [1, 1]`",
        AttrKind::FloatArray | AttrKind::DoubleArray => {
            "a list of numbers, e.g. `default = [1.0, 0.5]`"
        }
        AttrKind::StrArray => "a list of strings, e.g. `default = [\"x\"]`",
        AttrKind::Scalar => match data_type {
            "bool" => "`true` or `false` (the Scalar's `data_type` is \"bool\")",
            "int" | "int32_t" => {
                "an integer in `i32`'s range (the Scalar's `data_type` is \"int\")"
            }
            "int64_t" | "long" => "an integer (the Scalar's `data_type` is \"int64_t\")",
            _ => "a number, e.g. `default = 1.0`",
        },
        AttrKind::ScalarArray => "a list of numbers, e.g. `default = [1.0]`",
        AttrKind::DataType => "a data type, e.g. `default = DataType::Float32`",
        AttrKind::DataLayout => {
            "a layout, e.g. `default = DataLayout::Nchw` or `default = \"NCHW\"`"
        }
        AttrKind::Place => "a place: `Place::cpu()`, `Place::gpu(0)` or `Place::default()`",
    }
}

/// Lowers the default `e` of attribute `name` (of `kind`, C++ `data_type`, written `ty`).
pub(crate) fn lower_default(
    e: &Expr,
    name: &str,
    kind: AttrKind,
    data_type: &str,
    ty: &str,
) -> syn::Result<DefaultValue> {
    let fail = |at: &Expr| misfit(at, name, ty, kind, data_type);
    // A list: every element must fit; the first that does not is reported.
    let list = |f: &dyn Fn(&Expr) -> bool| -> syn::Result<Vec<&Expr>> {
        let items = elements(e).ok_or_else(|| fail(e))?;
        match items.iter().find(|x| !f(x)) {
            Some(bad) => Err(fail(bad)),
            None => Ok(items),
        }
    };
    Ok(match kind {
        AttrKind::Bool => DefaultValue::Bool(boolean(e).ok_or_else(|| fail(e))?),
        AttrKind::Int32 => {
            if !fits_i32(e) {
                return Err(fail(e));
            }
            DefaultValue::Int(
                int(e)
                    .and_then(|v| i64::try_from(v).ok())
                    .unwrap_or_default(),
            )
        }
        AttrKind::Int64 | AttrKind::Long => DefaultValue::Int(
            int(e)
                .and_then(|v| i64::try_from(v).ok())
                .ok_or_else(|| fail(e))?,
        ),
        AttrKind::SizeT => DefaultValue::Int(
            int(e)
                .filter(|v| *v >= 0)
                .and_then(|v| i64::try_from(v).ok())
                .ok_or_else(|| fail(e))?,
        ),
        AttrKind::Float | AttrKind::Double => DefaultValue::Float(float(e).ok_or_else(|| fail(e))?),
        AttrKind::Str => DefaultValue::Str(Cow::Owned(string(e).ok_or_else(|| fail(e))?)),
        AttrKind::BoolArray => DefaultValue::BoolList(Cow::Owned(
            list(&|x| boolean(x).is_some())?
                .iter()
                .filter_map(|x| boolean(x))
                .collect(),
        )),
        AttrKind::Int32Array => int_list(list(&fits_i32)?),
        AttrKind::Int64Array | AttrKind::IntArray => int_list(list(&fits_i64)?),
        AttrKind::FloatArray | AttrKind::DoubleArray | AttrKind::ScalarArray => {
            DefaultValue::FloatList(Cow::Owned(
                list(&|x| float(x).is_some())?
                    .iter()
                    .filter_map(|x| float(x))
                    .collect(),
            ))
        }
        AttrKind::StrArray => DefaultValue::StrList(Cow::Owned(
            list(&|x| string(x).is_some())?
                .iter()
                .filter_map(|x| string(x).map(Cow::Owned))
                .collect(),
        )),
        AttrKind::Scalar => scalar(e, data_type).ok_or_else(|| fail(e))?,
        AttrKind::DataType => DefaultValue::DataType(dtype(e).ok_or_else(|| fail(e))?),
        AttrKind::DataLayout => DefaultValue::DataLayout(data_layout(e).ok_or_else(|| fail(e))?),
        AttrKind::Place => DefaultValue::Place(place(e).ok_or_else(|| fail(e))?),
    })
}

/// The error for a default `at` (the whole default or the list element) that does not fit
/// attribute `name` of type `ty`, with an example of what does. A path points at its last
/// segment (`Float128` in `DataType::Float128`).
fn misfit(at: &Expr, name: &str, ty: &str, kind: AttrKind, data_type: &str) -> syn::Error {
    let span = match unwrap(at) {
        Expr::Path(p) => p
            .path
            .segments
            .last()
            .map(|s| s.ident.span())
            .unwrap_or(at.span()),
        other => other.span(),
    };
    syn::Error::new(
        span,
        format!(
            "the default of `{name}` does not fit its type `{ty}`: write {}",
            example(kind, data_type)
        ),
    )
}

/// Whether `x` is an integer literal that fits an `int32_t`.
fn fits_i32(x: &Expr) -> bool {
    int(x).is_some_and(|v| i32::try_from(v).is_ok())
}

/// Whether `x` is an integer literal that fits an `int64_t`.
fn fits_i64(x: &Expr) -> bool {
    int(x).is_some_and(|v| i64::try_from(v).is_ok())
}

/// The integer list of the (fitting) elements `items`.
fn int_list(items: Vec<&Expr>) -> DefaultValue {
    DefaultValue::IntList(Cow::Owned(
        items
            .iter()
            .filter_map(|x| int(x).and_then(|v| i64::try_from(v).ok()))
            .collect(),
    ))
}
