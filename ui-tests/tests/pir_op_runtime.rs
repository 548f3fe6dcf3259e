//! Runtime behaviour of ops declared with `#[pir_op]`: typed builds with result types computed
//! by `InferShape`, builds with explicit types, accessors, the generated verifier (one test per
//! kind of error, with the message), trait and interface queries, and a trait and an interface
//! declared in another crate (`pir_ui_tests::ext`).

use pir_macros::pir_op;
use pir_runtime::interfaces::{InferShape, InferShapeOp, InferSymbolicShape, OpYamlInfo, Vjp};
use pir_runtime::meta::{InferMetaCtx, InferMetaError};
use pir_runtime::phi::DataType;
use pir_runtime::traits::{Inplace, ReadOnly, SideEffect};
use pir_runtime::{
    builtin, ensure_meta, verify, AttrData, BuildError, Builder, InferOutputError, IrContext, Op,
    OpRef, Program, Type, Value, VerifyErrorKind,
};
use pir_ui_tests::ext::{Commutative, Cost, HasCost, TwoOperands};

/// `out = x + y`, same shapes.
#[pir_op(
    name = "rt.add",
    traits(ReadOnly, pir_ui_tests::ext::Commutative),
    interfaces(InferShape, InferSymbolicShape, pir_ui_tests::ext::Cost)
)]
pub struct AddOp {
    /// Left operand.
    #[input]
    x: DenseTensor,
    /// Right operand.
    #[input]
    y: DenseTensor,
    #[output]
    out: DenseTensor,
}

impl InferShapeOp for AddOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        let (x, y) = (ctx.tensor(0)?, ctx.tensor(1)?);
        ensure_meta!(
            x.dims == y.dims,
            "shapes {:?} and {:?} differ",
            x.dims,
            y.dims
        );
        let x = x.clone();
        ctx.set_output(0, x)
    }
}

impl HasCost for AddOp {
    fn cost(op: OpRef<'_>) -> u64 {
        10 * op.num_operands() as u64
    }
}

/// `out = x * factor (+ bias)`, with a few attributes.
#[pir_op(name = "rt.scale", interfaces(InferShape))]
pub struct ScaleOp {
    #[input]
    x: DenseTensor,
    #[input]
    bias: Option<DenseTensor>,
    #[attr]
    factor: f32,
    #[attr(default = [1, 1])]
    strides: Vec<i32>,
    #[attr(default = "NCHW")]
    data_format: String,
    #[output]
    out: DenseTensor,
}

impl InferShapeOp for ScaleOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        // Arguments: x, bias, factor, strides, data_format.
        let x = ctx.tensor(0)?.clone();
        if let Some(b) = ctx.opt_tensor(1)? {
            ensure_meta!(b.dims == x.dims, "bias shape {:?} differs from x's", b.dims);
        }
        ensure_meta!(ctx.float(2)?.is_finite(), "factor must be finite");
        ensure_meta!(ctx.ints(3)?.len() == 2, "two strides expected");
        ensure_meta!(ctx.str(4)? == "NCHW", "only NCHW");
        ctx.set_output(0, x)
    }
}

/// Concatenation of a vector of tensors along `axis`.
#[pir_op(name = "rt.concat", interfaces(InferShape))]
pub struct ConcatOp {
    #[input]
    xs: Vec<DenseTensor>,
    #[attr(default = 0)]
    axis: i32,
    #[output]
    out: DenseTensor,
}

impl InferShapeOp for ConcatOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        let xs = ctx.tensors(0)?;
        let axis = ctx.int(1)? as usize;
        ensure_meta!(!xs.is_empty(), "nothing to concatenate");
        let mut dims = xs[0].dims.to_vec();
        dims[axis] = xs.iter().map(|t| t.dims[axis]).sum();
        let out = xs[0].with_dims(&dims);
        ctx.set_output(0, out)
    }
}

/// Rows of `x` as a vector; `mask` is never computed (an optional output).
#[pir_op(name = "rt.unstack", interfaces(InferShape))]
pub struct UnstackOp {
    #[input]
    x: DenseTensor,
    #[output]
    outs: Vec<DenseTensor>,
    #[output]
    mask: Option<DenseTensor>,
}

impl InferShapeOp for UnstackOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        let x = ctx.tensor(0)?.clone();
        let row = x.with_dims(&x.dims[1..]);
        ctx.set_outputs(0, vec![row; x.dims[0] as usize])
    }
}

