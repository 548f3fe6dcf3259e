//! Handles of another program, and types and attributes of another context, whose index is in
//! range here (issue 18): every handle carries its program's (or context's) identity, so they
//! are refused (an `IrError::Foreign`, or the documented panic of an accessor), never bound to
//! whatever this program holds at the same index. The programs are twins built by one
//! generator, so every handle of one is in range in the other.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use pir_runtime::phi::DataType;
use pir_runtime::{
    verify, BlockId, Builder, InsertPoint, IrContext, IrError, OpDef, OpId, OperationArgs, Program,
    Value,
};

static LOOP: OpDef = OpDef::new("test.loop", "test");
static LEAF: OpDef = OpDef::new("test.leaf", "test");

fn context() -> Arc<IrContext> {
    let ctx = IrContext::new();
    ctx.register_ops("test", &[&LOOP, &LEAF]).unwrap();
    ctx
}

/// The handles of a generated program: `n` leaves in a chain (each uses the previous
/// result), then a loop with one block holding one leaf.
struct Built {
    prog: Program,
    leaves: Vec<OpId>,
    values: Vec<Value>,
    looped: OpId,
    body: BlockId,
}

fn build(ctx: &Arc<IrContext>, n: usize) -> Built {
    let mut prog = Program::new(ctx);
    let t = ctx.dense_tensor_type(DataType::Float32, &[2, 3]);
    let attrs = ctx.dict_attr(&[("k", ctx.i64_attr(7))]);
    let (mut leaves, mut values) = (Vec::new(), Vec::new());
    for i in 0..n {
        let operands = if i == 0 {
            vec![]
        } else {
            vec![Some(values[i - 1])]
        };
        let op = Builder::at_end(&mut prog)
            .create_with(&LEAF, &operands, attrs, &[Some(t)], 0)
            .unwrap();
        leaves.push(op);
        values.push(prog.op(op).result(0));
    }
    let empty = ctx.empty_dict();
    let looped = Builder::at_end(&mut prog)
        .create_with(&LOOP, &[], empty, &[], 1)
        .unwrap();
    let body = prog.add_block(prog.op(looped).region(0));
    Builder::at_block_end(&mut prog, body)
        .create_with(&LEAF, &[Some(values[0])], empty, &[Some(t)], 0)
        .unwrap();
    Built {
        prog,
        leaves,
        values,
        looped,
        body,
    }
}

fn is_foreign<T: std::fmt::Debug>(r: Result<T, IrError>) -> bool {
    matches!(r, Err(IrError::Foreign(_)))
}

/// Panics, and leaves `prog` printing what it printed before.
fn panics_unchanged(prog: &mut Program, f: impl FnOnce(&mut Program)) {
    let before = prog.to_string();
    let r = catch_unwind(AssertUnwindSafe(|| f(prog)));
    let msg = r.expect_err("a foreign handle must not be accepted");
    let msg = msg
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| msg.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(msg.contains("of another"), "{msg}");
    assert_eq!(prog.to_string(), before);
}

