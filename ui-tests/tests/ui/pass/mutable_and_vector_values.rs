// Mutable attributes (operands after the tensor inputs), vector inputs and outputs, optional
// inputs, and the `full` / `full_int_array` ops the typed build materialises them with.
use pir_macros::pir_op;
use pir_runtime::interfaces::InferShapeOp;
use pir_runtime::meta::{InferMetaCtx, InferMetaError, TensorMeta};
use pir_runtime::phi::DataType;
use pir_runtime::{builtin, verify, Builder, IrContext, Program};

#[pir_op(name = "test.full", interfaces(InferShape))]
pub struct FullOp {
    #[attr]
    shape: IntArray,
    #[attr(data_type = "double")]
    value: Scalar,
    #[attr(default = DataType::Float32)]
    dtype: DataType,
    #[attr(default = Place::cpu())]
    place: Place,
    #[output]
    out: DenseTensor,
}

impl InferShapeOp for FullOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        let dims = ctx.ints(0)?.to_vec();
        let dtype = ctx.dtype(2)?;
        ctx.set_output(0, TensorMeta::new(dtype, &dims))
    }
}

#[pir_op(name = "test.full_int_array", interfaces(InferShape))]
pub struct FullIntArrayOp {
    #[attr]
    value: Vec<i64>,
    #[attr(default = DataType::Int64)]
    dtype: DataType,
    #[attr(default = Place::cpu())]
    place: Place,
    #[output]
    out: DenseTensor,
}

impl InferShapeOp for FullIntArrayOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        let n = ctx.ints(0)?.len() as i64;
        let dtype = ctx.dtype(1)?;
        ctx.set_output(0, TensorMeta::new(dtype, &[n]))
    }
}

/// Splits `x` along `axis` into pieces of `sections` sizes; adds `bias` pieces when given.
#[pir_op(name = "test.split", interfaces(InferShape))]
pub struct SplitOp {
    #[input]
    x: DenseTensor,
    #[input]
    bias: Option<Vec<DenseTensor>>,
    #[attr(mutable, data_type = "int")]
    sections: IntArray,
    #[attr(mutable, data_type = "int", default = 0)]
    axis: Scalar,
    #[output(size = "sections.size()")]
    out: Vec<DenseTensor>,
}

impl InferShapeOp for SplitOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        let x = ctx.tensor(0)?.clone();
        let sections = ctx.ints(2)?.to_vec();
        let axis = ctx.int(3)? as usize;
        let outs = sections
            .iter()
            .map(|&n| {
                let mut dims = x.dims.to_vec();
                dims[axis] = n;
                x.with_dims(&dims)
            })
            .collect();
        ctx.set_outputs(0, outs)
    }
}

pir_runtime::dialect!(pub TestDialect = "test" [FullOp, FullIntArrayOp, SplitOp]);

fn main() {
    let ctx = IrContext::new();
    ctx.register_dialect::<TestDialect>().unwrap();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = builtin::parameter(&mut b, "x", ctx.dense_tensor_type(DataType::Float32, &[6, 4])).unwrap();
    let split = SplitOp::build(&mut b, x, None, &[2, 4], 0).unwrap();
    let out = split.out(b.program());
    let parts = [
        ctx.dense_tensor_type(DataType::Float32, &[2, 4]),
        ctx.dense_tensor_type(DataType::Float32, &[4, 4]),
    ];
    assert_eq!(b.program().value_type(out), Some(ctx.vector_type(&parts)));
    assert_eq!(split.bias(b.program()), None);
    // The mutable attributes are operands 2 and 3, fed by full_int_array and full.
    let sections = split.sections(b.program()).unwrap();
    let def = b.program().defining_op(sections).unwrap();
    assert_eq!(b.program().op(def).name(), "test.full_int_array");
    let axis = split.axis(b.program()).unwrap();
    let def = b.program().defining_op(axis).unwrap();
    assert_eq!(b.program().op(def).name(), "test.full");
    assert_eq!(
        b.program().value_type(axis),
        Some(ctx.dense_tensor_type(DataType::Int32, &[1]))
    );
    verify(&prog).unwrap();
    assert!(SplitOp::ATTRIBUTE_NAMES.is_empty());
    assert_eq!(SplitOp::schema().outputs[0].size_expr.as_deref(), Some("sections.size()"));
}
