//! What the verifier reports: [`VerifyError`] (which op, where) and [`VerifyErrorKind`] (what).

use std::borrow::Cow;
use std::fmt;

use crate::program::{OpId, Value};

use super::{PrintedType, Slot};

/// One verification failure: the op, where it is, and what is wrong.
///
/// The verifier fills in the op and its location; verifiers return only the
/// [`VerifyErrorKind`].
///
/// ```
/// use pir_runtime::{builtin, verify_op, Builder, IrContext, Program, VerifyError, VerifyErrorKind};
/// use pir_runtime::phi::DataType;
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// let mut b = Builder::at_end(&mut prog);
/// let op = b.create_with(&builtin::PARAMETER_DEF, &[], ctx.empty_dict(), &[Some(t)], 0).unwrap();
/// let err: VerifyError = verify_op(&prog, op).unwrap_err();
/// assert_eq!((err.op, err.op_name, err.location.as_str()), (op, "builtin.parameter", "op 0 of block 0"));
/// assert!(matches!(*err.kind, VerifyErrorKind::MissingAttribute { name: "parameter_name", .. }));
/// assert_eq!(err.to_string(), "builtin.parameter (op 0 of block 0): \
///     attribute `parameter_name` is missing (expected pir::StrAttribute)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{op_name} ({location}): {kind}")]
pub struct VerifyError {
    /// The op.
    pub op: OpId,
    /// The op's name (`pd_op.conv2d`).
    pub op_name: &'static str,
    /// Where it is: `op 3 of block 0` (nested blocks add ` of region R of <op> in op N ...`).
    pub location: String,
    /// What is wrong (boxed: the error stays small, whatever the kind).
    pub kind: Box<VerifyErrorKind>,
}

impl VerifyError {
    /// What is wrong, as text (the message without the op and its location).
    ///
    /// ```
    /// use pir_runtime::{builtin, verify, Builder, IrContext, Program};
    /// let ctx = IrContext::new();
    /// let mut prog = Program::new(&ctx);
    /// let mut b = Builder::at_end(&mut prog);
    /// b.create_with(&builtin::SHADOW_OUTPUT_DEF, &[None], ctx.empty_dict(), &[], 0).unwrap();
    /// let errs = verify(&prog).unwrap_err();
    /// assert_eq!(errs.0[0].message(), "operand 0 is null");
    /// ```
    pub fn message(&self) -> String {
        self.kind.to_string()
    }
}

