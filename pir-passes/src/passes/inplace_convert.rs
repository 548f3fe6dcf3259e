//! The seed design's conversions between in-place and out-of-place `pd_op` ops (Paddle has no
//! reference output for them; the tests define them).
//!
//! - `inplace_to_out_of_place_pass`: `%y = relu_(%x)` becomes `%y = relu(%x)`, a fresh value,
//!   so fusion patterns written for `relu` match. Readers of `%x` after the op saw the written
//!   value, so they read `%y` instead; the program computes the same.
//! - `out_of_place_to_inplace_pass`: the inverse, where it is safe: `relu(%x)` becomes
//!   `relu_(%x)` when the op is the last reader of `%x` in its block, `%x` is made by another
//!   `pd_op` op (not `pd_op.data`, a parameter or a constant, which must keep their values) and
//!   the result has `%x`'s type. Later readers of the result keep reading it.
//!
//! Both walk each block once, with op positions computed once per block: linear.

use rustc_hash::FxHashMap;

use pir_runtime::traits::Inplace;
use pir_runtime::{BlockId, OpDef, OpId, Program};

use crate::error::PassError;
use crate::module::IrModule;
use crate::pass::{Pass, PassStats};

/// `(output, input)` index pairs a def writes in place.
fn inplace_pairs(def: &OpDef) -> Vec<(usize, usize)> {
    let Some(s) = def.schema else {
        return Vec::new();
    };
    s.runtime
        .inplace
        .iter()
        .filter_map(|(o, i)| {
            Some((
                s.outputs.iter().position(|x| x.name == *o)?,
                s.inputs.iter().position(|x| x.name == *i)?,
            ))
        })
        .collect()
}

fn blocks(prog: &Program) -> Vec<BlockId> {
    let mut out = vec![prog.block()];
    prog.walk(prog.module_op(), &mut |op| {
        for r in prog.op(op).regions() {
            out.extend_from_slice(prog.region_blocks(r));
        }
    });
    out.dedup();
    out
}

/// Swaps `op`'s definition for `def`: a new op with the same operands, attributes and result
/// types in its place, whose results take over every use.
fn swap_def(
    prog: &mut Program,
    op: OpId,
    def: &'static OpDef,
    pass: &'static str,
) -> Result<OpId, PassError> {
    let r = prog.op(op);
    let operands: Vec<_> = r.operands().collect();
    let types: Vec<_> = r.result_types().collect();
    let attrs = r.attributes();
    let old_results: Vec<_> = r.results().collect();
    let new = prog
        .create_op_at(
            pir_runtime::OperationArgs {
                def,
                operands: &operands,
                attributes: attrs,
                result_types: &types,
                num_regions: 0,
            },
            pir_runtime::InsertPoint::Before(op),
        )
        .map_err(|source| PassError::Ir { pass, source })?;
    for (i, v) in old_results.into_iter().enumerate() {
        let nv = prog.op(new).result(i);
        prog.replace_all_uses_with(v, nv);
    }
    prog.erase_op(op)
        .map_err(|source| PassError::Ir { pass, source })?;
    Ok(new)
}

/// `inplace_to_out_of_place_pass`.
#[derive(Clone, Copy, Debug, Default)]
pub struct InplaceToOutOfPlace;

const TO_OUT: &str = "inplace_to_out_of_place_pass";

impl Pass for InplaceToOutOfPlace {
    fn name(&self) -> &'static str {
        TO_OUT
    }

    fn opt_level(&self) -> u8 {
        0
    }

    fn run(&self, m: &mut IrModule) -> Result<PassStats, PassError> {
        let prog = &mut m.program;
        let ctx = prog.ctx().clone();
        let mut n = 0;
        for block in blocks(prog) {
            let ops: Vec<OpId> = prog.block_ops(block).collect();
            let pos: FxHashMap<OpId, usize> =
                ops.iter().enumerate().map(|(i, &o)| (o, i)).collect();
            for op in ops {
                let r = prog.op(op);
                if !r.has_trait::<Inplace>() || r.num_regions() > 0 {
                    continue;
                }
                let Some(base) = r.name().strip_suffix('_') else {
                    continue;
                };
                let Some(def) = ctx.op_def(base) else {
                    continue;
                };
                let pairs = inplace_pairs(r.def());
                let here = pos[&op];
                let new = swap_def(prog, op, def, TO_OUT)?;
                // Readers of a written input after the op read the result instead.
                for (o, i) in pairs {
                    let (Some(x), y) = (prog.op(new).operand(i), prog.op(new).result(o)) else {
                        continue;
                    };
                    let later =
                        |u: pir_runtime::OpOperand| prog_pos(&pos, u.op).is_some_and(|p| p > here);
                    prog.replace_uses_with_if(x, y, later);
                }
                n += 1;
            }
        }
        Ok(PassStats::changed(n))
    }
}

/// The position of `op` in its block, if it was there when the block was scanned (new ops
/// take the place of the op they replace, which readers never are).
fn prog_pos(pos: &FxHashMap<OpId, usize>, op: OpId) -> Option<usize> {
    pos.get(&op).copied()
}

/// `out_of_place_to_inplace_pass`.
#[derive(Clone, Copy, Debug, Default)]
pub struct OutOfPlaceToInplace;

const TO_IN: &str = "out_of_place_to_inplace_pass";

fn writable(prog: &Program, v: pir_runtime::Value) -> bool {
    prog.defining_op(v).is_some_and(|d| {
        let r = prog.op(d);
        r.def().dialect == "pd_op" && r.name() != "pd_op.data"
    })
}

impl Pass for OutOfPlaceToInplace {
    fn name(&self) -> &'static str {
        TO_IN
    }

    fn opt_level(&self) -> u8 {
        3
    }

    fn run(&self, m: &mut IrModule) -> Result<PassStats, PassError> {
        let prog = &mut m.program;
        let ctx = prog.ctx().clone();
        let mut n = 0;
        for block in blocks(prog) {
            let ops: Vec<OpId> = prog.block_ops(block).collect();
            for op in ops {
                let r = prog.op(op);
                if r.has_trait::<Inplace>() || r.num_regions() > 0 || r.def().dialect != "pd_op" {
                    continue;
                }
                let Some(twin) = ctx.op_def(&format!("{}_", r.name())) else {
                    continue;
                };
                if !twin.has_trait::<Inplace>() {
                    continue;
                }
                let pairs = inplace_pairs(twin);
                let ok = !pairs.is_empty()
                    && pairs.iter().all(|&(o, i)| {
                        let (Some(x), Some(y)) = (r.operand(i), r.get_result(o)) else {
                            return false;
                        };
                        prog.uses(x).all(|u| u.op == op)
                            && writable(prog, x)
                            && prog.value_type(x) == prog.value_type(y)
                    });
                if ok {
                    swap_def(prog, op, twin, TO_IN)?;
                    n += 1;
                }
            }
        }
        Ok(PassStats::changed(n))
    }
}
