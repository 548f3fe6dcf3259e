//! Tests of the infer-meta functions, called through [`REGISTRY`] by Paddle's names with the
//! arguments in `infer_meta.param` order. Expected shapes come from the programs real Paddle
//! printed (`paddle-ref`) or are worked out by hand from the op's definition.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pir_runtime::meta::{
    AttrValue, InferMetaCtx, InferMetaError, IntArrayArg, MetaArg, MetaOut, Scalar, TensorMeta,
};
use pir_runtime::phi::{DataLayout, DataType, Place};

use super::REGISTRY;

use DataType::{BFloat16, Bool, Float16, Float32, Int32, Int64, UInt8};

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------

/// One owned argument.
#[derive(Clone, Debug)]
enum A {
    T(TensorMeta),
    None,
    Ts(Vec<TensorMeta>),
    NoTs,
    At(AttrValue<'static>),
}

fn t(dtype: DataType, dims: &[i64]) -> A {
    A::T(TensorMeta::new(dtype, dims))
}
fn f32t(dims: &[i64]) -> A {
    t(Float32, dims)
}
fn ts(v: &[&[i64]]) -> A {
    A::Ts(v.iter().map(|d| TensorMeta::new(Float32, d)).collect())
}
fn int(v: i64) -> A {
    A::At(AttrValue::I32(v as i32))
}
fn i64a(v: i64) -> A {
    A::At(AttrValue::I64(v))
}
fn b(v: bool) -> A {
    A::At(AttrValue::Bool(v))
}
fn fl(v: f32) -> A {
    A::At(AttrValue::F32(v))
}
fn s(v: &str) -> A {
    A::At(AttrValue::Str(v.to_string().into()))
}
fn ints(v: &[i64]) -> A {
    A::At(AttrValue::Ints(v.iter().copied().collect()))
}
fn ia(v: &[i64]) -> A {
    A::At(AttrValue::IntArray(IntArrayArg::known(v)))
}
fn ia_unknown(len: Option<usize>) -> A {
    A::At(AttrValue::IntArray(IntArrayArg::unknown(len)))
}
fn sc(v: i64) -> A {
    A::At(AttrValue::Scalar(Some(Scalar::I64(v))))
}
fn scf(v: f32) -> A {
    A::At(AttrValue::Scalar(Some(Scalar::F32(v))))
}
fn sc_unknown() -> A {
    A::At(AttrValue::Scalar(None))
}
fn dt(v: DataType) -> A {
    A::At(AttrValue::DataType(v))
}

/// Calls the function registered as `name` with `args` and `n_out` output slots.
fn call(name: &str, args: &[A], n_out: usize) -> Result<Vec<MetaOut>, InferMetaError> {
    let f = REGISTRY
        .get(name)
        .unwrap_or_else(|| panic!("{name} is not registered"));
    let margs: Vec<MetaArg<'_>> = args
        .iter()
        .map(|a| match a {
            A::T(x) => MetaArg::Tensor(Some(x)),
            A::None => MetaArg::Tensor(None),
            A::Ts(v) => MetaArg::Tensors(Some(v)),
            A::NoTs => MetaArg::Tensors(None),
            A::At(v) => MetaArg::Attr(v),
        })
        .collect();
    let mut outs = vec![MetaOut::None; n_out];
    f(&mut InferMetaCtx::new(&margs, &mut outs))?;
    Ok(outs.into_iter().map(|o| o.resolve(&margs)).collect())
}

fn ok(name: &str, args: &[A], n_out: usize) -> Vec<MetaOut> {
    call(name, args, n_out).unwrap_or_else(|e| panic!("{name} failed: {e}"))
}

fn err(name: &str, args: &[A], n_out: usize) -> String {
    match call(name, args, n_out) {
        Ok(o) => panic!("{name} unexpectedly succeeded: {o:?}"),
        Err(e) => e.0,
    }
}

fn tm(o: &MetaOut) -> &TensorMeta {
    match o {
        MetaOut::Tensor(t) => t,
        other => panic!("expected one tensor, got {other:?}"),
    }
}

fn tv(o: &MetaOut) -> &[TensorMeta] {
    match o {
        MetaOut::Tensors(t) => t,
        other => panic!("expected a tensor list, got {other:?}"),
    }
}

/// Asserts dims and dtype of output `o`.
fn is(o: &MetaOut, dims: &[i64], dtype: DataType) {
    let m = tm(o);
    assert_eq!(&m.dims[..], dims, "dims of {m:?}");
    assert_eq!(m.dtype, dtype, "dtype of {m:?}");
}

fn dims_of(v: &[TensorMeta]) -> Vec<Vec<i64>> {
    v.iter().map(|t| t.dims.to_vec()).collect()
}

// ---------------------------------------------------------------------------------------------
// Registry
// ---------------------------------------------------------------------------------------------

#[test]
fn registry_is_sorted_and_complete_for_the_core_ops() {
    REGISTRY.check_sorted().unwrap();
    assert!(REGISTRY.len() > 380, "only {} functions", REGISTRY.len());
    for name in [
        "UnchangedInferMeta",
        "ConvInferMeta",
        "BatchNormInferMeta",
        "Pool2DInferMeta",
        "ElementwiseInferMeta",
        "MatmulInferMeta",
        "ReshapeInferMeta",
        "TransposeInferMeta",
        "FlattenInferMeta",
        "ConcatInferMeta",
        "SplitInferMeta",
        "SplitWithNumInferMeta",
        "SliceRawInferMeta",
        "StackInferMeta",
        "UnbindInferMeta",
        "UnsqueezeInferMeta",
        "SqueezeInferMeta",
        "GatherInferMeta",
        "CastInferMeta",
        "CreateInferMeta",
        "CreateLikeInferMeta",
        "CreateVecShapeInferMeta",
        "ReduceIntArrayAxisInferMeta",
        "SumInferMeta",
        "ArgMinMaxInferMeta",
        "SoftmaxInferMeta",
        "CrossEntropyWithSoftmaxInferMeta",
        "LayerNormInferMeta",
        "DropoutInferMeta",
        "EmbeddingInferMeta",
        "WhereInferMeta",
        "DataInferMeta",
        "MeshgridInferMeta",
        "UniformRandomInferMeta",
        "GaussianInferMeta",
        "SgdInferMeta",
        "MomentumInferMeta",
        "AdamInferMeta",
        "AdamwInferMeta",
        "GeneralUnaryGradInferMeta",
        "GeneralBinaryGradInferMeta",
        "GeneralTernaryGradInferMeta",
        "GeneralQuaternaryGradInferMeta",
        "GradSameWithXInferMeta",
        "TransposeGradInferMeta",
        "StackGradInferMeta",
        "MeshgridGradInferMeta",
        "CrossEntropyWithSoftmaxGradInferMeta",
        "LayerNormGradInferMeta",
        "UnchangedMultiInferMeta",
        "EmbeddingGradSparseInferMeta",
    ] {
        assert!(REGISTRY.get(name).is_some(), "{name} missing");
    }
    assert!(REGISTRY.get("NoSuchInferMeta").is_none());
}

// ---------------------------------------------------------------------------------------------
// The program of paddle-ref/text/small_features_pir.txt
// ---------------------------------------------------------------------------------------------

#[test]
fn small_features_split_concat_stack_reshape() {
    // split(x: 4x6, sections [2, 4], axis 1) -> vec[4x2, 4x4]
    let o = ok("SplitInferMeta", &[f32t(&[4, 6]), ia(&[2, 4]), sc(1)], 1);
    assert_eq!(dims_of(tv(&o[0])), vec![vec![4, 2], vec![4, 4]]);
    assert!(tv(&o[0]).iter().all(|t| t.dtype == Float32));
    // concat([4x4, 4x2], axis 1) -> 4x6
    let o = ok("ConcatInferMeta", &[ts(&[&[4, 4], &[4, 2]]), sc(1)], 1);
    is(&o[0], &[4, 6], Float32);
    // stack([4x6, 4x6], axis 0) -> 2x4x6
    let o = ok("StackInferMeta", &[ts(&[&[4, 6], &[4, 6]]), int(0)], 1);
    is(&o[0], &[2, 4, 6], Float32);
    // reshape(2x4x6, [8, -1]) -> 8x6
    let o = ok("ReshapeInferMeta", &[f32t(&[2, 4, 6]), ia(&[8, -1])], 1);
    is(&o[0], &[8, 6], Float32);
    // scale -> UnchangedInferMeta
    let o = ok("UnchangedInferMeta", &[f32t(&[8, 6])], 1);
    is(&o[0], &[8, 6], Float32);
}

#[test]
fn small_features_creation_where_gather_cast_slice() {
    let o = ok("CreateVecShapeInferMeta", &[ints(&[2, 4]), dt(Int64)], 1);
    is(&o[0], &[2], Int64);
    let o = ok("CreateVecShapeInferMeta", &[ints(&[]), dt(Int64)], 1);
    is(&o[0], &[0], Int64);
    let o = ok("CreateInferMeta", &[ia(&[1]), dt(Int32)], 1);
    is(&o[0], &[1], Int32);
    let o = ok("CreateInferMeta", &[ia(&[]), dt(Float32)], 1);
    is(&o[0], &[], Float32);
    let o = ok("CreateLikeInferMeta", &[f32t(&[4, 6]), dt(Float32)], 1);
    is(&o[0], &[4, 6], Float32);
    let o = ok("DataInferMeta", &[s("x"), ia(&[4, 6]), dt(Float32)], 1);
    is(&o[0], &[4, 6], Float32);
    let o = ok(
        "WhereInferMeta",
        &[t(Bool, &[4, 6]), f32t(&[4, 6]), f32t(&[4, 6])],
        1,
    );
    is(&o[0], &[4, 6], Float32);
    let o = ok(
        "GatherInferMeta",
        &[f32t(&[4, 6]), t(Int64, &[4]), sc(0)],
        1,
    );
    is(&o[0], &[4, 6], Float32);
    let o = ok("CastInferMeta", &[f32t(&[4, 6]), dt(BFloat16)], 1);
    is(&o[0], &[4, 6], BFloat16);
    // slice(x, axes [1], [0], [1], decrease [1]) -> [4]; axes [0] -> [6]
    let slice = |axis: i64| {
        let args = [
            f32t(&[4, 6]),
            ints(&[axis]),
            ia(&[0]),
            ia(&[1]),
            ints(&[1]),
            ints(&[axis]),
        ];
        tm(&ok("SliceRawInferMeta", &args, 1)[0]).dims.to_vec()
    };
    assert_eq!(slice(1), vec![4]);
    assert_eq!(slice(0), vec![6]);
}

#[test]
fn small_features_meshgrid_matmul_unbind_argmax_max() {
    let o = ok("MeshgridInferMeta", &[ts(&[&[4], &[6]])], 1);
    assert_eq!(dims_of(tv(&o[0])), vec![vec![4, 6], vec![4, 6]]);
    let o = ok(
        "MatmulInferMeta",
        &[f32t(&[4, 6]), f32t(&[6, 5]), b(false), b(false)],
        1,
    );
    is(&o[0], &[4, 5], Float32);
    let o = ok("ElementwiseInferMeta", &[f32t(&[4, 5]), f32t(&[5])], 1);
    is(&o[0], &[4, 5], Float32);
    let o = ok("UnbindInferMeta", &[f32t(&[2, 4, 6]), int(0)], 1);
    assert_eq!(dims_of(tv(&o[0])), vec![vec![4, 6], vec![4, 6]]);
    let args = [f32t(&[4, 6]), sc(1), b(false), b(false), dt(Int64)];
    let o = ok("ArgMinMaxInferMeta", &args, 1);
    is(&o[0], &[4], Int64);
    let o = ok(
        "ReduceIntArrayAxisInferMeta",
        &[f32t(&[4, 6]), ia(&[0, 1]), b(true)],
        1,
    );
    is(&o[0], &[1, 1], Float32);
}

#[test]
fn split_slice_program_with_dynamic_batch() {
    // paddle-ref/legacy/split_slice_translated_pir.txt
    let o = ok(
        "SplitInferMeta",
        &[f32t(&[-1, 3, 8, 8]), ia(&[1, 2]), sc(1)],
        1,
    );
    assert_eq!(
        dims_of(tv(&o[0])),
        vec![vec![-1, 1, 8, 8], vec![-1, 2, 8, 8]]
    );
    let o = ok("UnbindInferMeta", &[f32t(&[-1, 2, 8, 8]), int(1)], 1);
    assert_eq!(dims_of(tv(&o[0])), vec![vec![-1, 8, 8], vec![-1, 8, 8]]);
    let o = ok("UnsqueezeInferMeta", &[f32t(&[-1, 8, 8]), ia(&[1])], 1);
    is(&o[0], &[-1, 1, 8, 8], Float32);
    let o = ok(
        "ConcatInferMeta",
        &[ts(&[&[-1, 1, 8, 8], &[-1, 1, 8, 8]]), sc(1)],
        1,
    );
    is(&o[0], &[-1, 2, 8, 8], Float32);
    let o = ok(
        "ElementwiseInferMeta",
        &[f32t(&[-1, 2, 8, 8]), f32t(&[-1, 2, 8, 8])],
        1,
    );
    is(&o[0], &[-1, 2, 8, 8], Float32);
}

// ---------------------------------------------------------------------------------------------
// The training program of paddle-ref/legacy/small_cnn_train_translated_pir.txt
// ---------------------------------------------------------------------------------------------

fn conv_args(x: &[i64], w: &[i64], stride: i64, pad: &[i64], algo: &str, fmt: &str) -> Vec<A> {
    vec![
        f32t(x),
        f32t(w),
        ints(&[stride, stride]),
        ints(pad),
        s(algo),
        ints(&[1, 1]),
        int(1),
        s(fmt),
    ]
}

fn pool_args(x: &[i64], k: &[i64], stride: i64, fmt: &str, ty: &str) -> Vec<A> {
    vec![
        f32t(x),
        ia(k),
        ints(&[stride, stride]),
        ints(&[0, 0]),
        b(false),
        b(true),
        s(fmt),
        s(ty),
        b(false),
        b(false),
        s("EXPLICIT"),
    ]
}

#[test]
fn small_cnn_forward() {
    let x = [-1, 3, 32, 32];
    let o = ok(
        "ConvInferMeta",
        &conv_args(&x, &[8, 3, 3, 3], 1, &[1, 1], "EXPLICIT", "NCHW"),
        1,
    );
    is(&o[0], &[-1, 8, 32, 32], Float32);
    let o = ok("ReshapeInferMeta", &[f32t(&[8]), ia(&[1, 8, 1, 1])], 1);
    is(&o[0], &[1, 8, 1, 1], Float32);
    let o = ok(
        "ElementwiseInferMeta",
        &[f32t(&[-1, 8, 32, 32]), f32t(&[1, 8, 1, 1])],
        1,
    );
    is(&o[0], &[-1, 8, 32, 32], Float32);

    let bn = [
        f32t(&[-1, 8, 32, 32]),
        f32t(&[8]),
        f32t(&[8]),
        f32t(&[8]),
        f32t(&[8]),
        b(false),
        fl(0.9),
        fl(1e-5),
        s("NCHW"),
        b(false),
        b(false),
    ];
    let o = ok("BatchNormInferMeta", &bn, 6);
    is(&o[0], &[-1, 8, 32, 32], Float32);
    for out in &o[1..5] {
        is(out, &[8], Float32);
    }
    // The real PIR program (pir_json/small_cnn_roundtrip_pir.txt) shows tensor<-1xu8>.
    is(&o[5], &[-1], UInt8);

    let o = ok("UnchangedInferMeta", &[f32t(&[-1, 8, 32, 32])], 1);
    is(&o[0], &[-1, 8, 32, 32], Float32);
    let o = ok(
        "Pool2DInferMeta",
        &pool_args(&[-1, 8, 32, 32], &[2, 2], 2, "NCHW", "max"),
        1,
    );
    is(&o[0], &[-1, 8, 16, 16], Float32);
    let o = ok(
        "FlattenInferMeta",
        &[f32t(&[-1, 8, 16, 16]), int(1), int(3)],
        1,
    );
    is(&o[0], &[-1, 2048], Float32);
    let o = ok("ReshapeInferMeta", &[f32t(&[-1, 2048]), ia(&[-1, 2048])], 1);
    is(&o[0], &[-1, 2048], Float32);
    let o = ok(
        "MatmulInferMeta",
        &[f32t(&[-1, 2048]), f32t(&[2048, 10]), b(false), b(false)],
        1,
    );
    is(&o[0], &[-1, 10], Float32);
    let o = ok("ElementwiseInferMeta", &[f32t(&[-1, 10]), f32t(&[10])], 1);
    is(&o[0], &[-1, 10], Float32);

    let ce = [
        f32t(&[-1, 10]),
        t(Int64, &[-1, 1]),
        b(false),
        b(true),
        b(true),
        int(-100),
        int(-1),
    ];
    let o = ok("CrossEntropyWithSoftmaxInferMeta", &ce, 2);
    is(&o[0], &[-1, 10], Float32);
    is(&o[1], &[-1, 1], Float32);
    let o = ok(
        "ReduceIntArrayAxisInferMeta",
        &[f32t(&[-1, 1]), ia(&[]), b(false)],
        1,
    );
    is(&o[0], &[], Float32);
}

#[test]
fn small_cnn_backward() {
    let o = ok("UnchangedInferMeta", &[f32t(&[-1, 1])], 1); // mean_grad
    is(&o[0], &[-1, 1], Float32);
    let ceg = [
        t(Int64, &[-1, 1]),
        f32t(&[-1, 10]),
        f32t(&[-1, 1]),
        b(false),
        b(true),
        b(true),
        int(-100),
        int(-1),
    ];
    let o = ok("CrossEntropyWithSoftmaxGradInferMeta", &ceg, 1);
    is(&o[0], &[-1, 10], Float32);
    let o = ok(
        "GeneralBinaryGradInferMeta",
        &[f32t(&[-1, 10]), f32t(&[10])],
        2,
    ); // add_grad
    is(&o[0], &[-1, 10], Float32);
    is(&o[1], &[10], Float32);
    let o = ok(
        "GeneralBinaryGradInferMeta",
        &[f32t(&[-1, 2048]), f32t(&[2048, 10])],
        2,
    );
    is(&o[0], &[-1, 2048], Float32);
    is(&o[1], &[2048, 10], Float32);
    // flatten_grad(x: -1x8x16x16, out_grad: -1x2048) -> -1x8x16x16
    let o = ok(
        "GradSameWithXInferMeta",
        &[f32t(&[-1, 8, 16, 16]), f32t(&[-1, 2048])],
        1,
    );
    is(&o[0], &[-1, 8, 16, 16], Float32);
    // reshape_grad(x: 8, out_grad: 1x8x1x1) -> 8
    let o = ok(
        "GradSameWithXInferMeta",
        &[f32t(&[8]), f32t(&[1, 8, 1, 1])],
        1,
    );
    is(&o[0], &[8], Float32);
    // batch_norm_grad -> GeneralTernaryGradInferMeta(x, scale, bias)
    let o = ok(
        "GeneralTernaryGradInferMeta",
        &[f32t(&[-1, 8, 32, 32]), f32t(&[8]), f32t(&[8])],
        3,
    );
    is(&o[0], &[-1, 8, 32, 32], Float32);
    is(&o[1], &[8], Float32);
    is(&o[2], &[8], Float32);
    // sgd_(param, lr: f32[], grad, master: none, multi_precision false)
    let o = ok(
        "SgdInferMeta",
        &[
            f32t(&[8, 3, 3, 3]),
            f32t(&[]),
            f32t(&[8, 3, 3, 3]),
            A::None,
            b(false),
        ],
        2,
    );
    is(&o[0], &[8, 3, 3, 3], Float32);
    assert_eq!(
        o[1],
        MetaOut::None,
        "master_param_out stays null like in the program"
    );
}

#[test]
fn adam_in_paddle_3_3_signature_matches_static_adam_program() {
    // pir_json/static_adam_pir.txt: adam_ with moment2_max absent and amsgrad false.
    let args = [
        f32t(&[2]),
        f32t(&[2]),
        f32t(&[]),
        f32t(&[2]),
        f32t(&[2]),
        A::None,
        f32t(&[1]),
        f32t(&[1]),
        A::None,
        A::None,
        scf(0.9),
        scf(0.999),
        scf(1e-8),
        b(false),
        i64a(1000),
        b(false),
        b(false),
        b(false),
    ];
    let o = ok("AdamInferMeta", &args, 7);
    for j in [0, 1, 2] {
        is(&o[j], &[2], Float32);
    }
    assert_eq!(o[3], MetaOut::None);
    is(&o[4], &[1], Float32);
    is(&o[5], &[1], Float32);
    assert_eq!(o[6], MetaOut::None);

    // AdamW: the same plus lr_ratio, coeff, with_decay; multi_precision with a master weight.
    let mut w: Vec<A> = args[..13].to_vec();
    w[0] = t(Float16, &[2]);
    w[8] = f32t(&[2]);
    w.extend([
        fl(1.0),
        fl(0.01),
        b(true),
        b(false),
        i64a(1000),
        b(true),
        b(false),
        b(true),
    ]);
    let o = ok("AdamwInferMeta", &w, 7);
    is(&o[0], &[2], Float16);
    is(&o[3], &[2], Float32); // amsgrad: moment2_max_out
    is(&o[6], &[2], Float32); // master weight in float32
}

#[test]
fn adam_and_adamw_before_amsgrad_have_no_moment2_max() {
    // The yaml snapshot's adam_ (16 arguments) and adamw_ (19): six outputs, beta1_pow_out third
    // from the end; a float16 param keeps its master weight in float32.
    let mut adam = vec![
        t(Float16, &[2, 3]),
        t(Float16, &[2, 3]),
        f32t(&[1]),
        f32t(&[2, 3]),
        f32t(&[2, 3]),
        f32t(&[1]),
        f32t(&[1]),
        f32t(&[2, 3]),
        A::None,
        scf(0.9),
        scf(0.999),
        scf(1e-8),
        b(false),
        i64a(1000),
        b(true),
        b(false),
    ];
    let check = |o: &[MetaOut]| {
        is(&o[0], &[2, 3], Float16);
        is(&o[1], &[2, 3], Float32);
        is(&o[2], &[2, 3], Float32);
        is(&o[3], &[1], Float32);
        is(&o[4], &[1], Float32);
        is(&o[5], &[2, 3], Float32);
    };
    check(&ok("AdamInferMeta", &adam, 6));
    for (i, a) in [fl(1.0), fl(0.01), b(true)].into_iter().enumerate() {
        adam.insert(12 + i, a);
    }
    check(&ok("AdamwInferMeta", &adam, 6));
}

#[test]
fn auc_takes_both_of_paddles_signatures() {
    // paddle-ref ops auc/0: auc(x, l, sp, sn, None, 'ROC', 4095, 1) on x 4x2, label 4x1 int64
    // and statistics 1x4096 gives tensor<i64>, tensor<8193xi64>, tensor<8193xi64>.
    let stat = || t(Int64, &[1, 4096]);
    let mut args = vec![
        f32t(&[4, 2]),
        t(Int64, &[4, 1]),
        stat(),
        stat(),
        A::None,
        s("ROC"),
        int(4095),
        int(1),
    ];
    let o = ok("AucInferMeta", &args, 3);
    is(&o[0], &[], Int64);
    is(&o[1], &[8193], Int64);
    is(&o[2], &[8193], Int64);
    // Before ins_tag_weight (`AucInferMeta(input, label, stat_pos, stat_neg, curve,
    // num_thresholds, slide_steps)`): the same rule, seven arguments.
    args.remove(4);
    let o = ok("AucInferMeta", &args, 3);
    is(&o[1], &[8193], Int64);
    args[6] = int(0);
    let o = ok("AucInferMeta", &args, 3);
    is(&o[2], &[1, 4096], Int64);
    args[6] = int(-1);
    let e = err("AucInferMeta", &args, 3);
    assert_eq!(e, "slide_steps must be non-negative, got -1");
}

#[test]
fn momentum_keeps_paddles_dtype_rules() {
    // MomentumInferMeta only sets param_out's dims (dtype stays the fresh float32) and keeps
    // the velocity in the master precision.
    let args = [
        t(Float16, &[3, 4]),
        t(Float16, &[3, 4]),
        f32t(&[3, 4]),
        f32t(&[1]),
        A::None,
        fl(0.9),
        b(false),
        s(""),
        fl(0.0),
        b(false),
        fl(1.0),
    ];
    let o = ok("MomentumInferMeta", &args, 3);
    is(&o[0], &[3, 4], Float32);
    is(&o[1], &[3, 4], Float32);
    assert_eq!(o[2], MetaOut::None);
}

// ---------------------------------------------------------------------------------------------
// Layouts, broadcasting, reductions, negative axes
// ---------------------------------------------------------------------------------------------

#[test]
fn conv_and_pool_nhwc_vs_nchw() {
    let o = ok(
        "ConvInferMeta",
        &conv_args(
            &[2, 32, 32, 3],
            &[8, 3, 3, 3],
            1,
            &[1, 1],
            "EXPLICIT",
            "NHWC",
        ),
        1,
    );
    is(&o[0], &[2, 32, 32, 8], Float32);
    // SAME with stride 2: ceil(32 / 2) = 16, paddings ignored.
    let o = ok(
        "ConvInferMeta",
        &conv_args(&[2, 32, 32, 3], &[8, 3, 3, 3], 2, &[0, 0], "SAME", "NHWC"),
        1,
    );
    is(&o[0], &[2, 16, 16, 8], Float32);
    // VALID NCHW: 32 - 3 + 1 = 30.
    let o = ok(
        "ConvInferMeta",
        &conv_args(&[2, 3, 32, 32], &[8, 3, 3, 3], 1, &[1, 1], "VALID", "NCHW"),
        1,
    );
    is(&o[0], &[2, 8, 30, 30], Float32);
    // Unknown spatial extents stay unknown.
    let o = ok(
        "ConvInferMeta",
        &conv_args(
            &[-1, 3, -1, 20],
            &[8, 3, 5, 5],
            1,
            &[0, 0],
            "EXPLICIT",
            "NCHW",
        ),
        1,
    );
    is(&o[0], &[-1, 8, -1, 16], Float32);

    let o = ok(
        "Pool2DInferMeta",
        &pool_args(&[2, 32, 32, 8], &[2, 2], 2, "NHWC", "avg"),
        1,
    );
    is(&o[0], &[2, 16, 16, 8], Float32);
    // Global pooling keeps the channels and makes the spatial dims 1.
    let mut g = pool_args(&[2, 8, 7, 7], &[3, 3], 1, "NCHW", "avg");
    g[8] = b(true);
    let o = ok("Pool2DInferMeta", &g, 1);
    is(&o[0], &[2, 8, 1, 1], Float32);
    // Adaptive pooling outputs the kernel size.
    let mut a = pool_args(&[2, 8, 7, 7], &[3, 3], 1, "NCHW", "avg");
    a[9] = b(true);
    let o = ok("Pool2DInferMeta", &a, 1);
    is(&o[0], &[2, 8, 3, 3], Float32);
}

#[test]
fn batch_norm_channels_follow_the_data_format() {
    let bn = |x: &[i64], fmt: &str, c: i64| {
        vec![
            f32t(x),
            f32t(&[c]),
            f32t(&[c]),
            f32t(&[c]),
            f32t(&[c]),
            b(false),
            fl(0.9),
            fl(1e-5),
            s(fmt),
            b(false),
            b(false),
        ]
    };
    let o = ok("BatchNormInferMeta", &bn(&[2, 5, 5, 3], "NHWC", 3), 6);
    is(&o[1], &[3], Float32);
    let e = err("BatchNormInferMeta", &bn(&[2, 5, 5, 3], "NCHW", 3), 6);
    assert!(
        e.contains("scale has 3 elements but x [2, 5, 5, 3] has 5 channels"),
        "{e}"
    );
    // Half inputs keep float32 saved statistics.
    let mut h = bn(&[2, 4], "NCHW", 4);
    h[0] = t(Float16, &[2, 4]);
    let o = ok("BatchNormInferMeta", &h, 6);
    is(&o[0], &[2, 4], Float16);
    is(&o[3], &[4], Float32);
}

#[test]
fn elementwise_broadcasting() {
    let bc = |x: &[i64], y: &[i64]| {
        tm(&ok("ElementwiseInferMeta", &[f32t(x), f32t(y)], 1)[0])
            .dims
            .to_vec()
    };
    assert_eq!(bc(&[2, 1, 4], &[3, 1]), vec![2, 3, 4]);
    assert_eq!(bc(&[-1, 3], &[1, 3]), vec![-1, 3]);
    assert_eq!(bc(&[-1, 3], &[5, 3]), vec![5, 3]);
    assert_eq!(bc(&[-1], &[1]), vec![-1]);
    assert_eq!(bc(&[], &[2, 3]), vec![2, 3]);
    // Complex promotion.
    let o = ok(
        "ElementwiseInferMeta",
        &[f32t(&[2]), t(DataType::Complex64, &[2])],
        1,
    );
    is(&o[0], &[2], DataType::Complex64);
    // Comparisons give bool.
    let o = ok("CompareInferMeta", &[f32t(&[2, 3]), f32t(&[3])], 1);
    is(&o[0], &[2, 3], Bool);
}

#[test]
fn reductions_keepdim_reduce_all_and_negative_axes() {
    let red = |axis: &[i64], keep: bool| {
        tm(&ok(
            "ReduceIntArrayAxisInferMeta",
            &[f32t(&[2, 3, 4]), ia(axis), b(keep)],
            1,
        )[0])
        .dims
        .to_vec()
    };
    assert_eq!(red(&[-1], false), vec![2, 3]);
    assert_eq!(red(&[1], true), vec![2, 1, 4]);
    assert_eq!(red(&[], false), Vec::<i64>::new());
    assert_eq!(red(&[], true), vec![1, 1, 1]);
    assert_eq!(red(&[0, 1, 2], false), Vec::<i64>::new());
    // reduce_all overrides the axes.
    let o = ok(
        "ReduceIntArrayAxisInferMetaBase",
        &[f32t(&[2, 3, 4]), ia(&[1]), b(false), b(true)],
        1,
    );
    is(&o[0], &[], Float32);
    // Axes from a tensor of one value: the rank drops by one, every extent unknown.
    let o = ok(
        "ReduceIntArrayAxisInferMeta",
        &[f32t(&[2, 3, 4]), ia_unknown(Some(1)), b(false)],
        1,
    );
    is(&o[0], &[-1, -1], Float32);
    // sum: bool and int32 inputs sum to int64.
    let o = ok(
        "SumInferMeta",
        &[
            t(Bool, &[2, 3]),
            ia(&[0]),
            dt(DataType::Undefined),
            b(false),
        ],
        1,
    );
    is(&o[0], &[3], Int64);
    let o = ok(
        "SumInferMeta",
        &[f32t(&[2, 3]), ia(&[-2]), dt(DataType::Float64), b(true)],
        1,
    );
    is(&o[0], &[1, 3], DataType::Float64);
    // argmax with keepdims and flatten.
    let o = ok(
        "ArgMinMaxInferMeta",
        &[f32t(&[2, 3]), sc(-1), b(true), b(false), dt(Int32)],
        1,
    );
    is(&o[0], &[2, 1], Int32);
    let o = ok(
        "ArgMinMaxInferMeta",
        &[f32t(&[2, 3]), sc(0), b(false), b(true), dt(Int64)],
        1,
    );
    is(&o[0], &[], Int64);
}

#[test]
fn negative_axes_in_shape_ops() {
    let o = ok("SplitWithNumInferMeta", &[f32t(&[2, 9]), int(3), sc(-1)], 1);
    assert_eq!(dims_of(tv(&o[0])), vec![vec![2, 3]; 3]);
    let o = ok(
        "SplitInferMeta",
        &[f32t(&[2, 9]), ia(&[2, -1, 3]), sc(-1)],
        1,
    );
    assert_eq!(dims_of(tv(&o[0])), vec![vec![2, 2], vec![2, 4], vec![2, 3]]);
    let o = ok("StackInferMeta", &[ts(&[&[2, 3], &[2, 3]]), int(-1)], 1);
    is(&o[0], &[2, 3, 2], Float32);
    let o = ok("ConcatInferMeta", &[ts(&[&[2, 3], &[2, -1]]), sc(-1)], 1);
    is(&o[0], &[2, -1], Float32);
    let o = ok("ConcatInferMeta", &[ts(&[&[-1, 3], &[4, 3]]), sc(1)], 1);
    is(&o[0], &[4, 6], Float32);
    let o = ok(
        "ConcatInferMeta",
        &[ts(&[&[2, 3], &[2, 5]]), sc_unknown()],
        1,
    );
    is(&o[0], &[-1, -1], Float32);
    let o = ok("UnsqueezeInferMeta", &[f32t(&[2, 3]), ia(&[-1])], 1);
    is(&o[0], &[2, 3, 1], Float32);
    let o = ok("SqueezeInferMeta", &[f32t(&[2, 1, 3, 1]), ia(&[-1])], 1);
    is(&o[0], &[2, 1, 3], Float32);
    let o = ok("SqueezeInferMeta", &[f32t(&[2, 1, 3, 1]), ia(&[])], 1);
    is(&o[0], &[2, 3], Float32);
    let o = ok(
        "TransposeInferMeta",
        &[f32t(&[2, 3, 4]), ints(&[0, -1, 1])],
        1,
    );
    is(&o[0], &[2, 4, 3], Float32);
    let o = ok(
        "FlattenInferMeta",
        &[f32t(&[2, 3, 4, 5]), int(-3), int(-2)],
        1,
    );
    is(&o[0], &[2, 12, 5], Float32);
    let o = ok(
        "GatherInferMeta",
        &[f32t(&[4, 6]), t(Int64, &[]), sc(-1)],
        1,
    );
    is(&o[0], &[4], Float32);
    let o = ok("SoftmaxInferMeta", &[f32t(&[4, 6]), int(-1)], 1);
    is(&o[0], &[4, 6], Float32);
    let o = ok("UnbindInferMeta", &[f32t(&[2, 3]), int(-1)], 1);
    assert_eq!(dims_of(tv(&o[0])), vec![vec![2]; 3]);
}

#[test]
fn reshape_rules() {
    let rs = |x: &[i64], shape: A| {
        tm(&ok("ReshapeInferMeta", &[f32t(x), shape], 1)[0])
            .dims
            .to_vec()
    };
    assert_eq!(rs(&[2, 3, 4], ia(&[0, -1])), vec![2, 12]);
    assert_eq!(rs(&[-1, 3, 4], ia(&[0, 12])), vec![-1, 12]);
    assert_eq!(rs(&[-1, 3, 4], ia(&[-1, 4])), vec![-1, 4]);
    assert_eq!(rs(&[2, 3], ia_unknown(Some(3))), vec![-1, -1, -1]);
}

#[test]
fn layer_norm_and_its_gradient() {
    let ln = |x: A, begin: i64| vec![x, f32t(&[30]), f32t(&[30]), fl(1e-5), int(begin)];
    let o = ok("LayerNormInferMeta", &ln(f32t(&[4, 5, 6]), 1), 3);
    is(&o[0], &[4, 5, 6], Float32);
    is(&o[1], &[4], Float32);
    is(&o[2], &[4], Float32);
    let o = ok("LayerNormInferMeta", &ln(t(Float16, &[-1, 5, 6]), 2), 3);
    is(&o[0], &[-1, 5, 6], Float16);
    is(&o[1], &[-1, 5], Float32);
    // layer_norm_grad without scale/bias: only x_grad.
    let o = ok(
        "LayerNormGradInferMeta",
        &[f32t(&[4, 5, 6]), A::None, A::None],
        3,
    );
    is(&o[0], &[4, 5, 6], Float32);
    assert_eq!(o[1], MetaOut::None);
    assert_eq!(o[2], MetaOut::None);
}

#[test]
fn gradients_of_layout_ops() {
    // transpose with perm [0, 2, 3, 1] maps x [2, 3, 4, 5] to [2, 4, 5, 3]; the gradient goes back.
    let o = ok(
        "TransposeGradInferMeta",
        &[f32t(&[2, 4, 5, 3]), ints(&[0, 2, 3, 1])],
        1,
    );
    is(&o[0], &[2, 3, 4, 5], Float32);
    let o = ok(
        "TransposeGradInferMeta",
        &[f32t(&[2, 4, 5, 3]), ints(&[0, -2, -1, 1])],
        1,
    );
    is(&o[0], &[2, 3, 4, 5], Float32);
    let o = ok("StackGradInferMeta", &[f32t(&[3, 4, 5]), int(1)], 1);
    assert_eq!(dims_of(tv(&o[0])), vec![vec![3, 5]; 4]);
    let o = ok(
        "UnStackGradInferMeta",
        &[ts(&[&[3, 5], &[3, 5]]), int(-1)],
        1,
    );
    is(&o[0], &[3, 5, 2], Float32);
    let o = ok(
        "MeshgridGradInferMeta",
        &[ts(&[&[4], &[6]]), ts(&[&[4, 6], &[4, 6]])],
        1,
    );
    assert_eq!(dims_of(tv(&o[0])), vec![vec![4], vec![6]]);
    let o = ok("UnchangedMultiInferMeta", &[ts(&[&[4, 4], &[4, 2]])], 1); // concat_grad
    assert_eq!(dims_of(tv(&o[0])), vec![vec![4, 4], vec![4, 2]]);
    let o = ok("GeneralUnaryGradInferMeta", &[f32t(&[4, 6])], 1); // gather_grad
    is(&o[0], &[4, 6], Float32);
    let o = ok(
        "GeneralQuaternaryGradInferMeta",
        &[f32t(&[1]), f32t(&[2]), f32t(&[3]), f32t(&[4])],
        4,
    );
    is(&o[3], &[4], Float32);
    // The ternary family leaves the gradients of absent optional inputs unset.
    let o = ok(
        "GeneralTernaryGradInferMeta",
        &[f32t(&[2, 6]), A::None, A::None],
        3,
    );
    is(&o[0], &[2, 6], Float32);
    assert_eq!(o[1], MetaOut::None);
}

#[test]
fn lod_and_layout_propagation() {
    let mut x = TensorMeta::new(Float32, &[4, 6]);
    x.lod = vec![vec![0, 2, 4]];
    x.layout = DataLayout::Nhwc;
    // UnchangedInferMeta shares everything.
    let o = ok("UnchangedInferMeta", &[A::T(x.clone())], 1);
    assert_eq!(tm(&o[0]), &x);
    // cast keeps layout and LoD but changes the dtype.
    let o = ok("CastInferMeta", &[A::T(x.clone()), dt(Int32)], 1);
    assert_eq!(tm(&o[0]).lod, x.lod);
    assert_eq!(tm(&o[0]).layout, DataLayout::Nhwc);
    // transpose sets dims and dtype only: a fresh output has NCHW and no LoD.
    let o = ok("TransposeInferMeta", &[A::T(x.clone()), ints(&[1, 0])], 1);
    assert_eq!(tm(&o[0]).layout, DataLayout::Nchw);
    assert!(tm(&o[0]).lod.is_empty());
    // concat copies layout and LoD of the first input.
    let o = ok(
        "ConcatInferMeta",
        &[A::Ts(vec![x.clone(), x.clone()]), sc(0)],
        1,
    );
    assert_eq!(tm(&o[0]).dims.to_vec(), vec![8, 6]);
    assert_eq!(tm(&o[0]).layout, DataLayout::Nhwc);
    assert_eq!(tm(&o[0]).lod, x.lod);
}

#[test]
fn creation_ops() {
    let o = ok(
        "GaussianInferMeta",
        &[ia(&[2, 3]), fl(0.0), fl(1.0), int(0), dt(Float32)],
        1,
    );
    is(&o[0], &[2, 3], Float32);
    let o = ok(
        "UniformRandomInferMeta",
        &[ia_unknown(Some(2)), dt(Float16)],
        1,
    );
    is(&o[0], &[-1, -1], Float16);
    let o = ok("CreateInferMeta", &[ia_unknown(Some(3)), dt(Float32)], 1);
    is(&o[0], &[-1, -1, -1], Float32);
    let o = ok("EyeInferMeta", &[sc(3), sc(-1), dt(Float32)], 1);
    is(&o[0], &[3, 3], Float32);
    let o = ok("EyeInferMeta", &[sc_unknown(), sc(4), dt(Float32)], 1);
    is(&o[0], &[-1, 4], Float32);
    // 4x4 lower triangle with the diagonal: 10 entries; upper with the diagonal: 10 too.
    let o = ok(
        "TrilIndicesInferMeta",
        &[int(4), int(4), int(0), dt(Int64)],
        1,
    );
    is(&o[0], &[2, 10], Int64);
    let o = ok(
        "TriuIndicesInferMeta",
        &[int(4), int(4), int(0), dt(Int64)],
        1,
    );
    is(&o[0], &[2, 10], Int64);
    // 3x5, offset 1 (tril): rows hold 2, 3, 4 entries.
    let o = ok(
        "TrilIndicesInferMeta",
        &[int(3), int(5), int(1), dt(Int64)],
        1,
    );
    is(&o[0], &[2, 9], Int64);
}

#[test]
fn losses_embedding_dropout() {
    let o = ok(
        "EmbeddingInferMeta",
        &[t(Int64, &[-1, 5]), f32t(&[100, 16]), i64a(-1)],
        1,
    );
    is(&o[0], &[-1, 5, 16], Float32);
    let args = [
        f32t(&[4, 6]),
        A::None,
        scf(0.5),
        b(false),
        s("upscale_in_train"),
        int(0),
        b(false),
    ];
    let o = ok("DropoutInferMeta", &args, 2);
    is(&o[0], &[4, 6], Float32);
    is(&o[1], &[4, 6], UInt8);
    // Soft labels keep the axis; the loss reduces it to 1.
    let ce = [
        f32t(&[3, 4, 5]),
        f32t(&[3, 4, 5]),
        b(true),
        b(true),
        b(true),
        int(-100),
        int(1),
    ];
    let o = ok("CrossEntropyWithSoftmaxInferMeta", &ce, 2);
    is(&o[1], &[3, 1, 5], Float32);
    // nll_loss: 'none' keeps the batch, other reductions give a 0-D loss.
    let nll = |r: &str| vec![f32t(&[8, 10]), t(Int64, &[8]), A::None, i64a(-100), s(r)];
    is(
        &ok("NllLossRawInferMeta", &nll("none"), 2)[0],
        &[8],
        Float32,
    );
    is(&ok("NllLossRawInferMeta", &nll("mean"), 2)[0], &[], Float32);
}

#[test]
fn matmul_shapes_and_the_missing_inner_check() {
    let mm = |x: &[i64], y: &[i64], tx: bool, ty: bool| {
        tm(&ok("MatmulInferMeta", &[f32t(x), f32t(y), b(tx), b(ty)], 1)[0])
            .dims
            .to_vec()
    };
    assert_eq!(mm(&[2, 3, 4], &[4, 5], false, false), vec![2, 3, 5]);
    assert_eq!(mm(&[4], &[4, 5], false, false), vec![5]);
    assert_eq!(mm(&[2, 4], &[4], false, false), vec![2]);
    assert_eq!(mm(&[4], &[4], false, false), Vec::<i64>::new());
    assert_eq!(mm(&[3, 2], &[5, 3], true, true), vec![2, 5]);
    assert_eq!(mm(&[1, 2, 3], &[7, 3, 4], false, false), vec![7, 2, 4]);
    // Paddle 3.3.1's MatmulInferMeta does not compare the inner dims (its kernels do), so a
    // mismatch builds: [2, 3] x [4, 5] -> [2, 5].
    assert_eq!(mm(&[2, 3], &[4, 5], false, false), vec![2, 5]);
}

// ---------------------------------------------------------------------------------------------
// Wrong shapes: each error names the rule that failed
// ---------------------------------------------------------------------------------------------

#[test]
fn conv2d_channel_mismatch() {
    let e = err(
        "ConvInferMeta",
        &conv_args(
            &[-1, 3, 32, 32],
            &[8, 4, 3, 3],
            1,
            &[1, 1],
            "EXPLICIT",
            "NCHW",
        ),
        1,
    );
    assert!(
        e.starts_with("input channels 3 do not match filter's 4 × groups 1"),
        "{e}"
    );
    let mut g = conv_args(&[1, 4, 8, 8], &[7, 2, 3, 3], 1, &[0, 0], "EXPLICIT", "NCHW");
    g[6] = int(2);
    let e = err("ConvInferMeta", &g, 1);
    assert!(e.contains("7") && e.contains("groups 2"), "{e}");
}

#[test]
fn concat_rank_mismatch_and_extent_mismatch() {
    let e = err("ConcatInferMeta", &[ts(&[&[4, 6], &[4]]), sc(0)], 1);
    assert!(
        e.contains("input[1] [4] has rank 1 but input[0] [4, 6] has rank 2"),
        "{e}"
    );
    let e = err("ConcatInferMeta", &[ts(&[&[4, 6], &[5, 2]]), sc(1)], 1);
    assert!(
        e.contains("dimension 0 of input[0] [4, 6] and input[1] [5, 2] differ"),
        "{e}"
    );
    let e = err("ConcatInferMeta", &[ts(&[&[4, 6], &[4, 6]]), sc(2)], 1);
    assert!(e.contains("concat axis 2 is out of range [-2, 2)"), "{e}");
}

#[test]
fn broadcast_incompatibility() {
    let e = err("ElementwiseInferMeta", &[f32t(&[2, 3]), f32t(&[4, 3])], 1);
    assert!(e.contains("cannot broadcast x [2, 3] with y [4, 3]"), "{e}");
    assert!(e.contains("extents 2 and 4"), "{e}");
    let e = err("BroadcastTensorsInferMeta", &[ts(&[&[2, 3], &[4, 3]])], 1);
    assert!(e.contains("do not broadcast"), "{e}");
}

#[test]
fn reshape_errors() {
    let e = err("ReshapeInferMeta", &[f32t(&[2, 3, 4]), ia(&[-1, -1])], 1);
    assert!(e.contains("-1"), "{e}");
    assert!(e.to_lowercase().contains("only one"), "{e}");
    let e = err("ReshapeInferMeta", &[f32t(&[2, 3, 4]), ia(&[5, 5])], 1);
    assert!(e.contains("24") && e.contains("25"), "{e}");
}

#[test]
fn split_sections_must_sum_to_the_dim() {
    let e = err("SplitInferMeta", &[f32t(&[4, 6]), ia(&[2, 3]), sc(1)], 1);
    assert!(e.contains("6") && e.contains("[2, 3]"), "{e}");
    let e = err("SplitWithNumInferMeta", &[f32t(&[4, 6]), int(4), sc(1)], 1);
    assert!(e.contains("6") && e.contains("4"), "{e}");
}

#[test]
fn gather_index_rank() {
    let e = err(
        "GatherInferMeta",
        &[f32t(&[4, 6]), t(Int64, &[2, 2]), sc(0)],
        1,
    );
    assert!(e.contains("[2, 2]"), "{e}");
    assert!(e.contains("index"), "{e}");
}

#[test]
fn axis_out_of_range() {
    let e = err("UnbindInferMeta", &[f32t(&[2, 3, 4]), int(3)], 1);
    assert!(e.contains("3") && e.contains("[-3, 3)"), "{e}");
    let e = err("SoftmaxInferMeta", &[f32t(&[4, 6]), int(2)], 1);
    assert_eq!(
        e,
        "axis 2 is out of range for a 2-D tensor: it must lie in [-2, 2)"
    );
    let e = err("StackInferMeta", &[ts(&[&[2, 3]]), int(3)], 1);
    assert!(e.contains("stack axis 3 is out of range [-3, 3)"), "{e}");
    let e = err(
        "ReduceIntArrayAxisInferMeta",
        &[f32t(&[2, 3]), ia(&[2]), b(false)],
        1,
    );
    assert!(e.contains("reduce axis 2"), "{e}");
    let e = err("StackGradInferMeta", &[f32t(&[3, 4]), int(2)], 1);
    assert!(e.contains("axis 2"), "{e}");
}

#[test]
fn pool_and_conv_need_the_right_rank() {
    let e = err(
        "Pool2DInferMeta",
        &pool_args(&[8, 32, 32], &[2, 2], 2, "NCHW", "max"),
        1,
    );
    assert!(e.contains("[8, 32, 32]"), "{e}");
    let e = err(
        "ConvInferMeta",
        &conv_args(&[3, 32, 32], &[8, 3, 3, 3], 1, &[0, 0], "EXPLICIT", "NCHW"),
        1,
    );
    assert!(e.contains("[3, 32, 32]"), "{e}");
}

#[test]
fn layer_norm_begin_axis_and_epsilon() {
    let ln = |begin: i64, eps: f32| vec![f32t(&[4, 5, 6]), A::None, A::None, fl(eps), int(begin)];
    let e = err("LayerNormInferMeta", &ln(0, 1e-5), 3);
    assert_eq!(e, "begin_norm_axis must be greater than 0, got 0");
    let e = err("LayerNormInferMeta", &ln(3, 1e-5), 3);
    assert_eq!(
        e,
        "begin_norm_axis 3 must be less than the rank 3 of x [4, 5, 6]"
    );
    let e = err("LayerNormInferMeta", &ln(1, 0.5), 3);
    assert!(e.contains("epsilon must lie in [0, 0.001]"), "{e}");
}

#[test]
fn transpose_repeated_axis() {
    let e = err(
        "TransposeInferMeta",
        &[f32t(&[2, 3, 4]), ints(&[0, 0, 1])],
        1,
    );
    assert!(e.contains("repeats axis 0"), "{e}");
}

#[test]
fn where_and_optimizer_shape_errors() {
    let e = err(
        "WhereInferMeta",
        &[t(Bool, &[4, 6]), f32t(&[4, 6]), f32t(&[4, 7])],
        1,
    );
    assert!(
        e.contains("dimension 1 of x [4, 6] and y [4, 7] differ (6 vs 7)"),
        "{e}"
    );
    let e = err(
        "SgdInferMeta",
        &[f32t(&[8]), f32t(&[2]), f32t(&[8]), A::None, b(false)],
        2,
    );
    assert!(
        e.contains("learning_rate must hold exactly one element"),
        "{e}"
    );
    let mut adam = vec![
        f32t(&[2]),
        f32t(&[2]),
        f32t(&[1]),
        f32t(&[3]),
        f32t(&[2]),
        f32t(&[1]),
        f32t(&[1]),
        A::None,
        A::None,
        scf(0.9),
        scf(0.999),
        scf(1e-8),
        b(false),
        i64a(1000),
        b(false),
        b(false),
    ];
    let e = err("AdamInferMeta", &adam, 6);
    assert_eq!(e, "param [2] and moment1 [3] must have the same dims");
    adam.pop();
    let e = err("AdamInferMeta", &adam, 6);
    assert!(e.contains("16 or 18 arguments"), "{e}");
}

#[test]
fn cross_entropy_and_create_errors() {
    let ce = [
        f32t(&[4, 10]),
        t(Int64, &[5, 1]),
        b(false),
        b(true),
        b(true),
        int(-100),
        int(-1),
    ];
    let e = err("CrossEntropyWithSoftmaxInferMeta", &ce, 2);
    assert!(e.contains("[4, 10]") && e.contains("[5, 1]"), "{e}");
    let e = err("CreateInferMeta", &[ia(&[2, -1]), dt(Float32)], 1);
    assert!(e.contains("shape[1] = -1"), "{e}");
    let e = err("CreateInferMeta", &[ia_unknown(None), dt(Float32)], 1);
    assert!(e.contains("number of values is unknown"), "{e}");
}

#[test]
fn wrong_argument_kinds_are_reported_not_panicked() {
    let e = err("CastInferMeta", &[f32t(&[2]), s("float32")], 1);
    assert_eq!(e, "argument 1: expected DataType, found str");
    let e = err("UnchangedInferMeta", &[], 1);
    assert!(e.contains("argument 0 missing"), "{e}");
    let e = err("UnchangedInferMeta", &[f32t(&[2])], 0);
    assert!(e.contains("output 0 does not exist"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Robustness: no function panics, whatever it is given
// ---------------------------------------------------------------------------------------------

/// A small deterministic generator.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn pick<T: Clone>(&mut self, v: &[T]) -> T {
        v[(self.next() as usize) % v.len()].clone()
    }
}

const DIMS: &[&[i64]] = &[
    &[],
    &[0],
    &[1],
    &[-1],
    &[3],
    &[2, 3],
    &[-1, 3],
    &[4, 6],
    &[6, 4],
    &[1, 1],
    &[2, 3, 4],
    &[-1, 8, 32, 32],
    &[2, 3, 4, 5],
    &[1, 2, 3, 4, 5],
    &[2, 3, 4, 5, 6, 7],
    &[-7, 2],
    &[i64::MAX, 2],
    &[i64::MIN, 3],
    &[3, i64::MIN, -1],
    &[1 << 40, 1 << 40],
    &[-1, -1, -1, -1],
    &[2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
];

const DTYPES: &[DataType] = &[
    Float32,
    Float16,
    BFloat16,
    Int64,
    Int32,
    Bool,
    UInt8,
    DataType::Complex64,
    DataType::Float64,
    DataType::Undefined,
];

fn rand_tensor(r: &mut Lcg) -> TensorMeta {
    TensorMeta::new(r.pick(DTYPES), r.pick(DIMS))
}

const INTS: &[i64] = &[-3, -1, 0, 1, 2, 3, 4, 16, 64, 1 << 30, i64::MAX, i64::MIN];

fn rand_ints(r: &mut Lcg) -> Vec<i64> {
    let n = (r.next() % 5) as usize;
    (0..n).map(|_| r.pick(INTS)).collect()
}

const STRS: &[&str] = &[
    "",
    "NCHW",
    "NHWC",
    "NCDHW",
    "NDHWC",
    "SAME",
    "VALID",
    "EXPLICIT",
    "max",
    "avg",
    "none",
    "mean",
    "sum",
    "MEAN",
    "SUM",
    "LSTM",
    "GRU",
    "linear",
    "bilinear",
    "nearest",
    "trilinear",
    "bicubic",
    "encode_center_size",
    "decode_center_size",
    "int8",
    "int4",
    "truncated",
    "L",
    "U",
    "reduced",
    "complete",
    "backward",
    "forward",
    "ortho",
    "upscale_in_train",
    "ROC",
    "x",
];

/// A random value of the kind named in an "expected ..." message.
fn rand_of_kind(r: &mut Lcg, kind: &str) -> A {
    match kind {
        "a tensor" => A::T(rand_tensor(r)),
        "a tensor list" => A::Ts((0..r.next() % 4).map(|_| rand_tensor(r)).collect()),
        "bool" => b(r.next() % 2 == 0),
        "an integer" => A::At(AttrValue::I64(r.pick(INTS))),
        "a number" => A::At(AttrValue::F64(r.pick(&[-1.0, 0.0, 1e-5, 0.5, 2.0, 1e30]))),
        "str" => s(r.pick(STRS)),
        "an integer list" => ints(&rand_ints(r)),
        "IntArray" => match r.next() % 4 {
            0 => ia_unknown(Some((r.next() % 4) as usize)),
            1 => ia_unknown(None),
            _ => ia(&rand_ints(r)),
        },
        "Scalar" => match r.next() % 3 {
            0 => sc_unknown(),
            1 => scf(r.pick(&[0.0, 0.5, -1.0])),
            _ => sc(r.pick(INTS)),
        },
        "a float list" => A::At(AttrValue::Floats(
            (0..r.next() % 4)
                .map(|_| r.pick(&[-1.0, 0.0, 0.5, 2.0]))
                .collect(),
        )),
        "DataType" => dt(r.pick(DTYPES)),
        "a str list" => A::At(AttrValue::Strs(
            (0..r.next() % 3)
                .map(|_| r.pick(&["", "l2_decay", "relu"]).into())
                .collect(),
        )),
        "DataLayout" => A::At(AttrValue::DataLayout(
            r.pick(&[DataLayout::Nchw, DataLayout::Nhwc]),
        )),
        "Place" => A::At(AttrValue::Place(Place::cpu())),
        _ => A::At(AttrValue::I64(0)),
    }
}

/// Kind of an argument, to re-randomise values while keeping the kinds a function accepts.
fn kind_of(a: &A) -> &'static str {
    match a {
        A::T(_) | A::None => "a tensor",
        A::Ts(_) | A::NoTs => "a tensor list",
        A::At(AttrValue::Bool(_)) => "bool",
        A::At(AttrValue::I32(_) | AttrValue::I64(_)) => "an integer",
        A::At(AttrValue::F32(_) | AttrValue::F64(_)) => "a number",
        A::At(AttrValue::Str(_)) => "str",
        A::At(AttrValue::Ints(_)) => "an integer list",
        A::At(AttrValue::IntArray(_)) => "IntArray",
        A::At(AttrValue::Scalar(_)) => "Scalar",
        A::At(AttrValue::Floats(_)) => "a float list",
        A::At(AttrValue::Strs(_)) => "a str list",
        A::At(AttrValue::DataType(_)) => "DataType",
        A::At(AttrValue::DataLayout(_)) => "DataLayout",
        A::At(AttrValue::Place(_)) => "Place",
        A::At(_) => "other",
    }
}

/// Learns the argument kinds a function reads from its "argument i: expected K" errors.
fn learn_kinds(name: &str, r: &mut Lcg) -> Vec<A> {
    let mut args: Vec<A> = Vec::new();
    // Two steps per parameter at most (add it, then fix its kind); the widest has ~50.
    for _ in 0..160 {
        let e = match call(name, &args, 12) {
            Ok(_) => break,
            Err(e) => e.0,
        };
        let Some(rest) = e.strip_prefix("argument ") else {
            // Overloads name their arities ("AdamInferMeta takes 16 or 18 arguments, got 0"):
            // learn one of them, picked at random.
            match overload_arities(&e) {
                Some(counts) if !counts.contains(&args.len()) => {
                    let n = r.pick(&counts);
                    args = (0..n).map(|_| A::T(rand_tensor(r))).collect();
                    continue;
                }
                _ => break,
            }
        };
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        let Ok(i) = digits.parse::<usize>() else {
            break;
        };
        if rest.contains("missing") {
            while args.len() <= i {
                args.push(A::T(rand_tensor(r)));
            }
        } else if let Some(k) = rest.split("expected ").nth(1) {
            let kind = k.split(", found").next().unwrap_or("");
            args[i] = rand_of_kind(r, kind);
        } else if rest.contains("tensor is absent") {
            args[i] = A::T(rand_tensor(r));
        } else if rest.contains("tensor list is absent") {
            args[i] = rand_of_kind(r, "a tensor list");
        } else {
            break;
        }
    }
    args
}

/// The arities an overloaded function's dispatch error names (`... takes 16 or 18 arguments,
/// got 0`).
fn overload_arities(e: &str) -> Option<Vec<usize>> {
    let list = e
        .split(" takes ")
        .nth(1)?
        .split(" arguments, got ")
        .next()?;
    list.split(" or ").map(|n| n.parse().ok()).collect()
}

#[test]
fn no_function_panics_on_hostile_inputs() {
    let mut panicked = Vec::new();
    for seed in 0..4u64 {
        let mut r = Lcg(0x5eed + seed * 7919);
        for name in REGISTRY.names() {
            let kinds = learn_kinds(name, &mut r);
            let learned = call(name, &kinds, 12);
            assert!(
                !matches!(&learned, Err(e) if e.0.starts_with("argument ")),
                "could not learn the argument kinds of {name}: {learned:?}"
            );
            fuzz_one(name, &kinds, &mut r, &mut panicked);
        }
    }
    assert!(panicked.is_empty(), "panics:\n{}", panicked.join("\n"));
}

/// Calls `name` 150 times with random values of the learned kinds, recording panics.
fn fuzz_one(name: &str, kinds: &[A], r: &mut Lcg, panicked: &mut Vec<String>) {
    for trial in 0..150 {
        let args: Vec<A> = kinds
            .iter()
            .map(|a| {
                let k = kind_of(a);
                if k == "a tensor" && r.next() % 6 == 0 {
                    A::None
                } else if k == "a tensor list" && r.next() % 8 == 0 {
                    A::NoTs
                } else {
                    rand_of_kind(r, k)
                }
            })
            .collect();
        let n_out = (r.next() % 9) as usize;
        let res = catch_unwind(AssertUnwindSafe(|| call(name, &args, n_out)));
        if res.is_err() {
            panicked.push(format!("{name} (trial {trial}): {args:?}"));
            break;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Functions that share a helper: each keeps its own rules (worked out from the op definitions)
// ---------------------------------------------------------------------------------------------

#[test]
fn pixel_unshuffle_and_pixel_shuffle_grad_move_blocks_into_channels() {
    let o = ok(
        "PixelUnshuffleInferMeta",
        &[f32t(&[2, 3, 8, 8]), int(2), s("NCHW")],
        1,
    );
    is(&o[0], &[2, 12, 4, 4], Float32);
    let o = ok(
        "PixelUnshuffleInferMeta",
        &[f32t(&[-1, 8, 6, 3]), int(2), s("NHWC")],
        1,
    );
    is(&o[0], &[-1, 4, 3, 12], Float32);
    assert!(err(
        "PixelUnshuffleInferMeta",
        &[f32t(&[2, 3, 8, 8]), int(3), s("NCHW")],
        1
    )
    .contains("must divide"));
    // The gradient of pixel_shuffle(x, 2) has x's shape: the same block move.
    let o = ok(
        "PixelShuffleGradInferMeta",
        &[f32t(&[2, 3, 8, -1]), int(2), s("NCHW")],
        1,
    );
    is(&o[0], &[2, 12, 4, -1], Float32);
}

#[test]
fn gru_unit_and_its_grad_check_the_same_shapes() {
    let (input, hp, w, bias) = (
        f32t(&[4, 15]),
        f32t(&[4, 5]),
        f32t(&[5, 15]),
        f32t(&[1, 15]),
    );
    let attrs = [int(2), int(1), b(false)];
    let fwd = |w: A| {
        let mut args = vec![input.clone(), hp.clone(), w, bias.clone()];
        args.extend(attrs.iter().cloned());
        args
    };
    let o = ok("GruUnitInferMeta", &fwd(w.clone()), 3);
    is(&o[0], &[4, 15], Float32);
    is(&o[1], &[4, 5], Float32);
    is(&o[2], &[4, 5], Float32);
    let o = ok(
        "GruUnitGradInferMeta",
        &[input.clone(), hp.clone(), w.clone(), bias.clone()],
        4,
    );
    is(&o[0], &[4, 15], Float32);
    is(&o[1], &[4, 5], Float32);
    is(&o[2], &[5, 15], Float32);
    is(&o[3], &[1, 15], Float32);
    let bad_w = f32t(&[5, 12]);
    assert!(err("GruUnitInferMeta", &fwd(bad_w.clone()), 3).contains("weight must be [5, 3 × 5]"));
    assert!(err("GruUnitGradInferMeta", &[input, hp, bad_w, bias], 4)
        .contains("weight must be [5, 3 × 5]"));
}

#[test]
fn nadam_and_radam_update_param_states_and_moments() {
    let one = || f32t(&[1]);
    let base = || {
        vec![
            f32t(&[3, 4]),
            f32t(&[3, 4]),
            one(),
            t(Float32, &[1]),
            t(Float32, &[1]),
            t(Float32, &[1]),
            f32t(&[3, 4]),
            f32t(&[3, 4]),
            t(Float32, &[3, 4]),
        ]
    };
    // NAdam: beta1, beta2, epsilon, momentum_decay, multi_precision (index 13).
    let mut nadam = base();
    nadam.extend([fl(0.9), fl(0.999), fl(1e-8), fl(0.004), b(true)]);
    let o = ok("NAdamInferMeta", &nadam, 7);
    is(&o[0], &[3, 4], Float32);
    for state in &o[1..4] {
        is(state, &[1], Float32);
    }
    is(&o[4], &[3, 4], Float32);
    is(&o[5], &[3, 4], Float32);
    assert!(
        !matches!(o[6], MetaOut::None),
        "multi_precision sets master_param_out"
    );
    // RAdam: beta1, beta2, epsilon, multi_precision (index 12), here false.
    let mut radam = base();
    radam.extend([fl(0.9), fl(0.999), fl(1e-8), b(false)]);
    let o = ok("RAdamInferMeta", &radam, 7);
    is(&o[3], &[1], Float32);
    assert!(
        matches!(o[6], MetaOut::None),
        "no master_param_out without multi_precision"
    );
    // A moment of another shape is an error in both.
    radam[7] = f32t(&[4, 3]);
    assert!(err("RAdamInferMeta", &radam, 7).contains("moment2"));
}

// ---------------------------------------------------------------------------------------------
// Gradient functions (backward.rs) on the shapes of Paddle 3.3.1's vjp programs
// (`paddle-ref/ops/vjp/<op>.txt`), called with their typed signatures' arguments
// ---------------------------------------------------------------------------------------------

#[test]
fn general_gradient_family_shares_present_inputs_into_present_outputs() {
    // lstm_grad without h0 and c0: their gradients stay unset.
    let lstm = [
        f32t(&[6, 2, 4]),
        A::None,
        A::None,
        f32t(&[20, 9]),
        f32t(&[1, 20]),
    ];
    let o = ok("LSTMGradInferMeta", &lstm, 5);
    is(&o[0], &[6, 2, 4], Float32);
    assert_eq!((&o[1], &o[2]), (&MetaOut::None, &MetaOut::None));
    is(&o[3], &[20, 9], Float32);
    is(&o[4], &[1, 20], Float32);
    // swiglu_grad(x 2x8, y 2x8) -> 2x8, 2x8; without y only x_grad.
    let o = ok("SwiGLUGradInferMeta", &[f32t(&[2, 8]), f32t(&[2, 8])], 2);
    is(&o[1], &[2, 8], Float32);
    let o = ok("SwiGLUGradInferMeta", &[f32t(&[2, 8]), A::None], 2);
    assert_eq!(o[1], MetaOut::None);
    // An op with fewer outputs than the function leaves the rest alone.
    let o = ok(
        "GeneralBinaryGradInferMeta",
        &[f32t(&[2, 3]), f32t(&[3])],
        1,
    );
    is(&o[0], &[2, 3], Float32);
    let o = ok(
        "FlashAttnQKVPackedGradInferMeta",
        &[f32t(&[2, 8, 3, 4, 16])],
        1,
    );
    is(&o[0], &[2, 8, 3, 4, 16], Float32);
    // cudnn_lstm_grad: the weight list's gradients share the weights' metadata.
    let cudnn = [
        f32t(&[5, 2, 3]),
        f32t(&[1, 2, 4]),
        f32t(&[1, 2, 4]),
        ts(&[&[16, 3], &[16, 4]]),
    ];
    let o = ok("CudnnLSTMGradInferMeta", &cudnn, 4);
    is(&o[1], &[1, 2, 4], Float32);
    assert_eq!(dims_of(tv(&o[3])), vec![vec![16, 3], vec![16, 4]]);
    let mut no_weights = cudnn.to_vec();
    no_weights[3] = A::NoTs;
    assert_eq!(
        ok("CudnnLSTMGradInferMeta", &no_weights, 4)[3],
        MetaOut::None
    );
}

#[test]
fn conv_transpose_grads_take_output_size_as_a_list_or_an_int_array() {
    // conv2d_transpose_grad(x 2x4x5x5, filter 4x3x3x3, out_grad 2x3x7x7) as Paddle built it.
    let args = |output_size: A| {
        vec![
            f32t(&[2, 4, 5, 5]),
            f32t(&[4, 3, 3, 3]),
            f32t(&[2, 3, 7, 7]),
            ints(&[1, 1]),
            ints(&[0, 0]),
            ints(&[]),
            output_size,
            s("EXPLICIT"),
            int(1),
            ints(&[1, 1]),
            s("NCHW"),
        ]
    };
    for (name, size) in [
        ("Conv2dTransposeGradInferMeta", ia(&[])),
        ("Conv2dTransposeGradInferMeta", ia_unknown(Some(2))),
        ("ConvTransposeGradInferMeta", ints(&[])),
    ] {
        let o = ok(name, &args(size), 2);
        is(&o[0], &[2, 4, 5, 5], Float32);
        is(&o[1], &[4, 3, 3, 3], Float32);
    }
}

#[test]
fn nanmedian_grad_takes_the_snapshot_and_the_3_3_1_signatures() {
    // Paddle 3.3.1: nanmedian_grad(x 3x4, medians [], median_index [2], out_grad []).
    let x = f32t(&[3, 4]);
    let attrs = [ia(&[]), b(false), s("avg")];
    let mut v331 = vec![x.clone(), f32t(&[]), t(Int64, &[2]), f32t(&[])];
    v331.extend(attrs.iter().cloned());
    is(&ok("NanmedianGradInferMeta", &v331, 1)[0], &[3, 4], Float32);
    let mut snapshot = vec![x, t(Int64, &[2]), f32t(&[])];
    snapshot.extend(attrs.iter().cloned());
    is(
        &ok("NanmedianGradInferMeta", &snapshot, 1)[0],
        &[3, 4],
        Float32,
    );
    let e = err("NanmedianGradInferMeta", &snapshot[..5], 1);
    assert_eq!(e, "NanmedianGradInferMeta takes 6 or 7 arguments, got 5");
}

#[test]
fn nll_loss_grad_checks_out_grad_against_the_reduction() {
    // nll_loss_grad(input 4x10, label 4, weight absent, total_weight [], out_grad [], -100, mean)
    let args = |input: &[i64], label: &[i64], g: &[i64], reduction: &str| {
        vec![
            f32t(input),
            t(Int64, label),
            A::None,
            f32t(&[]),
            f32t(g),
            i64a(-100),
            s(reduction),
        ]
    };
    let o = ok(
        "NllLossGradInferMeta",
        &args(&[4, 10], &[4], &[], "mean"),
        1,
    );
    is(&o[0], &[4, 10], Float32);
    ok(
        "NllLossGradInferMeta",
        &args(&[4, 10], &[4], &[4], "none"),
        1,
    );
    ok(
        "NllLossGradInferMeta",
        &args(&[-1, 10], &[-1], &[], "none"),
        1,
    ); // unknown: unchecked
    let e = err(
        "NllLossGradInferMeta",
        &args(&[4, 10], &[4], &[], "none"),
        1,
    );
    assert_eq!(e, "out_grad must be 1-D for reduction 'none', got []");
    let e = err(
        "NllLossGradInferMeta",
        &args(&[4, 10], &[4], &[3], "none"),
        1,
    );
    assert_eq!(e, "out_grad [3] must have the batch size 4");
    let e = err(
        "NllLossGradInferMeta",
        &args(&[4, 10], &[4], &[4], "sum"),
        1,
    );
    assert_eq!(e, "out_grad must be 0-D for a reduced loss, got [4]");
    // 4-D input [N, C, H, W]: the unreduced loss has label's [N, H, W].
    let four_d = |g: &[i64]| args(&[2, 3, 4, 5], &[2, 4, 5], g, "none");
    ok("NllLossGradInferMeta", &four_d(&[2, 4, 5]), 1);
    let e = err("NllLossGradInferMeta", &four_d(&[2, 4]), 1);
    assert_eq!(e, "out_grad must be 3-D for reduction 'none', got [2, 4]");
    let e = err("NllLossGradInferMeta", &four_d(&[2, 4, 6]), 1);
    assert_eq!(e, "out_grad [2, 4, 6] must match label [2, 4, 5]");
}

#[test]
fn scatter_index_and_set_value_grads_follow_out_grad_and_the_updates() {
    // scatter_grad(index 2, updates 2x3, out_grad 4x3): updates_grad takes out_grad's dtype.
    let scatter = [t(Int64, &[2]), t(Float16, &[2, 3]), f32t(&[4, 3]), b(true)];
    let o = ok("ScatterGradInferMeta", &scatter, 2);
    is(&o[0], &[4, 3], Float32);
    is(&o[1], &[2, 3], Float32);
    let nd_add = [t(Int64, &[2, 2]), f32t(&[2, 5]), f32t(&[3, 4, 5])];
    let o = ok("ScatterNdAddGradInferMeta", &nd_add, 2);
    is(&o[0], &[3, 4, 5], Float32);
    is(&o[1], &[2, 5], Float32);
    // index_put_grad(x 4x3, indices [2], value 2x3, out_grad 4x3, accumulate)
    let indices = A::Ts(vec![TensorMeta::new(Int64, &[2])]);
    let put = [
        f32t(&[4, 3]),
        indices,
        f32t(&[2, 3]),
        f32t(&[4, 3]),
        b(false),
    ];
    let o = ok("IndexPutGradInferMeta", &put, 2);
    is(&o[0], &[4, 3], Float32);
    is(&o[1], &[2, 3], Float32);
    let add = [t(Int64, &[2]), f32t(&[2, 3]), f32t(&[4, 3]), int(0)];
    let o = ok("IndexAddGradInferMeta", &add, 2);
    is(&o[0], &[4, 3], Float32);
    is(&o[1], &[2, 3], Float32);
    // set_value_with_tensor_grad(out_grad 4x3, values 2x3); x_grad alone when values_grad is cut.
    let o = ok("SetValueGradInferMeta", &[f32t(&[4, 3]), f32t(&[2, 3])], 2);
    is(&o[1], &[2, 3], Float32);
    let o = ok("SetValueGradInferMeta", &[f32t(&[4, 3]), f32t(&[2, 3])], 1);
    is(&o[0], &[4, 3], Float32);
}

#[test]
fn recurrent_and_normalisation_grads() {
    // gru_grad(input 6x9, h0 absent, weight 3x9, bias absent)
    let gru = [f32t(&[6, 9]), A::None, f32t(&[3, 9]), A::None];
    let o = ok("GruGradInferMeta", &gru, 4);
    is(&o[0], &[6, 9], Float32);
    assert_eq!((&o[1], &o[3]), (&MetaOut::None, &MetaOut::None));
    is(&o[2], &[3, 9], Float32);
    let bad = [f32t(&[6, 8]), A::None, f32t(&[3, 9]), A::None];
    assert_eq!(
        err("GruGradInferMeta", &bad, 4),
        "input width 8 must be 3 × the frame size 3"
    );
    // rnn_grad(x 6x2x4, pre_state [1x2x5], weight_list [5x4, 5x5, 5, 5])
    let weights = ts(&[&[5, 4], &[5, 5], &[5], &[5]]);
    let rnn = [f32t(&[6, 2, 4]), ts(&[&[1, 2, 5]]), weights.clone()];
    let o = ok("RnnGradInferMeta", &rnn, 3);
    is(&o[0], &[6, 2, 4], Float32);
    assert_eq!(dims_of(tv(&o[1])), vec![vec![1, 2, 5]]);
    assert_eq!(tv(&o[2]).len(), 4);
    let e = err("RnnGradInferMeta", &[f32t(&[6, 2, 4]), ts(&[]), weights], 3);
    assert_eq!(e, "pre_state must not be empty");
    // instance_norm_grad(x 2x3x4x4, scale, bias absent, saved_mean 6, saved_variance 6, y_grad)
    let inorm = [
        f32t(&[2, 3, 4, 4]),
        A::None,
        A::None,
        f32t(&[6]),
        f32t(&[6]),
        f32t(&[2, 3, 4, 4]),
        fl(1e-5),
    ];
    let o = ok("InstanceNormGradInferMeta", &inorm, 3);
    is(&o[0], &[2, 3, 4, 4], Float32);
    // Absent scale and bias: their gradients have no type (Paddle's vjp/instance_norm.txt).
    assert_eq!((&o[1], &o[2]), (&MetaOut::None, &MetaOut::None));
    let mut with_scale = inorm.clone();
    with_scale[1] = f32t(&[3]);
    let o = ok("InstanceNormGradInferMeta", &with_scale, 3);
    is(&o[1], &[3], Float32);
    assert_eq!(o[2], MetaOut::None);
    // bilinear_grad(x 4x5, y 4x6, weight 7x5x6, dout 4x7): dbias is [1, 7].
    let bilinear = |dout: &[i64]| [f32t(&[4, 5]), f32t(&[4, 6]), f32t(&[7, 5, 6]), f32t(dout)];
    let o = ok("BilinearGradInferMeta", &bilinear(&[4, 7]), 4);
    is(&o[2], &[7, 5, 6], Float32);
    is(&o[3], &[1, 7], Float32);
    let e = err("BilinearGradInferMeta", &bilinear(&[3, 7]), 4);
    assert_eq!(e, "out_grad [3, 7] and x [4, 5] must share the batch size");
}

/// Ops Paddle 3.3.1 has beyond the shared yaml snapshot: shapes as in `paddle-ref/ops/`.
#[test]
fn baddbmm_c_softmax_with_cross_entropy_and_shape64() {
    use DataType::Float64;
    // baddbmm(input 2x3x5, x 2x3x4, y 2x4x5) and the dynamic-batch case -1x3x5 (f64).
    let o = ok(
        "BaddbmmInferMeta",
        &[
            f32t(&[2, 3, 5]),
            f32t(&[2, 3, 4]),
            f32t(&[2, 4, 5]),
            fl(1.0),
            fl(1.0),
        ],
        1,
    );
    is(&o[0], &[2, 3, 5], Float32);
    let dynamic = [
        t(Float64, &[-1, 3, 5]),
        t(Float64, &[-1, 3, 4]),
        t(Float64, &[-1, 4, 5]),
        fl(0.5),
        fl(2.0),
    ];
    is(
        &ok("BaddbmmInferMeta", &dynamic, 1)[0],
        &[-1, 3, 5],
        Float64,
    );
    let e = err(
        "BaddbmmInferMeta",
        &[
            f32t(&[2, 3, 5]),
            f32t(&[2, 3, 4]),
            f32t(&[2, 3, 5]),
            fl(1.0),
            fl(1.0),
        ],
        1,
    );
    assert!(e.contains("x[2] must equal y[1]"), "{e}");
    // c_softmax_with_cross_entropy(logits 4x5, label 4x1 i64): softmax 4x5, loss 4x1.
    let args = [f32t(&[4, 5]), t(Int64, &[4, 1]), i64a(-100), int(0), int(2)];
    let o = ok("CSoftmaxWithCrossEntropyInferMeta", &args, 2);
    is(&o[0], &[4, 5], Float32);
    is(&o[1], &[4, 1], Float32);
    let bad = [f32t(&[4, 5]), t(Int64, &[3, 1]), i64a(-100), int(0), int(2)];
    assert!(err("CSoftmaxWithCrossEntropyInferMeta", &bad, 2).contains("off the last axis"));
    // shape64: int64, one element per dim, known even for -1 dims.
    is(
        &ok("Shape64InferMeta", &[t(Float64, &[-1, 3, -1])], 1)[0],
        &[3],
        Int64,
    );
}

/// `std` and `masked_fill`, also beyond the snapshot: the shapes Paddle 3.3.1 printed
/// (`paddle-ref/ops/programs/std.txt`, `masked_fill_.txt`) and a public PIR dump of
/// masked_fill broadcasting (`(1x45640x4xf32) <- (1x-1x4xf32, 1x45640x1xb, xf32)`).
#[test]
fn std_reduces_and_masked_fill_broadcasts_x_with_mask() {
    use DataType::{Bool, Float64};
    let f64a = |v: f64| A::At(AttrValue::F64(v));
    // std(axis, keepdim, unbiased, correction): axis [1] of 3x4 -> 3; [0, 2] kept of -1x4x5 -> 1x4x1.
    let o = ok(
        "StdInferMeta",
        &[f32t(&[3, 4]), ints(&[1]), b(false), b(true), f64a(1.0)],
        1,
    );
    is(&o[0], &[3], Float32);
    let x = t(Float64, &[-1, 4, 5]);
    let o = ok(
        "StdInferMeta",
        &[x.clone(), ints(&[0, 2]), b(true), b(false), f64a(0.0)],
        1,
    );
    is(&o[0], &[1, 4, 1], Float64);
    // No axis reduces every axis (0-D), as ReduceIntArrayAxisInferMetaBase does.
    is(
        &ok(
            "StdInferMeta",
            &[x.clone(), ints(&[]), b(false), b(true), f64a(1.0)],
            1,
        )[0],
        &[],
        Float64,
    );
    let e = err(
        "StdInferMeta",
        &[x, ints(&[3]), b(false), b(true), f64a(1.0)],
        1,
    );
    assert!(e.contains("reduce axis"), "{e}");
    // masked_fill(x, mask, value): x's dtype over the broadcast of x and mask.
    let fill =
        |x: A, mask: &[i64], value: A| ok("MaskedFillInferMeta", &[x, t(Bool, mask), value], 1);
    is(
        &fill(f32t(&[2, 3]), &[2, 3], f32t(&[]))[0],
        &[2, 3],
        Float32,
    );
    is(
        &fill(f32t(&[1, -1, 4]), &[1, 45640, 1], f32t(&[]))[0],
        &[1, 45640, 4],
        Float32,
    );
    is(
        &fill(f32t(&[1, 45640, 4]), &[1, -1, 1], f32t(&[]))[0],
        &[1, 45640, 4],
        Float32,
    );
    is(
        &fill(t(Int64, &[5, 126]), &[5, 126], t(Int64, &[]))[0],
        &[5, 126],
        Int64,
    );
    let e = err(
        "MaskedFillInferMeta",
        &[f32t(&[2, 3]), t(Bool, &[4, 3]), f32t(&[])],
        1,
    );
    assert!(e.contains("cannot broadcast"), "{e}");
}

/// `FusedLayerNormInferMeta` (`fused_bias_residual_layernorm`): the result Paddle 3.3.1 printed
/// (`paddle-ref/ops/programs/fused_bias_residual_layernorm.txt`: `4x8xf32` with `8xf32` weight
/// and bias, no bias/residual -> `4x8xf32, 4x8xf32, 4xf32, 4xf32`) and the rest of Paddle's rule
/// worked out by hand: `mean`/`variance` float32 over the rows before `begin_norm_axis` (a -1
/// extent multiplied in), `out` quantized to int8 (bound 127) or float8_e4m3fn (bound 448) only
/// when a weight or bias is given.
#[test]
fn fused_layer_norm_rows_and_quantized_out() {
    use DataType::{Float64, Float8E4M3FN, Int8};
    let call_args = |x: A, w: A, bias: A, begin: i64, scale: f32, max: f32| {
        vec![
            x,
            A::None,
            A::None,
            w,
            bias,
            fl(1e-5),
            fl(1.0),
            int(begin),
            fl(scale),
            int(0),
            fl(max),
            fl(0.0),
        ]
    };
    let run = |args: Vec<A>| ok("FusedLayerNormInferMeta", &args, 4);
    let o = run(call_args(
        f32t(&[4, 8]),
        f32t(&[8]),
        f32t(&[8]),
        1,
        -1.0,
        0.0,
    ));
    is(&o[0], &[4, 8], Float32);
    is(&o[1], &[4, 8], Float32);
    is(&o[2], &[4], Float32);
    is(&o[3], &[4], Float32);
    // Statistics stay float32 for a float64 x; rows are the product before the axis.
    let o = run(call_args(
        t(Float64, &[2, 3, 5]),
        A::None,
        A::None,
        2,
        -1.0,
        0.0,
    ));
    is(&o[0], &[2, 3, 5], Float64);
    is(&o[1], &[2, 3, 5], Float64);
    is(&o[2], &[6], Float32);
    is(&o[3], &[6], Float32);
    // A -1 extent enters the product as Paddle's int32 arithmetic has it.
    let o = run(call_args(f32t(&[-1, 8]), f32t(&[8]), A::None, 1, -1.0, 0.0));
    is(&o[2], &[-1], Float32);
    let o = run(call_args(
        f32t(&[-1, 3, 8]),
        f32t(&[8]),
        A::None,
        2,
        -1.0,
        0.0,
    ));
    is(&o[2], &[-3], Float32);
    // Quantized out, with a weight: the bound picks int8 or float8_e4m3fn.
    let o = run(call_args(f32t(&[4, 8]), f32t(&[8]), A::None, 1, 0.5, 127.0));
    is(&o[0], &[4, 8], Int8);
    is(&o[1], &[4, 8], Float32);
    let o = run(call_args(f32t(&[4, 8]), A::None, f32t(&[8]), 1, 0.5, 448.0));
    is(&o[0], &[4, 8], Float8E4M3FN);
    // Without weight and bias (residual add only) out is never quantized.
    let o = run(call_args(
        t(Float16, &[4, 8]),
        A::None,
        A::None,
        1,
        0.5,
        127.0,
    ));
    is(&o[0], &[4, 8], Float16);
    // An axis past x's rank is refused (Paddle would read extents out of bounds).
    let e = err(
        "FusedLayerNormInferMeta",
        &call_args(f32t(&[4, 8]), A::None, A::None, 3, -1.0, 0.0),
        4,
    );
    assert!(e.contains("begin_norm_axis 3 is past the rank 2"), "{e}");
}

mod ports;
