//! The Vjp rule of an op: which forward values, output grads and attributes feed its backward
//! op, and which backward outputs are the grads of which forward inputs.
//!
//! Paddle generates one `Vjp` function per op from the op's `backward:` link and the backward
//! entry of `backward.yaml` (`op_vjp_gen`): the backward op's arguments are matched by name to
//! the forward op's inputs (`x`), outputs (`out`), output grads (`out_grad`) and attributes;
//! an argument the forward op lacks takes the backward entry's default; `invoke : f(args)`
//! calls another op instead of a grad op. Here that knowledge is a small table, [`VjpRule`],
//! computed once from the two [`OpSchema`]s ([`vjp_rule`]) and interpreted by one generic
//! runtime function (`pir-autodiff`). Every string and list is a [`Cow`], so the code generator
//! can emit a rule as a `static`.
//!
//! ```
//! # #[cfg(feature = "yaml")] {
//! use pir_spec::vjp::{vjp_rule, VjpAttr, VjpOperand, VjpValue};
//! use pir_spec::DefaultValue;
//! use pir_spec::yaml::{load_op_set, YamlSource};
//! let ops = "- op : scale\n  args : (Tensor x, Scalar scale=1.0, float bias=0.0)\n  output : Tensor(out)\n  backward : scale_grad\n";
//! let bwd = "- backward_op : scale_grad\n  forward : scale (Tensor x, Scalar scale, float bias) -> Tensor(out)\n  args : (Tensor out_grad, Scalar scale=1.0)\n  output : Tensor(x_grad)\n  invoke : scale(out_grad, scale, 0.0f)\n";
//! let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops },
//!     YamlSource { path: "backward.yaml", text: bwd }], None).unwrap();
//! let fwd = set.get("scale").unwrap();
//! let rule = vjp_rule(fwd, |n| set.get(n)).unwrap();
//! assert_eq!(rule.op, "scale"); // the invoked op
//! assert_eq!(rule.operands[..], [VjpOperand::Value(VjpValue::OutputGrad(0))]);
//! assert_eq!(rule.attributes[0], VjpAttr::Forward(0)); // the forward op's `scale`
//! assert_eq!(rule.attributes[1], VjpAttr::Const(DefaultValue::Float(0.0))); // the literal
//! assert_eq!(rule.outputs[..], [Some(0)]); // scale's output is x's gradient
//! # }
//! ```

use std::borrow::Cow;

use crate::schema::{
    AttrKind, AttributeSpec, DefaultValue, InputKind, InputSpec, List, OpKind, OpSchema, Str,
};

/// A value the Vjp hands to the backward op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum VjpValue {
    /// Forward input (operand) `i` (a vector input is the list of its combined values).
    Input(u16),
    /// Forward output `i`.
    Output(u16),
    /// The gradient of forward output `i`.
    OutputGrad(u16),
    /// An optional input the forward op does not have: a null value.
    Null,
}

/// One operand of the op the Vjp builds.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum VjpOperand {
    /// A forward value (a mutable attribute the forward op has as an operand passes that operand).
    Value(VjpValue),
    /// A mutable attribute the forward op has as a plain attribute `i`: materialised as a
    /// `full` / `full_int_array` of its value.
    FromAttr(u16),
    /// A mutable attribute at a constant (the backward entry's default or an `invoke` literal),
    /// materialised as a `full` / `full_int_array`.
    Const(DefaultValue),
}

/// One attribute of the op the Vjp builds.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum VjpAttr {
    /// The forward op's attribute `i`, as it is.
    Forward(u16),
    /// A constant: the backward entry's default, or an `invoke` literal.
    Const(DefaultValue),
    /// The data type of a forward value (`x.dtype()` in an `invoke`).
    DtypeOf(VjpValue),
}

/// The Vjp of one forward op: build op `op` from `operands` and `attributes`; its output `k`
/// is the gradient of forward input `outputs[k]` (`None`: of no input).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct VjpRule {
    /// The op to build, without the dialect: the backward op, or the op an `invoke` calls.
    pub op: Str,
    /// One entry per input of `op`'s schema, in order.
    pub operands: List<VjpOperand>,
    /// One entry per attribute of `op`'s schema, in order.
    pub attributes: List<VjpAttr>,
    /// One entry per output of `op`: the forward input it is the gradient of.
    pub outputs: List<Option<u16>>,
}

