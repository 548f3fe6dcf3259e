//! Handle misuse and counts (issue 18): inserting an op into a block nested in its own
//! regions is an error (not an endless `location()` or a stack overflow in `erase_op`);
//! out-of-range handles from another program give errors in the mutating API (in-range ones:
//! `tests/foreign.rs`); an op with more than 65,535 regions keeps them all.

use pir_runtime::phi::DataType;
use pir_runtime::{verify, Builder, InsertPoint, IrContext, IrError, OpDef, OpId, Program};

static LOOP: OpDef = OpDef::new("test.loop", "test");
static LEAF: OpDef = OpDef::new("test.leaf", "test");

fn setup() -> Program {
    let ctx = IrContext::new();
    ctx.register_ops("test", &[&LOOP, &LEAF]).unwrap();
    Program::new(&ctx)
}

fn create(prog: &mut Program, def: &'static OpDef, regions: usize) -> OpId {
    let empty = prog.ctx().empty_dict();
    Builder::at_end(prog)
        .create_with(def, &[], empty, &[], regions)
        .unwrap()
}

#[test]
fn an_op_cannot_go_into_a_block_of_its_own_regions_at_any_depth() {
    for depth in [1usize, 2, 30] {
        let mut prog = setup();
        let top = create(&mut prog, &LOOP, 1);
        // A chain of loops below `top`; blocks[i] is the body of the i-th.
        let mut blocks = vec![prog.add_block(prog.op(top).region(0))];
        for _ in 1..depth {
            let inner = {
                let empty = prog.ctx().empty_dict();
                let mut b = Builder::at_block_end(&mut prog, *blocks.last().unwrap());
                b.create_with(&LOOP, &[], empty, &[], 1).unwrap()
            };
            blocks.push(prog.add_block(prog.op(inner).region(0)));
        }
        prog.detach_op(top).unwrap();
        for &b in &blocks {
            for at in [InsertPoint::BlockStart(b), InsertPoint::BlockEnd(b)] {
                let e = prog.insert_op(top, at).unwrap_err();
                assert!(
                    e.to_string().contains("a block nested in its own regions"),
                    "{e}"
                );
            }
        }
        // Next to an op inside itself: the same.
        if depth > 1 {
            let inner = prog.first_op(blocks[0]).unwrap();
            let e = prog.insert_op(top, InsertPoint::After(inner)).unwrap_err();
            assert!(e.to_string().contains("nested in its own regions"), "{e}");
        }
        // Nothing changed: it goes back to the top block, and erasing it works.
        assert_eq!(prog.location(top), "detached");
        prog.insert_op(top, InsertPoint::BlockEnd(prog.block()))
            .unwrap();
        assert_eq!(prog.location(top), "op 0 of block 0");
        verify(&prog).unwrap();
        prog.erase_op(top).unwrap();
        assert_eq!(prog.num_ops(), 1);
    }
    // The module cannot go into its own body either.
    let mut prog = setup();
    let (m, top) = (prog.module_op(), prog.block());
    assert!(prog.insert_op(m, InsertPoint::BlockEnd(top)).is_err());
}

#[test]
fn foreign_out_of_range_handles_are_errors_in_the_mutating_api() {
    let mut big = setup();
    let mut last = None;
    for _ in 0..50 {
        let l = create(&mut big, &LOOP, 1);
        last = Some(big.add_block(big.op(l).region(0)));
    }
    let far_op = big.last_op(big.block()).unwrap();
    let far_block = last.unwrap();
    let mut small = setup();
    let leaf = create(&mut small, &LEAF, 0);
    small.detach_op(leaf).unwrap();
    for at in [
        InsertPoint::BlockStart(far_block),
        InsertPoint::BlockEnd(far_block),
        InsertPoint::Before(far_op),
        InsertPoint::After(far_op),
    ] {
        assert!(small.insert_op(leaf, at).is_err(), "{at:?}");
    }
    assert!(matches!(small.erase_op(far_op), Err(IrError::Foreign(_))));
    assert!(small.detach_op(far_op).is_err());
    assert!(small
        .insert_op(far_op, InsertPoint::BlockEnd(small.block()))
        .is_err());
    assert!(small.set_operand(far_op, 0, None).is_err());
    assert!(!small.is_alive(far_op));
    // Nothing was changed by the failed calls.
    small
        .insert_op(leaf, InsertPoint::BlockEnd(small.block()))
        .unwrap();
    verify(&small).unwrap();
}

