//! `check-types`: re-run every op's infer-meta on its operands and attributes and compare with
//! the result types the program records.
//!
//! A result is compared when it is produced (its recorded type is not null) and the function
//! sets it. Dims and element type must both match, except for *optional* outputs, whose
//! element type may legitimately follow the legacy variable a translated program took it from
//! (batch_norm's reserve space is `f32` in legacy programs, `u8` in native PIR): for those, only
//! the dims must match, and an element-type difference is reported as a note. Layout, LoD and
//! offset are not compared (the text format does not show them either).
//!
//! ```
//! use pir_runtime::{check_types, IrContext, Program};
//! let ctx = IrContext::new();
//! let prog = Program::new(&ctx);
//! let report = check_types(&prog);
//! assert!(report.is_clean());
//! ```

use std::fmt;

use crate::error::{BuildError, PrintedType};
use crate::interfaces::{InferMeta, InferShape};
use crate::op_support::reinfer_result_types;
use crate::phi::DataType;
use crate::program::{OpId, Program};
use crate::types::{Type, TypeData};

/// One result whose recorded type differs from the re-inferred one.
///
/// ```
/// use pir_runtime::{builtin, Builder, IrContext, PrintedType, Program, TypeDifference, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let (t2, t3) = (ctx.dense_tensor_type(DataType::Float32, &[2]), ctx.dense_tensor_type(DataType::Float32, &[3]));
/// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t2).unwrap();
/// let d = TypeDifference {
///     op: prog.defining_op(x).unwrap(), op_name: "pd_op.relu", location: "op 1 of block 0".into(),
///     result: 0, name: "out",
///     recorded: PrintedType::new(&ctx, Some(t2)), inferred: PrintedType::new(&ctx, Some(t3)),
/// };
/// assert_eq!(d.to_string(), "pd_op.relu (op 1 of block 0): result 0 (`out`) is recorded as tensor<2xf32> but infers to tensor<3xf32>");
/// assert_eq!(d.inferred.ty, Some(t3)); // the handle, to fix the program with
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeDifference {
    /// The op.
    pub op: OpId,
    /// The op's name (`pd_op.conv2d`).
    pub op_name: &'static str,
    /// Where it is (`op 10 of block 0`).
    pub location: String,
    /// Result index.
    pub result: usize,
    /// The result's name in the op's schema.
    pub name: &'static str,
    /// The recorded type.
    pub recorded: PrintedType,
    /// The inferred type.
    pub inferred: PrintedType,
}

impl fmt::Display for TypeDifference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): result {} (`{}`) is recorded as {} but infers to {}",
            self.op_name, self.location, self.result, self.name, self.recorded, self.inferred
        )
    }
}

/// An op whose infer-meta function refuses its recorded operands and attributes.
///
/// ```
/// use pir_runtime::{BuildError, InferRefusal, OpId};
/// # let ctx = pir_runtime::IrContext::new();
/// # let prog = pir_runtime::Program::new(&ctx);
/// let r = InferRefusal {
///     op: prog.module_op(),
///     op_name: "pd_op.add",
///     location: "op 3 of block 0".into(),
///     results: vec!["out"],
///     reason: BuildError::InferMeta { op: "pd_op.add", func: "ElementwiseInferMeta", message: "x and y differ".into() },
/// };
/// assert_eq!(r.to_string(), "pd_op.add (op 3 of block 0): result(s) (`out`) cannot be inferred: \
///     pd_op.add (ElementwiseInferMeta): x and y differ");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InferRefusal {
    /// The op.
    pub op: OpId,
    /// Its name.
    pub op_name: &'static str,
    /// Where it is.
    pub location: String,
    /// Its outputs' names.
    pub results: Vec<&'static str>,
    /// What infer-meta said.
    pub reason: BuildError,
}

impl fmt::Display for InferRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): result(s) (`{}`) cannot be inferred: {}",
            self.op_name,
            self.location,
            self.results.join("`, `"),
            self.reason
        )
    }
}

/// Ops of one name that `check_types` could not check, for one reason.
///
/// ```
/// use pir_runtime::{BuildError, UncheckedOps};
/// let u = UncheckedOps {
///     op: "pd_op.conv2d",
///     reason: BuildError::InferMetaMissing { op: "pd_op.conv2d", func: "ConvInferMeta" },
///     count: 3,
/// };
/// assert!(u.to_string().starts_with("pd_op.conv2d (3 op(s)): pd_op.conv2d: infer-meta function `ConvInferMeta` is not implemented"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UncheckedOps {
    /// The op name.
    pub op: &'static str,
    /// Why re-inferring failed (no infer-meta function yet, an attribute that does not read, ...).
    pub reason: BuildError,
    /// How many ops.
    pub count: usize,
}

impl fmt::Display for UncheckedOps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({} op(s)): {}", self.op, self.count, self.reason)
    }
}

/// What `check_types` found.
///
/// ```
/// use pir_runtime::{builtin, check_types, Builder, IrContext, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// builtin::parameter(&mut Builder::at_end(&mut prog), "w", t).unwrap();
/// let report = check_types(&prog);
/// assert_eq!(report.checked, 0); // builtin ops have no infer-meta
/// assert!(report.is_clean() && report.unchecked.is_empty());
/// assert_eq!(report.to_string(), "check-types: 0 op(s) checked, 0 difference(s), 0 op kind(s) not checked\n");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TypeCheckReport {
    /// Ops whose results were compared.
    pub checked: usize,
    /// Results that differ.
    pub differences: Vec<TypeDifference>,
    /// Ops that could not be checked, grouped by op name and reason.
    pub unchecked: Vec<UncheckedOps>,
    /// Accepted element-type differences of optional outputs.
    pub notes: Vec<TypeDifference>,
    /// Ops whose infer-meta refuses their operands and attributes (Paddle would not have
    /// built them, so none of their recorded result types can be right).
    pub refused: Vec<InferRefusal>,
}

