//! Where Vjps come from: the generated table of a yaml op (equal to the one derived at run time
//! from the two schemas), the run-time derivation for an op without a table, and a `#[pir_op]`
//! op's hand-written Vjp (`interfaces(Vjp)` + `impl VjpOp`), used by `grad`.

use pir_macros::pir_op;
use pir_runtime::interfaces::{InferShapeOp, Vjp, VjpArgs, VjpOp, VjpResult};
use pir_runtime::meta::{InferMetaCtx, InferMetaError, Scalar};
use pir_runtime::op_support::{build_typed, AttrArg};
use pir_runtime::{BuildError, Builder, IrContext, Op, OpId};
use pir_spec::vjp::{vjp_rule, VjpOperand, VjpValue};

/// `out = 2 * x`, whose gradient is written by hand: `x_grad = scale(out_grad, 2)`.
#[pir_op(name = "toy.double", interfaces(InferShape, Vjp))]
pub struct DoubleOp {
    // `grad`: the input has grad semantics (Paddle differentiates only such inputs).
    #[input(grad)]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

impl InferShapeOp for DoubleOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        let x = ctx.tensor(0)?.clone();
        ctx.set_output(0, x)
    }
}

impl VjpOp for DoubleOp {
    fn vjp(b: &mut Builder<'_>, _op: OpId, args: &VjpArgs<'_>) -> Result<VjpResult, BuildError> {
        let g = args.out_grads[0][0].expect("an output grad");
        let scale = b.ctx().op_def("pd_op.scale").expect("pd_op.scale");
        let attrs = [AttrArg::Scalar(Scalar::F32(0.0)), AttrArg::Bool(true)];
        let op = build_typed(b, scale, &[Some(g)], &[AttrArg::F32(2.0)], &attrs)?;
        let x_grad = b.program().op(op).result(0);
        Ok(vec![smallvec_of(x_grad)])
    }
}

fn smallvec_of(v: pir_runtime::Value) -> smallvec::SmallVec<[Option<pir_runtime::Value>; 1]> {
    smallvec::smallvec![Some(v)]
}

/// An op without a Vjp.
#[pir_op(name = "toy.opaque", interfaces(InferShape))]
pub struct OpaqueOp {
    #[input]
    x: DenseTensor,
    #[output]
    out: DenseTensor,
}

impl InferShapeOp for OpaqueOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        let x = ctx.tensor(0)?.clone();
        ctx.set_output(0, x)
    }
}

pir_runtime::dialect!(
    /// The ops of these tests.
    pub ToyDialect = "toy" [DoubleOp, OpaqueOp]);

fn context() -> std::sync::Arc<IrContext> {
    let ctx = op_defs::pd_op::context();
    ctx.register_dialect::<ToyDialect>().unwrap();
    ctx
}

#[test]
fn a_hand_written_vjp_is_called_by_grad() {
    let ctx = context();
    assert!(DoubleOp::DEF
        .interface::<Vjp>()
        .and_then(|v| v.custom)
        .is_some());
    let text = "{
    (%0) = \"pd_op.data\" () {dtype:float32,name:\"x\",place:Place(undefined:0),shape:[2,3],stop_gradient:[false]} : () -> tensor<2x3xf32>
    (%1) = \"toy.double\" (%0) {stop_gradient:[false]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = \"pd_op.relu\" (%1) {stop_gradient:[false]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
";
    let mut prog = pir_runtime::parser::parse_program(&ctx, text).unwrap();
    let x = prog.op(prog.first_op(prog.block()).unwrap()).result(0);
    let loss = prog.op(prog.last_op(prog.block()).unwrap()).result(0);
    let grads = pir_autodiff::grad(&mut prog, &[loss], &[x], &[]).unwrap();
    let out = prog.to_string();
    let names: Vec<&str> = out.lines().filter_map(|l| l.split('"').nth(1)).collect();
    assert_eq!(
        names,
        [
            "pd_op.data",
            "toy.double",
            "pd_op.relu",
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.relu_grad",
            "pd_op.full",
            "pd_op.scale"
        ],
        "{out}"
    );
    let scale = prog.defining_op(grads[0].unwrap()).unwrap();
    assert_eq!(prog.op(scale).name(), "pd_op.scale");
    pir_runtime::verify(&prog).unwrap();
}