/// An op without shape inference: built with explicit types only.
#[pir_op(name = "rt.opaque", traits(SideEffect))]
pub struct OpaqueOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

fn check_clip(op: OpRef<'_>) -> Result<(), String> {
    match (op.attr_data("min"), op.attr_data("max")) {
        (Some(AttrData::Float(lo)), Some(AttrData::Float(hi))) if lo > hi => {
            Err(format!("min {lo} is greater than max {hi}"))
        }
        _ => Ok(()),
    }
}

/// Clips `x` to `[min, max]`; an extra verifier checks `min <= max`.
#[pir_op(name = "rt.clip", interfaces(InferShape), verify = check_clip)]
pub struct ClipOp {
    #[input]
    x: DenseTensor,
    #[attr(default = 0.0)]
    min: f32,
    #[attr(default = 1.0)]
    max: f32,
    #[output]
    out: DenseTensor,
}

/// The typed form of `check_clip`: the kind names the attribute.
fn check_clip_typed(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    match (op.attr_data("min"), op.attr_data("max")) {
        (Some(AttrData::Float(lo)), Some(AttrData::Float(hi))) if lo > hi => {
            Err(VerifyErrorKind::AttributeValue {
                name: "min",
                problem: format!("{lo} is greater than max {hi}"),
            })
        }
        _ => Ok(()),
    }
}

/// `rt.clip` with a verifier returning a typed error.
#[pir_op(name = "rt.clip_typed", verify = check_clip_typed)]
pub struct ClipTypedOp {
    #[input]
    x: DenseTensor,
    #[attr(default = 0.0)]
    min: f32,
    #[attr(default = 1.0)]
    max: f32,
    #[output]
    out: DenseTensor,
}

/// An op whose shape function forgets its output.
#[pir_op(name = "rt.forgetful", interfaces(InferShape))]
pub struct ForgetfulOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

impl InferShapeOp for ForgetfulOp {
    fn infer_shape(_: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        Ok(())
    }
}

impl InferShapeOp for ClipOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        let x = ctx.tensor(0)?.clone();
        ctx.set_output(0, x)
    }
}

/// A backward op: verified leniently (Paddle generates an empty VerifySig for grad ops).
#[pir_op(name = "rt.scale_grad", forward = "scale")]
pub struct ScaleGradOp {
    #[input]
    out_grad: DenseTensor,
    #[attr]
    factor: f32,
    #[output]
    x_grad: DenseTensor,
    #[output]
    bias_grad: DenseTensor,
}

/// `x` in place, with `ReadOnly` absent and `Inplace` attached by the name.
#[pir_op(name = "rt.relu_", backward = "relu_grad")]
pub struct ReluInplaceOp {
    #[input]
    x: DenseTensor,
    #[output(inplace = x)]
    out: DenseTensor,
}

pir_runtime::dialect!(
    /// The dialect of these tests.
    pub RtDialect = "rt" [
        AddOp, ScaleOp, ConcatOp, UnstackOp, OpaqueOp, ClipOp, ClipTypedOp, ForgetfulOp,
        ScaleGradOp, ReluInplaceOp
    ]
);

struct Fixture {
    ctx: std::sync::Arc<IrContext>,
    prog: Program,
}

impl Fixture {
    fn new() -> Fixture {
        let ctx = IrContext::new();
        ctx.register_dialect::<RtDialect>().unwrap();
        let prog = Program::new(&ctx);
        Fixture { ctx, prog }
    }

    fn f32s(&self, dims: &[i64]) -> Type {
        self.ctx.dense_tensor_type(DataType::Float32, dims)
    }

    fn param(&mut self, name: &str, dims: &[i64]) -> Value {
        let t = self.f32s(dims);
        builtin::parameter(&mut Builder::at_end(&mut self.prog), name, t).unwrap()
    }
}

