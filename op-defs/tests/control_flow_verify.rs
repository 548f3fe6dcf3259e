//! The verifier on control flow built wrongly, one test per rule, each pinned to its named
//! error; and a hundred thousand nested `pd_op.if`s verified, printed, walked and erased with
//! no recursion (a generator builds them here).

use op_defs::control_flow::{IfOp, WhileOp, YieldOp, IF_DEF, WHILE_DEF};
use pir_runtime::phi::DataType;
use pir_runtime::{
    verify, BlockId, Builder, Op, OpId, Program, Slot, Value, VerifyError, VerifyErrorKind,
};

#[path = "common/fixtures.rs"]
mod fixtures;
use fixtures::{context, data};

/// A `pd_op.if` of `cond` with explicit result types and empty blocks (built by hand, as a
/// pass or a reader might, with no checks).
fn raw_if(prog: &mut Program, cond: Value, results: &[DataType]) -> (OpId, BlockId, BlockId) {
    let ctx = prog.ctx().clone();
    let types: Vec<_> = results
        .iter()
        .map(|&d| Some(ctx.dense_tensor_type(d, &[4])))
        .collect();
    let op = Builder::at_end(prog)
        .create_with(&IF_DEF, &[Some(cond)], ctx.empty_dict(), &types, 2)
        .unwrap();
    let r: Vec<_> = prog.op(op).regions().collect();
    (op, prog.add_block(r[0]), prog.add_block(r[1]))
}

fn yield_in(prog: &mut Program, block: BlockId, values: &[Value]) {
    YieldOp::build(&mut Builder::at_block_end(prog, block), values).unwrap();
}

/// The only error `verify` finds.
fn only_error(prog: &Program) -> VerifyError {
    let mut errs = verify(prog).expect_err("the program must not verify").0;
    assert_eq!(errs.len(), 1, "{errs:?}");
    errs.remove(0)
}

struct Fixture {
    prog: Program,
    x: Value,
    i: Value,
    c: Value,
}

fn fixture() -> Fixture {
    let mut prog = Program::new(&context());
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", DataType::Float32, &[4]);
    let i = data(&mut b, "i", DataType::Int32, &[4]);
    let c = data(&mut b, "c", DataType::Bool, &[]);
    Fixture { prog, x, i, c }
}

#[test]
fn a_well_formed_if_verifies() {
    let Fixture { mut prog, x, c, .. } = fixture();
    let (_, t, e) = raw_if(&mut prog, c, &[DataType::Float32]);
    yield_in(&mut prog, t, &[x]);
    yield_in(&mut prog, e, &[x]);
    verify(&prog).unwrap();
}

#[test]
fn a_yield_of_the_wrong_arity() {
    let Fixture { mut prog, x, c, .. } = fixture();
    let (_, t, e) = raw_if(&mut prog, c, &[DataType::Float32]);
    yield_in(&mut prog, t, &[x]);
    yield_in(&mut prog, e, &[x, x]);
    let err = only_error(&prog);
    assert_eq!(
        *err.kind,
        VerifyErrorKind::YieldCount {
            region: 1,
            expected: 1,
            found: 2
        }
    );
    assert_eq!(
        err.to_string(),
        "pd_op.if (op 3 of block 0): region 1 yields 2 value(s) but the op needs 1"
    );
}

#[test]
fn a_yield_of_the_wrong_type() {
    let Fixture { mut prog, x, i, c } = fixture();
    let (_, t, e) = raw_if(&mut prog, c, &[DataType::Float32]);
    yield_in(&mut prog, t, &[i]);
    yield_in(&mut prog, e, &[x]);
    let err = only_error(&prog);
    assert!(matches!(
        *err.kind,
        VerifyErrorKind::YieldType {
            region: 0,
            index: 0,
            ..
        }
    ));
    assert_eq!(
        err.message(),
        "region 0 yields tensor<4xi32> as value 0, but the op needs tensor<4xf32>"
    );
}

#[test]
fn a_missing_yield() {
    let Fixture { mut prog, x, c, .. } = fixture();
    let (_, t, _) = raw_if(&mut prog, c, &[DataType::Float32]);
    yield_in(&mut prog, t, &[x]);
    let err = only_error(&prog);
    assert_eq!(
        err.message(),
        "region 1: the block must end with `cf.yield`"
    );
}

