//! The verifiers of the control-flow ops: Paddle 3.3.1's `VerifySig` and `VerifyRegion` of
//! `IfOp`, `WhileOp`, `PyLayerOp`, `SelectInputOp` and `SelectOutputOp`, plus the checks Paddle
//! leaves commented out (the types a region yields). Each failure is a named
//! [`VerifyErrorKind`].
//!
//! Types *agree* as Paddle's `WhileOp::VerifySig` compares them: equal, or dense tensors of one
//! element type, layout, LoD and offset and one rank whose dims are equal wherever neither is
//! `-1` (a loop variable or a branch result may be dynamic where the other is static).

use pir_runtime::phi::DataType;
use pir_runtime::{BlockId, OpRef, PrintedType, Slot, Type, TypeData, Value, VerifyErrorKind};

/// `cf.yield`'s name, the terminator of every control-flow region.
pub(crate) const YIELD: &str = "cf.yield";

/// Whether `found` may stand where `expected` is required (see the module doc).
pub fn types_agree(ctx: &pir_runtime::IrContext, expected: Type, found: Type) -> bool {
    if expected == found {
        return true;
    }
    match (ctx.type_data(expected), ctx.type_data(found)) {
        (TypeData::DenseTensor(a), TypeData::DenseTensor(b)) => {
            a.dtype == b.dtype
                && a.layout == b.layout
                && a.lod == b.lod
                && a.offset == b.offset
                && a.dims.len() == b.dims.len()
                && a.dims
                    .iter()
                    .zip(b.dims.iter())
                    .all(|(&x, &y)| x == y || x == -1 || y == -1)
        }
        _ => false,
    }
}

fn printed(op: OpRef<'_>, ty: Option<Type>) -> PrintedType {
    PrintedType::new(op.ctx(), ty)
}

/// A condition must be a bool dense tensor (Paddle checks the element type, not the shape).
fn check_condition(
    op: OpRef<'_>,
    v: Option<Value>,
    what: &'static str,
) -> Result<(), VerifyErrorKind> {
    let ty = v.and_then(|v| op.program().value_type(v));
    let ok = ty.is_some_and(|t| {
        matches!(op.ctx().type_data(t), TypeData::DenseTensor(tt) if tt.dtype == DataType::Bool)
    });
    if ok {
        Ok(())
    } else {
        Err(VerifyErrorKind::ConditionType {
            what,
            found: printed(op, ty),
        })
    }
}

fn operand_count(op: OpRef<'_>, expected: usize) -> Result<(), VerifyErrorKind> {
    if op.num_operands() == expected {
        Ok(())
    } else {
        Err(VerifyErrorKind::OperandCount {
            expected,
            found: op.num_operands(),
            names: None,
        })
    }
}

fn result_count(op: OpRef<'_>, expected: usize) -> Result<(), VerifyErrorKind> {
    if op.num_results() == expected {
        Ok(())
    } else {
        Err(VerifyErrorKind::ResultCount {
            expected,
            found: op.num_results(),
            names: None,
        })
    }
}

fn region_count(op: OpRef<'_>, expected: usize) -> Result<(), VerifyErrorKind> {
    if op.num_regions() == expected {
        Ok(())
    } else {
        Err(VerifyErrorKind::RegionCount {
            expected,
            found: op.num_regions(),
        })
    }
}

/// The one block of region `i` (Paddle's regions of control flow hold exactly one).
fn single_block(op: OpRef<'_>, i: usize) -> Result<BlockId, VerifyErrorKind> {
    match op.program().region_blocks(op.region(i)) {
        [b] => Ok(*b),
        blocks => Err(format!(
            "region {i} must have exactly one block, found {}",
            blocks.len()
        )
        .into()),
    }
}

/// The values region `i`'s block yields: its last op must be `cf.yield`.
fn yielded(op: OpRef<'_>, i: usize) -> Result<Vec<Option<Value>>, VerifyErrorKind> {
    let prog = op.program();
    let block = single_block(op, i)?;
    match prog.last_op(block).map(|o| prog.op(o)) {
        Some(last) if last.name() == YIELD => Ok(last.operands().collect()),
        _ => Err(VerifyErrorKind::MissingTerminator {
            region: i,
            expected: YIELD,
        }),
    }
}

/// Region `region` yields values agreeing with `expected` (in count and types).
fn check_yields(
    op: OpRef<'_>,
    region: usize,
    values: &[Option<Value>],
    expected: &[Option<Type>],
) -> Result<(), VerifyErrorKind> {
    if values.len() != expected.len() {
        return Err(VerifyErrorKind::YieldCount {
            region,
            expected: expected.len(),
            found: values.len(),
        });
    }
    let prog = op.program();
    for (index, (v, want)) in values.iter().zip(expected).enumerate() {
        let found = v.and_then(|v| prog.value_type(v));
        let ok = match (*want, found) {
            (Some(w), Some(f)) => types_agree(op.ctx(), w, f),
            (w, f) => w == f,
        };
        if !ok {
            return Err(VerifyErrorKind::YieldType {
                region,
                index,
                expected: printed(op, *want),
                found: printed(op, found),
            });
        }
    }
    Ok(())
}

