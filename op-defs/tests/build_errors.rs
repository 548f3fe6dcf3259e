//! Typed builds with wrong shapes fail with an error naming the op, the infer-meta function
//! and the rule that failed — and create no op.

use op_defs::pd_op::*;
use pir_runtime::phi::{DataType, Place};
use pir_runtime::{BuildError, BuildErrorKind, Builder, IrContext, Program, Value};

struct Env {
    prog: Program,
}

impl Env {
    fn new() -> Env {
        let ctx = IrContext::new();
        op_defs::pd_op::register(&ctx).unwrap();
        Env {
            prog: Program::new(&ctx),
        }
    }

    fn b(&mut self) -> Builder<'_> {
        Builder::at_end(&mut self.prog)
    }

    fn data(&mut self, name: &str, shape: &[i64], dtype: DataType) -> Value {
        let attrs = DataOpAttrs {
            name,
            shape,
            dtype,
            place: Place::default(),
        };
        let mut b = self.b();
        DataOp::build(&mut b, attrs).unwrap().out(b.program())
    }

    fn f32(&mut self, name: &str, shape: &[i64]) -> Value {
        self.data(name, shape, DataType::Float32)
    }
}

/// Asserts the error is an infer-meta failure of `op` in `func` whose message contains every
/// fragment, and that the failed build left no op behind.
#[track_caller]
fn assert_meta_error<T: std::fmt::Debug>(
    env: &Env,
    ops_before: usize,
    r: Result<T, BuildError>,
    op: &str,
    func: &str,
    fragments: &[&str],
) {
    let err = r.expect_err("the build must fail");
    let text = err.to_string();
    match &err {
        BuildError::InferMeta {
            op: o,
            func: f,
            message,
        } => {
            assert_eq!(*o, op, "{text}");
            assert_eq!(*f, func, "{text}");
            for frag in fragments {
                assert!(message.contains(frag), "`{frag}` not in: {text}");
            }
        }
        other => panic!("expected an infer-meta error, got {other:?}"),
    }
    assert!(text.starts_with(&format!("{op} ({func}): ")), "{text}");
    // Mutable-attribute helper ops (full / full_int_array) may precede the failed op; the op
    // itself is never created.
    let names: Vec<&str> = env
        .prog
        .block_ops(env.prog.block())
        .skip(ops_before)
        .map(|o| env.prog.op(o).name())
        .collect();
    assert!(
        !names.contains(&op),
        "{op} was created although its build failed: {names:?}"
    );
}

fn count(env: &Env) -> usize {
    env.prog.block_len(env.prog.block())
}

#[test]
fn conv2d_input_channels_must_match_the_filter() {
    let mut e = Env::new();
    let x = e.f32("x", &[1, 3, 8, 8]);
    let w = e.f32("w", &[4, 5, 3, 3]);
    let n = count(&e);
    let r = Conv2dOp::build(&mut e.b(), x, w, Conv2dOpAttrs::default());
    assert_meta_error(&e, n, r, "pd_op.conv2d", "ConvInferMeta", &["3", "5"]);
}

#[test]
fn add_operands_must_broadcast() {
    let mut e = Env::new();
    let x = e.f32("x", &[2, 3]);
    let y = e.f32("y", &[4, 3]);
    let n = count(&e);
    let r = AddOp::build(&mut e.b(), x, y);
    assert_meta_error(&e, n, r, "pd_op.add", "ElementwiseInferMeta", &["2", "4"]);
}

#[test]
fn concat_inputs_must_have_the_same_rank() {
    let mut e = Env::new();
    let x = e.f32("x", &[2, 3]);
    let y = e.f32("y", &[2, 3, 4]);
    let n = count(&e);
    let list = pir_runtime::builtin::combine(&mut e.b(), &[x, y]).unwrap();
    let r = ConcatOp::build(&mut e.b(), list, 0);
    assert_meta_error(&e, n, r, "pd_op.concat", "ConcatInferMeta", &["rank"]);
}

#[test]
fn reshape_allows_one_unknown_dimension() {
    let mut e = Env::new();
    let x = e.f32("x", &[2, 3, 4]);
    let n = count(&e);
    let r = ReshapeOp::build(&mut e.b(), x, &[-1, -1]);
    assert_meta_error(&e, n, r, "pd_op.reshape", "ReshapeInferMeta", &["-1"]);
}

#[test]
fn reshape_must_keep_the_element_count() {
    let mut e = Env::new();
    let x = e.f32("x", &[2, 3, 4]);
    let n = count(&e);
    let r = ReshapeOp::build(&mut e.b(), x, &[5, 5]);
    assert_meta_error(&e, n, r, "pd_op.reshape", "ReshapeInferMeta", &["24", "25"]);
}