/// What a verifier found wrong with an op: what passes and tools match on. Its `Display` is the
/// message (without the op and its location, which [`VerifyError`] adds).
///
/// Verifiers ([`VerifyFn`](crate::op_def::VerifyFn), trait verifiers) return one of these;
/// free text converts into [`Custom`](VerifyErrorKind::Custom) (`Err("...".into())`,
/// `Err(format!(..).into())`).
///
/// ```
/// use pir_runtime::{Slot, VerifyErrorKind};
/// let k = VerifyErrorKind::OperandCount { expected: 2, found: 1, names: Some(vec!["x", "y"]) };
/// assert_eq!(k.to_string(), "expected 2 operand(s) (x, y), found 1");
/// let k = VerifyErrorKind::NullOperand { index: 0, name: None };
/// assert_eq!(k.to_string(), "operand 0 is null");
/// let k = VerifyErrorKind::Trait {
///     name: "SameOperandsShapeTrait",
///     error: Box::new(VerifyErrorKind::Mismatch {
///         what: "shape",
///         value: Slot::Operand(1), found: "[3]".into(),
///         other: Slot::Operand(0), other_found: "[2]".into(),
///     }),
/// };
/// assert_eq!(k.to_string(), "SameOperandsShapeTrait: operand 1 has shape [3], but operand 0 has [2]");
/// let k: VerifyErrorKind = format!("axis {} is negative", -1).into();
/// assert_eq!(k, VerifyErrorKind::Custom("axis -1 is negative".into()));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyErrorKind {
    /// The op has the wrong number of operands.
    OperandCount {
        /// How many it must have.
        expected: usize,
        /// How many it has.
        found: usize,
        /// The inputs' names, when the op has a schema.
        names: Option<Vec<&'static str>>,
    },
    /// The op has the wrong number of results.
    ResultCount {
        /// How many it must have.
        expected: usize,
        /// How many it has.
        found: usize,
        /// The outputs' names, when the op has a schema.
        names: Option<Vec<&'static str>>,
    },
    /// The op has the wrong number of regions.
    RegionCount {
        /// How many it must have.
        expected: usize,
        /// How many it has.
        found: usize,
    },
    /// A required operand is null.
    NullOperand {
        /// Operand index.
        index: usize,
        /// The input's name, when the op has a schema (the message then says the input is not
        /// optional).
        name: Option<&'static str>,
    },
    /// An operand's type is not of the kind the op takes.
    OperandType {
        /// Operand index.
        index: usize,
        /// The input's name, when the op has a schema.
        name: Option<&'static str>,
        /// What it must be (`paddle::dialect::DenseTensorType`, `a vector type`).
        expected: Cow<'static, str>,
        /// What it is.
        found: PrintedType,
    },
    /// A result's type is not of the kind the op produces.
    ResultType {
        /// Result index.
        index: usize,
        /// The output's name, when the op has a schema.
        name: Option<&'static str>,
        /// What it must be.
        expected: Cow<'static, str>,
        /// What it is.
        found: PrintedType,
    },
    /// A required attribute is missing.
    MissingAttribute {
        /// Its name.
        name: &'static str,
        /// Its kind (`pir::StrAttribute`), when the op says.
        expected: Option<&'static str>,
    },
    /// An attribute is of the wrong kind.
    AttributeType {
        /// Its name.
        name: &'static str,
        /// The kind it must be (`pir::Int32Attribute`).
        expected: &'static str,
        /// The kind it is.
        found: &'static str,
        /// Its value as printed, when the message shows it.
        value: Option<String>,
    },
    /// An attribute has the right kind but an invalid value.
    AttributeValue {
        /// Its name.
        name: &'static str,
        /// What is wrong with the value.
        problem: String,
    },
    /// A vector operand or result whose length does not match the op's results or operands
    /// (`builtin.combine`, `builtin.split`).
    VectorLength {
        /// The vector value.
        vector: Slot,
        /// Its number of elements.
        elements: usize,
        /// The number it must have: the op's results (a vector operand) or operands (a vector
        /// result).
        expected: usize,
    },
    /// A value's type differs from the element of a vector on the other side of the op
    /// (`builtin.combine`, `split`, `slice`).
    ElementType {
        /// The value.
        value: Slot,
        /// Its type.
        found: PrintedType,
        /// The element's index in the vector (the vector is a result when `value` is an
        /// operand, an operand when it is a result).
        element: usize,
        /// The element's type.
        expected: PrintedType,
    },
    /// Two values that must agree (in shape, element type or type) do not.
    Mismatch {
        /// What must agree: `shape`, `element type`, `type`.
        what: &'static str,
        /// The value that differs.
        value: Slot,
        /// Its property, as printed.
        found: String,
        /// The first value it is compared with.
        other: Slot,
        /// That value's property, as printed.
        other_found: String,
    },
    /// An operand used before its definition, or outside the block that defines it.
    UseBeforeDefinition {
        /// Operand index.
        operand: usize,
        /// The value used.
        value: Value,
        /// What defines it (`pd_op.relu (op 3 of block 0)`, `a block argument`, `an erased
        /// op`).
        defined_by: String,
    },
    /// A region's block does not end with the terminator the op needs (`cf.yield`).
    MissingTerminator {
        /// The region's index.
        region: usize,
        /// The terminator it needs.
        expected: &'static str,
    },
    /// A region yields another number of values than the op needs.
    YieldCount {
        /// The region's index.
        region: usize,
        /// How many it must yield.
        expected: usize,
        /// How many it yields.
        found: usize,
    },
    /// A region yields a value of another type than the op's matching result.
    YieldType {
        /// The region's index.
        region: usize,
        /// The yielded value's index.
        index: usize,
        /// The type it must have (the op's result or loop variable).
        expected: PrintedType,
        /// Its type.
        found: PrintedType,
    },
    /// A condition (an `if`'s operand, a `while`'s operand or the first value its body
    /// yields) is not a bool dense tensor.
    ConditionType {
        /// Where it is (`operand 0`, `the value the body yields first`).
        what: &'static str,
        /// Its type.
        found: PrintedType,
    },
    /// A value that pairs two ops (a `cf.stack_create`'s inlet or outlet) must have exactly
    /// one use.
    UseCount {
        /// The value, as the op sees it.
        value: Slot,
        /// What it is (`the inlet`, `the outlet`).
        what: &'static str,
        /// How many uses it has.
        found: usize,
    },
    /// A `cf.tuple_pop` pops another number of values than its stack's `cf.tuple_push` pushes.
    PopCount {
        /// Values pushed.
        pushed: usize,
        /// Values popped.
        popped: usize,
    },
    /// A `cf.tuple_pop` result's type differs from the value pushed at its place.
    PopType {
        /// The element's index.
        index: usize,
        /// The type pushed.
        pushed: PrintedType,
        /// The type popped.
        popped: PrintedType,
    },
    /// A trait's verifier failed.
    Trait {
        /// The trait's Paddle name (`OneResultTrait`).
        name: &'static str,
        /// What it found.
        error: Box<VerifyErrorKind>,
    },
    /// Free text, from a verifier that has no better kind.
    Custom(String),
}