#[test]
fn typed_build_infers_result_types_with_infer_shape() {
    let mut f = Fixture::new();
    let x = f.param("x", &[2, 3]);
    let y = f.param("y", &[2, 3]);
    let ctx = f.ctx.clone();
    let mut b = Builder::at_end(&mut f.prog);

    let add = AddOp::build(&mut b, x, y).unwrap();
    assert_eq!(add.x(b.program()), Some(x));
    assert_eq!(add.y(b.program()), Some(y));
    let sum = add.out(b.program());
    assert_eq!(
        b.program().value_type(sum),
        Some(ctx.dense_tensor_type(DataType::Float32, &[2, 3]))
    );
    assert_eq!(b.program().op(add.op()).result(0), sum);

    // Attributes: the required one through `new`, the others at their defaults.
    let scale = ScaleOp::build(&mut b, sum, None, ScaleOpAttrs::new(2.5)).unwrap();
    assert_eq!(scale.bias(b.program()), None);
    let op = b.program().op(scale.op());
    assert_eq!(op.attr("factor"), Some(ctx.f32_attr(2.5)));
    assert_eq!(
        op.attr("strides"),
        Some(ctx.array_attr(&[ctx.i32_attr(1), ctx.i32_attr(1)]))
    );
    assert_eq!(op.attr("data_format"), Some(ctx.str_attr("NCHW")));
    let with_bias = ScaleOp::build(&mut b, x, Some(y), ScaleOpAttrs::new(1.0)).unwrap();
    assert_eq!(with_bias.bias(b.program()), Some(y));

    // A vector input (one operand of vector type) and a vector output.
    let pair = builtin::combine(&mut b, &[x, y]).unwrap();
    let concat = ConcatOp::build(&mut b, pair, ConcatOpAttrs::default()).unwrap();
    assert_eq!(
        b.program().value_type(concat.out(b.program())),
        Some(ctx.dense_tensor_type(DataType::Float32, &[4, 3]))
    );
    let unstack = UnstackOp::build(&mut b, x).unwrap();
    let row = ctx.dense_tensor_type(DataType::Float32, &[3]);
    assert_eq!(
        b.program().value_type(unstack.outs(b.program())),
        Some(ctx.vector_type(&[row, row]))
    );
    // The optional output the function left unset has no type.
    assert_eq!(b.program().value_type(unstack.mask(b.program())), None);

    verify(&f.prog).unwrap();
    let text = f.prog.to_string();
    assert!(text.contains("\"rt.add\""), "{text}");
    assert!(text.contains("\"rt.concat\""), "{text}");
}

#[test]
fn infer_shape_errors_and_missing_inference_are_build_errors() {
    let mut f = Fixture::new();
    let x = f.param("x", &[2, 3]);
    let y = f.param("y", &[3, 2]);
    let mut b = Builder::at_end(&mut f.prog);
    assert_eq!(
        AddOp::build(&mut b, x, y).unwrap_err(),
        BuildError::InferMeta {
            op: "rt.add",
            func: "InferShape",
            message: "shapes [2, 3] and [3, 2] differ".into(),
        }
    );
    assert_eq!(
        OpaqueOp::build(&mut b, x).unwrap_err(),
        BuildError::NoInference { op: "rt.opaque" }
    );
}

#[test]
fn an_output_the_shape_function_left_unset_is_a_build_error() {
    let mut f = Fixture::new();
    let x = f.param("x", &[2]);
    let n = f.prog.block_len(f.prog.block());
    let err = ForgetfulOp::build(&mut Builder::at_end(&mut f.prog), x).unwrap_err();
    assert_eq!(
        err,
        BuildError::InferOutput {
            op: "rt.forgetful",
            func: "InferShape",
            problem: InferOutputError::NotSet { output: "out" },
        }
    );
    assert_eq!(
        err.to_string(),
        "rt.forgetful (InferShape): the function did not set output `out`"
    );
    assert_eq!(f.prog.block_len(f.prog.block()), n, "no op was created");
}