#[test]
fn generated_tables_equal_the_tables_derived_at_run_time() {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    let lookup = |n: &str| ctx.op_def(&format!("pd_op.{n}")).and_then(|d| d.schema);
    let mut with_table = 0;
    for def in ctx.registered_ops() {
        let Some(v) = def.interface::<Vjp>() else {
            continue;
        };
        let Some(rule) = v.rule else { continue };
        with_table += 1;
        // A backward op Paddle writes by hand (split_grad): the generated table follows its
        // yaml entry (its `invoke`), which the registered hand-written class does not carry.
        let hand_written = op_defs::manual::OPS.iter().any(|d| d.name == v.backward_op);
        if hand_written {
            continue;
        }
        let derived = vjp_rule(def.schema.unwrap(), lookup).unwrap();
        assert_eq!(*rule, derived, "{}", def.name);
    }
    assert!(
        with_table > 50,
        "only {with_table} ops have a generated table"
    );
    // relu's: relu_grad(out, out_grad) -> x_grad.
    let relu = ctx
        .op_def("pd_op.relu")
        .unwrap()
        .interface::<Vjp>()
        .unwrap();
    let rule = relu.rule.unwrap();
    assert_eq!(rule.op, "relu_grad");
    assert_eq!(
        rule.operands[..],
        [
            VjpOperand::Value(VjpValue::Output(0)),
            VjpOperand::Value(VjpValue::OutputGrad(0))
        ]
    );
    assert_eq!(rule.outputs[..], [Some(0)]);
}

#[test]
fn an_op_without_a_vjp_on_the_path_is_a_clear_error() {
    let ctx = context();
    let text = "{
    (%0) = \"pd_op.data\" () {dtype:float32,name:\"x\",place:Place(undefined:0),shape:[2,3],stop_gradient:[false]} : () -> tensor<2x3xf32>
    (%1) = \"toy.opaque\" (%0) {stop_gradient:[false]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = \"pd_op.relu\" (%1) {stop_gradient:[false]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
";
    let mut prog = pir_runtime::parser::parse_program(&ctx, text).unwrap();
    let x = prog.op(prog.first_op(prog.block()).unwrap()).result(0);
    let loss = prog.op(prog.last_op(prog.block()).unwrap()).result(0);
    let err = pir_autodiff::grad(&mut prog, &[loss], &[x], &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "op toy.opaque (op 1 of block 0) has no grad op (no VjpInterface)"
    );
    // With the op's result in the no-grad set, the op is off the path: no error, no gradient.
    let mut prog = pir_runtime::parser::parse_program(&ctx, text).unwrap();
    let first = prog.first_op(prog.block()).unwrap();
    let x = prog.op(first).result(0);
    let opaque = prog.op(first).next_op().unwrap();
    let y = prog.op(opaque).result(0);
    let loss = prog.op(prog.last_op(prog.block()).unwrap()).result(0);
    let grads = pir_autodiff::grad(&mut prog, &[loss], &[x], &[y]).unwrap();
    assert_eq!(grads, [None]);
}

#[test]
fn a_grad_op_differentiates_through_its_double_grad() {
    // tanh_double_grad's backward entry names tanh_grad's operands `out, grad_out` and its
    // result `grad_x` (its `forward :` declaration), not tanh_grad's own names.
    let ctx = context();
    let text = "{
    (%0) = \"pd_op.data\" () {dtype:float32,name:\"x\",place:Place(undefined:0),shape:[2,3],stop_gradient:[false]} : () -> tensor<2x3xf32>
    (%1) = \"pd_op.tanh\" (%0) {stop_gradient:[false]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
";
    let mut prog = pir_runtime::parser::parse_program(&ctx, text).unwrap();
    let x = prog.op(prog.first_op(prog.block()).unwrap()).result(0);
    let out = prog.op(prog.last_op(prog.block()).unwrap()).result(0);
    let g = pir_autodiff::grad(&mut prog, &[out], &[x], &[]).unwrap()[0].unwrap();
    let gg = pir_autodiff::grad(&mut prog, &[g], &[x], &[]).unwrap()[0].unwrap();
    let text = prog.to_string();
    let names: Vec<&str> = text.lines().filter_map(|l| l.split('"').nth(1)).collect();
    assert_eq!(
        names,
        [
            "pd_op.data",
            "pd_op.tanh",
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.tanh_grad",
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.tanh_double_grad",
            "pd_op.tanh_grad"
        ],
        "{text}"
    );
    // x's second derivative: tanh_grad(out, d out) where d out is tanh_double_grad's first
    // result (the gradient of tanh_grad's `out` operand).
    let last = prog.defining_op(gg).unwrap();
    let dout = prog.op(last).operand(1).unwrap();
    let double = prog.defining_op(dout).unwrap();
    assert_eq!(prog.op(double).name(), "pd_op.tanh_double_grad");
    assert_eq!(prog.op(double).result(0), dout);
    pir_runtime::verify(&prog).unwrap();
}