#[test]
fn seventy_thousand_regions_on_one_op_are_all_kept() {
    let mut prog = setup();
    let op = create(&mut prog, &LOOP, 70_000);
    assert_eq!(prog.op(op).num_regions(), 70_000);
    let last = prog.op(op).region(69_999);
    let b = prog.add_block(last);
    let t = prog.ctx().dense_tensor_type(DataType::Float32, &[2]);
    prog.add_block_arg(b, Some(t));
    assert_eq!(prog.region_parent(last), Some(op));
    assert_eq!(prog.op(op).regions().len(), 70_000);
    verify(&prog).unwrap();
    let leaf = {
        let empty = prog.ctx().empty_dict();
        Builder::at_block_end(&mut prog, b)
            .create_with(&LEAF, &[], empty, &[], 0)
            .unwrap()
    };
    assert_eq!(
        prog.location(leaf),
        "op 0 of block 0 of region 69999 of test.loop in op 0 of block 0"
    );
    prog.erase_op(op).unwrap();
    assert!(!prog.is_alive(leaf));
}

#[test]
fn values_of_another_program_are_refused_when_out_of_range() {
    let mut big = setup();
    let t = big.ctx().dense_tensor_type(DataType::Float32, &[2]);
    let mut far = None;
    for _ in 0..100 {
        let empty = big.ctx().empty_dict();
        let op = Builder::at_end(&mut big)
            .create_with(&LEAF, &[], empty, &[Some(t)], 0)
            .unwrap();
        far = Some(big.op(op).result(0));
    }
    let far = far.unwrap();
    let mut small = setup();
    let empty = small.ctx().empty_dict();
    // Creating an op with it is an error, and creates nothing.
    let e = Builder::at_end(&mut small)
        .create_with(&LEAF, &[Some(far)], empty, &[], 0)
        .unwrap_err();
    assert!(matches!(e, IrError::Foreign(_)), "{e}");
    assert_eq!(small.num_ops(), 1);
    let leaf = create(&mut small, &LEAF, 0);
    let leaf2 = Builder::at_end(&mut small)
        .create_with(&LEAF, &[None], empty, &[], 0)
        .unwrap();
    assert!(small.set_operand(leaf2, 0, Some(far)).is_err());
    assert_eq!(small.op(leaf2).operand(0), None);
    let _ = leaf;
    verify(&small).unwrap();
}

#[test]
fn types_and_attributes_of_another_context_are_refused_before_verify_or_the_printer() {
    // A context with many types: its last ones are out of range in a fresh context.
    let other = IrContext::new();
    // Every one is interned; the last is kept.
    let far_type = (1..2000)
        .fold(None, |_, i| {
            Some(other.dense_tensor_type(DataType::Float32, &[i]))
        })
        .unwrap();
    let far_attrs = (0..2000)
        .fold(None, |_, i| {
            Some(other.dict_attr(&[("n", other.i64_attr(1 << 40 | i))]))
        })
        .unwrap();

    let mut prog = setup();
    let t = prog.ctx().dense_tensor_type(DataType::Float32, &[2]);
    let empty = prog.ctx().empty_dict();
    let mut b = Builder::at_end(&mut prog);
    b.create_with(&LEAF, &[], empty, &[Some(t)], 0).unwrap();
    let e = b
        .create_with(&LEAF, &[], empty, &[Some(far_type)], 0)
        .unwrap_err();
    assert!(
        e.to_string().contains("the type of result 0 (Type#")
            && e.to_string().contains("is a type of another context"),
        "{e}"
    );
    let e = b.create_with(&LEAF, &[], far_attrs, &[], 0).unwrap_err();
    assert!(e.to_string().contains("attribute dictionary"), "{e}");
    let bad = create(&mut prog, &LEAF, 0);
    assert!(matches!(
        prog.set_attributes(bad, far_attrs),
        Err(IrError::Foreign(_))
    ));
    // Nothing of the other context got in: the program verifies and prints.
    verify(&prog).unwrap();
    assert_eq!(prog.num_ops(), 3);
    assert!(prog.to_string().contains("tensor<2xf32>"));
}
