//! The verifier: every op's own verifier and its traits' verifiers, plus the structural checks
//! (an operand must be defined before its use, in the same block or an enclosing one).
//!
//! One pass over the program with a per-value mark array: linear in the number of ops and
//! operands, whatever the number of uses per value.
//!
//! ```
//! use pir_runtime::{Builder, IrContext, Program, builtin, phi::DataType, verify};
//! let ctx = IrContext::new();
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
//! let x = builtin::parameter(&mut b, "x", t).unwrap();
//! // A slice whose result type is wrong:
//! let v = builtin::combine(&mut b, &[x]).unwrap();
//! let idx = b.ctx().i32_attr(0);
//! let bad = ctx.dense_tensor_type(DataType::Int64, &[2]);
//! b.create_by_name("builtin.slice", &[Some(v)], &[("index", idx)], &[Some(bad)]).unwrap();
//! let errs = verify(&prog).unwrap_err();
//! assert_eq!(errs.0[0].to_string(),
//!     "builtin.slice (op 2 of block 0): result 0: type tensor<2xi64> differs from element 0 of the operand, tensor<2xf32>");
//! ```

use crate::error::{VerifyError, VerifyErrorKind, VerifyErrors};
use crate::program::{BlockId, OpId, OpSlots, Program};

mod structure;
pub use structure::verify_structure;

/// Verifies the whole program; `Err` lists every failure found.
///
/// ```
/// use pir_runtime::{builtin, verify, Builder, IrContext, Program, VerifyErrorKind, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// let mut b = Builder::at_end(&mut prog);
/// let x = builtin::parameter(&mut b, "x", t).unwrap();
/// builtin::shadow_output(&mut b, x, "out").unwrap();
/// verify(&prog).unwrap();
/// // Move the parameter after its use: the use now comes before the definition.
/// let p = prog.defining_op(x).unwrap();
/// prog.detach_op(p).unwrap();
/// prog.insert_op(p, pir_runtime::InsertPoint::BlockEnd(prog.block())).unwrap();
/// let errs = verify(&prog).unwrap_err();
/// assert!(matches!(*errs.0[0].kind, VerifyErrorKind::UseBeforeDefinition { operand: 0, value, .. } if value == x));
/// assert!(errs.0[0].message().starts_with("operand 0 is used before it is defined"));
/// ```
pub fn verify(prog: &Program) -> Result<(), VerifyErrors> {
    let mut v = Verifier {
        prog,
        marks: Vec::new(),
        errors: Vec::new(),
        open: Default::default(),
    };
    // The structural checks first: with a handle of another program or context, the op
    // verifiers would read out of range.
    let mut structural = Vec::new();
    if structure::check(prog, &mut structural) {
        return Err(VerifyErrors(structural));
    }
    v.marks.resize(prog.num_values_allocated(), false);
    v.block(prog.block(), false);
    v.errors.append(&mut structural);
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(VerifyErrors(v.errors))
    }
}

/// Verifies one op alone (its verifier and its traits), without the dominance checks.
///
/// ```
/// use pir_runtime::{builtin, verify_op, Builder, IrContext, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let mut b = Builder::at_end(&mut prog);
/// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// let bad = ctx.dict_attr(&[("parameter_name", ctx.i32_attr(0))]);
/// let op = b.create_with(&builtin::PARAMETER_DEF, &[], bad, &[Some(t)], 0).unwrap();
/// let e = verify_op(&prog, op).unwrap_err();
/// assert_eq!(e.message(), "attribute `parameter_name`: expected pir::StrAttribute, found pir::Int32Attribute");
/// ```
pub fn verify_op(prog: &Program, op: OpId) -> Result<(), VerifyError> {
    prog.op(op); // the identity check, once
    verify_own_op(prog, op)
}

/// [`verify_op`] for an op the program gave out (the verifier's walk).
fn verify_own_op(prog: &Program, op: OpId) -> Result<(), VerifyError> {
    let r = prog.op_own(op);
    let fail = |kind: VerifyErrorKind| failure(prog, op, kind);
    if let Some(schema) = r.def().schema {
        crate::op_support::verify_schema(r, schema).map_err(fail)?;
    }
    if let Some(f) = r.def().verify {
        f(r).map_err(fail)?;
    }
    for t in r.def().traits {
        if let Some(f) = t.verify {
            f(r).map_err(|e| {
                fail(VerifyErrorKind::Trait {
                    name: t.name,
                    error: Box::new(e),
                })
            })?;
        }
    }
    Ok(())
}