#[test]
fn split_follows_the_invoke_of_its_backward_entry_although_split_grad_is_hand_written() {
    // backward.yaml: `split_grad ... invoke : concat(out_grad, axis)`; Paddle's generated
    // SplitOp::Vjp calls concat, while pd_op.split_grad is a hand-written class.
    let ctx = context();
    assert!(ctx.op_def("pd_op.split_grad").is_some());
    let v = ctx
        .op_def("pd_op.split")
        .unwrap()
        .interface::<Vjp>()
        .unwrap();
    assert_eq!(v.backward_op, "pd_op.split_grad");
    let rule = v.rule.expect("split has a generated table");
    assert_eq!(rule.op, "concat");
    assert_eq!(
        rule.operands[..],
        [
            VjpOperand::Value(VjpValue::OutputGrad(0)),
            VjpOperand::Value(VjpValue::Input(2))
        ]
    );
}

const ASSIGN_OUT: &str = "{
    (%0) = \"pd_op.data\" () {dtype:float32,name:\"x\",place:Place(undefined:0),shape:[2,3],stop_gradient:[false]} : () -> tensor<2x3xf32>
    (%1) = \"pd_op.data\" () {dtype:float32,name:\"y\",place:Place(undefined:0),shape:[2,3],stop_gradient:[false]} : () -> tensor<2x3xf32>
    (%2) = \"pd_op.assign_out_\" (%0, %1) {} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    (%3) = \"pd_op.data\" () {dtype:float32,name:\"g\",place:Place(undefined:0),shape:[2,3],stop_gradient:[false]} : () -> tensor<2x3xf32>
}
";

/// Calls `op`'s hand-written Vjp with every operand's gradient wanted or not (`stop`).
fn call_custom(
    prog: &mut pir_runtime::Program,
    op: OpId,
    out_grad: pir_runtime::Value,
    stop: &[bool],
) -> Result<VjpResult, BuildError> {
    let f = prog
        .op(op)
        .def()
        .interface::<Vjp>()
        .unwrap()
        .custom
        .unwrap();
    let r = prog.op(op);
    let inputs: Vec<_> = r.operands().map(|v| smallvec::smallvec![v]).collect();
    let outputs: Vec<_> = r.results().map(|v| smallvec::smallvec![Some(v)]).collect();
    let mut out_grads = vec![smallvec::smallvec![None]; outputs.len()];
    out_grads[0] = smallvec_of(out_grad);
    let stops: Vec<smallvec::SmallVec<[bool; 1]>> =
        stop.iter().map(|&s| smallvec::smallvec![s]).collect();
    let args = VjpArgs {
        inputs: &inputs,
        outputs: &outputs,
        out_grads: &out_grads,
        stop_gradients: &stops,
    };
    let mut b = Builder::at_end(prog);
    f(&mut b, op, &args)
}

