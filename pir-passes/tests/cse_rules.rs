//! CSE's equality and safety rules on small programs (Paddle's rules as PASSES.md and
//! Paddle's `common_subexpression_elimination_pass.cc` state them): commutative ops compare
//! their two operands as a set, equality is deep through producers, ops with other attributes
//! differ, and a value `builtin.shadow_output` uses is not replaced.

use std::sync::Arc;

use pir_passes::passes::CommonSubexpressionElimination;
use pir_passes::{IrModule, Pass};
use pir_runtime::phi::DataType;
use pir_runtime::{builtin, Attribute, Builder, IrContext, Program, Value};

fn ctx() -> Arc<IrContext> {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    ctx
}

/// `name(operands)` at the end of `prog`, one result of `[-1, 8]` float32.
fn op(prog: &mut Program, name: &str, operands: &[Value], attrs: Attribute) -> Value {
    let ctx = prog.ctx().clone();
    let t = ctx.dense_tensor_type(DataType::Float32, &[-1, 8]);
    let def = ctx.op_def(name).unwrap();
    let operands: Vec<Option<Value>> = operands.iter().map(|&v| Some(v)).collect();
    let mut b = Builder::at_end(prog);
    let o = b.create_with(def, &operands, attrs, &[Some(t)], 0).unwrap();
    prog.op(o).result(0)
}

/// Two data inputs `x`, `y`.
fn inputs(prog: &mut Program) -> (Value, Value) {
    let ctx = prog.ctx().clone();
    let data = |prog: &mut Program, name: &str| {
        let attrs = ctx.dict_attr(&[("name", ctx.str_attr(name))]);
        op(prog, "pd_op.data", &[], attrs)
    };
    (data(prog, "x"), data(prog, "y"))
}

/// `pd_op.fetch` of each value (a user that does not block replacement).
fn fetch_all(prog: &mut Program, values: &[Value]) {
    let ctx = prog.ctx().clone();
    for (i, &v) in values.iter().enumerate() {
        let attrs = ctx.dict_attr(&[
            ("name", ctx.str_attr(&format!("out{i}"))),
            ("col", ctx.i32_attr(i as i32)),
        ]);
        op(prog, "pd_op.fetch", &[v], attrs);
    }
}

/// Runs CSE; returns how many ops it merged and the op names left, in order.
fn cse(prog: Program) -> (usize, Vec<&'static str>) {
    let mut m = IrModule::from(prog);
    let changes = CommonSubexpressionElimination.run(&mut m).unwrap().changes;
    let p = &m.program;
    let names = p.block_ops(p.block()).map(|o| p.op(o).name()).collect();
    (changes, names)
}

#[test]
fn commutative_operands_compare_as_a_set() {
    let ctx = ctx();
    let mut prog = Program::new(&ctx);
    let (x, y) = inputs(&mut prog);
    let e = ctx.empty_dict();
    let a = op(&mut prog, "pd_op.add", &[x, y], e);
    let b = op(&mut prog, "pd_op.add", &[y, x], e); // add commutes: merges with `a`
    let s = op(&mut prog, "pd_op.subtract", &[x, y], e);
    let t = op(&mut prog, "pd_op.subtract", &[y, x], e); // subtract does not
    fetch_all(&mut prog, &[a, b, s, t]);
    let (merged, names) = cse(prog);
    assert_eq!(merged, 1);
    assert_eq!(names.iter().filter(|n| **n == "pd_op.add").count(), 1);
    assert_eq!(names.iter().filter(|n| **n == "pd_op.subtract").count(), 2);
}

#[test]
fn equality_is_deep_and_attributes_count() {
    let ctx = ctx();
    let mut prog = Program::new(&ctx);
    let (x, _) = inputs(&mut prog);
    let e = ctx.empty_dict();
    // relu(relu(x)) twice: both levels merge, the second only because the first did.
    let r1 = op(&mut prog, "pd_op.relu", &[x], e);
    let r2 = op(&mut prog, "pd_op.relu", &[r1], e);
    let s1 = op(&mut prog, "pd_op.relu", &[x], e);
    let s2 = op(&mut prog, "pd_op.relu", &[s1], e);
    // Two transposes of one input with other permutations stay apart (`perm` is a schema
    // attribute, `int[]`; not a mutable one, which would be an operand).
    let perm = |p: [i32; 2]| {
        let items = [ctx.i32_attr(p[0]), ctx.i32_attr(p[1])];
        ctx.dict_attr(&[("perm", ctx.array_attr(&items))])
    };
    let c1 = op(&mut prog, "pd_op.transpose", &[x], perm([1, 0]));
    let c2 = op(&mut prog, "pd_op.transpose", &[x], perm([0, 1]));
    fetch_all(&mut prog, &[r2, s2, c1, c2]);
    let (merged, names) = cse(prog);
    assert_eq!(merged, 2);
    assert_eq!(names.iter().filter(|n| **n == "pd_op.relu").count(), 2);
    assert_eq!(names.iter().filter(|n| **n == "pd_op.transpose").count(), 2);
}

#[test]
fn a_value_shadow_output_uses_is_not_replaced() {
    let ctx = ctx();
    let mut prog = Program::new(&ctx);
    let (x, _) = inputs(&mut prog);
    let e = ctx.empty_dict();
    let a = op(&mut prog, "pd_op.tanh", &[x], e);
    let b = op(&mut prog, "pd_op.tanh", &[x], e); // equal to `a`, but shadow_output uses it
    let mut bld = Builder::at_end(&mut prog);
    builtin::shadow_output(&mut bld, a, "a").unwrap();
    builtin::shadow_output(&mut bld, b, "b").unwrap();
    let (merged, names) = cse(prog);
    assert_eq!(merged, 0);
    assert_eq!(names.iter().filter(|n| **n == "pd_op.tanh").count(), 2);
}
