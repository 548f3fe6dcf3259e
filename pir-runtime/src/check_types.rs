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

use crate::interfaces::{InferMeta, InferShape};
use crate::op_support::reinfer_result_types;
use crate::program::{OpId, Program};
use crate::types::{Type, TypeData, TypeDisplay};

/// One result whose recorded type differs from the re-inferred one.
///
/// ```
/// use pir_runtime::TypeDifference;
/// let d = TypeDifference {
///     op: "pd_op.relu (op 1 of block 0)".into(), result: 0, name: "out".into(),
///     recorded: "tensor<2xf32>".into(), inferred: "tensor<3xf32>".into(),
/// };
/// assert_eq!(d.to_string(), "pd_op.relu (op 1 of block 0): result 0 (`out`) is recorded as tensor<2xf32> but infers to tensor<3xf32>");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeDifference {
    /// `pd_op.conv2d (op 10 of block 0)`.
    pub op: String,
    /// Result index.
    pub result: usize,
    /// The result's name in the op's schema.
    pub name: String,
    /// The recorded type, as printed.
    pub recorded: String,
    /// The inferred type, as printed.
    pub inferred: String,
}

impl fmt::Display for TypeDifference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: result {} (`{}`) is recorded as {} but infers to {}",
            self.op, self.result, self.name, self.recorded, self.inferred
        )
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
    /// Ops that could not be checked, with why (no infer-meta function yet, ...), by op name:
    /// `(op name, reason, how many ops)`.
    pub unchecked: Vec<(String, String, usize)>,
    /// Accepted element-type differences of optional outputs.
    pub notes: Vec<TypeDifference>,
}

impl TypeCheckReport {
    /// No difference found.
    ///
    /// ```
    /// use pir_runtime::{TypeCheckReport, TypeDifference};
    /// let mut report = TypeCheckReport::default();
    /// assert!(report.is_clean());
    /// report.differences.push(TypeDifference {
    ///     op: "pd_op.relu".into(), result: 0, name: "out".into(),
    ///     recorded: "tensor<f32>".into(), inferred: "tensor<2xf32>".into(),
    /// });
    /// assert!(!report.is_clean());
    /// ```
    pub fn is_clean(&self) -> bool {
        self.differences.is_empty()
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
        for n in &self.notes {
            writeln!(
                f,
                "  note (optional output, element type not compared): {n}"
            )?;
        }
        for (op, why, n) in &self.unchecked {
            writeln!(f, "  not checked: {op} ({n} op(s)): {why}")?;
        }
        Ok(())
    }
}

fn dims_and_dtype(prog: &Program, t: Type) -> Option<(&[i64], crate::phi::DataType)> {
    match prog.ctx().type_data(t) {
        TypeData::DenseTensor(tt) | TypeData::SelectedRows(tt) => Some((&tt.dims, tt.dtype)),
        TypeData::DenseTensorArray { dims, dtype, .. } => Some((dims, *dtype)),
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
            Err(e) => {
                let why = e.to_string();
                match report
                    .unchecked
                    .iter_mut()
                    .find(|(n, w, _)| n == def.name && *w == why)
                {
                    Some(entry) => entry.2 += 1,
                    None => report.unchecked.push((def.name.to_string(), why, 1)),
                }
                continue;
            }
        };
        report.checked += 1;
        for (i, (recorded, inferred)) in r.result_types().zip(inferred).enumerate() {
            let (Some(recorded), Some(inferred)) = (recorded, inferred) else {
                continue;
            };
            let optional = schema
                .outputs
                .get(i)
                .is_some_and(|o| o.optional || o.intermediate);
            let diff = || TypeDifference {
                op: prog.describe(op),
                result: i,
                name: schema
                    .outputs
                    .get(i)
                    .map(|o| o.name.to_string())
                    .unwrap_or_default(),
                recorded: TypeDisplay {
                    ctx: prog.ctx(),
                    ty: Some(recorded),
                }
                .to_string(),
                inferred: TypeDisplay {
                    ctx: prog.ctx(),
                    ty: Some(inferred),
                }
                .to_string(),
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
