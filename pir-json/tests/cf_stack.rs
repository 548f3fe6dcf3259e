//! The cf dialect's types and stack ops in PIR JSON: types written as Paddle's
//! `WriteControlFlowType` writes them (`{"#":"2.t_stack"}`, no data), ops as `2.tuple_push`,
//! and a program read back prints and writes the same.

use std::sync::Arc;

use op_defs::control_flow::{CfType, HasElementsOp, StackCreateOp, TuplePopOp, TuplePushOp};
use op_defs::pd_op::{DataOp, DataOpAttrs};
use pir_runtime::phi::{DataType, Place};
use pir_runtime::{Builder, IrContext, Program};

fn context() -> Arc<IrContext> {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    ctx
}

#[test]
fn cf_types_have_paddle_tags() {
    let ctx = context();
    for (kind, tag) in [
        (CfType::Stack, r##"{"#":"2.t_stack"}"##),
        (CfType::Inlet, r##"{"#":"2.t_inlet"}"##),
        (CfType::Outlet, r##"{"#":"2.t_outlet"}"##),
    ] {
        let t = kind.get(&ctx);
        assert_eq!(pir_json::types::type_to_json(&ctx, Some(t)), tag);
        assert_eq!(pir_json::types::type_from_json(&ctx, tag).unwrap(), Some(t));
    }
    let err = pir_json::types::type_from_json(&ctx, r##"{"#":"2.t_queue"}"##).unwrap_err();
    assert!(err.to_string().contains("2.t_queue"), "{err}");
}

#[test]
fn stack_program_round_trips() {
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let attrs = DataOpAttrs {
        name: "x",
        shape: &[2, 3],
        dtype: DataType::Float32,
        place: Place::default(),
    };
    let x = DataOp::build(&mut b, attrs).unwrap().out(b.program());
    let s = StackCreateOp::build(&mut b).unwrap();
    let (inlet, outlet, stack) = (
        s.inlet(b.program()),
        s.outlet(b.program()),
        s.stack(b.program()),
    );
    TuplePushOp::build(&mut b, inlet, &[x]).unwrap();
    HasElementsOp::build(&mut b, stack).unwrap();
    TuplePopOp::build(&mut b, outlet).unwrap();
    pir_runtime::verify(&prog).unwrap();
    let json = pir_json::write_program(&prog);
    for piece in [
        r##""#":"2.stack_create""##,
        r##""#":"2.tuple_push""##,
        r##""#":"2.tuple_pop""##,
        r##""#":"2.has_elements""##,
        r##"{"#":"2.t_inlet"}"##,
    ] {
        assert!(json.contains(piece), "missing {piece} in {json}");
    }
    let back = pir_json::read_program(&ctx, &json).unwrap();
    pir_runtime::verify(&back).unwrap();
    assert_eq!(back.to_string(), prog.to_string());
    assert_eq!(pir_json::write_program(&back), json);
}