#[test]
fn split_sections_must_sum_to_the_dimension() {
    let mut e = Env::new();
    let x = e.f32("x", &[4, 6]);
    let n = count(&e);
    let r = SplitOp::build(&mut e.b(), x, &[2, 3], 1);
    assert_meta_error(&e, n, r, "pd_op.split", "SplitInferMeta", &["5", "6"]);
}

#[test]
fn gather_index_must_be_one_dimensional() {
    let mut e = Env::new();
    let x = e.f32("x", &[4, 6]);
    let i = e.data("i", &[2, 2], DataType::Int64);
    let n = count(&e);
    let r = GatherOp::build(&mut e.b(), x, i, 0);
    assert_meta_error(&e, n, r, "pd_op.gather", "GatherInferMeta", &["index"]);
}

#[test]
fn transpose_perm_must_not_repeat_an_axis() {
    // (A perm shorter than the rank is allowed, as in Paddle: fused squeeze2 + transpose2.)
    let mut e = Env::new();
    let x = e.f32("x", &[2, 3, 4]);
    let n = count(&e);
    let r = TransposeOp::build(&mut e.b(), x, TransposeOpAttrs { perm: &[0, 0, 1] });
    assert_meta_error(
        &e,
        n,
        r,
        "pd_op.transpose",
        "TransposeInferMeta",
        &["repeats axis 0"],
    );
}

#[test]
fn softmax_axis_must_be_in_range() {
    let mut e = Env::new();
    let x = e.f32("x", &[2, 3]);
    let n = count(&e);
    let r = SoftmaxOp::build(&mut e.b(), x, SoftmaxOpAttrs { axis: 5 });
    assert_meta_error(&e, n, r, "pd_op.softmax", "SoftmaxInferMeta", &["5"]);
}

#[test]
fn pool2d_needs_a_4d_input() {
    let mut e = Env::new();
    let x = e.f32("x", &[3, 8, 8]);
    let n = count(&e);
    let attrs = Pool2dOpAttrs {
        strides: &[1, 1],
        paddings: &[0, 0],
        ceil_mode: false,
        exclusive: true,
        data_format: "NCHW",
        pooling_type: "max",
        global_pooling: false,
        adaptive: false,
        padding_algorithm: "EXPLICIT",
    };
    let r = Pool2dOp::build(&mut e.b(), x, &[2, 2], attrs);
    assert_meta_error(&e, n, r, "pd_op.pool2d", "Pool2DInferMeta", &["3"]);
}

#[test]
fn layer_norm_begin_axis_must_be_in_range() {
    let mut e = Env::new();
    let x = e.f32("x", &[2, 3]);
    let n = count(&e);
    let r = LayerNormOp::build(
        &mut e.b(),
        x,
        None,
        None,
        LayerNormOpAttrs {
            begin_norm_axis: 4,
            ..Default::default()
        },
    );
    assert_meta_error(&e, n, r, "pd_op.layer_norm", "LayerNormInferMeta", &["4"]);
}

#[test]
fn where_operands_must_have_the_same_shape() {
    let mut e = Env::new();
    let c = e.data("c", &[2, 3], DataType::Bool);
    let x = e.f32("x", &[2, 3]);
    let y = e.f32("y", &[3, 2]);
    let n = count(&e);
    let r = WhereOp::build(&mut e.b(), c, x, y);
    assert_meta_error(&e, n, r, "pd_op.where", "WhereInferMeta", &["3"]);
}

#[test]
fn stack_inputs_must_have_the_same_shape() {
    let mut e = Env::new();
    let x = e.f32("x", &[2, 3]);
    let y = e.f32("y", &[2, 4]);
    let n = count(&e);
    let list = pir_runtime::builtin::combine(&mut e.b(), &[x, y]).unwrap();
    let r = StackOp::build(&mut e.b(), list, StackOpAttrs { axis: 0 });
    assert_meta_error(&e, n, r, "pd_op.stack", "StackInferMeta", &["3", "4"]);
}

#[test]
fn wrong_operand_kinds_are_rejected_before_inference() {
    let mut e = Env::new();
    let x = e.f32("x", &[2, 3]);
    let list = pir_runtime::builtin::combine(&mut e.b(), &[x, x]).unwrap();
    let err = ReluOp::build(&mut e.b(), list).unwrap_err();
    assert_eq!(
        err.to_string(),
        "pd_op.relu: input 0 (`x`): expected paddle::dialect::DenseTensorType, got a value of type vec[tensor<2x3xf32>,tensor<2x3xf32>]"
    );
    // The error is typed: the op, the input by index and name, the value's type handle.
    let list_type = e.prog.value_type(list);
    match err {
        BuildError::Invalid {
            op: "pd_op.relu",
            kind:
                BuildErrorKind::InputType {
                    index: 0,
                    name: "x",
                    found,
                    ..
                },
        } => assert_eq!(found.ty, list_type),
        other => panic!("expected an input-type error, got {other:?}"),
    }
}
