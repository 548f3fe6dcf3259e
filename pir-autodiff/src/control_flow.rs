//! What Paddle's backward needs to know about control-flow ops (`backward_utils.py`,
//! `control_flow_api.cc` and the hand-written `IfOp::Vjp` / `WhileOp::Vjp` /
//! `TuplePushOp` Vjp of `control_flow_op.cc`):
//!
//! - an op's *real inputs* ([`real_inputs`]): for `pd_op.if` and `pd_op.pylayer` the values
//!   the op and its regions use from outside (its operands first), for `pd_op.while` its
//!   operands then the values its body uses from outside, else its operands;
//! - which real inputs carry gradients ([`grad_semantics`]);
//! - the pipe that carries a block's values to its backward ([`build_pipe_for_block`]: a
//!   `cf.stack_create` first in the program, a `cf.tuple_push` of the block's values before
//!   its yield; [`build_tuple_pop`] reads them back in the backward block);
//! - the `pd_op.if` that computes an `if`'s gradients ([`build_if_grad`]): same condition, one
//!   result per real input that wants a gradient, two empty blocks that the backward pass
//!   fills branch by branch and ends with a `cf.yield` of the branch's input gradients;
//! - the `pd_op.while` that computes a `while`'s gradients ([`build_while_grad`]): it loops
//!   while the forward body's stack has elements ([`build_has_elements`]), over the gradients
//!   of the inputs that want one.

use pir_runtime::{
    BlockId, Builder, InsertPoint, IrError, OpDef, OpId, OperationArgs, Program, Type, TypeKey,
    Value, ValueDef,
};
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
/// `cf.tuple_pop`.
pub const TUPLE_POP: &str = "cf.tuple_pop";
/// `cf.stack_create`.
pub const STACK_CREATE: &str = "cf.stack_create";
/// `cf.has_elements`.
pub const HAS_ELEMENTS: &str = "cf.has_elements";

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

/// The registered definition of `name`.
fn def_of(prog: &Program, name: &str) -> Result<&'static OpDef, AutodiffError> {
    prog.ctx()
        .op_def(name)
        .ok_or_else(|| AutodiffError::MissingOp(name.into()))
}

/// The `cf` type `cf.<name>` (`stack`, `inlet`, `outlet`).
fn cf_type(prog: &Program, name: &'static str) -> Type {
    prog.ctx().intern_type(TypeKey::Custom("cf", name, &[]))
}

/// The pipe Paddle's `build_pipe_for_block` lays for a control-flow block: a
/// `cf.stack_create` first in the program's top-level block and, before the block's
/// `cf.yield`, a `cf.tuple_push` of every value the block defines (its arguments, then the
/// results of its ops in order).
#[derive(Debug, Clone, Copy)]
pub struct Pipe {
    /// The `cf.stack_create`.
    pub stack: OpId,
    /// The `cf.tuple_push`.
    pub push: OpId,
}

/// Paddle's `BuildPipeForBlock` (`control_flow_api.cc`): lays a [`Pipe`] for `block`. The
/// ops carry no attributes (their `Build` sets none).
///
/// # Errors
///
/// [`AutodiffError::MissingOp`] when the `cf` ops are not registered; IR errors.
pub fn build_pipe_for_block(prog: &mut Program, block: BlockId) -> Result<Pipe, AutodiffError> {
    let create = def_of(prog, STACK_CREATE)?;
    let push_def = def_of(prog, TUPLE_PUSH)?;
    let types = [
        Some(cf_type(prog, "stack")),
        Some(cf_type(prog, "inlet")),
        Some(cf_type(prog, "outlet")),
    ];
    let empty = prog.ctx().empty_dict();
    let top = prog.block();
    let stack = Builder::new(prog, InsertPoint::BlockStart(top)).create_with(
        create,
        &[],
        empty,
        &types,
        0,
    )?;
    let inlet = prog.op(stack).result(1);
    let mut operands: Vec<Option<Value>> = vec![Some(inlet)];
    operands.extend(prog.block_args(block).iter().copied().map(Some));
    for op in prog.block_ops(block) {
        operands.extend(prog.op(op).results().map(Some));
    }
    let ip = match prog.last_op(block) {
        Some(last) if prog.op(last).name() == YIELD => InsertPoint::Before(last),
        _ => InsertPoint::BlockEnd(block),
    };
    let push = Builder::new(prog, ip).create_with(push_def, &operands, empty, &[], 0)?;
    Ok(Pipe { stack, push })
}

