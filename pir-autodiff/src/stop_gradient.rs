//! The `stop_gradient` attribute: read per value, and set on new ops as Paddle's builder does.

use pir_runtime::{AttrData, BlockId, OpId, Program, Value, ValueDef};

/// Whether `v` stops gradients (Paddle's `Value.stop_gradient`): its defining op's
/// `stop_gradient` entry, or a block argument's `stop_gradient` attribute; `true` when none is
/// recorded (Paddle's default).
pub fn value_stop_gradient(prog: &Program, v: Value) -> bool {
    let ctx = prog.ctx();
    let (op, index) = match prog.value_def(v) {
        ValueDef::OpResult { op, index } => (op, index),
        // A block argument's own attribute (a `while` body's `{stop_gradient:false}`).
        ValueDef::BlockArg { block, index } => {
            let Some(AttrData::Dict(entries)) = prog
                .block_arg_attrs(block, index as usize)
                .map(|a| ctx.attr_data(a))
            else {
                return true;
            };
            return entries
                .iter()
                .find(|(n, _)| &**n == "stop_gradient")
                .is_none_or(|(_, a)| !matches!(ctx.attr_data(*a), AttrData::Bool(false)));
        }
    };
    match prog.op(op).attr_data("stop_gradient") {
        Some(AttrData::Array(items)) => items
            .get(index as usize)
            .is_none_or(|&a| !matches!(ctx.attr_data(a), AttrData::Bool(false))),
        _ => true,
    }
}

/// `v`'s entry in its defining op's `stop_gradient` attribute, `default` when the op records
/// none (Paddle's `Value::attribute<BoolAttribute>` read with a fallback).
pub fn value_stop_gradient_or(prog: &Program, v: Value, default: bool) -> bool {
    let ValueDef::OpResult { op, index } = prog.value_def(v) else {
        return default;
    };
    let ctx = prog.ctx();
    match prog.op(op).attr_data("stop_gradient") {
        Some(AttrData::Array(items)) => items.get(index as usize).map_or(default, |&a| {
            matches!(ctx.attr_data(a), AttrData::Bool(true))
        }),
        _ => default,
    }
}

/// Sets `stop_gradient` on `op` as Paddle's builder does for a new op: every result stops
/// gradients unless some operand does not.
pub fn set_default(prog: &mut Program, op: OpId) -> Result<(), pir_runtime::IrError> {
    let r = prog.op(op);
    if r.num_results() == 0 {
        return Ok(());
    }
    let stop = r.operands().flatten().all(|v| value_stop_gradient(prog, v));
    let flags = vec![stop; r.num_results()];
    let attr = prog.ctx().bool_array_attr(&flags);
    prog.set_attribute(op, "stop_gradient", attr)
}

/// Sets the default `stop_gradient` on every op of `block` after `after` (all ops when `None`).
pub fn set_default_after(
    prog: &mut Program,
    block: BlockId,
    after: Option<OpId>,
) -> Result<Vec<OpId>, pir_runtime::IrError> {
    let mut next = match after {
        Some(op) => prog.op(op).next_op(),
        None => prog.first_op(block),
    };
    let mut created = Vec::new();
    while let Some(op) = next {
        set_default(prog, op)?;
        created.push(op);
        next = prog.op(op).next_op();
    }
    Ok(created)
}
