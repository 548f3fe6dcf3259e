// The example of the documentation: an op with InferShape, built, verified and printed.
use pir_macros::pir_op;
use pir_runtime::interfaces::InferShapeOp;
use pir_runtime::meta::{InferMetaCtx, InferMetaError};
use pir_runtime::phi::DataType;
use pir_runtime::{builtin, verify, Builder, IrContext, Op, Program};

/// Element-wise absolute value.
#[pir_op(name = "test.abs", traits(ReadOnly, UnaryElementWise), interfaces(InferShape, OpYamlInfo))]
pub struct AbsOp {
    /// The operand.
    #[input]
    x: DenseTensor,
    /// `|x|`.
    #[output]
    out: DenseTensor,
}

impl InferShapeOp for AbsOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        let x = ctx.tensor(0)?.clone();
        ctx.set_output(0, x)
    }
}

pir_runtime::dialect!(pub TestDialect = "test" [AbsOp]);

fn main() {
    let ctx = IrContext::new();
    ctx.register_dialect::<TestDialect>().unwrap();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let t = ctx.dense_tensor_type(DataType::Float32, &[2, 3]);
    let x = builtin::parameter(&mut b, "x", t).unwrap();
    let abs = AbsOp::build(&mut b, x).unwrap();
    assert_eq!(abs.x(b.program()), Some(x));
    assert_eq!(b.program().value_type(abs.out(b.program())), Some(t));
    verify(&prog).unwrap();
    assert!(prog.to_string().contains("\"test.abs\""));
    assert_eq!(AbsOp::NAME, "test.abs");
    assert_eq!(AbsOp::DEF.name, "test.abs");
    assert_eq!(AbsOp::schema().doc, "Element-wise absolute value.");
    assert_eq!(AbsOp::schema().inputs[0].doc, "The operand.");
}