/// `pd_op.if`: one bool condition, two regions of one block each; when the op has results,
/// each block ends with a `cf.yield` of as many values, of the results' types.
pub(crate) fn check_if(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    operand_count(op, 1)?;
    check_condition(op, op.operand(0), "operand 0 (`cond`)")?;
    region_count(op, 2)?;
    let results: Vec<Option<Type>> = op.result_types().collect();
    for region in 0..2 {
        let block = single_block(op, region)?;
        if results.is_empty() && op.program().block_len(block) == 0 {
            continue; // Paddle allows an `if` without results to leave a branch empty.
        }
        check_yields(op, region, &yielded(op, region)?, &results)?;
    }
    Ok(())
}

/// `pd_op.pylayer`: one region of one block ending with a `cf.yield` of the results.
pub(crate) fn check_pylayer(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    region_count(op, 1)?;
    let results: Vec<Option<Type>> = op.result_types().collect();
    check_yields(op, 0, &yielded(op, 0)?, &results)
}

/// `pd_op.while`: operands `cond, inputs...`, one result per input agreeing with it, one
/// body block with one argument per input; the body yields the next condition first (a
/// bool tensor), then one value per loop variable.
pub(crate) fn check_while(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    if op.num_operands() == 0 {
        return Err(VerifyErrorKind::OperandCount {
            expected: 1,
            found: 0,
            names: Some(vec!["cond"]),
        });
    }
    check_condition(op, op.operand(0), "operand 0 (`cond`)")?;
    region_count(op, 1)?;
    let n = op.num_operands() - 1;
    result_count(op, n)?;
    let prog = op.program();
    let ctx = op.ctx();
    for i in 0..n {
        let (input, result) = (op.operand_type(i + 1), op.result_type(i));
        if let (Some(a), Some(r)) = (input, result) {
            if !types_agree(ctx, a, r) {
                return Err(VerifyErrorKind::Mismatch {
                    what: "type",
                    value: Slot::Result(i),
                    found: printed(op, result).to_string(),
                    other: Slot::Operand(i + 1),
                    other_found: printed(op, input).to_string(),
                });
            }
        }
    }
    let body = single_block(op, 0)?;
    let args = prog.block_args(body);
    if args.len() != n {
        return Err(format!(
            "the body has {} block argument(s) but the loop has {n} input(s)",
            args.len()
        )
        .into());
    }
    let values = yielded(op, 0)?;
    let Some((cond, rest)) = values.split_first() else {
        return Err(VerifyErrorKind::YieldCount {
            region: 0,
            expected: n + 1,
            found: 0,
        });
    };
    check_condition(
        op,
        *cond,
        "the body's first yielded value (the loop condition)",
    )?;
    let arg_types: Vec<Option<Type>> = args.iter().map(|&a| prog.value_type(a)).collect();
    if rest.len() != n {
        return Err(VerifyErrorKind::YieldCount {
            region: 0,
            expected: n + 1,
            found: values.len(),
        });
    }
    // Index the yields as the body does: value 0 is the condition.
    check_yields(op, 0, rest, &arg_types).map_err(|e| match e {
        VerifyErrorKind::YieldType {
            region,
            index,
            expected,
            found,
        } => VerifyErrorKind::YieldType {
            region,
            index: index + 1,
            expected,
            found,
        },
        e => e,
    })
}

/// `cf.yield`: no results, and the last op of a block nested in an op.
pub(crate) fn check_yield(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    result_count(op, 0)?;
    let prog = op.program();
    if op.next_op().is_some() {
        return Err("cf.yield must be the last op of its block".into());
    }
    let parent = op
        .parent_block()
        .and_then(|b| prog.block_parent(b))
        .and_then(|r| prog.region_parent(r));
    if parent.is_none_or(|p| p == prog.module_op()) {
        return Err("cf.yield must be inside the region of an op (if, while, pylayer)".into());
    }
    Ok(())
}

/// Two dense tensors that must agree in element type, layout, LoD and offset (Paddle's
/// `SelectInputOp` / `SelectOutputOp` checks); other types must be equal.
fn check_same_kind(
    op: OpRef<'_>,
    a: (Slot, Option<Type>),
    b: (Slot, Option<Type>),
) -> Result<(), VerifyErrorKind> {
    let ctx = op.ctx();
    let same = match (a.1, b.1) {
        (Some(x), Some(y)) => match (ctx.type_data(x), ctx.type_data(y)) {
            (TypeData::DenseTensor(p), TypeData::DenseTensor(q)) => {
                p.dtype == q.dtype && p.layout == q.layout && p.lod == q.lod && p.offset == q.offset
            }
            _ => x == y,
        },
        (x, y) => x == y,
    };
    if same {
        Ok(())
    } else {
        Err(VerifyErrorKind::Mismatch {
            what: "type",
            value: b.0,
            found: printed(op, b.1).to_string(),
            other: a.0,
            other_found: printed(op, a.1).to_string(),
        })
    }
}

/// `pd_op.select_input`: `(mask, x0, x1) -> out`, the two inputs of one kind.
pub(crate) fn check_select_input(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    operand_count(op, 3)?;
    result_count(op, 1)?;
    region_count(op, 0)?;
    check_same_kind(
        op,
        (Slot::Operand(1), op.operand_type(1)),
        (Slot::Operand(2), op.operand_type(2)),
    )
}

/// `pd_op.select_output`: `(mask, x) -> (out0, out1)`, the two outputs of one kind.
pub(crate) fn check_select_output(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    operand_count(op, 2)?;
    result_count(op, 2)?;
    region_count(op, 0)?;
    check_same_kind(
        op,
        (Slot::Result(0), op.result_type(0)),
        (Slot::Result(1), op.result_type(1)),
    )
}