impl TypeCheckReport {
    /// No difference found.
    ///
    /// ```
    /// use pir_runtime::TypeCheckReport;
    /// assert!(TypeCheckReport::default().is_clean());
    /// ```
    pub fn is_clean(&self) -> bool {
        self.differences.is_empty() && self.refused.is_empty()
    }
}

impl fmt::Display for TypeCheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "check-types: {} op(s) checked, {} difference(s), {} op kind(s) not checked",
            self.checked,
            self.differences.len(),
            self.unchecked.len()
        )?;
        for d in &self.differences {
            writeln!(f, "  differs: {d}")?;
        }
        for r in &self.refused {
            writeln!(f, "  refused: {r}")?;
        }
        for n in &self.notes {
            writeln!(
                f,
                "  note (optional output, element type not compared): {n}"
            )?;
        }
        for u in &self.unchecked {
            writeln!(f, "  not checked: {u}")?;
        }
        Ok(())
    }
}

fn dims_and_dtype(prog: &Program, t: Type) -> Option<(&[i64], crate::phi::DataType)> {
    match prog.ctx().type_data(t) {
        TypeData::DenseTensor(tt) | TypeData::SelectedRows(tt) => Some((&tt.dims, tt.dtype)),
        TypeData::DenseTensorArray { dims, dtype, .. } => Some((dims, *dtype)),
        TypeData::SparseCoo(s) => Some((&s.dims, s.dtype)),
        TypeData::SparseCsr(s) => Some((&s.dims, s.dtype)),
        _ => None,
    }
}

/// Whether two types agree on what `check_types` compares: `Some(true)` equal, `Some(false)`
/// equal dims but another element type, `None` different.
fn agree(prog: &Program, a: Type, b: Type) -> Option<bool> {
    if a == b {
        return Some(true);
    }
    let ctx = prog.ctx();
    match (ctx.type_data(a), ctx.type_data(b)) {
        (TypeData::Vector(x), TypeData::Vector(y)) => {
            if x.len() != y.len() {
                return None;
            }
            let mut same_dtype = true;
            for (&p, &q) in x.iter().zip(y.iter()) {
                // A null element (a legacy `@EMPTY@` output, held as the undefined element
                // type) is not produced: like a null result, it is not compared.
                if matches!(ctx.type_data(p), TypeData::Scalar(DataType::Undefined)) {
                    continue;
                }
                same_dtype &= agree(prog, p, q)?;
            }
            Some(same_dtype)
        }
        _ => {
            let (da, ta) = dims_and_dtype(prog, a)?;
            let (db, tb) = dims_and_dtype(prog, b)?;
            (da == db).then_some(ta == tb)
        }
    }
}

/// Re-infers every op's result types and compares them with the recorded ones.
///
/// ```
/// use pir_runtime::{builtin, check_types, Builder, IrContext, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let mut b = Builder::at_end(&mut prog);
/// let x = builtin::parameter(&mut b, "x", ctx.dense_tensor_type(DataType::Float32, &[2])).unwrap();
/// builtin::shadow_output(&mut b, x, "out").unwrap();
/// // Only ops generated with an InferMeta/InferShape interface are compared.
/// assert_eq!(check_types(&prog).checked, 0);
/// ```
pub fn check_types(prog: &Program) -> TypeCheckReport {
    let mut report = TypeCheckReport::default();
    let mut ops = Vec::new();
    prog.walk(prog.module_op(), &mut |o: OpId| ops.push(o));
    for op in ops {
        let r = prog.op(op);
        let def = r.def();
        let Some(schema) = def.schema else { continue };
        if !def.has_interface::<InferMeta>() && !def.has_interface::<InferShape>() {
            continue;
        }
        let inferred = match reinfer_result_types(r) {
            Ok(t) => t,
            Err(reason @ BuildError::InferMeta { .. }) => {
                // The function ran and refused the operands: Paddle would not build the op.
                report.refused.push(InferRefusal {
                    op,
                    op_name: def.name,
                    location: prog.location(op),
                    results: schema.outputs.iter().map(|o| &*o.name).collect(),
                    reason,
                });
                continue;
            }
            Err(reason) => {
                match report
                    .unchecked
                    .iter_mut()
                    .find(|u| u.op == def.name && u.reason == reason)
                {
                    Some(entry) => entry.count += 1,
                    None => report.unchecked.push(UncheckedOps {
                        op: def.name,
                        reason,
                        count: 1,
                    }),
                }
                continue;
            }
        };
        report.checked += 1;
        for (i, (recorded, inferred)) in r.result_types().zip(inferred).enumerate() {
            let (Some(recorded), Some(inferred)) = (recorded, inferred) else {
                continue;
            };
            let output = schema.outputs.get(i);
            let optional = output.is_some_and(|o| o.optional || o.intermediate);
            let diff = || TypeDifference {
                op,
                op_name: def.name,
                location: prog.location(op),
                result: i,
                name: output.map(|o| &*o.name).unwrap_or_default(),
                recorded: PrintedType::new(prog.ctx(), Some(recorded)),
                inferred: PrintedType::new(prog.ctx(), Some(inferred)),
            };
            match agree(prog, recorded, inferred) {
                Some(true) => {}
                Some(false) if optional => report.notes.push(diff()),
                _ => report.differences.push(diff()),
            }
        }
    }
    report
}
