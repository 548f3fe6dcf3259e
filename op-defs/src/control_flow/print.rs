//! The custom printers of the control-flow ops, Paddle 3.3.1's `IfOp::Print`,
//! `WhileOp::Print` and `PyLayerOp::Print`, byte for byte.
//!
//! Each prints the op's own line and schedules its blocks on the printer's work stack
//! ([`Printer::defer_block_ops`]): nesting is printed without recursion.

use std::fmt;

use pir_runtime::printer::Printer;
use pir_runtime::{BlockId, OpRef, RegionId};

/// The first block of `region`, if any.
fn first_block(op: OpRef<'_>, region: RegionId) -> Option<BlockId> {
    op.program().region_blocks(region).first().copied()
}

/// `(%r) = "name"` and the op id when printing ids.
fn head(p: &mut Printer<'_>, op: OpRef<'_>) -> fmt::Result {
    p.print_op_results(op)?;
    p.write_str(" = \"")?;
    p.write_str(op.name())?;
    p.write_str("\"")?;
    p.print_op_id(op.id())
}

/// ` (%c) {attrs} -> types {` then the newline: what `if` and `pylayer` print before a block.
fn operands_attrs_types(p: &mut Printer<'_>, op: OpRef<'_>) -> fmt::Result {
    p.print_op_operands(op)?;
    p.write_str(" ")?;
    p.print_attribute_map(op.attributes())?;
    p.write_str(" -> ")?;
    p.print_result_types(op)?;
    p.write_str(" {\n")
}

/// `IfOp::Print`: `(%r) = "pd_op.if" (%c) {attrs} -> types {`, the then block, `} else {`,
/// the else block, `}`.
pub(crate) fn print_if(p: &mut Printer<'_>, op: OpRef<'_>) -> fmt::Result {
    head(p, op)?;
    operands_attrs_types(p, op)?;
    let mut regions = op.regions();
    if let Some(b) = regions.next().and_then(|r| first_block(op, r)) {
        p.defer_block_ops(b);
    }
    p.defer_line("} else {\n");
    if let Some(b) = regions.next().and_then(|r| first_block(op, r)) {
        p.defer_block_ops(b);
    }
    p.defer_line("}");
    Ok(())
}

/// `PyLayerOp::Print`: `(%r) = "pd_op.pylayer" (%x) {attrs} -> types {`, the forward block,
/// `}`.
pub(crate) fn print_pylayer(p: &mut Printer<'_>, op: OpRef<'_>) -> fmt::Result {
    head(p, op)?;
    operands_attrs_types(p, op)?;
    if let Some(b) = op.regions().next().and_then(|r| first_block(op, r)) {
        p.defer_block_ops(b);
    }
    p.defer_line("}");
    Ok(())
}

/// `WhileOp::Print`: `(%r) = "pd_op.while" (cond=%c, inputs=%a, %b) { ` and a newline, the
/// body's arguments on a `^` line at the op's indentation, the body, `}`. No attributes and
/// no result types, as in Paddle.
pub(crate) fn print_while(p: &mut Printer<'_>, op: OpRef<'_>) -> fmt::Result {
    head(p, op)?;
    p.write_str(" (cond=")?;
    p.print_value(op.operand(0))?;
    p.write_str(", inputs=")?;
    for i in 1..op.num_operands() {
        if i > 1 {
            p.write_str(", ")?;
        }
        p.print_value(op.operand(i))?;
    }
    p.write_str(") { \n")?;
    p.write_indent()?;
    p.write_str("^")?;
    let body = op.regions().next().and_then(|r| first_block(op, r));
    if let Some(b) = body {
        for (i, &a) in op.program().block_args(b).iter().enumerate() {
            if i > 0 {
                p.write_str(", ")?;
            }
            p.print_value(Some(a))?;
        }
    }
    p.write_str("\n")?;
    if let Some(b) = body {
        p.defer_block_ops(b);
    }
    p.defer_line("}");
    Ok(())
}