/// Why an op has no Vjp rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VjpError {
    /// The op has no `backward:` link.
    #[error("`{op}` has no backward op")]
    NoBackward {
        /// The forward op.
        op: String,
    },
    /// The backward op (or the op its `invoke` calls) is not known.
    #[error("`{op}`: backward op `{backward}` is not defined")]
    UnknownBackward {
        /// The forward op.
        op: String,
        /// The missing op.
        backward: String,
    },
    /// An argument of the backward op matches nothing of the forward op and has no default.
    #[error("`{op}`: argument `{arg}` of `{backward}` matches no input, output, output grad or attribute of the forward op and has no default")]
    UnmatchedArgument {
        /// The forward op.
        op: String,
        /// The backward op.
        backward: String,
        /// The argument.
        arg: String,
    },
    /// An `invoke` expression this reader does not understand.
    #[error("`{op}`: cannot read invoke `{invoke}`: {reason}")]
    Invoke {
        /// The forward op.
        op: String,
        /// The expression.
        invoke: String,
        /// What is wrong.
        reason: String,
    },
}

/// The Vjp rule of forward op `fwd`, whose backward op (and any op an `invoke` calls) `lookup`
/// finds by name without the dialect.
///
/// # Errors
///
/// [`VjpError`] when `fwd` has no backward op, it is unknown, or an argument matches nothing.
pub fn vjp_rule<'s>(
    fwd: &OpSchema,
    lookup: impl Fn(&str) -> Option<&'s OpSchema>,
) -> Result<VjpRule, VjpError> {
    let op = fwd.op_name.to_string();
    let bwd_name = fwd
        .backward
        .as_deref()
        .ok_or_else(|| VjpError::NoBackward { op: op.clone() })?;
    let bwd = lookup(bwd_name).ok_or_else(|| VjpError::UnknownBackward {
        op: op.clone(),
        backward: bwd_name.to_string(),
    })?;
    let declared = bwd
        .extra
        .iter()
        .find(|(k, _)| k == "forward")
        .and_then(|(_, v)| Declared::parse(v));
    let m = Matcher { fwd, bwd, declared };
    match bwd.invoke.as_deref() {
        Some(inv) => invoke_rule(&m, inv, &lookup),
        None => grad_op_rule(&m),
    }
}

/// What one name of the backward entry refers to on the forward side.
#[derive(Clone, Debug, PartialEq)]
enum Source {
    Value(VjpValue),
    /// A forward attribute.
    Attr(u16),
}

struct Matcher<'a> {
    fwd: &'a OpSchema,
    bwd: &'a OpSchema,
    /// The backward entry's `forward :` declaration, whose names the backward arguments use
    /// (`tanh_grad (Tensor out, Tensor grad_out) -> Tensor(grad_x)` for `tanh_double_grad`).
    declared: Option<Declared>,
}

/// The tensor arguments and outputs of a `forward : op (args) -> outputs` declaration, by
/// position: they name the forward op's tensor operands and results.
#[derive(Debug, Default)]
struct Declared {
    tensors: Vec<String>,
    outputs: Vec<String>,
}

impl Declared {
    fn parse(text: &str) -> Option<Declared> {
        let (call, outs) = text.split_once("->")?;
        let (_, args) = split_call(call.trim())?;
        let tensors = args
            .iter()
            .filter(|a| a.trim_start().starts_with("Tensor"))
            .filter_map(|a| {
                let a = a.split('=').next()?.trim();
                a.rsplit(|c: char| c.is_whitespace() || c == ']')
                    .next()
                    .map(str::to_string)
            })
            .collect();
        let outputs = split_top(outs)
            .into_iter()
            .filter_map(|o| {
                let open = o.find('(')?;
                let close = o[open..].find(')')? + open;
                Some(o[open + 1..close].trim().to_string())
            })
            .collect();
        Some(Declared { tensors, outputs })
    }
}

