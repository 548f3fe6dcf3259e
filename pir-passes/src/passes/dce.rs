//! `dead_code_elimination_pass` (level 0): erases ops none of whose results is used, until
//! none is left, except ops with side effects, `pd_op.data`, `pd_op.while`, custom ops and
//! in-place ops. Unused `builtin.parameter` ops go too.
//!
//! Paddle sweeps each block until a sweep erases nothing; the set it erases is the fixed
//! point of "unused and removable", which one sweep from the last op backwards reaches: every
//! user of a value comes after its producer (later in the block, or nested in a later op), so
//! by the time the sweep reaches a producer, every user that goes has gone. An op's nested
//! blocks are swept (last first) before the op itself. The sweep keeps its place in a stack,
//! not in native recursion, so deep nesting costs heap only.

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
        let mut facts = DefCache::default();
        let mut erased = 0;
        // Per block being swept: the next op to look at (going backwards), and the op whose
        // blocks these are (looked at once they are done).
        let mut stack: Vec<(Option<OpId>, Option<OpId>)> = vec![(prog.last_op(prog.block()), None)];
        while let Some(top) = stack.last_mut() {
            let op = match top.0 {
                Some(op) => {
                    let r = prog.op(op);
                    top.0 = r.prev_op();
                    if r.num_regions() > 0 {
                        stack.push((None, Some(op)));
                        for region in r.regions() {
                            for &b in prog.region_blocks(region) {
                                // The last block is pushed last: swept first.
                                stack.push((prog.last_op(b), None));
                            }
                        }
                        continue;
                    }
                    op
                }
                None => match stack.pop().and_then(|(_, owner)| owner) {
                    Some(op) => op,
                    None => continue,
                },
            };
            if !unused(prog, op) || !removable(&mut facts, prog, op) {
                continue;
            }
            let nested = if prog.op(op).num_regions() == 0 {
                1
            } else {
                prog.walk_ops(op).count()
            };
            prog.erase_op(op).map_err(|source| PassError::Ir {
                pass: "dead_code_elimination_pass",
                source,
            })?;
            erased += nested;
        }
        Ok(PassStats::changed(erased))
    }
}
