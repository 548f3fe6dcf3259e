//! What Paddle's backward needs to know about control-flow ops (`backward_utils.py` and the
//! hand-written `IfOp::Vjp` of `control_flow_op.cc`):
//!
//! - an op's *real inputs* ([`real_inputs`]): for `pd_op.if` and `pd_op.pylayer` the values
//!   the op and its regions use from outside (its operands first), for `pd_op.while` its
//!   operands then the values its body uses from outside, else its operands;
//! - which real inputs carry gradients ([`grad_semantics`]);
//! - the `pd_op.if` that computes an `if`'s gradients ([`build_if_grad`]): same condition, one
//!   result per real input that wants a gradient, two empty blocks that the backward pass
//!   fills branch by branch and ends with a `cf.yield` of the branch's input gradients.

use pir_runtime::{BlockId, Builder, IrError, OpId, OperationArgs, Program, Type, Value, ValueDef};
use rustc_hash::FxHashSet;
use smallvec::SmallVec;

use crate::error::AutodiffError;

/// `pd_op.if`.
pub const IF: &str = "pd_op.if";
/// `pd_op.while`.
pub const WHILE: &str = "pd_op.while";
/// `pd_op.pylayer`.
pub const PYLAYER: &str = "pd_op.pylayer";
/// `cf.yield`.
pub const YIELD: &str = "cf.yield";
/// `cf.tuple_push`.
pub const TUPLE_PUSH: &str = "cf.tuple_push";

/// Whether `op` is `pd_op.if` or `pd_op.while` (Paddle's `is_control_flow`).
pub fn is_control_flow(prog: &Program, op: OpId) -> bool {
    matches!(prog.op(op).name(), IF | WHILE)
}

/// The blocks of `op`'s regions, in order.
pub fn blocks(prog: &Program, op: OpId) -> Vec<BlockId> {
    let r = prog.op(op);
    r.regions()
        .flat_map(|region| prog.region_blocks(region).iter().copied())
        .collect()
}

/// Paddle's `GetUsedExternalValueImpl`: appends to `used` the operands of `op` and of the ops
/// nested in it that are defined neither inside nor before (in `defined`), each once.
fn collect_external(
    prog: &Program,
    op: OpId,
    defined: &mut FxHashSet<Value>,
    used: &mut Vec<Value>,
) {
    // An explicit stack keeps deep nesting linear and recursion-free: (op, entered?).
    let mut stack: Vec<(OpId, bool)> = vec![(op, false)];
    while let Some((op, entered)) = stack.pop() {
        let r = prog.op(op);
        if entered {
            defined.extend(r.results());
            continue;
        }
        for v in r.operands().flatten() {
            if defined.insert(v) {
                used.push(v);
            }
        }
        let inner: Vec<BlockId> = blocks(prog, op);
        for &b in &inner {
            defined.extend(prog.block_args(b).iter().copied());
        }
        stack.push((op, true));
        // Push in reverse so the nested ops are visited in program order.
        let nested: Vec<OpId> = inner.iter().flat_map(|&b| prog.block_ops(b)).collect();
        stack.extend(nested.into_iter().rev().map(|o| (o, false)));
    }
}

/// Paddle's `get_used_external_value(op)`: `op`'s operands, then the values its regions use
/// from outside, in order of first use.
pub fn used_external_values(prog: &Program, op: OpId) -> Vec<Value> {
    let mut defined = FxHashSet::default();
    let mut used = Vec::new();
    collect_external(prog, op, &mut defined, &mut used);
    used
}

/// Paddle's `get_used_external_value(block)`: the values the block's ops use from outside it.
pub fn used_external_values_of_block(prog: &Program, block: BlockId) -> Vec<Value> {
    let mut defined: FxHashSet<Value> = prog.block_args(block).iter().copied().collect();
    let mut used = Vec::new();
    for op in prog.block_ops(block) {
        collect_external(prog, op, &mut defined, &mut used);
    }
    used
}

/// Paddle's `get_real_op_inputs`.
pub fn real_inputs(prog: &Program, op: OpId) -> SmallVec<[Option<Value>; 8]> {
    let r = prog.op(op);
    match r.name() {
        IF | PYLAYER => used_external_values(prog, op)
            .into_iter()
            .map(Some)
            .collect(),
        WHILE => {
            let mut v: SmallVec<[Option<Value>; 8]> = r.operands().collect();
            if let Some(&body) = blocks(prog, op).first() {
                v.extend(
                    used_external_values_of_block(prog, body)
                        .into_iter()
                        .map(Some),
                );
            }
            v
        }
        _ => r.operands().collect(),
    }
}

