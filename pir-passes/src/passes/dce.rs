//! `dead_code_elimination_pass` (level 0): erases ops none of whose results is used, until
//! none is left, except ops with side effects, `pd_op.data`, `pd_op.while`, custom ops and
//! in-place ops. Unused `builtin.parameter` ops go too.
//!
//! Paddle sweeps each block until a sweep erases nothing; the set it erases is the fixed
//! point of "unused and removable", which a worklist reaches in one walk: when an op goes, the
//! producers of its operands are looked at again.

use pir_runtime::{OpId, Program};

use crate::error::PassError;
use crate::module::IrModule;
use crate::pass::{Pass, PassStats};
use crate::passes::util::DefCache;

/// The pass.
///
/// ```
/// use pir_passes::{passes::DeadCodeElimination, IrModule, Pass};
/// use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let mut b = Builder::at_end(&mut prog);
/// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// let x = builtin::parameter(&mut b, "x", t).unwrap();
/// let v = builtin::combine(&mut b, &[x, x]).unwrap(); // unused, and so is x after it goes
/// let mut m = IrModule::from(prog);
/// assert_eq!(DeadCodeElimination.run(&mut m).unwrap().changes, 2);
/// assert_eq!(m.program.block_len(m.program.block()), 0);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct DeadCodeElimination;

/// Whether DCE may erase `op` once it is unused.
fn removable(facts: &mut DefCache, prog: &Program, op: OpId) -> bool {
    let f = facts.get(prog.op(op).def());
    !(f.side_effect || f.dce_keeps || f.inplace)
}

fn unused(prog: &Program, op: OpId) -> bool {
    prog.op(op).results().all(|v| !prog.has_uses(v))
}

impl Pass for DeadCodeElimination {
    fn name(&self) -> &'static str {
        "dead_code_elimination_pass"
    }

    fn opt_level(&self) -> u8 {
        0
    }

    fn run(&self, m: &mut IrModule) -> Result<PassStats, PassError> {
        let prog = &mut m.program;
        let mut order = Vec::new();
        let module = prog.module_op();
        prog.walk(module, &mut |op| order.push(op));
        // Users come after producers: look at the last ops first, so a chain goes in one walk.
        let mut stack: Vec<OpId> = order;
        let mut erased = 0;
        let mut producers = Vec::new();
        let mut facts = DefCache::default();
        while let Some(op) = stack.pop() {
            if op == module
                || !prog.is_alive(op)
                || !unused(prog, op)
                || !removable(&mut facts, prog, op)
            {
                continue;
            }
            // Producers of the operands of the op and of the ops nested in it.
            producers.clear();
            let flat = prog.op(op).num_regions() == 0;
            let mut add_producers = |o: OpId| {
                for v in prog.op(o).operands().flatten() {
                    if let Some(d) = prog.defining_op(v) {
                        producers.push(d);
                    }
                }
            };
            if flat {
                add_producers(op);
            } else {
                prog.walk(op, &mut add_producers);
            }
            let nested = if flat {
                1
            } else {
                let mut n = 0;
                prog.walk(op, &mut |_| n += 1);
                n
            };
            prog.erase_op(op).map_err(|source| PassError::Ir {
                pass: "dead_code_elimination_pass",
                source,
            })?;
            erased += nested;
            stack.extend(producers.drain(..).rev());
        }
        Ok(PassStats::changed(erased))
    }
}