/// `a, b(c, d), e` split at top-level commas.
fn split_top(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

impl Matcher<'_> {
    fn err(&self, arg: &str) -> VjpError {
        VjpError::UnmatchedArgument {
            op: self.fwd.op_name.to_string(),
            backward: self.bwd.op_name.to_string(),
            arg: arg.to_string(),
        }
    }

    /// Operand index of the forward op's `k`-th tensor input.
    fn tensor_input(&self, k: usize) -> Option<u16> {
        self.fwd
            .inputs
            .iter()
            .enumerate()
            .filter(|(_, i)| matches!(i.kind, InputKind::Value(_)))
            .nth(k)
            .map(|(i, _)| i as u16)
    }

    /// A name of the `forward :` declaration: a tensor input, an output or an output's grad.
    fn declared_source(&self, name: &str) -> Option<Source> {
        let d = self.declared.as_ref()?;
        if let Some(k) = d.tensors.iter().position(|t| t == name) {
            return self
                .tensor_input(k)
                .map(|i| Source::Value(VjpValue::Input(i)));
        }
        if let Some(k) = d.outputs.iter().position(|o| o == name) {
            return (k < self.fwd.outputs.len())
                .then_some(Source::Value(VjpValue::Output(k as u16)));
        }
        let base = name.strip_suffix("_grad")?;
        let k = d.outputs.iter().position(|o| o == base)?;
        (k < self.fwd.outputs.len()).then_some(Source::Value(VjpValue::OutputGrad(k as u16)))
    }

    /// The forward value or attribute named `name` (`out_grad` is output `out`'s gradient):
    /// by the `forward :` declaration's names, else by the forward op's own names.
    fn source(&self, name: &str) -> Option<Source> {
        if let Some(s) = self.declared_source(name) {
            return Some(s);
        }
        let f = self.fwd;
        if let Some(i) = f.input_index(name) {
            return Some(Source::Value(VjpValue::Input(i as u16)));
        }
        if let Some(i) = f.output_index(name) {
            return Some(Source::Value(VjpValue::Output(i as u16)));
        }
        if let Some(i) = name.strip_suffix("_grad").and_then(|n| f.output_index(n)) {
            return Some(Source::Value(VjpValue::OutputGrad(i as u16)));
        }
        f.attribute_index(name).map(|i| Source::Attr(i as u16))
    }

    /// The forward input a backward output `<x>_grad` is the gradient of.
    fn grad_of(&self, name: &str) -> Option<u16> {
        let base = name.strip_suffix("_grad")?;
        if let Some(d) = &self.declared {
            if let Some(k) = d.tensors.iter().position(|t| t == base) {
                return self.tensor_input(k);
            }
        }
        name.strip_suffix("_grad")
            .and_then(|n| self.fwd.input_index(n))
            .map(|i| i as u16)
    }
}

fn grad_op_rule(m: &Matcher<'_>) -> Result<VjpRule, VjpError> {
    let bwd = m.bwd;
    let mut operands = Vec::with_capacity(bwd.inputs.len());
    for input in bwd.inputs.iter() {
        let src = m.source(&input.name);
        let operand = match (&input.kind, src) {
            (_, Some(Source::Value(v))) => VjpOperand::Value(v),
            (InputKind::MutableAttribute(_), Some(Source::Attr(i))) => VjpOperand::FromAttr(i),
            (InputKind::MutableAttribute(mu), None) => {
                VjpOperand::Const(mu.default.clone().ok_or_else(|| m.err(&input.name))?)
            }
            (InputKind::Value(_), _) if input.optional => VjpOperand::Value(VjpValue::Null),
            _ => return Err(m.err(&input.name)),
        };
        operands.push(operand);
    }
    let mut attributes = Vec::with_capacity(bwd.attributes.len());
    for a in bwd.attributes.iter() {
        let attr = match m.source(&a.name) {
            Some(Source::Attr(i)) => VjpAttr::Forward(i),
            _ => VjpAttr::Const(a.default.clone().ok_or_else(|| m.err(&a.name))?),
        };
        attributes.push(attr);
    }
    let outputs = bwd.outputs.iter().map(|o| m.grad_of(&o.name)).collect();
    Ok(VjpRule {
        op: bwd.op_name.clone(),
        operands: Cow::Owned(operands),
        attributes: Cow::Owned(attributes),
        outputs: Cow::Owned(outputs),
    })
}

/// One argument of an `invoke` call.
enum InvokeArg {
    Source(Source),
    Dtype(VjpValue),
    Literal(String),
}