/// Paddle's `TuplePushOp` Vjp: a `cf.tuple_pop` of the push's stack at `b`'s insertion point,
/// one result per pushed value, typed as it (`TuplePopOp::Build`, no attributes).
///
/// # Errors
///
/// [`AutodiffError::Invalid`] when the push's inlet is not a `cf.stack_create`'s;
/// [`AutodiffError::MissingOp`]; IR errors.
pub fn build_tuple_pop(b: &mut Builder<'_>, push: OpId) -> Result<OpId, AutodiffError> {
    let prog = b.program();
    let r = prog.op(push);
    let stack = r
        .operand(0)
        .and_then(|v| prog.defining_op(v))
        .filter(|&s| prog.op(s).name() == STACK_CREATE)
        .ok_or_else(|| AutodiffError::Invalid {
            op: prog.describe(push),
            message: "its inlet is not the result of a cf.stack_create".into(),
        })?;
    let outlet = prog.op(stack).result(2);
    let types: Vec<Option<Type>> = r
        .operands()
        .skip(1)
        .map(|v| v.and_then(|v| prog.value_type(v)))
        .collect();
    let def = def_of(prog, TUPLE_POP)?;
    let empty = b.ctx().empty_dict();
    Ok(b.create_with(def, &[Some(outlet)], empty, &types, 0)?)
}

/// The last `cf.tuple_push` of `block` (Paddle's `BuildHasElementsOp` and `WhileOp::Vjp`
/// look for it from the end).
pub fn last_push(prog: &Program, block: BlockId) -> Option<OpId> {
    let mut op = prog.last_op(block);
    while let Some(o) = op {
        if prog.op(o).name() == TUPLE_PUSH {
            return Some(o);
        }
        op = prog.op(o).prev_op();
    }
    None
}

/// The stack (`cf.stack_create` result 0) of a `cf.tuple_push`.
fn stack_of_push(prog: &Program, push: OpId) -> Option<Value> {
    let inlet = prog.op(push).operand(0)?;
    let stack = prog.defining_op(inlet)?;
    (prog.op(stack).name() == STACK_CREATE).then(|| prog.op(stack).result(0))
}

/// `cf.has_elements` of the stack the last `cf.tuple_push` of `body` pushes into, at `b`'s
/// insertion point, with `stop_gradient:[true]` (Paddle's `HasElementsOp::Build`).
///
/// # Errors
///
/// [`AutodiffError::Invalid`] when `body` has no `cf.tuple_push` into a stack;
/// [`AutodiffError::MissingOp`]; IR errors.
pub fn build_has_elements(
    b: &mut Builder<'_>,
    while_op: OpId,
    body: BlockId,
) -> Result<Value, AutodiffError> {
    let prog = b.program();
    let stack = last_push(prog, body)
        .and_then(|p| stack_of_push(prog, p))
        .ok_or_else(|| AutodiffError::Invalid {
            op: prog.describe(while_op),
            message: "the forward while's body has no cf.tuple_push, so the reverse loop has \
                      no condition"
                .into(),
        })?;
    let def = def_of(prog, HAS_ELEMENTS)?;
    let ctx = b.ctx().clone();
    let attrs = ctx.dict_attr(&[("stop_gradient", ctx.bool_array_attr(&[true]))]);
    let t = ctx.dense_tensor_type(pir_runtime::phi::DataType::Bool, &[1]);
    let op = b.create_with(def, &[Some(stack)], attrs, &[Some(t)], 0)?;
    Ok(b.program().op(op).result(0))
}

/// The `pd_op.while` computing a `while`'s gradients ([`build_while_grad`]).
#[derive(Debug, Clone)]
pub struct WhileGrad {
    /// The new `pd_op.while`.
    pub op: OpId,
    /// Its body, with one argument per loop variable and no ops.
    pub body: BlockId,
    /// One gradient (a result of `op`) or `None` per real input of the forward `while`
    /// (`None` for the condition).
    pub grads: Vec<Option<Value>>,
}

