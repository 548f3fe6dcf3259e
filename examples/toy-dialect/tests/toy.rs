//! The toy dialect end to end: building, verifying and printing a program; its own trait's and
//! interface's behaviour; its ops' errors.

use pir_runtime::op_def::OpTrait;
use pir_runtime::phi::DataType;
use pir_runtime::traits::{ReadOnly, SameOperandsAndResultType, SideEffect};
use pir_runtime::{builtin, verify, BuildError, Builder, IrContext, Op, Program};
use toy_dialect::interfaces::{total_flops, FlopCount};
use toy_dialect::traits::Commutative;
use toy_dialect::*;

fn context() -> std::sync::Arc<IrContext> {
    let ctx = IrContext::new();
    ctx.register_dialect::<ToyDialect>().unwrap();
    ctx
}

#[test]
fn the_example_program_builds_verifies_and_prints() {
    let ctx = context();
    let prog = example_program(&ctx).unwrap();
    verify(&prog).unwrap();
    let text = prog.to_string();
    let order = [
        "toy.constant",
        "toy.transpose",
        "toy.mul",
        "toy.add",
        "toy.print",
    ];
    let mut at = 0;
    for name in order {
        let quoted = format!("\"{name}\"");
        let pos = text[at..]
            .find(&quoted)
            .unwrap_or_else(|| panic!("{name} missing or out of order in\n{text}"));
        at += pos + quoted.len();
    }
    assert!(text.contains("tensor<2x3xf64>"), "{text}");
    assert!(
        text.contains("(tensor<3x2xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>"),
        "{text}"
    );
    // mul and add each touch 6 elements; transpose counts 0; constant and print have no count.
    assert_eq!(total_flops(&prog), 12);
}

#[test]
fn traits_and_interfaces_of_the_dialect() {
    assert_eq!(Commutative::NAME, "CommutativeTrait");
    assert!(AddOp::DEF.has_trait::<Commutative>());
    assert!(AddOp::DEF.has_trait::<ReadOnly>());
    assert!(MulOp::DEF.has_trait::<SameOperandsAndResultType>());
    assert!(PrintOp::DEF.has_trait::<SideEffect>());
    assert!(!TransposeOp::DEF.has_trait::<Commutative>());
    assert!(TransposeOp::DEF.has_interface::<FlopCount>());
    assert!(!PrintOp::DEF.has_interface::<FlopCount>());
    assert_eq!(
        AddOp::schema()
            .traits
            .iter()
            .map(|t| &**t)
            .collect::<Vec<_>>(),
        ["CommutativeTrait", "ReadOnlyTrait"]
    );
    assert!(AddOp::schema().has_interface("FlopCountInterface"));
    assert_eq!(
        ConstantOp::schema().doc.lines().next(),
        Some("A constant tensor of `f64` values, in row-major order.")
    );
}

#[test]
fn the_commutative_trait_verifies_its_operands() {
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let f = ctx.dense_tensor_type(DataType::Float32, &[2]);
    let d = ctx.dense_tensor_type(DataType::Float64, &[2]);
    let x = builtin::parameter(&mut b, "x", f).unwrap();
    let y = builtin::parameter(&mut b, "y", d).unwrap();
    // Explicit types skip inference; the verifier then sees the mismatch.
    AddOp::build_with_types(&mut b, &[Some(x), Some(y)], ctx.empty_dict(), &[Some(f)]).unwrap();
    let errs = verify(&prog).unwrap_err();
    assert_eq!(errs.0.len(), 1);
    assert_eq!(errs.0[0].op_name, "toy.add");
    assert_eq!(
        errs.0[0].message(),
        "CommutativeTrait: the operands of a commutative op have one type"
    );
    // Inference refuses the same operands.
    let mut b = Builder::at_end(&mut prog);
    match AddOp::build(&mut b, x, y) {
        Err(BuildError::InferMeta { op, message, .. }) => {
            assert_eq!(op, "toy.add");
            assert!(message.starts_with("operands differ"), "{message}");
        }
        other => panic!("expected an infer-meta error, got {other:?}"),
    }
}

#[test]
fn constant_checks_its_shape() {
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let err =
        ConstantOp::build(&mut b, ConstantOpAttrs::new(&[1.0, 2.0, 3.0], &[2, 2])).unwrap_err();
    assert_eq!(
        err,
        BuildError::InferMeta {
            op: "toy.constant",
            func: "InferShape",
            message: "shape [2, 2] holds 4 values, 3 given".into(),
        }
    );
    // Built with explicit types, the extra verifier catches it.
    let attrs = ctx.dict_attr(&[
        (
            "value",
            ctx.array_attr(&[ctx.f64_attr(1.0), ctx.f64_attr(2.0), ctx.f64_attr(3.0)]),
        ),
        ("shape", ctx.array_attr(&[ctx.i64_attr(2), ctx.i64_attr(2)])),
    ]);
    let t = ctx.dense_tensor_type(DataType::Float64, &[2, 2]);
    ConstantOp::build_with_types(&mut b, &[], attrs, &[Some(t)]).unwrap();
    let errs = verify(&prog).unwrap_err();
    assert_eq!(
        errs.0[0].message(),
        "the shape holds 4 values but `value` has 3"
    );
}