#[test]
fn assign_out_passes_the_grad_to_x_and_a_zero_grad_to_the_overwritten_output() {
    let ctx = context();
    let mut prog = pir_runtime::parser::parse_program(&ctx, ASSIGN_OUT).unwrap();
    let ops: Vec<OpId> = prog.block_ops(prog.block()).collect();
    let (assign, g) = (ops[2], prog.op(ops[3]).result(0));
    let res = call_custom(&mut prog, assign, g, &[false, false]).unwrap();
    assert_eq!(res.len(), 2);
    assert_eq!(res[0][0], Some(g), "x's gradient is the output grad itself");
    let zero = prog.defining_op(res[1][0].unwrap()).unwrap();
    assert_eq!(prog.op(zero).name(), "pd_op.full_like");
    assert_eq!(prog.op(zero).operand(0), Some(prog.op(ops[1]).result(0)));
    pir_runtime::verify(&prog).unwrap();
    // Unwanted gradients: none returned, no op built.
    let n = prog.block_ops(prog.block()).count();
    let res = call_custom(&mut prog, assign, g, &[true, true]).unwrap();
    assert!(res.iter().all(|g| g[..] == [None]), "{res:?}");
    assert_eq!(prog.block_ops(prog.block()).count(), n);
}

#[test]
fn fused_gemm_epilogue_with_an_activation_has_no_backward_as_in_paddle() {
    let ctx = context();
    let text = "{
    (%0) = \"pd_op.data\" () {dtype:float32,name:\"x\",place:Place(undefined:0),shape:[2,3],stop_gradient:[false]} : () -> tensor<2x3xf32>
    (%1) = \"pd_op.data\" () {dtype:float32,name:\"w\",place:Place(undefined:0),shape:[3,4],stop_gradient:[false]} : () -> tensor<3x4xf32>
    (%2) = \"pd_op.data\" () {dtype:float32,name:\"b\",place:Place(undefined:0),shape:[4],stop_gradient:[false]} : () -> tensor<4xf32>
    (%3, %4) = \"pd_op.fused_gemm_epilogue\" (%0, %1, %2) {activation:\"relu\",stop_gradient:[false,false],trans_x:false,trans_y:false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>, tensor<2x4xf32>
}
";
    let mut prog = pir_runtime::parser::parse_program(&ctx, text).unwrap();
    let x = prog.op(prog.first_op(prog.block()).unwrap()).result(0);
    let gemm = prog.last_op(prog.block()).unwrap();
    let out = prog.op(gemm).result(0);
    let err = pir_autodiff::grad(&mut prog, &[out], &[x], &[]).unwrap_err();
    assert!(
        err.to_string()
            .contains("could not run backward with activation"),
        "{err}"
    );
}

#[test]
fn increment_passes_its_grad_through_a_scale_by_one() {
    // Paddle's `IncrementOp::Vjp`: `scale(out_grad)` with the API's defaults, the scale
    // materialised as a `full` (float32, cpu, [1], 1).
    let ctx = context();
    let text = "{
    (%0) = \"pd_op.data\" () {dtype:float32,name:\"x\",place:Place(undefined:0),shape:[1],stop_gradient:[false]} : () -> tensor<1xf32>
    (%1) = \"pd_op.increment\" (%0) {stop_gradient:[false],value:2} : (tensor<1xf32>) -> tensor<1xf32>
    (%2) = \"pd_op.full_int_array\" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[]} : () -> tensor<0xi64>
    (%3) = \"pd_op.sum\" (%1, %2) {dtype:Undefined,keepdim:false,stop_gradient:[false]} : (tensor<1xf32>, tensor<0xi64>) -> tensor<f32>
}
";
    let mut prog = pir_runtime::parser::parse_program(&ctx, text).unwrap();
    let ops: Vec<OpId> = prog.block_ops(prog.block()).collect();
    let (x, loss) = (prog.op(ops[0]).result(0), prog.op(ops[3]).result(0));
    let grads = pir_autodiff::grad(&mut prog, &[loss], &[x], &[]).unwrap();
    let out = prog.to_string();
    for line in [
        "    (%7) = \"pd_op.full\" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>\n",
        "    (%8) = \"pd_op.scale\" (%6, %7) {bias:0,bias_after_scale:true,stop_gradient:[false]} : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>\n",
    ] {
        assert!(out.contains(line), "missing `{line}` in\n{out}");
    }
    assert_eq!(
        grads,
        [Some(prog.op(prog.last_op(prog.block()).unwrap()).result(0))]
    );
    pir_runtime::verify(&prog).unwrap();
}