fn invoke_rule<'s>(
    m: &Matcher<'_>,
    invoke: &str,
    lookup: &impl Fn(&str) -> Option<&'s OpSchema>,
) -> Result<VjpRule, VjpError> {
    let fail = |reason: String| VjpError::Invoke {
        op: m.fwd.op_name.to_string(),
        invoke: invoke.to_string(),
        reason,
    };
    let (name, args) = split_call(invoke).ok_or_else(|| fail("not `f(args)`".into()))?;
    let target = lookup(name)
        .filter(|t| t.kind == OpKind::Forward || t.invoke.is_none())
        .ok_or_else(|| VjpError::UnknownBackward {
            op: m.fwd.op_name.to_string(),
            backward: name.to_string(),
        })?;
    let mut parsed = Vec::with_capacity(args.len());
    for a in &args {
        parsed.push(invoke_arg(m, a).ok_or_else(|| fail(format!("argument `{a}`")))?);
    }
    // The call is positional over the target's yaml argument order.
    let params = param_order(target);
    if parsed.len() > params.len() {
        return Err(fail(format!(
            "{} arguments, `{name}` takes {}",
            parsed.len(),
            params.len()
        )));
    }
    let arg_of = |param: &str| {
        params
            .iter()
            .position(|p| *p == param)
            .and_then(|i| parsed.get(i))
    };
    let mut operands = Vec::with_capacity(target.inputs.len());
    for input in target.inputs.iter() {
        operands.push(invoke_operand(input, arg_of(&input.name), name, &fail)?);
    }
    let mut attributes = Vec::with_capacity(target.attributes.len());
    for a in target.attributes.iter() {
        attributes.push(invoke_attr(a, arg_of(&a.name), &fail)?);
    }
    // The invoked op's outputs are the backward entry's outputs, in order.
    let outputs = (0..target.outputs.len())
        .map(|k| m.bwd.outputs.get(k).and_then(|o| m.grad_of(&o.name)))
        .collect();
    Ok(VjpRule {
        op: target.op_name.clone(),
        operands: Cow::Owned(operands),
        attributes: Cow::Owned(attributes),
        outputs: Cow::Owned(outputs),
    })
}

/// The operand an `invoke` call gives `input` of the invoked op `name`: its argument `arg`
/// (a value, a forward attribute or literal for a mutable attribute), else the input's
/// default, else null for an optional input.
fn invoke_operand(
    input: &InputSpec,
    arg: Option<&InvokeArg>,
    name: &str,
    fail: &impl Fn(String) -> VjpError,
) -> Result<VjpOperand, VjpError> {
    Ok(match (arg, &input.kind) {
        (Some(InvokeArg::Source(Source::Value(v))), _) => VjpOperand::Value(*v),
        (Some(InvokeArg::Source(Source::Attr(i))), InputKind::MutableAttribute(_)) => {
            VjpOperand::FromAttr(*i)
        }
        (Some(InvokeArg::Literal(l)), InputKind::MutableAttribute(mu)) => {
            VjpOperand::Const(literal(l, mu.kind).ok_or_else(|| fail(format!("literal `{l}`")))?)
        }
        (None, InputKind::MutableAttribute(mu)) if mu.default.is_some() => {
            VjpOperand::Const(mu.default.clone().unwrap_or(DefaultValue::Int(0)))
        }
        (None, InputKind::Value(_)) if input.optional => VjpOperand::Value(VjpValue::Null),
        _ => {
            return Err(fail(format!(
                "no value for input `{}` of `{name}`",
                input.name
            )))
        }
    })
}

/// The value an `invoke` call gives attribute `a` of the invoked op: its argument `arg` (a
/// forward attribute, a value's dtype or a literal), else the attribute's default.
fn invoke_attr(
    a: &AttributeSpec,
    arg: Option<&InvokeArg>,
    fail: &impl Fn(String) -> VjpError,
) -> Result<VjpAttr, VjpError> {
    Ok(match arg {
        Some(InvokeArg::Source(Source::Attr(i))) => VjpAttr::Forward(*i),
        Some(InvokeArg::Dtype(v)) => VjpAttr::DtypeOf(*v),
        Some(InvokeArg::Literal(l)) => {
            VjpAttr::Const(literal(l, a.kind).ok_or_else(|| fail(format!("literal `{l}`")))?)
        }
        None => VjpAttr::Const(
            a.default
                .clone()
                .ok_or_else(|| fail(format!("no value for attribute `{}`", a.name)))?,
        ),
        Some(InvokeArg::Source(Source::Value(_))) => {
            return Err(fail(format!("a tensor for attribute `{}`", a.name)))
        }
    })
}

/// The names of `s`'s yaml arguments in order: tensor inputs, then attributes as written. The
/// schema keeps mutable attributes apart from the others; the kernel's (or infer-meta's)
/// parameter list, which defaults to the arguments in order, tells how they interleave.
fn param_order(s: &OpSchema) -> Vec<&str> {
    let tensors = s
        .inputs
        .iter()
        .filter(|i| matches!(i.kind, InputKind::Value(_)))
        .map(|i| &*i.name);
    let attr_names: Vec<&str> = s
        .inputs
        .iter()
        .filter(|i| matches!(i.kind, InputKind::MutableAttribute(_)))
        .map(|i| &*i.name)
        .chain(s.attributes.iter().map(|a| &*a.name))
        .collect();
    let mut out: Vec<&str> = tensors.collect();
    for list in [&s.runtime.kernel_param, &s.runtime.infer_meta_param] {
        let ordered: Vec<&str> = list
            .iter()
            .map(|p| &**p)
            .filter(|p| attr_names.contains(p))
            .collect();
        if ordered.len() == attr_names.len() {
            out.extend(ordered);
            return out;
        }
    }
    out.extend(attr_names);
    out
}

