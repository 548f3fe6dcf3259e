//! DCE's fixed point on small programs, nested blocks included: an unused, removable op goes,
//! and so do the producers it leaves unused, in its block or in the blocks around it; an
//! unused op with regions goes with everything in them; `pd_op.while` stays, but its body is
//! cleaned; `cf.yield` stays (Paddle gives it `SideEffectTrait`).

use std::sync::Arc;

use op_defs::control_flow::{IF_DEF, WHILE_DEF, YIELD_DEF};
use pir_passes::passes::DeadCodeElimination;
use pir_passes::{IrModule, Pass};
use pir_runtime::phi::DataType;
use pir_runtime::{BlockId, Builder, IrContext, OpDef, OpId, Program, Value};

fn ctx() -> Arc<IrContext> {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    ctx
}

/// `def(operands)` at the end of `block`, `results` results of `[-1, 8]` float32.
fn op_in(prog: &mut Program, block: BlockId, def: &'static OpDef, operands: &[Value]) -> OpId {
    let ctx = prog.ctx().clone();
    let t = ctx.dense_tensor_type(DataType::Float32, &[-1, 8]);
    let operands: Vec<Option<Value>> = operands.iter().map(|&v| Some(v)).collect();
    let results = if def.name == "cf.yield" { 0 } else { 1 };
    let attrs = if def.name == "pd_op.data" {
        ctx.dict_attr(&[("name", ctx.str_attr("x"))])
    } else {
        ctx.empty_dict()
    };
    Builder::at_block_end(prog, block)
        .create_with(def, &operands, attrs, &vec![Some(t); results], 0)
        .unwrap()
}

fn named(prog: &mut Program, block: BlockId, name: &str, operands: &[Value]) -> Value {
    let def = prog.ctx().op_def(name).unwrap();
    let o = op_in(prog, block, def, operands);
    prog.op(o).result(0)
}

/// An op with one region of one block; returns it and the block.
fn region_op(prog: &mut Program, def: &'static OpDef, operands: &[Value]) -> (OpId, BlockId) {
    let ctx = prog.ctx().clone();
    let t = ctx.dense_tensor_type(DataType::Float32, &[-1, 8]);
    let operands: Vec<Option<Value>> = operands.iter().map(|&v| Some(v)).collect();
    let top = prog.block();
    let o = Builder::at_block_end(prog, top)
        .create_with(def, &operands, ctx.empty_dict(), &[Some(t)], 1)
        .unwrap();
    let b = prog.add_block(prog.op(o).region(0));
    (o, b)
}

fn names(p: &Program, b: BlockId) -> Vec<&'static str> {
    p.block_ops(b).map(|o| p.op(o).name()).collect()
}

fn dce(prog: Program) -> (usize, IrModule) {
    let mut m = IrModule::from(prog);
    let n = DeadCodeElimination.run(&mut m).unwrap().changes;
    (n, m)
}

#[test]
fn a_dead_chain_goes_whole() {
    let ctx = ctx();
    let mut prog = Program::new(&ctx);
    let top = prog.block();
    let x = named(&mut prog, top, "pd_op.data", &[]);
    let a = named(&mut prog, top, "pd_op.relu", &[x]);
    let b = named(&mut prog, top, "pd_op.tanh", &[a]);
    named(&mut prog, top, "pd_op.exp", &[b]); // unused: exp, tanh, relu go; data stays
    let (n, m) = dce(prog);
    assert_eq!(n, 3);
    assert_eq!(names(&m.program, top), ["pd_op.data"]);
}

#[test]
fn nested_blocks_and_the_blocks_around_them() {
    let ctx = ctx();
    let mut prog = Program::new(&ctx);
    let top = prog.block();
    let x = named(&mut prog, top, "pd_op.data", &[]);
    let outer = named(&mut prog, top, "pd_op.relu", &[x]); // used only by the dead `exp` inside
    let kept = named(&mut prog, top, "pd_op.tanh", &[x]);
    // A used `if`: its dead `exp` goes, and then `outer`.
    let (if_op, then) = region_op(&mut prog, &IF_DEF, &[x]);
    named(&mut prog, then, "pd_op.exp", &[outer]);
    let y = named(&mut prog, then, "pd_op.sigmoid", &[kept]);
    op_in(&mut prog, then, &YIELD_DEF, &[y]);
    let r = prog.op(if_op).result(0);
    named(&mut prog, top, "pd_op.fetch", &[r]);
    // An unused `if` goes with its three ops; the `while` stays, its dead `square` goes.
    let (_, dead_then) = region_op(&mut prog, &IF_DEF, &[x]);
    let z = named(&mut prog, dead_then, "pd_op.square", &[x]);
    let z = named(&mut prog, dead_then, "pd_op.square", &[z]);
    op_in(&mut prog, dead_then, &YIELD_DEF, &[z]);
    let (_, body) = region_op(&mut prog, &WHILE_DEF, &[x]);
    named(&mut prog, body, "pd_op.square", &[x]);
    op_in(&mut prog, body, &YIELD_DEF, &[x]);
    let (n, m) = dce(prog);
    let p = &m.program;
    assert_eq!(n, 1 + 1 + 4 + 1); // exp, relu, the if and its 3 ops, the square in the while
    assert_eq!(names(p, then), ["pd_op.sigmoid", "cf.yield"]);
    assert_eq!(names(p, body), ["cf.yield"]);
    assert_eq!(
        names(p, top),
        [
            "pd_op.data",
            "pd_op.tanh",
            "pd_op.if",
            "pd_op.fetch",
            "pd_op.while"
        ]
    );
}
