//! The definitions and typed handles of the control-flow ops.

use pir_runtime::op_def::{sort_traits, TraitEntry};
use pir_runtime::traits::SideEffect;
use pir_runtime::{BlockId, OpDef, OpId, Program, Value};

use super::{print, verify};

/// `pd_op.if`: `(cond) -> results`, a then region and an else region of one block each,
/// each ending with a `cf.yield` of the results.
pub static IF_DEF: OpDef = OpDef {
    attribute_names: &["stop_gradient"],
    verify: Some(verify::check_if),
    print: Some(print::print_if),
    ..OpDef::new("pd_op.if", "pd_op")
};

/// `pd_op.while`: `(cond, inputs...) -> results`, one body block whose arguments are the loop
/// variables; the body yields the next condition, then the next loop variables.
pub static WHILE_DEF: OpDef = OpDef {
    attribute_names: &["stop_gradient"],
    verify: Some(verify::check_while),
    print: Some(print::print_while),
    ..OpDef::new("pd_op.while", "pd_op")
};

/// `pd_op.pylayer`: `(inputs...) -> results`, a forward block ending with a `cf.yield` of the
/// results; `backward_function_id` names the Python backward function.
pub static PYLAYER_DEF: OpDef = OpDef {
    attribute_names: &["backward_function_id", "stop_gradient"],
    verify: Some(verify::check_pylayer),
    print: Some(print::print_pylayer),
    ..OpDef::new("pd_op.pylayer", "pd_op")
};

/// `pd_op.select_input`: `(mask, x0, x1) -> out`, `x0` or `x1` by the int32 mask.
pub static SELECT_INPUT_DEF: OpDef = OpDef {
    verify: Some(verify::check_select_input),
    ..OpDef::new("pd_op.select_input", "pd_op")
};

/// `pd_op.select_output`: `(mask, x) -> (out0, out1)`, `x` to the output the mask selects.
pub static SELECT_OUTPUT_DEF: OpDef = OpDef {
    verify: Some(verify::check_select_output),
    ..OpDef::new("pd_op.select_output", "pd_op")
};

/// `cf.yield`: `(values...) -> ()`, the terminator of a control-flow region: what the region
/// gives back to its op. Paddle declares it `Op<YieldOp, SideEffectTrait>` (cf_op.h), so
/// dead-code elimination keeps a region's terminator.
pub static YIELD_DEF: OpDef = OpDef {
    traits: &YIELD_TRAITS,
    verify: Some(verify::check_yield),
    ..OpDef::new("cf.yield", "cf")
};

static YIELD_TRAITS: [TraitEntry; 1] = sort_traits([TraitEntry::of::<SideEffect>()]);

handle!(
    /// A `pd_op.if` (see [`IfOp::build`]).
    IfOp,
    IF_DEF
);
handle!(
    /// A `pd_op.while` (see [`WhileOp::build`]).
    WhileOp,
    WHILE_DEF
);
handle!(
    /// A `pd_op.pylayer` (see [`PyLayerOp::build`]).
    PyLayerOp,
    PYLAYER_DEF
);
handle!(
    /// A `pd_op.select_input` (see [`SelectInputOp::build`]).
    SelectInputOp,
    SELECT_INPUT_DEF
);
handle!(
    /// A `pd_op.select_output`.
    SelectOutputOp,
    SELECT_OUTPUT_DEF
);
handle!(
    /// A `cf.yield` (see [`YieldOp::build`]).
    YieldOp,
    YIELD_DEF
);

/// The one block of region `i` of `op`.
fn block_of(prog: &Program, op: OpId, i: usize) -> BlockId {
    prog.region_blocks(prog.op(op).region(i))[0]
}

impl IfOp {
    /// The condition.
    pub fn cond(self, prog: &Program) -> Value {
        prog.op(self.0)
            .operand(0)
            .expect("pd_op.if has a condition")
    }

    /// The block run when the condition holds.
    pub fn then_block(self, prog: &Program) -> BlockId {
        block_of(prog, self.0, 0)
    }

    /// The block run otherwise.
    pub fn else_block(self, prog: &Program) -> BlockId {
        block_of(prog, self.0, 1)
    }

    /// The results.
    pub fn results(self, prog: &Program) -> Vec<Value> {
        prog.op(self.0).results().collect()
    }
}

impl WhileOp {
    /// The condition the loop starts with.
    pub fn cond(self, prog: &Program) -> Value {
        prog.op(self.0)
            .operand(0)
            .expect("pd_op.while has a condition")
    }

    /// The body.
    pub fn body(self, prog: &Program) -> BlockId {
        block_of(prog, self.0, 0)
    }

    /// The loop variables' final values.
    pub fn results(self, prog: &Program) -> Vec<Value> {
        prog.op(self.0).results().collect()
    }
}

impl PyLayerOp {
    /// The forward block.
    pub fn forward_block(self, prog: &Program) -> BlockId {
        block_of(prog, self.0, 0)
    }

    /// The results.
    pub fn results(self, prog: &Program) -> Vec<Value> {
        prog.op(self.0).results().collect()
    }
}

impl SelectInputOp {
    /// The selected value.
    pub fn out(self, prog: &Program) -> Value {
        prog.op(self.0).result(0)
    }
}