#[test]
fn build_with_explicit_types_and_with_an_attribute_dictionary() {
    let mut f = Fixture::new();
    let x = f.param("x", &[4]);
    let ctx = f.ctx.clone();
    let mut b = Builder::at_end(&mut f.prog);
    let i64s = ctx.dense_tensor_type(DataType::Int64, &[4]);
    let opaque =
        OpaqueOp::build_with_types(&mut b, &[Some(x)], ctx.empty_dict(), &[Some(i64s)]).unwrap();
    assert_eq!(b.program().value_type(opaque.out(b.program())), Some(i64s));

    let attrs = ctx.dict_attr(&[
        ("factor", ctx.f32_attr(3.0)),
        (
            "strides",
            ctx.array_attr(&[ctx.i32_attr(2), ctx.i32_attr(2)]),
        ),
        ("data_format", ctx.str_attr("NCHW")),
        ("stop_gradient", ctx.bool_attr(true)),
    ]);
    let scale = ScaleOp::build_with_attributes(&mut b, x, None, attrs).unwrap();
    let op = b.program().op(scale.op());
    assert_eq!(op.attr("factor"), Some(ctx.f32_attr(3.0)));
    // Entries beyond the op's attributes are kept.
    assert_eq!(op.attr("stop_gradient"), Some(ctx.bool_attr(true)));
    assert_eq!(
        b.program().value_type(scale.out(b.program())),
        Some(f.f32s(&[4]))
    );
    verify(&f.prog).unwrap();
}

/// Builds `op` with explicit operands, attributes and result types (no checks), verifies the
/// program and returns the single error's message.
fn verify_message<O: Op>(
    f: &mut Fixture,
    operands: &[Option<Value>],
    attrs: &[(&str, pir_runtime::Attribute)],
    results: &[Option<Type>],
) -> String {
    let dict = f.ctx.dict_attr(attrs);
    Builder::at_end(&mut f.prog)
        .create_with(O::DEF, operands, dict, results, 0)
        .unwrap();
    let errs = verify(&f.prog).unwrap_err();
    assert_eq!(errs.0.len(), 1, "{errs}");
    assert_eq!(errs.0[0].op_name, O::DEF.name);
    errs.0[0].message()
}

fn scale_attrs(ctx: &IrContext) -> Vec<(&'static str, pir_runtime::Attribute)> {
    vec![
        ("factor", ctx.f32_attr(2.0)),
        (
            "strides",
            ctx.array_attr(&[ctx.i32_attr(1), ctx.i32_attr(1)]),
        ),
        ("data_format", ctx.str_attr("NCHW")),
    ]
}

