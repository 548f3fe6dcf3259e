//! The cf dialect's stack ops (`cf.stack_create`, `cf.tuple_push`, `cf.tuple_pop`,
//! `cf.has_elements`): typed builders, Paddle's printing (the `%stack_N` aliases), the text
//! round trip, and each verifier rule broken once, pinned to its named error.

use op_defs::control_flow::{
    CfType, ControlFlowError, HasElementsOp, IfOp, StackCreateOp, TuplePopOp, TuplePushOp,
    TUPLE_POP_DEF, TUPLE_PUSH_DEF,
};
use op_defs::pd_op::ReluOp;
use pir_runtime::phi::DataType;
use pir_runtime::{verify, Builder, Program, Slot, VerifyError, VerifyErrorKind};

#[path = "common/fixtures.rs"]
mod fixtures;
use fixtures::{context, data};

/// Two stacks: the first pushed inside an `if` branch and popped after it, as a backward
/// region pops what the forward region pushed; the second pushes two values.
fn two_stacks() -> Program {
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", DataType::Float32, &[4]);
    let c = data(&mut b, "c", DataType::Bool, &[1]);
    let s0 = StackCreateOp::build(&mut b).unwrap();
    let s1 = StackCreateOp::build(&mut b).unwrap();
    let inlet0 = s0.inlet(b.program());
    IfOp::build(
        &mut b,
        c,
        |b| {
            let r = ReluOp::build(b, x)?.out(b.program());
            TuplePushOp::build(b, inlet0, &[r])?;
            Ok(vec![r])
        },
        |_| Ok(vec![x]),
    )
    .unwrap();
    let inlet1 = s1.inlet(b.program());
    TuplePushOp::build(&mut b, inlet1, &[x, c]).unwrap();
    let stack0 = s0.stack(b.program());
    HasElementsOp::build(&mut b, stack0).unwrap();
    let outlet0 = s0.outlet(b.program());
    TuplePopOp::build(&mut b, outlet0).unwrap();
    let outlet1 = s1.outlet(b.program());
    TuplePopOp::build(&mut b, outlet1).unwrap();
    prog
}