/// `kind` located at `op`: the only place the verifier formats (the location).
#[cold]
#[inline(never)]
fn failure(prog: &Program, op: OpId, kind: VerifyErrorKind) -> VerifyError {
    VerifyError {
        op,
        op_name: prog.op(op).def().name,
        location: prog.location(op),
        kind: Box::new(kind),
    }
}

struct Verifier<'a> {
    prog: &'a Program,
    marks: Vec<bool>,
    errors: Vec<VerifyError>,
    /// The ops whose regions are being verified (the enclosing ops of the current op).
    open: rustc_hash::FxHashSet<OpId>,
}

/// What is left to do, on the verifier's explicit stack (nesting costs heap, not native stack).
enum Task {
    /// A nested block: its arguments become visible, then its ops are verified.
    Enter(BlockId),
    /// Verify the ops of a block from this one on.
    Ops(Option<OpId>),
    /// An op's regions are done: its results become visible.
    Results(OpId),
    /// A nested block is done: its values are no longer visible.
    Leave(BlockId),
}

impl Verifier<'_> {
    /// Verifies `block` and everything nested in it, in program order. Values of a nested
    /// block are visible in it and in the blocks nested in it, never after it; an op's
    /// results become visible after its regions (a region may not use its op's own results).
    fn block(&mut self, block: BlockId, nested: bool) {
        let prog = self.prog;
        let mut stack = vec![if nested {
            Task::Enter(block)
        } else {
            self.define_args(block, true);
            Task::Ops(prog.first_op(block))
        }];
        while let Some(task) = stack.pop() {
            match task {
                Task::Enter(b) => {
                    self.define_args(b, true);
                    stack.push(Task::Leave(b));
                    stack.push(Task::Ops(prog.first_op(b)));
                }
                Task::Ops(mut cur) => {
                    // Ops without regions run in this loop; an op with regions suspends it.
                    while let Some(op) = cur {
                        // One look at the op's stored slots serves the walk and its checks.
                        let slots = prog.op_slots(op);
                        self.op(op, &slots);
                        cur = slots.next();
                        if slots.num_regions == 0 {
                            for r in slots.result_indices() {
                                self.marks[r] = true;
                            }
                            continue;
                        }
                        let r = prog.op_own(op);
                        stack.push(Task::Ops(cur));
                        stack.push(Task::Results(op));
                        self.open.insert(op);
                        let at = stack.len();
                        for region in r.regions() {
                            for &b in prog.region_blocks(region) {
                                stack.push(Task::Enter(b));
                            }
                        }
                        stack[at..].reverse();
                        break;
                    }
                }
                Task::Results(op) => {
                    self.open.remove(&op);
                    self.define_results(op, true);
                }
                Task::Leave(b) => {
                    self.define_args(b, false);
                    for op in prog.block_ops(b) {
                        self.define_results(op, false);
                    }
                }
            }
        }
    }

    fn define_args(&mut self, block: BlockId, visible: bool) {
        for &a in self.prog.block_args(block) {
            self.marks[a.index()] = visible;
        }
    }

    fn define_results(&mut self, op: OpId, visible: bool) {
        for r in self.prog.op_own(op).result_indices() {
            self.marks[r] = visible;
        }
    }

    /// An op's operands (each must be visible here) and its own verifiers.
    fn op(&mut self, op: OpId, slots: &OpSlots<'_>) {
        for (i, v) in slots.operand_indices().enumerate() {
            let Some(v) = v else { continue };
            if !self.marks.get(v).copied().unwrap_or(false) {
                self.undefined(op, i, slots.operand(i).expect("a value"));
            }
        }
        if let Err(e) = verify_own_op(self.prog, op) {
            self.errors.push(e);
        }
    }

    #[cold]
    fn undefined(&mut self, op: OpId, i: usize, v: crate::program::Value) {
        let prog = self.prog;
        let def = match prog.defining_op(v) {
            Some(d) if self.open.contains(&d) => format!(
                "{}, which encloses this op: an op's results exist only after its regions ran",
                prog.describe(d)
            ),
            Some(d) if prog.is_alive(d) => prog.describe(d),
            Some(_) => "an erased op".to_string(),
            None => "a block argument".to_string(),
        };
        self.errors.push(failure(
            prog,
            op,
            VerifyErrorKind::UseBeforeDefinition {
                operand: i,
                value: v,
                defined_by: def,
            },
        ));
    }
}
