//! Typed builders of the control-flow ops: closures fill the regions, and the results are
//! typed from what the regions yield, as Paddle's `IfOp::Build`, `WhileOp::Build` and
//! `PyLayerOp::Build` type them.

use pir_runtime::{
    AttrData, Attribute, BlockId, BuildError, Builder, InsertPoint, IrError, Op, OpId,
    OperationArgs, Program, Type, TypeData, Value, ValueDef,
};

use super::ops::{
    IfOp, PyLayerOp, SelectInputOp, WhileOp, YieldOp, IF_DEF, PYLAYER_DEF, SELECT_INPUT_DEF,
    WHILE_DEF, YIELD_DEF,
};

const STOP_GRADIENT: &str = "stop_gradient";

/// Why a control-flow op could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ControlFlowError {
    /// An op built in a region failed.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The IR refused a change.
    #[error(transparent)]
    Ir(#[from] IrError),
    /// The then and else branches of an `if` yield different numbers of values.
    #[error("pd_op.if: the then branch yields {then} value(s) but the else branch yields {else_}")]
    BranchCount {
        /// Values the then branch yields.
        then: usize,
        /// Values the else branch yields.
        else_: usize,
    },
    /// The branches of an `if` yield values `index` of types that cannot be merged (another
    /// element type, rank, layout, or not dense tensors of one kind).
    #[error("pd_op.if: value {index} is {then} in the then branch but {else_} in the else branch")]
    BranchType {
        /// The value's index.
        index: usize,
        /// Its type in the then branch.
        then: String,
        /// Its type in the else branch.
        else_: String,
    },
    /// A `cf.tuple_pop` was built on an outlet whose stack has no single `cf.tuple_push` (or
    /// that no `cf.stack_create` defines): its results take the pushed values' types.
    #[error("cf.tuple_pop: the outlet's stack has no cf.tuple_push to type the results (build the push first)")]
    NoTuplePush,
    /// A value given to the op has no type.
    #[error("{op}: {what} has no type")]
    Untyped {
        /// The op being built.
        op: &'static str,
        /// Which value.
        what: String,
    },
}

/// What a region's closure returns: the values its block yields.
pub type Yields = Result<Vec<Value>, ControlFlowError>;

/// A value's `stop_gradient` flag as Paddle's `Value::attribute("stop_gradient")` reads it: the
/// defining op's flag for this result, or the block argument's attribute; `false` if unset.
pub fn stop_gradient(prog: &Program, v: Value) -> bool {
    let ctx = prog.ctx();
    let flag = |a: Attribute| matches!(ctx.attr_data(a), AttrData::Bool(true));
    match prog.value_def(v) {
        ValueDef::OpResult { op, index } => match prog.op(op).attr_data(STOP_GRADIENT) {
            Some(AttrData::Array(items)) => items.get(index as usize).is_some_and(|&a| flag(a)),
            _ => false,
        },
        ValueDef::BlockArg { block, index } => prog
            .block_arg_attrs(block, index as usize)
            .and_then(|d| match ctx.attr_data(d) {
                AttrData::Dict(entries) => entries
                    .iter()
                    .find(|(n, _)| &**n == STOP_GRADIENT)
                    .map(|(_, a)| flag(*a)),
                _ => None,
            })
            .unwrap_or(false),
    }
}

/// Sets a value's `stop_gradient` flag (Paddle's `Value::set_attribute`): the defining op's
/// flag array (made of `false` flags if absent) or the block argument's attribute.
pub fn set_stop_gradient(prog: &mut Program, v: Value, value: bool) -> Result<(), IrError> {
    let ctx = prog.ctx().clone();
    match prog.value_def(v) {
        ValueDef::OpResult { op, index } => {
            let r = prog.op(op);
            let mut flags: Vec<Attribute> = match r.attr_data(STOP_GRADIENT) {
                Some(AttrData::Array(items)) if items.len() == r.num_results() => items.to_vec(),
                _ => vec![ctx.bool_attr(false); r.num_results()],
            };
            flags[index as usize] = ctx.bool_attr(value);
            prog.set_attribute(op, STOP_GRADIENT, ctx.array_attr(&flags))
        }
        ValueDef::BlockArg { block, index } => {
            let attrs = ctx.dict_attr(&[(STOP_GRADIENT, ctx.bool_attr(value))]);
            prog.set_block_arg_attrs(block, index as usize, attrs);
            Ok(())
        }
    }
}