/// The verify message of a well-typed `ScaleOp` whose attributes `edit` changes.
fn scale_message(
    edit: impl FnOnce(&IrContext, &mut Vec<(&'static str, pir_runtime::Attribute)>),
) -> String {
    let mut f = Fixture::new();
    let x = f.param("x", &[2]);
    let t = f.f32s(&[2]);
    let mut attrs = scale_attrs(&f.ctx);
    edit(&f.ctx, &mut attrs);
    verify_message::<ScaleOp>(&mut f, &[Some(x), None], &attrs, &[Some(t)])
}

#[test]
fn verify_reports_a_wrong_operand_count() {
    let mut f = Fixture::new();
    let x = f.param("x", &[2]);
    let t = f.f32s(&[2]);
    let m = verify_message::<AddOp>(&mut f, &[Some(x)], &[], &[Some(t)]);
    assert_eq!(m, "expected 2 operand(s) (x, y), found 1");
}

#[test]
fn verify_reports_a_wrong_operand_type() {
    let mut f = Fixture::new();
    let x = f.param("x", &[2]);
    let v = builtin::combine(&mut Builder::at_end(&mut f.prog), &[x]).unwrap();
    let t = f.f32s(&[2]);
    let m = verify_message::<AddOp>(&mut f, &[Some(x), Some(v)], &[], &[Some(t)]);
    assert_eq!(
        m,
        "operand 1 (`y`): expected paddle::dialect::DenseTensorType, found vec[tensor<2xf32>]"
    );
}

#[test]
fn verify_reports_a_null_operand_that_is_not_optional() {
    let mut f = Fixture::new();
    let x = f.param("x", &[2]);
    let t = f.f32s(&[2]);
    let m = verify_message::<AddOp>(&mut f, &[Some(x), None], &[], &[Some(t)]);
    assert_eq!(m, "operand 1 (`y`) is null but the input is not optional");
    // A null optional operand is fine.
    let mut g = Fixture::new();
    let attrs = scale_attrs(&g.ctx);
    let x = g.param("x", &[2]);
    let t = g.f32s(&[2]);
    let dict = g.ctx.dict_attr(&attrs);
    Builder::at_end(&mut g.prog)
        .create_with(ScaleOp::DEF, &[Some(x), None], dict, &[Some(t)], 0)
        .unwrap();
    verify(&g.prog).unwrap();
}

#[test]
fn verify_reports_a_missing_attribute() {
    let m = scale_message(|_, attrs| attrs.retain(|(n, _)| *n != "factor"));
    assert_eq!(
        m,
        "attribute `factor` is missing (expected pir::FloatAttribute)"
    );
}

#[test]
fn verify_reports_an_attribute_of_the_wrong_kind() {
    let m = scale_message(|ctx, attrs| attrs[0].1 = ctx.f64_attr(2.0));
    assert_eq!(
        m,
        "attribute `factor`: expected pir::FloatAttribute, found pir::DoubleAttribute 2"
    );
}

#[test]
fn verify_reports_an_array_attribute_with_wrong_elements() {
    let m = scale_message(|ctx, attrs| {
        attrs[1].1 = ctx.array_attr(&[ctx.i32_attr(1), ctx.i64_attr(1)]);
    });
    assert_eq!(
        m,
        "attribute `strides`: expected pir::ArrayAttribute<pir::Int32Attribute>, found pir::ArrayAttribute [1,1]"
    );
}

#[test]
fn verify_reports_a_wrong_result_type_and_count() {
    let mut f = Fixture::new();
    let x = f.param("x", &[2]);
    let t = f.f32s(&[2]);
    let vec_t = f.ctx.vector_type(&[t]);
    let m = verify_message::<OpaqueOp>(&mut f, &[Some(x)], &[], &[Some(vec_t)]);
    assert_eq!(
        m,
        "result 0 (`out`): expected paddle::dialect::DenseTensorType, found vec[tensor<2xf32>]"
    );
    let mut f = Fixture::new();
    let x = f.param("x", &[2]);
    // A type of this fixture's context (the first fixture's would be refused as foreign).
    let t = f.f32s(&[2]);
    let m = verify_message::<OpaqueOp>(&mut f, &[Some(x)], &[], &[Some(t), Some(t)]);
    assert_eq!(m, "expected 1 result(s) (out), found 2");
    // A non-optional result without a type.
    let mut f = Fixture::new();
    let x = f.param("x", &[2]);
    let m = verify_message::<OpaqueOp>(&mut f, &[Some(x)], &[], &[None]);
    assert_eq!(
        m,
        "result 0 (`out`): expected paddle::dialect::DenseTensorType, found <<NULL TYPE>>"
    );
}

#[test]
fn verify_runs_the_extra_verifier_after_the_signature() {
    let mut f = Fixture::new();
    let x = f.param("x", &[2]);
    let t = f.f32s(&[2]);
    let attrs = [("min", f.ctx.f32_attr(2.0)), ("max", f.ctx.f32_attr(1.0))];
    let m = verify_message::<ClipOp>(&mut f, &[Some(x)], &attrs, &[Some(t)]);
    assert_eq!(m, "min 2 is greater than max 1");
    // Built through the typed build with consistent values, it verifies.
    let mut g = Fixture::new();
    let x = g.param("x", &[2]);
    ClipOp::build(&mut Builder::at_end(&mut g.prog), x, ClipOpAttrs::default()).unwrap();
    verify(&g.prog).unwrap();
}

/// Verify errors carry the failing op and a kind to match on: the generated signature check's,
/// an extra verifier's typed kind, and free text from a verifier returning `String`.
#[test]
fn verify_errors_carry_the_op_and_a_kind() {
    let mut f = Fixture::new();
    let x = f.param("x", &[2]);
    let t = f.f32s(&[2]);
    let bad = f
        .ctx
        .dict_attr(&[("min", f.ctx.f32_attr(2.0)), ("max", f.ctx.f32_attr(1.0))]);
    let empty = f.ctx.empty_dict();
    let mut b = Builder::at_end(&mut f.prog);
    let add = b
        .create_with(AddOp::DEF, &[Some(x)], empty, &[Some(t)], 0)
        .unwrap();
    let typed = b
        .create_with(ClipTypedOp::DEF, &[Some(x)], bad, &[Some(t)], 0)
        .unwrap();
    let text = b
        .create_with(ClipOp::DEF, &[Some(x)], bad, &[Some(t)], 0)
        .unwrap();
    let errs = verify(&f.prog).unwrap_err();
    let found: Vec<_> = errs.0.iter().map(|e| (e.op, (*e.kind).clone())).collect();
    assert_eq!(
        found,
        [
            (
                add,
                VerifyErrorKind::OperandCount {
                    expected: 2,
                    found: 1,
                    names: Some(vec!["x", "y"]),
                }
            ),
            (
                typed,
                VerifyErrorKind::AttributeValue {
                    name: "min",
                    problem: "2 is greater than max 1".into(),
                }
            ),
            (
                text,
                VerifyErrorKind::Custom("min 2 is greater than max 1".into())
            ),
        ]
    );
    assert_eq!(
        errs.0[1].to_string(),
        "rt.clip_typed (op 2 of block 0): attribute `min`: 2 is greater than max 1"
    );
}

#[test]
fn backward_ops_are_verified_leniently() {
    let mut f = Fixture::new();
    let g = f.param("g", &[2]);
    let t = f.f32s(&[2]);
    let wrong = f.ctx.i32_attr(1);
    // Missing attribute and null results: accepted for a grad op.
    Builder::at_end(&mut f.prog)
        .create_with(
            ScaleGradOp::DEF,
            &[Some(g)],
            f.ctx.empty_dict(),
            &[Some(t), None],
            0,
        )
        .unwrap();
    verify(&f.prog).unwrap();
    // A present attribute must still have the right kind.
    let m = verify_message::<ScaleGradOp>(&mut f, &[Some(g)], &[("factor", wrong)], &[None, None]);
    assert_eq!(
        m,
        "attribute `factor`: expected pir::FloatAttribute, found pir::Int32Attribute 1"
    );
}

#[test]
fn traits_and_interfaces_can_be_queried() {
    let add = AddOp::DEF;
    assert!(add.has_trait::<ReadOnly>());
    assert!(add.has_trait::<Commutative>());
    assert!(!add.has_trait::<TwoOperands>());
    assert!(!add.has_trait::<Inplace>());
    assert!(add.has_trait_named("CommutativeTrait"));
    assert!(add.has_interface::<InferShape>());
    assert!(add.has_interface::<InferSymbolicShape>());
    assert!(add.interface::<Vjp>().is_none());
    let yaml = add
        .interface::<OpYamlInfo>()
        .expect("OpYamlInfo is always attached");
    assert_eq!(yaml.get_op_info(), AddOp::get_op_info());
    assert_eq!(
        AddOp::schema()
            .interfaces
            .iter()
            .map(|i| &**i)
            .collect::<Vec<_>>(),
        [
            "CostInterface",
            "InferShapeInterface",
            "InferSymbolicShapeInterface",
            "OpYamlInfoInterface"
        ]
    );
    assert!(AddOp::schema().has_trait("CommutativeTrait"));

    let relu = ReluInplaceOp::DEF;
    assert!(relu.has_trait::<Inplace>());
    assert!(!relu.has_trait::<ReadOnly>());
    assert_eq!(
        relu.interface::<Vjp>().map(|v| v.backward_op),
        Some("rt.relu_grad")
    );
    assert!(OpaqueOp::DEF.has_trait::<SideEffect>());
    assert!(!OpaqueOp::DEF.has_interface::<InferShape>());
}

#[test]
fn an_interface_of_another_crate_is_found_and_called() {
    let mut f = Fixture::new();
    let x = f.param("x", &[2]);
    let add = AddOp::build(&mut Builder::at_end(&mut f.prog), x, x).unwrap();
    let op = f.prog.op(add.op());
    let cost = op.def().interface::<Cost>().expect("declared by path");
    assert_eq!((cost.cost)(op), 20);
    assert!(ScaleOp::DEF.interface::<Cost>().is_none());
    // Typed handles cast back from generic ops.
    assert_eq!(AddOp::cast(op), Some(add));
    assert_eq!(ScaleOp::cast(op), None);
}

#[test]
fn the_schema_carries_docs_and_the_source_location() {
    let s = AddOp::schema();
    assert_eq!(s.doc, "`out = x + y`, same shapes.");
    assert_eq!(s.inputs[0].doc, "Left operand.");
    let src = s
        .source
        .as_ref()
        .expect("a #[pir_op] schema knows where it was defined");
    assert!(src.file.ends_with("pir_op_runtime.rs"), "{}", src.file);
    assert_eq!(src.line, 23, "the line of `pub struct AddOp`");
    assert_eq!(s.class_name, "AddOp");
    assert_eq!(ReluInplaceOp::schema().class_name, "Relu_Op");
}