/// Paddle's `WhileOp::Vjp`: `cf.has_elements` of the forward body's stack as condition, and
/// `pd_op.while` over the output gradients of the inputs that want one (`stops[i + 1]`
/// false), built as `WhileOp::Build` does (results and body arguments typed as the loop
/// variables, their `stop_gradient` flags from the loop variables', `false` where unset; the
/// condition marked `stop_gradient`).
///
/// # Errors
///
/// [`AutodiffError::Invalid`] when the condition wants a gradient, the counts disagree or the
/// body has no `cf.tuple_push`; [`AutodiffError::MissingOp`]; IR errors.
pub fn build_while_grad(
    b: &mut Builder<'_>,
    fwd: OpId,
    out_grads: &[Option<Value>],
    stops: &[bool],
) -> Result<WhileGrad, AutodiffError> {
    let invalid = |b: &Builder<'_>, message: String| AutodiffError::Invalid {
        op: b.program().describe(fwd),
        message,
    };
    if stops.len() != out_grads.len() + 1 {
        let m = format!(
            "{} inputs but {} output gradients (Paddle requires inputs = output grads + 1)",
            stops.len(),
            out_grads.len()
        );
        return Err(invalid(b, m));
    }
    if !stops.first().copied().unwrap_or(true) {
        return Err(invalid(
            b,
            "the stop_gradient of the condition input must be true".into(),
        ));
    }
    let body = blocks(b.program(), fwd)
        .first()
        .copied()
        .ok_or_else(|| invalid(b, "the forward while has no body".into()))?;
    let cond = build_has_elements(b, fwd, body)?;
    let mut loop_vars = Vec::new();
    for (i, g) in out_grads.iter().enumerate() {
        if stops[i + 1] {
            continue;
        }
        let g = g.ok_or_else(|| invalid(b, format!("output gradient {i} is missing")))?;
        loop_vars.push(g);
    }
    let prog = b.program();
    let types: Vec<Option<Type>> = loop_vars.iter().map(|&v| prog.value_type(v)).collect();
    let flags: Vec<bool> = loop_vars
        .iter()
        .map(|&v| {
            let ValueDef::OpResult { .. } = prog.value_def(v) else {
                return block_arg_stop_gradient(prog, v);
            };
            crate::stop_gradient::value_stop_gradient_or(prog, v, false)
        })
        .collect();
    let def = def_of(prog, WHILE)?;
    let ctx = b.ctx().clone();
    let attrs = ctx.dict_attr(&[("stop_gradient", ctx.bool_array_attr(&flags))]);
    let mut operands = vec![Some(cond)];
    operands.extend(loop_vars.iter().copied().map(Some));
    let op = b.create(OperationArgs {
        def,
        operands: &operands,
        attributes: attrs,
        result_types: &types,
        num_regions: 1,
    })?;
    let prog = b.program_mut();
    let region = prog.op(op).region(0);
    let body = prog.add_block(region);
    for (i, (&t, &flag)) in types.iter().zip(&flags).enumerate() {
        prog.add_block_arg(body, t);
        let attr = ctx.dict_attr(&[("stop_gradient", ctx.bool_attr(flag))]);
        prog.set_block_arg_attrs(body, i, attr);
    }
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
    Ok(WhileGrad { op, body, grads })
}

/// A block argument's `stop_gradient` attribute, `false` where unset (Paddle's
/// `Value::attribute` read by `WhileOp::Build`).
fn block_arg_stop_gradient(prog: &Program, v: Value) -> bool {
    let ValueDef::BlockArg { block, index } = prog.value_def(v) else {
        return false;
    };
    let ctx = prog.ctx();
    let Some(attrs) = prog.block_arg_attrs(block, index as usize) else {
        return false;
    };
    match ctx.attr_data(attrs) {
        pir_runtime::AttrData::Dict(entries) => entries.iter().any(|(n, a)| {
            &**n == "stop_gradient"
                && matches!(ctx.attr_data(*a), pir_runtime::AttrData::Bool(true))
        }),
        _ => false,
    }
}