/// The lines Paddle's printer gives these ops: `StackCreateOp::Print` aliases the results
/// before the general line; other values keep the `%N` sequence, which aliases do not use.
#[test]
fn builds_and_prints_as_paddle() {
    let prog = two_stacks();
    verify(&prog).unwrap();
    let text = prog.to_string();
    let expected = [
        "    (%stack_0, %inlet_0, %outlet_0) = \"cf.stack_create\" () {} : () -> cf.stack, cf.inlet, cf.outlet\n",
        "    (%stack_1, %inlet_1, %outlet_1) = \"cf.stack_create\" () {} : () -> cf.stack, cf.inlet, cf.outlet\n",
        "        () = \"cf.tuple_push\" (%inlet_0, %3) {} : (cf.inlet, tensor<4xf32>) -> \n",
        "    () = \"cf.tuple_push\" (%inlet_1, %0, %1) {} : (cf.inlet, tensor<4xf32>, tensor<1xb>) -> \n",
        "    (%4) = \"cf.has_elements\" (%stack_0) {stop_gradient:[true]} : (cf.stack) -> tensor<1xb>\n",
        "    (%5) = \"cf.tuple_pop\" (%outlet_0) {} : (cf.outlet) -> tensor<4xf32>\n",
        "    (%6, %7) = \"cf.tuple_pop\" (%outlet_1) {} : (cf.outlet) -> tensor<4xf32>, tensor<1xb>\n",
    ];
    for line in expected {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
}

/// The printed text parses back to a program that prints the same and verifies.
#[test]
fn text_round_trip() {
    let prog = two_stacks();
    let text = prog.to_string();
    let back = pir_runtime::parser::parse_program(prog.ctx(), &text).unwrap();
    verify(&back).unwrap();
    assert_eq!(back.to_string(), text);
    let ctx = back.ctx();
    let stack_ty = CfType::Stack.get(ctx);
    assert_eq!(CfType::of(ctx, stack_ty), Some(CfType::Stack));
}

/// The only error `verify` finds.
fn only_error(prog: &Program) -> VerifyError {
    let mut errs = verify(prog).expect_err("the program must not verify").0;
    assert_eq!(errs.len(), 1, "{errs:?}");
    errs.remove(0)
}

#[test]
fn push_into_a_tensor_is_refused() {
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", DataType::Float32, &[4]);
    let e = b
        .create_with(
            &TUPLE_PUSH_DEF,
            &[Some(x), Some(x)],
            ctx.empty_dict(),
            &[],
            0,
        )
        .map(|_| ());
    e.unwrap();
    let err = only_error(&prog);
    assert_eq!(err.op_name, "cf.tuple_push");
    match &*err.kind {
        VerifyErrorKind::OperandType {
            index: 0, expected, ..
        } => assert_eq!(expected, "cf.inlet"),
        k => panic!("{k:?}"),
    }
    assert!(
        err.to_string()
            .contains("expected cf.inlet, found tensor<4xf32>"),
        "{err}"
    );
}

#[test]
fn an_inlet_pushed_twice_is_refused() {
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", DataType::Float32, &[4]);
    let s = StackCreateOp::build(&mut b).unwrap();
    let inlet = s.inlet(b.program());
    TuplePushOp::build(&mut b, inlet, &[x]).unwrap();
    TuplePushOp::build(&mut b, inlet, &[x]).unwrap();
    let errs = verify(&prog).unwrap_err().0;
    assert_eq!(errs.len(), 2, "each push is reported: {errs:?}");
    for e in &errs {
        assert_eq!(
            *e.kind,
            VerifyErrorKind::UseCount {
                value: Slot::Operand(0),
                what: "the inlet",
                found: 2
            }
        );
        assert!(
            e.to_string().contains("must have exactly one use, found 2"),
            "{e}"
        );
    }
}

/// A pop built by hand with the wrong count, then with the wrong type.
#[test]
fn a_pop_must_match_its_push() {
    let ctx = context();
    let f32_4 = ctx.dense_tensor_type(DataType::Float32, &[4]);
    let i64_4 = ctx.dense_tensor_type(DataType::Int64, &[4]);
    for (results, expected) in [
        (
            vec![Some(f32_4), Some(f32_4)],
            VerifyErrorKind::PopCount {
                pushed: 1,
                popped: 2,
            },
        ),
        (
            vec![Some(i64_4)],
            VerifyErrorKind::PopType {
                index: 0,
                pushed: pir_runtime::PrintedType::new(&ctx, Some(f32_4)),
                popped: pir_runtime::PrintedType::new(&ctx, Some(i64_4)),
            },
        ),
    ] {
        let mut prog = Program::new(&ctx);
        let mut b = Builder::at_end(&mut prog);
        let x = data(&mut b, "x", DataType::Float32, &[4]);
        let s = StackCreateOp::build(&mut b).unwrap();
        let (inlet, outlet) = (s.inlet(b.program()), s.outlet(b.program()));
        TuplePushOp::build(&mut b, inlet, &[x]).unwrap();
        b.create_with(
            &TUPLE_POP_DEF,
            &[Some(outlet)],
            ctx.empty_dict(),
            &results,
            0,
        )
        .unwrap();
        let err = only_error(&prog);
        assert_eq!(err.op_name, "cf.tuple_pop");
        assert_eq!(*err.kind, expected);
    }
}

#[test]
fn a_pop_without_push_is_refused_by_builder_and_verifier() {
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let s = StackCreateOp::build(&mut b).unwrap();
    let outlet = s.outlet(b.program());
    assert_eq!(
        TuplePopOp::build(&mut b, outlet).unwrap_err(),
        ControlFlowError::NoTuplePush
    );
    b.create_with(&TUPLE_POP_DEF, &[Some(outlet)], ctx.empty_dict(), &[], 0)
        .unwrap();
    let err = only_error(&prog);
    assert!(
        err.to_string().contains(
            "the outlet's stack must have one cf.tuple_push of its inlet (the inlet has 0 use(s))"
        ),
        "{err}"
    );
}

#[test]
fn has_elements_takes_a_stack() {
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let s = StackCreateOp::build(&mut b).unwrap();
    let inlet = s.inlet(b.program());
    HasElementsOp::build(&mut b, inlet).unwrap();
    let err = only_error(&prog);
    assert_eq!(err.op_name, "cf.has_elements");
    assert!(
        err.to_string()
            .contains("expected cf.stack, found cf.inlet"),
        "{err}"
    );
}

#[test]
fn stack_create_results_are_checked() {
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let t = CfType::Stack.get(&ctx);
    let def = ctx.op_def("cf.stack_create").unwrap();
    Builder::at_end(&mut prog)
        .create_with(def, &[], ctx.empty_dict(), &[Some(t), Some(t), Some(t)], 0)
        .unwrap();
    let err = only_error(&prog);
    match &*err.kind {
        VerifyErrorKind::ResultType {
            index: 1, expected, ..
        } => assert_eq!(expected, "cf.inlet"),
        k => panic!("{k:?}"),
    }
}