impl VerifyErrorKind {
    /// The operand or result the error is about, if one (through [`Trait`](Self::Trait)): for
    /// [`Mismatch`](Self::Mismatch), the value that differs.
    ///
    /// ```
    /// use pir_runtime::{Slot, VerifyErrorKind};
    /// let k = VerifyErrorKind::NullOperand { index: 2, name: Some("bias") };
    /// assert_eq!(k.slot(), Some(Slot::Operand(2)));
    /// let t = VerifyErrorKind::Trait { name: "OneResultTrait", error: Box::new("two results".into()) };
    /// assert_eq!(t.slot(), None);
    /// ```
    pub fn slot(&self) -> Option<Slot> {
        use VerifyErrorKind as K;
        match self {
            K::NullOperand { index, .. } | K::OperandType { index, .. } => {
                Some(Slot::Operand(*index))
            }
            K::UseBeforeDefinition { operand, .. } => Some(Slot::Operand(*operand)),
            K::ResultType { index, .. } | K::PopType { index, .. } => Some(Slot::Result(*index)),
            K::UseCount { value, .. } => Some(*value),
            K::VectorLength { vector: slot, .. }
            | K::ElementType { value: slot, .. }
            | K::Mismatch { value: slot, .. } => Some(*slot),
            K::Trait { error, .. } => error.slot(),
            _ => None,
        }
    }

    /// The attribute the error is about, if one (through [`Trait`](Self::Trait)).
    ///
    /// ```
    /// use pir_runtime::VerifyErrorKind;
    /// let k = VerifyErrorKind::MissingAttribute { name: "axis", expected: None };
    /// assert_eq!(k.attribute(), Some("axis"));
    /// assert_eq!(VerifyErrorKind::Custom("x".into()).attribute(), None);
    /// ```
    pub fn attribute(&self) -> Option<&'static str> {
        use VerifyErrorKind as K;
        match self {
            K::MissingAttribute { name, .. }
            | K::AttributeType { name, .. }
            | K::AttributeValue { name, .. } => Some(name),
            K::Trait { error, .. } => error.attribute(),
            _ => None,
        }
    }
}

impl From<String> for VerifyErrorKind {
    fn from(message: String) -> VerifyErrorKind {
        VerifyErrorKind::Custom(message)
    }
}

impl From<&str> for VerifyErrorKind {
    fn from(message: &str) -> VerifyErrorKind {
        VerifyErrorKind::Custom(message.to_string())
    }
}

/// `expected 2 operand(s) (x, y), found 1`; without names, `expected 2 operand(s), found 1`.
fn write_count(
    f: &mut fmt::Formatter<'_>,
    what: &str,
    expected: usize,
    found: usize,
    names: Option<&[&str]>,
) -> fmt::Result {
    write!(f, "expected {expected} {what}(s)")?;
    if let Some(names) = names {
        write!(f, " ({})", names.join(", "))?;
    }
    write!(f, ", found {found}")
}

/// `operand 1 (`y`)`, or `operand 1` without a name.
fn write_slot(f: &mut fmt::Formatter<'_>, slot: Slot, name: Option<&str>) -> fmt::Result {
    write!(f, "{slot}")?;
    match name {
        Some(n) => write!(f, " (`{n}`)"),
        None => Ok(()),
    }
}