fn type_of(
    prog: &Program,
    v: Value,
    op: &'static str,
    what: &str,
) -> Result<Type, ControlFlowError> {
    prog.value_type(v).ok_or_else(|| ControlFlowError::Untyped {
        op,
        what: what.to_string(),
    })
}

/// `stop_gradient:[...]` of `values`.
fn stop_gradient_attr(prog: &Program, values: &[Value]) -> Attribute {
    let flags: Vec<bool> = values.iter().map(|&v| stop_gradient(prog, v)).collect();
    prog.ctx().bool_array_attr(&flags)
}

/// Runs `fill` with a builder at the end of `block`, then ends the block with `cf.yield` of
/// what it returns.
fn fill_block(
    prog: &mut Program,
    block: BlockId,
    fill: impl FnOnce(&mut Builder<'_>) -> Yields,
) -> Yields {
    let mut b = Builder::at_block_end(prog, block);
    let values = fill(&mut b)?;
    YieldOp::build(&mut b, &values)?;
    Ok(values)
}

/// Moves every op of `from` to the end of `to` (O(ops of `from`); nested regions move with
/// their ops).
fn move_ops(prog: &mut Program, from: BlockId, to: BlockId) -> Result<(), IrError> {
    while let Some(op) = prog.first_op(from) {
        prog.detach_op(op)?;
        prog.insert_op(op, InsertPoint::BlockEnd(to))?;
    }
    Ok(())
}

/// Builds blocks in a detached stand-in of `def` with `n` regions, so their yields type the
/// real op; returns the stand-in and its blocks.
fn stand_in(
    prog: &mut Program,
    def: &'static pir_runtime::OpDef,
    n: usize,
) -> (OpId, Vec<BlockId>) {
    let empty = prog.ctx().empty_dict();
    let op = prog
        .create_op(OperationArgs {
            def,
            operands: &[],
            attributes: empty,
            result_types: &[],
            num_regions: n,
        })
        .expect("no operands: nothing foreign");
    let regions: Vec<_> = prog.op(op).regions().collect();
    let blocks = regions.into_iter().map(|r| prog.add_block(r)).collect();
    (op, blocks)
}

/// Creates `def` at `b`'s insertion point with `regions` one-block regions and moves the
/// stand-in's ops into them, then erases the stand-in.
fn replace_stand_in(
    b: &mut Builder<'_>,
    args: OperationArgs<'_>,
    stand_in: (OpId, Vec<BlockId>),
) -> Result<OpId, ControlFlowError> {
    let op = b.create(args)?;
    let prog = b.program_mut();
    let regions: Vec<_> = prog.op(op).regions().collect();
    for (region, &from) in regions.into_iter().zip(&stand_in.1) {
        let to = prog.add_block(region);
        move_ops(prog, from, to)?;
    }
    prog.erase_op(stand_in.0)?;
    Ok(op)
}

/// The type both branches can yield as result `index` (Paddle's `IfOp::Build`: equal types,
/// or dense tensors of one element type, layout, LoD and offset whose differing dims become
/// `-1`).
fn merge_branch_types(
    prog: &Program,
    index: usize,
    t: Type,
    e: Type,
) -> Result<Type, ControlFlowError> {
    if t == e {
        return Ok(t);
    }
    let ctx = prog.ctx();
    let mismatch = || ControlFlowError::BranchType {
        index,
        then: t.display(ctx).to_string(),
        else_: e.display(ctx).to_string(),
    };
    let (TypeData::DenseTensor(a), TypeData::DenseTensor(b)) = (ctx.type_data(t), ctx.type_data(e))
    else {
        return Err(mismatch());
    };
    if a.dtype != b.dtype || a.layout != b.layout || a.lod != b.lod || a.offset != b.offset {
        return Err(mismatch());
    }
    // Paddle's ComputeCompatibleDim: another rank gives dims of -1 at the then rank.
    let dims: Vec<i64> = if a.dims.len() == b.dims.len() {
        a.dims
            .iter()
            .zip(b.dims.iter())
            .map(|(&x, &y)| if x == y { x } else { -1 })
            .collect()
    } else {
        vec![-1; a.dims.len()]
    };
    let mut meta = a.clone();
    meta.dims = dims.as_slice().into();
    Ok(ctx.tensor_type_of(&meta))
}

impl YieldOp {
    /// `cf.yield` of `values` at `b`'s insertion point.
    ///
    /// # Errors
    ///
    /// [`IrError`] if the insertion point is invalid.
    pub fn build(b: &mut Builder<'_>, values: &[Value]) -> Result<YieldOp, IrError> {
        let operands: Vec<Option<Value>> = values.iter().copied().map(Some).collect();
        let empty = b.ctx().empty_dict();
        let op = b.create_with(&YIELD_DEF, &operands, empty, &[], 0)?;
        Ok(YieldOp::from_id_unchecked(op))
    }
}

impl IfOp {
    /// `pd_op.if` of `cond`: `then_` and `else_` fill the two blocks (a builder at each block's
    /// end) and return the values to yield; the results take the then branch's types, merged
    /// with the else branch's (dims that differ become `-1`), and `stop_gradient` flags of the
    /// then branch's values, as Paddle's `IfOp::Build`. The condition's `stop_gradient` is set.
    ///
    /// # Errors
    ///
    /// What a closure returns, [`ControlFlowError::BranchCount`] /
    /// [`ControlFlowError::BranchType`] if the branches disagree.
    pub fn build(
        b: &mut Builder<'_>,
        cond: Value,
        then_: impl FnOnce(&mut Builder<'_>) -> Yields,
        else_: impl FnOnce(&mut Builder<'_>) -> Yields,
    ) -> Result<IfOp, ControlFlowError> {
        let prog = b.program_mut();
        let (tmp, blocks) = stand_in(prog, &IF_DEF, 2);
        let then_values = fill_block(prog, blocks[0], then_)?;
        let else_values = fill_block(prog, blocks[1], else_)?;
        if then_values.len() != else_values.len() {
            return Err(ControlFlowError::BranchCount {
                then: then_values.len(),
                else_: else_values.len(),
            });
        }
        let mut types = Vec::with_capacity(then_values.len());
        for (i, (&t, &e)) in then_values.iter().zip(&else_values).enumerate() {
            let tt = type_of(prog, t, "pd_op.if", &format!("then value {i}"))?;
            let et = type_of(prog, e, "pd_op.if", &format!("else value {i}"))?;
            types.push(Some(merge_branch_types(prog, i, tt, et)?));
        }
        let attrs = prog
            .ctx()
            .dict_attr(&[(STOP_GRADIENT, stop_gradient_attr(prog, &then_values))]);
        let args = OperationArgs {
            def: &IF_DEF,
            operands: &[Some(cond)],
            attributes: attrs,
            result_types: &types,
            num_regions: 2,
        };
        let op = replace_stand_in(b, args, (tmp, blocks))?;
        set_stop_gradient(b.program_mut(), cond, true)?;
        Ok(IfOp::from_id_unchecked(op))
    }
}

impl PyLayerOp {
    /// `pd_op.pylayer` of `inputs`: `forward` fills the forward block and returns the values
    /// to yield, which type the results and give their `stop_gradient` flags.
    ///
    /// # Errors
    ///
    /// What `forward` returns; [`ControlFlowError::Untyped`] for a yielded value without type.
    pub fn build(
        b: &mut Builder<'_>,
        inputs: &[Value],
        backward_function_id: i32,
        forward: impl FnOnce(&mut Builder<'_>) -> Yields,
    ) -> Result<PyLayerOp, ControlFlowError> {
        let prog = b.program_mut();
        let (tmp, blocks) = stand_in(prog, &PYLAYER_DEF, 1);
        let values = fill_block(prog, blocks[0], forward)?;
        let types = values
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                type_of(prog, v, "pd_op.pylayer", &format!("yielded value {i}")).map(Some)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let ctx = prog.ctx().clone();
        let attrs = ctx.dict_attr(&[
            ("backward_function_id", ctx.i32_attr(backward_function_id)),
            (STOP_GRADIENT, stop_gradient_attr(prog, &values)),
        ]);
        let operands: Vec<Option<Value>> = inputs.iter().copied().map(Some).collect();
        let args = OperationArgs {
            def: &PYLAYER_DEF,
            operands: &operands,
            attributes: attrs,
            result_types: &types,
            num_regions: 1,
        };
        let op = replace_stand_in(b, args, (tmp, blocks))?;
        Ok(PyLayerOp::from_id_unchecked(op))
    }
}

impl WhileOp {
    /// `pd_op.while` of `cond` over loop variables `inputs`: the results and the body's
    /// arguments take the inputs' types, and the inputs' `stop_gradient` flags (the results'
    /// `stop_gradient` attribute, the arguments' attributes), as Paddle's `WhileOp::Build`.
    /// `body` gets a builder at the body's end and the arguments, and returns the next
    /// condition and the next loop variables, which the body yields. The condition's
    /// `stop_gradient` is set.
    ///
    /// # Errors
    ///
    /// What `body` returns; [`ControlFlowError::Untyped`] for an input without type.
    pub fn build(
        b: &mut Builder<'_>,
        cond: Value,
        inputs: &[Value],
        body: impl FnOnce(&mut Builder<'_>, &[Value]) -> Result<(Value, Vec<Value>), ControlFlowError>,
    ) -> Result<WhileOp, ControlFlowError> {
        let prog = b.program_mut();
        let types = inputs
            .iter()
            .enumerate()
            .map(|(i, &v)| type_of(prog, v, "pd_op.while", &format!("input {i}")).map(Some))
            .collect::<Result<Vec<_>, _>>()?;
        let flags: Vec<bool> = inputs.iter().map(|&v| stop_gradient(prog, v)).collect();
        let ctx = prog.ctx().clone();
        let attrs = ctx.dict_attr(&[(STOP_GRADIENT, ctx.bool_array_attr(&flags))]);
        let mut operands = vec![Some(cond)];
        operands.extend(inputs.iter().copied().map(Some));
        let op = b.create(OperationArgs {
            def: &WHILE_DEF,
            operands: &operands,
            attributes: attrs,
            result_types: &types,
            num_regions: 1,
        })?;
        let prog = b.program_mut();
        let region = prog.op(op).region(0);
        let block = prog.add_block(region);
        let mut args = Vec::with_capacity(types.len());
        for (i, (&t, &flag)) in types.iter().zip(&flags).enumerate() {
            args.push(prog.add_block_arg(block, t));
            prog.set_block_arg_attrs(
                block,
                i,
                ctx.dict_attr(&[(STOP_GRADIENT, ctx.bool_attr(flag))]),
            );
        }
        fill_block(prog, block, |bb| {
            let (next, values) = body(bb, &args)?;
            let mut all = vec![next];
            all.extend(values);
            Ok(all)
        })?;
        set_stop_gradient(prog, cond, true)?;
        Ok(WhileOp::from_id_unchecked(op))
    }
}

impl SelectInputOp {
    /// `pd_op.select_input` of `mask` (int32: 0 selects `x0`, 1 selects `x1`); the result has
    /// the inputs' type, with the dims that differ `-1`.
    ///
    /// # Errors
    ///
    /// [`ControlFlowError::BranchType`] if the inputs' types cannot be merged.
    pub fn build(
        b: &mut Builder<'_>,
        mask: Value,
        x0: Value,
        x1: Value,
    ) -> Result<SelectInputOp, ControlFlowError> {
        let prog = b.program();
        let t0 = type_of(prog, x0, "pd_op.select_input", "input 1")?;
        let t1 = type_of(prog, x1, "pd_op.select_input", "input 2")?;
        let t = merge_branch_types(prog, 0, t0, t1)?;
        let empty = b.ctx().empty_dict();
        let op = b.create_with(
            &SELECT_INPUT_DEF,
            &[Some(mask), Some(x0), Some(x1)],
            empty,
            &[Some(t)],
            0,
        )?;
        Ok(SelectInputOp::from_id_unchecked(op))
    }
}