fn invoke_arg(m: &Matcher<'_>, a: &str) -> Option<InvokeArg> {
    if let Some(base) = a.strip_suffix(".dtype()") {
        return match m.source(base.trim())? {
            Source::Value(v) => Some(InvokeArg::Dtype(v)),
            Source::Attr(_) => None,
        };
    }
    let ident = a
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && a.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ident && a != "true" && a != "false" {
        // A backward argument: resolve through the backward entry's own name, which names the
        // forward value or attribute; an argument of the backward entry missing on the forward
        // side takes its default.
        if let Some(s) = m.source(a) {
            return Some(InvokeArg::Source(s));
        }
        let default = m
            .bwd
            .attributes
            .iter()
            .find(|x| x.name == a)
            .and_then(|x| x.default.clone())
            .or_else(|| {
                m.bwd
                    .inputs
                    .iter()
                    .find(|x| x.name == a)
                    .and_then(|x| match &x.kind {
                        InputKind::MutableAttribute(mu) => mu.default.clone(),
                        InputKind::Value(_) => None,
                    })
            })?;
        return Some(InvokeArg::Literal(default_text(&default)?));
    }
    Some(InvokeArg::Literal(a.to_string()))
}

/// A default value back as literal text (an `invoke` argument the forward op lacks).
fn default_text(d: &DefaultValue) -> Option<String> {
    Some(match d {
        DefaultValue::Bool(b) => b.to_string(),
        DefaultValue::Int(i) => i.to_string(),
        DefaultValue::Float(f) => format!("{f:?}"),
        DefaultValue::Str(s) => format!("\"{s}\""),
        _ => return None,
    })
}

/// An `invoke` literal (`0.0f`, `true`, `-1`, `"x"`) as a value of attribute kind `kind`.
fn literal(text: &str, kind: AttrKind) -> Option<DefaultValue> {
    let t = text.trim();
    if let Some(s) = t.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        return Some(DefaultValue::Str(Cow::Owned(s.to_string())));
    }
    match t {
        "true" => return Some(DefaultValue::Bool(true)),
        "false" => return Some(DefaultValue::Bool(false)),
        _ => {}
    }
    let num = t.trim_end_matches('f');
    let float_kind = matches!(kind, AttrKind::Float | AttrKind::Double | AttrKind::Scalar);
    if let Ok(i) = num.parse::<i64>() {
        if !float_kind || !t.contains('.') {
            return Some(DefaultValue::Int(i));
        }
    }
    num.parse::<f64>().ok().map(DefaultValue::Float)
}

/// `f( a, b.dtype(), 0.0f)` → (`f`, [`a`, `b.dtype()`, `0.0f`]).
fn split_call(text: &str) -> Option<(&str, Vec<&str>)> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let name = text[..open].trim();
    let inner = text.get(open + 1..close)?;
    (!name.is_empty()).then(|| (name, split_top(inner)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_split_at_top_level_commas() {
        let (n, a) = split_call("sum(grad_x_grad, axis, grad_x_grad.dtype(), keepdim)").unwrap();
        assert_eq!(n, "sum");
        assert_eq!(a, ["grad_x_grad", "axis", "grad_x_grad.dtype()", "keepdim"]);
        assert_eq!(split_call("conj(out_grad)").unwrap().1, ["out_grad"]);
    }

    #[test]
    fn forward_declarations_name_tensor_inputs_and_outputs_by_position() {
        let d = Declared::parse(
            "matmul_grad (Tensor x, Tensor y, Tensor grad_out, bool transpose_x = false) -> Tensor(grad_x), Tensor[](grad_y){y.size()}",
        )
        .unwrap();
        assert_eq!(d.tensors, ["x", "y", "grad_out"]);
        assert_eq!(d.outputs, ["grad_x", "grad_y"]);
        let d = Declared::parse("concat (Tensor[] x, Scalar axis=0) -> Tensor(out)").unwrap();
        assert_eq!(d.tensors, ["x"]);
    }

    #[test]
    fn literals_take_the_attribute_kind() {
        assert_eq!(
            literal("0.0f", AttrKind::Float),
            Some(DefaultValue::Float(0.0))
        );
        assert_eq!(
            literal("true", AttrKind::Bool),
            Some(DefaultValue::Bool(true))
        );
        assert_eq!(literal("-1", AttrKind::Int32), Some(DefaultValue::Int(-1)));
        assert_eq!(literal("x", AttrKind::Int32), None);
    }
}