#[test]
fn in_range_handles_of_a_twin_program_are_refused_everywhere() {
    for n in [1usize, 3, 40] {
        for shared_ctx in [true, false] {
            let ctx_a = context();
            let ctx_b = if shared_ctx { ctx_a.clone() } else { context() };
            let a = build(&ctx_a, n);
            let mut b = build(&ctx_b, n);
            let before = b.prog.to_string();
            // Same indices, different programs: not equal handles.
            assert_eq!(a.values[0].index(), b.values[0].index());
            assert_ne!(a.values[0], b.values[0]);
            assert_ne!(a.leaves[0], b.leaves[0]);
            let prog = &mut b.prog;
            let (av, aop, ablock) = (a.values[n - 1], a.leaves[n - 1], a.body);
            let aregion = a.prog.op(a.looped).region(0);
            let empty = prog.ctx().empty_dict();
            let t = prog.ctx().dense_tensor_type(DataType::Float32, &[2, 3]);

            // Creating with a foreign operand, at a foreign place.
            let args = OperationArgs {
                def: &LEAF,
                operands: &[Some(av)],
                attributes: empty,
                result_types: &[Some(t)],
                num_regions: 0,
            };
            assert!(is_foreign(prog.create_op(args)));
            let at_end = InsertPoint::BlockEnd(prog.block());
            assert!(is_foreign(prog.create_op_at(args, at_end)));
            let own = OperationArgs {
                operands: &[],
                ..args
            };
            for at in [
                InsertPoint::BlockEnd(ablock),
                InsertPoint::BlockStart(ablock),
                InsertPoint::Before(aop),
                InsertPoint::After(aop),
            ] {
                assert!(is_foreign(prog.create_op_at(own, at)), "{at:?}");
            }
            // The mutating API on foreign ops and values.
            let mine = b.leaves[n - 1];
            assert!(is_foreign(prog.set_operand(mine, 0, Some(av))) || n == 1);
            assert!(is_foreign(prog.set_operand(aop, 0, None)));
            assert!(is_foreign(prog.erase_op(aop)));
            assert!(is_foreign(prog.detach_op(aop)));
            assert!(is_foreign(prog.insert_op(aop, at_end)));
            assert!(is_foreign(prog.set_attributes(aop, empty)));
            assert!(is_foreign(prog.set_attribute(aop, "k", empty)));
            assert!(is_foreign(prog.remove_attribute(aop, "k")));
            assert!(!prog.is_alive(aop));
            assert!(prog.describe(aop).contains("of another program"));
            assert_eq!(
                prog.to_string(),
                before,
                "a refused call changed the program"
            );

            // Accessors and calls without a Result: the documented panic.
            panics_unchanged(prog, |p| {
                p.op(aop);
            });
            panics_unchanged(prog, |p| {
                p.value_type(av);
            });
            panics_unchanged(prog, |p| {
                p.uses(av);
            });
            panics_unchanged(prog, |p| {
                p.defining_op(av);
            });
            panics_unchanged(prog, |p| {
                p.block_ops(ablock);
            });
            panics_unchanged(prog, |p| {
                p.region_blocks(aregion);
            });
            panics_unchanged(prog, |p| {
                p.add_block(aregion);
            });
            panics_unchanged(prog, |p| {
                p.add_block_arg(ablock, None);
            });
            panics_unchanged(prog, |p| {
                p.walk_ops(aop);
            });
            let own_v = b.values[0];
            panics_unchanged(prog, |p| p.replace_all_uses_with(av, own_v));
            panics_unchanged(prog, |p| p.replace_all_uses_with(own_v, av));
            verify(prog).unwrap();
            // The other program is untouched and its handles still work there.
            assert_eq!(a.prog.op(aop).result(0), av);
            verify(&a.prog).unwrap();
        }
    }
}

#[test]
fn types_and_attributes_of_a_twin_context_are_refused_even_at_the_same_index() {
    let (ctx_a, ctx_b) = (context(), context());
    // The same interning sequence: every type and attribute has the same index in both.
    let ta = ctx_a.dense_tensor_type(DataType::Float32, &[5]);
    let tb = ctx_b.dense_tensor_type(DataType::Float32, &[5]);
    let da = ctx_a.dict_attr(&[("x", ctx_a.str_attr("y"))]);
    let db = ctx_b.dict_attr(&[("x", ctx_b.str_attr("y"))]);
    assert_ne!(ta, tb);
    assert_ne!(da, db);
    assert!(ctx_b.owns_type(tb) && !ctx_b.owns_type(ta));
    assert!(ctx_b.owns_attr(db) && !ctx_b.owns_attr(da));
    assert!(ctx_b.try_attr_data(da).is_none());
    assert!(catch_unwind(AssertUnwindSafe(|| ctx_b.type_data(ta).clone())).is_err());
    assert!(catch_unwind(AssertUnwindSafe(|| ctx_b.attr_data(da).clone())).is_err());

    let mut prog = build(&ctx_b, 2).prog;
    let before = prog.to_string();
    let x = prog.op(prog.first_op(prog.block()).unwrap()).result(0);
    let top = prog.block();
    let empty = ctx_b.empty_dict();
    let mut bld = Builder::at_end(&mut prog);
    assert!(is_foreign(bld.create_with(
        &LEAF,
        &[],
        empty,
        &[Some(ta)],
        0
    )));
    assert!(is_foreign(bld.create_with(
        &LEAF,
        &[Some(x)],
        da,
        &[Some(tb)],
        0
    )));
    // Scalars are pre-interned at the same index in every context: still told apart.
    let f32_a = ctx_a.scalar_type(DataType::Float32);
    assert!(is_foreign(bld.create_with(
        &LEAF,
        &[],
        empty,
        &[Some(f32_a)],
        0
    )));
    let op = prog.first_op(top).unwrap();
    assert!(is_foreign(prog.set_attributes(op, da)));
    assert!(is_foreign(prog.set_attribute(op, "z", ctx_a.i64_attr(1))));
    assert_eq!(prog.to_string(), before);
    panics_unchanged(&mut prog, |p| p.set_value_type(x, Some(ta)));
    panics_unchanged(&mut prog, |p| {
        p.add_block_arg(top, Some(ta));
    });
    verify(&prog).unwrap();
}