#[test]
fn a_non_boolean_condition() {
    let Fixture { mut prog, x, .. } = fixture();
    let (_, t, e) = raw_if(&mut prog, x, &[DataType::Float32]);
    yield_in(&mut prog, t, &[x]);
    yield_in(&mut prog, e, &[x]);
    let err = only_error(&prog);
    assert!(matches!(*err.kind, VerifyErrorKind::ConditionType { .. }));
    assert_eq!(
        err.message(),
        "operand 0 (`cond`) must be a bool dense tensor, found tensor<4xf32>"
    );
}

#[test]
fn a_use_outside_its_definitions_scope() {
    let Fixture { mut prog, x, c, .. } = fixture();
    // `inner` is defined in the then block, and used after the if, at the top level.
    let (if_op, t, e) = raw_if(&mut prog, c, &[]);
    let inner = data(
        &mut Builder::at_block_end(&mut prog, t),
        "in",
        DataType::Float32,
        &[4],
    );
    yield_in(&mut prog, t, &[]);
    yield_in(&mut prog, e, &[]);
    // Values of enclosing blocks are visible in regions: `x` is used in the else block.
    let _ = if_op;
    let mut b = Builder::at_end(&mut prog);
    let ctx = b.ctx().clone();
    let relu = ctx.op_def("pd_op.relu").unwrap();
    let ty = Some(ctx.dense_tensor_type(DataType::Float32, &[4]));
    let attrs = ctx.empty_dict();
    b.create_with(relu, &[Some(inner)], attrs, &[ty], 0)
        .unwrap();
    let mut eb = Builder::at_block_end(&mut prog, e);
    eb.set_insertion_point(pir_runtime::InsertPoint::BlockStart(e));
    eb.create_with(relu, &[Some(x)], attrs, &[ty], 0).unwrap();
    let err = only_error(&prog);
    assert!(matches!(
        *err.kind,
        VerifyErrorKind::UseBeforeDefinition { operand: 0, value, .. } if value == inner
    ));
    assert_eq!(err.op_name, "pd_op.relu");
    assert_eq!(err.location, "op 4 of block 0");
}

#[test]
fn a_value_of_one_branch_used_in_the_other() {
    let Fixture { mut prog, c, .. } = fixture();
    let (_, t, e) = raw_if(&mut prog, c, &[DataType::Float32]);
    let inner = data(
        &mut Builder::at_block_end(&mut prog, t),
        "in",
        DataType::Float32,
        &[4],
    );
    yield_in(&mut prog, t, &[inner]);
    yield_in(&mut prog, e, &[inner]);
    let err = only_error(&prog);
    assert!(matches!(
        *err.kind,
        VerifyErrorKind::UseBeforeDefinition { .. }
    ));
    assert_eq!(err.op_name, "cf.yield");
}

#[test]
fn a_region_using_its_ops_own_result() {
    let Fixture { mut prog, x, c, .. } = fixture();
    let (op, t, e) = raw_if(&mut prog, c, &[DataType::Float32]);
    let own = prog.op(op).result(0);
    yield_in(&mut prog, t, &[own]);
    yield_in(&mut prog, e, &[x]);
    let err = only_error(&prog);
    assert_eq!(err.kind.slot(), Some(Slot::Operand(0)));
    assert!(
        matches!(*err.kind, VerifyErrorKind::UseBeforeDefinition { value, .. } if value == own)
    );
    assert!(err.message().contains("which encloses this op"), "{err}");
}

/// A `pd_op.while` over `x` whose body yields `first` then the loop variable.
fn raw_while(prog: &mut Program, cond: Value, x: Value, first: impl FnOnce(Value) -> Value) {
    let ctx = prog.ctx().clone();
    let ty = prog.value_type(x);
    let op = Builder::at_end(prog)
        .create_with(
            &WHILE_DEF,
            &[Some(cond), Some(x)],
            ctx.empty_dict(),
            &[ty],
            1,
        )
        .unwrap();
    let body = prog.add_block(prog.op(op).region(0));
    let arg = prog.add_block_arg(body, ty);
    let f = first(arg);
    yield_in(prog, body, &[f, arg]);
}

#[test]
fn a_while_body_must_yield_its_condition_first() {
    let Fixture { mut prog, x, c, .. } = fixture();
    raw_while(&mut prog, c, x, |_| c);
    verify(&prog).unwrap();
    let Fixture { mut prog, x, c, .. } = fixture();
    raw_while(&mut prog, c, x, |arg| arg);
    let err = only_error(&prog);
    assert_eq!(
        err.message(),
        "the body's first yielded value (the loop condition) must be a bool dense tensor, found tensor<4xf32>"
    );
    let Fixture { mut prog, x, .. } = fixture();
    raw_while(&mut prog, x, x, |arg| arg);
    let errs = verify(&prog).unwrap_err();
    assert!(errs.0[0]
        .message()
        .starts_with("operand 0 (`cond`) must be a bool dense tensor"));
}