impl fmt::Display for VerifyErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use VerifyErrorKind as K;
        match self {
            K::OperandCount {
                expected,
                found,
                names,
            } => write_count(f, "operand", *expected, *found, names.as_deref()),
            K::ResultCount {
                expected,
                found,
                names,
            } => write_count(f, "result", *expected, *found, names.as_deref()),
            K::RegionCount { expected, found } => {
                let s = if *expected == 1 { "" } else { "s" };
                write!(f, "expected {expected} region{s}, found {found}")
            }
            K::NullOperand {
                index,
                name: Some(n),
            } => write!(
                f,
                "operand {index} (`{n}`) is null but the input is not optional"
            ),
            K::NullOperand { index, name: None } => write!(f, "operand {index} is null"),
            K::OperandType {
                index,
                name,
                expected,
                found,
            } => {
                write_slot(f, Slot::Operand(*index), *name)?;
                write!(f, ": expected {expected}, found {found}")
            }
            K::ResultType {
                index,
                name,
                expected,
                found,
            } => {
                write_slot(f, Slot::Result(*index), *name)?;
                write!(f, ": expected {expected}, found {found}")
            }
            K::MissingAttribute { name, expected } => {
                write!(f, "attribute `{name}` is missing")?;
                match expected {
                    Some(e) => write!(f, " (expected {e})"),
                    None => Ok(()),
                }
            }
            K::AttributeType {
                name,
                expected,
                found,
                value,
            } => {
                write!(f, "attribute `{name}`: expected {expected}, found {found}")?;
                match value {
                    Some(v) => write!(f, " {v}"),
                    None => Ok(()),
                }
            }
            K::AttributeValue { name, problem } => write!(f, "attribute `{name}`: {problem}"),
            K::VectorLength {
                vector: Slot::Result(i),
                elements,
                expected,
            } => write!(
                f,
                "result {i}: the vector has {elements} element(s) but the op has {expected} operand(s)"
            ),
            K::VectorLength {
                vector: Slot::Operand(_),
                elements,
                expected,
            } => write!(
                f,
                "the vector operand has {elements} element(s) but the op has {expected} result(s)"
            ),
            K::ElementType {
                value,
                found,
                element,
                expected,
            } => {
                let vector = match value {
                    Slot::Operand(_) => "result",
                    Slot::Result(_) => "operand",
                };
                write!(
                    f,
                    "{value}: type {found} differs from element {element} of the {vector}, {expected}"
                )
            }
            K::Mismatch {
                what,
                value,
                found,
                other,
                other_found,
            } => write!(
                f,
                "{value} has {what} {found}, but {other} has {other_found}"
            ),
            K::UseBeforeDefinition {
                operand,
                defined_by,
                ..
            } => write!(
                f,
                "operand {operand} is used before it is defined, or outside the block that defines it (defined by {defined_by})"
            ),
            K::UseCount { value, what, found } => write!(
                f,
                "{value} ({what}) must have exactly one use, found {found}"
            ),
            K::PopCount { pushed, popped } => write!(
                f,
                "pops {popped} value(s) but the stack's cf.tuple_push pushes {pushed}"
            ),
            K::PopType {
                index,
                pushed,
                popped,
            } => write!(
                f,
                "element {index} is popped as {popped} but pushed as {pushed}"
            ),
            K::MissingTerminator { region, expected } => write!(
                f,
                "region {region}: the block must end with `{expected}`"
            ),
            K::YieldCount {
                region,
                expected,
                found,
            } => write!(
                f,
                "region {region} yields {found} value(s) but the op needs {expected}"
            ),
            K::YieldType {
                region,
                index,
                expected,
                found,
            } => write!(
                f,
                "region {region} yields {found} as value {index}, but the op needs {expected}"
            ),
            K::ConditionType { what, found } => write!(
                f,
                "{what} must be a bool dense tensor, found {found}"
            ),
            K::Trait { name, error } => write!(f, "{name}: {error}"),
            K::Custom(m) => f.write_str(m),
        }
    }
}

/// Every verification failure of a program.
///
/// ```
/// use pir_runtime::{builtin, verify, Builder, IrContext, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// let mut b = Builder::at_end(&mut prog);
/// b.create_with(&builtin::PARAMETER_DEF, &[], ctx.empty_dict(), &[Some(t)], 0).unwrap();
/// b.create_with(&builtin::SHADOW_OUTPUT_DEF, &[None], ctx.empty_dict(), &[], 0).unwrap();
/// let errs = verify(&prog).unwrap_err();
/// assert_eq!(errs.0.len(), 2);
/// assert_eq!(errs.to_string(), "2 verification errors\n  \
///     builtin.parameter (op 0 of block 0): attribute `parameter_name` is missing (expected pir::StrAttribute)\n  \
///     builtin.shadow_output (op 1 of block 0): operand 0 is null");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyErrors(pub Vec<VerifyError>);

impl fmt::Display for VerifyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.len();
        write!(f, "{n} verification error{}", if n == 1 { "" } else { "s" })?;
        for e in &self.0 {
            write!(f, "\n  {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyErrors {}