/// Paddle's `get_grad_semantic_info` for the ops whose inputs it cannot take from the yaml:
/// every real input carries a gradient but an `if`'s condition. `None` for other ops.
pub fn grad_semantics(prog: &Program, op: OpId) -> Option<SmallVec<[bool; 8]>> {
    let name = prog.op(op).name();
    if !matches!(name, IF | WHILE | PYLAYER | TUPLE_PUSH) {
        return None;
    }
    let mut sem: SmallVec<[bool; 8]> = SmallVec::from_elem(true, real_inputs(prog, op).len());
    if name == IF {
        if let Some(first) = sem.first_mut() {
            *first = false;
        }
    }
    Some(sem)
}

/// The `pd_op.if` computing an `if`'s gradients ([`build_if_grad`]).
#[derive(Debug, Clone)]
pub struct IfGrad {
    /// The new `pd_op.if`.
    pub op: OpId,
    /// Its then and else blocks, empty.
    pub blocks: [BlockId; 2],
    /// One gradient (a result of `op`) or `None` per non-condition input.
    pub grads: Vec<Option<Value>>,
}

/// Paddle's `IfOp::Vjp`: `pd_op.if(cond)` at `b`'s insertion point with one result per input
/// that wants a gradient (typed as the input) and two empty blocks; the condition is marked
/// `stop_gradient`. Paddle's `IfOp::Build` of this form sets no `stop_gradient` on the new op.
///
/// # Errors
///
/// [`AutodiffError::MissingOp`] when `pd_op.if` is not registered; IR errors.
pub fn build_if_grad(
    b: &mut Builder<'_>,
    cond: Value,
    inputs: &[Option<Value>],
    stops: &[bool],
) -> Result<IfGrad, AutodiffError> {
    let ctx = b.ctx().clone();
    let def = ctx
        .op_def(IF)
        .ok_or_else(|| AutodiffError::MissingOp(IF.into()))?;
    let types: Vec<Option<Type>> = inputs
        .iter()
        .zip(stops)
        .filter(|(_, &stop)| !stop)
        .map(|(v, _)| v.and_then(|v| b.program().value_type(v)))
        .collect();
    let empty = ctx.empty_dict();
    let op = b.create(OperationArgs {
        def,
        operands: &[Some(cond)],
        attributes: empty,
        result_types: &types,
        num_regions: 2,
    })?;
    let prog = b.program_mut();
    let regions: Vec<_> = prog.op(op).regions().collect();
    let then_block = prog.add_block(regions[0]);
    let else_block = prog.add_block(regions[1]);
    set_stop_gradient(prog, cond)?;
    let mut j = 0;
    let grads = stops
        .iter()
        .map(|&stop| {
            (!stop).then(|| {
                j += 1;
                prog.op(op).result(j - 1)
            })
        })
        .collect();
    Ok(IfGrad {
        op,
        blocks: [then_block, else_block],
        grads,
    })
}

/// Marks `v` as stopping gradients (Paddle's `cond.set_attribute("stop_gradient", true)`).
fn set_stop_gradient(prog: &mut Program, v: Value) -> Result<(), IrError> {
    let ValueDef::OpResult { op, index } = prog.value_def(v) else {
        return Ok(());
    };
    let ctx = prog.ctx().clone();
    let r = prog.op(op);
    let mut flags: Vec<bool> = (0..r.num_results())
        .map(|i| crate::stop_gradient::value_stop_gradient(prog, r.result(i)))
        .collect();
    flags[index as usize] = true;
    prog.set_attribute(op, "stop_gradient", ctx.bool_array_attr(&flags))
}

/// `cf.yield` of `values` at `b`'s insertion point (Paddle's `cf_yield`).
///
/// # Errors
///
/// [`AutodiffError::MissingOp`] when `cf.yield` is not registered; IR errors.
pub fn build_yield(b: &mut Builder<'_>, values: &[Value]) -> Result<OpId, AutodiffError> {
    let ctx = b.ctx().clone();
    let def = ctx
        .op_def(YIELD)
        .ok_or_else(|| AutodiffError::MissingOp(YIELD.into()))?;
    let operands: Vec<Option<Value>> = values.iter().copied().map(Some).collect();
    Ok(b.create_with(def, &operands, ctx.empty_dict(), &[], 0)?)
}