#[test]
fn a_while_whose_body_yields_too_few_values() {
    let Fixture { mut prog, x, c, .. } = fixture();
    let ctx = prog.ctx().clone();
    let ty = prog.value_type(x);
    let op = Builder::at_end(&mut prog)
        .create_with(&WHILE_DEF, &[Some(c), Some(x)], ctx.empty_dict(), &[ty], 1)
        .unwrap();
    let body = prog.add_block(prog.op(op).region(0));
    prog.add_block_arg(body, ty);
    yield_in(&mut prog, body, &[c]);
    assert_eq!(
        *only_error(&prog).kind,
        VerifyErrorKind::YieldCount {
            region: 0,
            expected: 2,
            found: 1
        }
    );
}

#[test]
fn builders_make_what_verifies() {
    let Fixture { mut prog, x, c, .. } = fixture();
    let mut b = Builder::at_end(&mut prog);
    let r = IfOp::build(&mut b, c, |_| Ok(vec![x]), |_| Ok(vec![x])).unwrap();
    let v = r.results(b.program())[0];
    let w = WhileOp::build(&mut b, c, &[v], |_, args| Ok((c, vec![args[0]]))).unwrap();
    verify(&prog).unwrap();
    assert_eq!(prog.op(w.id()).num_results(), 1);
}

/// `depth` `pd_op.if`s, each in the then block of the one before, each with an empty else.
fn nested_ifs(depth: usize) -> (Program, OpId) {
    let mut prog = Program::new(&context());
    let mut b = Builder::at_end(&mut prog);
    let c = data(&mut b, "c", DataType::Bool, &[]);
    let ctx = prog.ctx().clone();
    let mut block = prog.block();
    let mut outer = None;
    for _ in 0..depth {
        let op = Builder::at_block_end(&mut prog, block)
            .create_with(&IF_DEF, &[Some(c)], ctx.empty_dict(), &[], 2)
            .unwrap();
        if outer.is_some() {
            yield_in(&mut prog, block, &[]); // the then block of the if before ends here
        }
        outer.get_or_insert(op);
        let r: Vec<_> = prog.op(op).regions().collect();
        let (t, e) = (prog.add_block(r[0]), prog.add_block(r[1]));
        yield_in(&mut prog, e, &[]);
        block = t;
    }
    yield_in(&mut prog, block, &[]);
    (prog, outer.unwrap())
}

#[test]
fn a_hundred_thousand_nested_regions_need_no_recursion() {
    const DEPTH: usize = 100_000;
    let (mut prog, outer) = nested_ifs(DEPTH);
    verify(&prog).unwrap();
    // Walk in program order: each if, then its then block (the next if), ...
    let ops: Vec<OpId> = prog.walk_ops(outer).collect();
    assert_eq!(ops.len(), DEPTH * 3);
    assert_eq!(prog.op(ops[ops.len() - 1]).name(), "cf.yield");
    assert_eq!(
        (prog.op(ops[0]).name(), prog.op(ops[1]).name()),
        ("pd_op.if", "pd_op.if")
    );
    // Printing: one line per op and per `} else {` / `}`, indentation capped so the text stays
    // linear in the depth.
    let text = prog.to_string();
    assert!(
        text.len() < 4 * DEPTH * (4 * pir_runtime::printer::MAX_INDENT_LEVELS + 80),
        "{} bytes",
        text.len()
    );
    // `{`, the data op, per if its line, `} else {`, the else yield, `}` and the then yield,
    // `}`.
    assert_eq!(text.lines().count(), 5 * DEPTH + 3);
    let cap = " ".repeat(4 * pir_runtime::printer::MAX_INDENT_LEVELS);
    assert!(text.contains(&format!("\n{cap}() = \"cf.yield\" () {{}} : () -> \n")));
    // A deep error is still found and located.
    let mut last = outer;
    for &o in &ops {
        if prog.op(o).name() == "pd_op.if" {
            last = o;
        }
    }
    assert!(prog
        .location(last)
        .starts_with("op 0 of block 0 of region 0 of pd_op.if in"));
    // Erasing the outermost if erases all.
    prog.erase_op(outer).unwrap();
    assert_eq!(prog.num_ops(), 2);
    verify(&prog).unwrap();
}
