//! Tests of the functions ported for the whole of Paddle's yaml (issue 11 §4). Where
//! `paddle-ref/ops/programs/` has a case for an op using the function, the expected types are
//! the ones Paddle printed there (cited per test); otherwise the rule is the one of Paddle's
//! C++ source named in the function's doc.

use super::*;

fn f64t(dims: &[i64]) -> A {
    t(DataType::Float64, dims)
}
fn fls(v: &[f64]) -> A {
    A::At(AttrValue::Floats(v.to_vec()))
}
fn scf64(v: f64) -> A {
    A::At(AttrValue::Scalar(Some(Scalar::F64(v))))
}

/// `programs/einsum.txt`: `ij,jk->ik`, `bij,bjk->bik` with a dynamic batch, the diagonal
/// `ii->i` in float64; `xshape` echoes the operands, `inner_cache` stays unset.
#[test]
fn einsum_raw_matches_paddle() {
    let x = A::Ts(vec![
        TensorMeta::new(Float32, &[2, 3]),
        TensorMeta::new(Float32, &[3, 4]),
    ]);
    let o = ok("EinsumRawInferMeta", &[x, s("ij,jk->ik")], 3);
    is(&o[0], &[2, 4], Float32);
    assert_eq!(o[1], MetaOut::None);
    assert_eq!(dims_of(tv(&o[2])), [vec![2, 3], vec![3, 4]]);
    let o = ok(
        "EinsumRawInferMeta",
        &[ts(&[&[-1, 3, 4], &[-1, 4, 5]]), s("bij,bjk->bik")],
        3,
    );
    is(&o[0], &[-1, 3, 5], Float32);
    let o = ok(
        "EinsumRawInferMeta",
        &[
            A::Ts(vec![TensorMeta::new(DataType::Float64, &[3, 3])]),
            s("ii->i"),
        ],
        3,
    );
    is(&o[0], &[3], DataType::Float64);
    let o = ok("EinsumRawInferMeta", &[ts(&[&[3], &[4]]), s("i,j->ij")], 3);
    is(&o[0], &[3, 4], Float32);
    // A label of extent 1 takes the other operand's extent (broadcast).
    let o = ok(
        "EinsumRawInferMeta",
        &[ts(&[&[1, 3], &[5, 3]]), s("ij,ij->ij")],
        3,
    );
    is(&o[0], &[5, 3], Float32);
    let e = err(
        "EinsumRawInferMeta",
        &[ts(&[&[2, 3], &[4, 5]]), s("ij,jk->ik")],
        3,
    );
    assert_eq!(e, "same label have different shapes for label `j`: 3 and 4");
    let e = err("EinsumRawInferMeta", &[ts(&[&[2, 3]]), s("ij")], 3);
    assert!(e.contains("must hold one `->`"), "{e}");
    let e = err("EinsumRawInferMeta", &[ts(&[&[2, 3]]), s("iJ->i")], 3);
    assert!(e.contains("got `J`"), "{e}");
    let e = err("EinsumRawInferMeta", &[ts(&[&[2, 3]]), s("ijk->i")], 3);
    assert!(e.contains("has 3 labels but its tensor is 2-D"), "{e}");
}

/// `programs/arange.txt`: constant scalars give the length; `data` operands give `-1`;
/// `start == end` gives 0.
#[test]
fn arange_matches_paddle() {
    let o = ok(
        "ArangeInferMeta",
        &[scf64(0.0), scf64(5.0), scf64(1.0), dt(Int64)],
        1,
    );
    is(&o[0], &[5], Int64);
    let o = ok(
        "ArangeInferMeta",
        &[scf64(0.0), scf64(2.0), scf64(0.5), dt(Float32)],
        1,
    );
    is(&o[0], &[4], Float32);
    let o = ok(
        "ArangeInferMeta",
        &[scf64(3.0), scf64(3.0), scf64(1.0), dt(Int64)],
        1,
    );
    is(&o[0], &[0], Int64);
    let o = ok(
        "ArangeInferMeta",
        &[sc_unknown(), sc_unknown(), sc(1), dt(Int64)],
        1,
    );
    is(&o[0], &[-1], Int64);
    let o = ok("ArangeInferMeta", &[sc(10), sc(0), sc(-3), dt(Int32)], 1);
    is(&o[0], &[4], Int32);
    let e = err("ArangeInferMeta", &[sc(0), sc(5), sc(0), dt(Int64)], 1);
    assert_eq!(e, "the step of arange must not be 0");
    let e = err("ArangeInferMeta", &[sc(0), sc(5), sc(-1), dt(Int64)], 1);
    assert!(e.contains("must point from start"), "{e}");
}

/// `programs/strided_slice.txt`.
#[test]
fn strided_slice_matches_paddle() {
    let args = |x: A, axes: &[i64], st: &[i64], en: &[i64], sd: &[i64]| {
        vec![x, ints(axes), ia(st), ia(en), ia(sd)]
    };
    let o = ok(
        "StridedSliceInferMeta",
        &args(f32t(&[4, 3]), &[0, 1], &[0, 1], &[4, 3], &[2, 1]),
        1,
    );
    is(&o[0], &[2, 2], Float32);
    // x[::2, ::-1] as Paddle passes it: the -1 extent stays; the reversed axis keeps its 6.
    let (big, small) = (i64::from(i32::MAX), i64::from(i32::MIN));
    let o = ok(
        "StridedSliceInferMeta",
        &args(f64t(&[-1, 6]), &[0, 1], &[0, big], &[big, small], &[2, -1]),
        1,
    );
    is(&o[0], &[-1, 6], DataType::Float64);
    // An end of -1 with a negative stride is the `None` stop too.
    let o = ok(
        "StridedSliceInferMeta",
        &args(f64t(&[-1, 6]), &[0, 1], &[0, -1], &[big, -1], &[2, -1]),
        1,
    );
    is(&o[0], &[-1, 6], DataType::Float64);
    let o = ok(
        "StridedSliceInferMeta",
        &args(t(Int64, &[2, 3, 6]), &[2], &[-1], &[-5], &[-2]),
        1,
    );
    is(&o[0], &[2, 3, 2], Int64);
    let o = ok(
        "StridedSliceInferMeta",
        &[
            f32t(&[4, 3]),
            ints(&[0]),
            ia_unknown(Some(1)),
            ia(&[3]),
            ia(&[1]),
        ],
        1,
    );
    is(&o[0], &[-1, -1], Float32);
    let e = err(
        "StridedSliceInferMeta",
        &args(f32t(&[4, 3]), &[0], &[0], &[4], &[0]),
        1,
    );
    assert_eq!(e, "strides[0] is 0: a stride must not be 0");
    let e = err(
        "StridedSliceInferMeta",
        &args(f32t(&[4, 3]), &[2], &[0], &[4], &[1]),
        1,
    );
    assert!(e.contains("axes[0] = 2 must lie in [0, 2)"), "{e}");
    let e = err(
        "StridedSliceInferMeta",
        &args(f32t(&[4, 3]), &[0], &[3], &[1], &[1]),
        1,
    );
    assert!(e.contains("invalid for stride 1"), "{e}");
}

/// `programs/unique.txt`: `out` and the inverse keep float32; `indices` and `counts` take
/// `dtype`; the inverse of `-1x3` is `[-3]`.
#[test]
fn unique_raw_matches_paddle() {
    let u = |x: A, index: bool, inverse: bool, counts: bool, axis: &[i64]| {
        vec![
            x,
            b(index),
            b(inverse),
            b(counts),
            ints(axis),
            dt(Int64),
            b(true),
        ]
    };
    let o = ok(
        "UniqueRawInferMeta",
        &u(t(Int64, &[6]), false, false, false, &[]),
        4,
    );
    is(&o[0], &[-1], Float32);
    assert_eq!(
        (&o[1], &o[2], &o[3]),
        (&MetaOut::None, &MetaOut::None, &MetaOut::None)
    );
    let o = ok(
        "UniqueRawInferMeta",
        &u(f32t(&[-1, 3]), true, true, true, &[]),
        4,
    );
    is(&o[0], &[-1], Float32);
    is(&o[1], &[-1], Int64);
    is(&o[2], &[-3], Float32);
    is(&o[3], &[-1], Int64);
    let o = ok(
        "UniqueRawInferMeta",
        &u(f64t(&[4, 3]), false, false, true, &[0]),
        4,
    );
    is(&o[0], &[-1, 3], Float32);
    is(&o[3], &[-1], Int64);
    let e = err(
        "UniqueRawInferMeta",
        &u(f64t(&[4, 3]), false, false, true, &[2]),
        4,
    );
    assert_eq!(e, "axis 2 must be less than the rank 2 of x");
}

/// `programs/lu_unpack.txt`: `3x3` and `-1x4x3` (rows 4, columns 3).
#[test]
fn lu_unpack_matches_paddle() {
    let o = ok(
        "LUUnpackInferMeta",
        &[f32t(&[3, 3]), t(Int32, &[3]), b(true), b(true)],
        3,
    );
    for out in &o {
        is(out, &[3, 3], Float32);
    }
    let o = ok(
        "LUUnpackInferMeta",
        &[f64t(&[-1, 4, 3]), t(Int32, &[-1, 3]), b(true), b(true)],
        3,
    );
    is(&o[0], &[-1, 4, 4], DataType::Float64);
    is(&o[1], &[-1, 4, 3], DataType::Float64);
    is(&o[2], &[-1, 3, 3], DataType::Float64);
    // A wide matrix: L is square, U keeps the columns.
    let o = ok(
        "LUUnpackInferMeta",
        &[f32t(&[3, 5]), t(Int32, &[3]), b(true), b(false)],
        3,
    );
    assert_eq!(o[0], MetaOut::None);
    is(&o[1], &[3, 3], Float32);
    is(&o[2], &[3, 5], Float32);
    let e = err(
        "LUUnpackInferMeta",
        &[f32t(&[3]), t(Int32, &[3]), b(true), b(true)],
        3,
    );
    assert!(e.contains("at least 2 dimensions"), "{e}");
}

/// `programs/index_add.txt` and `index_add_.txt`.
#[test]
fn index_add_matches_paddle() {
    let o = ok(
        "IndexAddInferMeta",
        &[f32t(&[4, 3]), t(Int64, &[2]), f32t(&[2, 3]), int(0)],
        1,
    );
    is(&o[0], &[4, 3], Float32);
    let o = ok(
        "IndexAddInferMeta",
        &[f64t(&[-1, 5]), t(Int32, &[2]), f64t(&[-1, 2]), int(1)],
        1,
    );
    is(&o[0], &[-1, 5], DataType::Float64);
    let e = err(
        "IndexAddInferMeta",
        &[f32t(&[4, 3]), t(Int64, &[2]), f32t(&[2, 4]), int(0)],
        1,
    );
    assert!(e.contains("does not broadcast"), "{e}");
    let e = err(
        "IndexAddInferMeta",
        &[f32t(&[4, 3]), t(Float32, &[2]), f32t(&[2, 3]), int(0)],
        1,
    );
    assert!(e.contains("must be int32 or int64"), "{e}");
    let e = err(
        "IndexAddInferMeta",
        &[f32t(&[4, 3]), t(Int64, &[2]), f32t(&[2, 3]), int(2)],
        1,
    );
    assert!(e.starts_with("axis 2 is out of range"), "{e}");
}

/// `programs/distribute_fpn_proposals.txt`: levels 2..=5 give four outputs each.
#[test]
fn distribute_fpn_proposals_matches_paddle() {
    let o = ok(
        "DistributeFpnProposalsInferMeta",
        &[
            f32t(&[10, 4]),
            t(Int32, &[2]),
            int(2),
            int(5),
            int(4),
            int(224),
            b(false),
        ],
        3,
    );
    assert_eq!(dims_of(tv(&o[0])), vec![vec![-1, 4]; 4]);
    assert!(tv(&o[0]).iter().all(|m| m.dtype == Float32));
    assert_eq!(dims_of(tv(&o[1])), vec![vec![-1]; 4]);
    assert!(tv(&o[1]).iter().all(|m| m.dtype == Int32));
    is(&o[2], &[-1, 1], Int32);
    let e = err(
        "DistributeFpnProposalsInferMeta",
        &[
            f32t(&[10, 4]),
            A::None,
            int(5),
            int(2),
            int(4),
            int(224),
            b(false),
        ],
        3,
    );
    assert!(
        e.contains("max_level must not be lower than min_level"),
        "{e}"
    );
}

/// `programs/anchor_generator.txt`, `correlation.txt`, `im2sequence.txt`, `ctc_align.txt`.
#[test]
fn detection_and_sequence_ops_match_paddle() {
    let o = ok(
        "AnchorGeneratorInferMeta",
        &[
            f32t(&[1, 3, 4, 4]),
            fls(&[64.0]),
            fls(&[1.0]),
            fls(&[0.1, 0.1, 0.2, 0.2]),
            fls(&[16.0, 16.0]),
            fl(0.5),
        ],
        2,
    );
    is(&o[0], &[4, 4, 1, 4], Float32);
    is(&o[1], &[4, 4, 1, 4], Float32);
    let o = ok(
        "CorrelationInferMeta",
        &[
            f32t(&[1, 3, 8, 8]),
            f32t(&[1, 3, 8, 8]),
            int(1),
            int(1),
            int(1),
            int(1),
            int(1),
            int(1),
        ],
        1,
    );
    is(&o[0], &[1, 9, 8, 8], Float32);
    let o = ok(
        "Im2sequenceInferMeta",
        &[
            f32t(&[2, 3, 4, 4]),
            A::None,
            ints(&[2, 2]),
            ints(&[1, 1]),
            ints(&[0, 0, 0, 0]),
            ints(&[1, 1]),
        ],
        1,
    );
    is(&o[0], &[2, 12], Float32);
    let o = ok(
        "CtcAlignInferMeta",
        &[
            t(Int32, &[2, 5]),
            t(Int32, &[2, 1]),
            int(0),
            b(true),
            int(0),
        ],
        2,
    );
    is(&o[0], &[2, 5], Int32);
    // Paddle sets only the dims of output_length: float32 in the printed program.
    is(&o[1], &[2, 1], Float32);
    let e = err(
        "CorrelationInferMeta",
        &[
            f32t(&[1, 3, 8]),
            f32t(&[1, 3, 8, 8]),
            int(1),
            int(1),
            int(1),
            int(1),
            int(1),
            int(1),
        ],
        1,
    );
    assert!(e.starts_with("input1 must be 4-D"), "{e}");
}

/// `programs/merged_adam_.txt` (README quirk 3): Paddle's `MergedAdamInferMeta` sets nothing.
#[test]
fn merged_optimizers_leave_outputs_unset() {
    let v = || ts(&[&[4, 3], &[5]]);
    let o = ok(
        "MergedAdamInferMeta",
        &[
            v(),
            v(),
            ts(&[&[1], &[1]]),
            v(),
            v(),
            ts(&[&[1], &[1]]),
            ts(&[&[1], &[1]]),
            A::NoTs,
            scf(0.9),
            scf(0.999),
            scf(1e-8),
            b(false),
            b(false),
        ],
        6,
    );
    assert!(o.iter().all(|m| *m == MetaOut::None));
    let o = ok(
        "MergedMomentumInferMeta",
        &[
            v(),
            v(),
            v(),
            ts(&[&[1], &[1]]),
            A::NoTs,
            fl(0.9),
            b(false),
            A::At(AttrValue::Strs(vec!["l2_decay".into(), "".into()])),
            fls(&[0.0, 0.0]),
            b(false),
            fl(1.0),
        ],
        3,
    );
    assert!(o.iter().all(|m| *m == MetaOut::None));
}

/// `LookupTableInferMeta`, `LodResetInferMeta`, `MatrixNMSInferMeta` (Paddle's `binary.cc`).
#[test]
fn lookup_table_lod_reset_matrix_nms_follow_binary_cc() {
    let o = ok(
        "LookupTableInferMeta",
        &[f32t(&[100, 16]), t(Int64, &[-1, 1])],
        1,
    );
    is(&o[0], &[-1, 16], Float32);
    let e = err(
        "LookupTableInferMeta",
        &[f32t(&[100, 16]), t(Int64, &[4, 2])],
        1,
    );
    assert!(e.contains("last dimension of ids [4, 2] must be 1"), "{e}");
    let o = ok(
        "LodResetInferMeta",
        &[f64t(&[6, 2]), A::None, ints(&[0, 2, 6]), b(false)],
        1,
    );
    is(&o[0], &[6, 2], DataType::Float64);
    let o = ok(
        "MatrixNMSInferMeta",
        &[
            f32t(&[2, 10, 4]),
            f32t(&[2, 3, 10]),
            fl(0.1),
            int(-1),
            int(10),
            fl(0.0),
            b(false),
            fl(2.0),
            int(0),
            b(true),
        ],
        3,
    );
    is(&o[0], &[-1, 6], Float32);
    is(&o[1], &[-1, 1], Int32);
    is(&o[2], &[2], Int32);
}

/// `unary.cc`: `HashInferMeta`, `LrnInferMeta`, `SequenceSoftmaxInferMeta`,
/// `StraightThroughEstimatorInferMeta`, `PartialSendInferMeta`, `SendV2InferMeta`.
#[test]
fn small_unary_ports_follow_unary_cc() {
    let o = ok(
        "HashInferMeta",
        &[t(Int64, &[-1, 1]), int(3), i64a(1000)],
        1,
    );
    is(&o[0], &[-1, 3, 1], Int64);
    let e = err("HashInferMeta", &[t(Int64, &[4]), int(3), i64a(1000)], 1);
    assert!(e.starts_with("x must be 2-D"), "{e}");
    let o = ok("LrnInferMeta", &[f32t(&[2, 8, 5, 5]), int(5)], 2);
    is(&o[0], &[2, 8, 5, 5], Float32);
    is(&o[1], &[2, 8, 5, 5], Float32);
    let e = err("LrnInferMeta", &[f32t(&[2, 8, 5, 5]), int(4)], 2);
    assert_eq!(e, "n should be an odd value, but received n = 4");
    // No dtype: Paddle leaves the fresh float32.
    let o = ok("SequenceSoftmaxInferMeta", &[f64t(&[7, 1])], 1);
    is(&o[0], &[7, 1], Float32);
    let o = ok("StraightThroughEstimatorInferMeta", &[f64t(&[3, 4])], 1);
    is(&o[0], &[3, 4], DataType::Float64);
    ok(
        "PartialSendInferMeta",
        &[f32t(&[4]), int(1), int(2), int(1)],
        0,
    );
    let e = err(
        "PartialSendInferMeta",
        &[f32t(&[4]), int(1), int(2), int(2)],
        0,
    );
    assert!(e.contains("must be >= 0 and < num (2)"), "{e}");
    ok("SendV2InferMeta", &[int(1), int(0)], 0);
    let e = err("SendV2InferMeta", &[int(-1), int(0)], 0);
    assert!(e.starts_with("the peer (-1)"), "{e}");
}

/// `binary.cc`: `RowConvInferMeta`, `WeightDequantizeInferMeta` (both signatures),
/// `BeamSearchDecodeInferMeta` (empty body).
#[test]
fn small_binary_ports_follow_binary_cc() {
    let o = ok("RowConvInferMeta", &[f32t(&[-1, 16]), f32t(&[3, 16])], 1);
    is(&o[0], &[-1, 16], Float32);
    let e = err("RowConvInferMeta", &[f32t(&[-1, 16]), f32t(&[3])], 1);
    assert!(e.starts_with("filter must be 2-D"), "{e}");
    // int8 [k, n] = [64, 32], per channel scale [64] -> [32, 64].
    let o = ok(
        "WeightDequantizeInferMeta",
        &[
            t(DataType::Int8, &[64, 32]),
            t(Float16, &[64]),
            s("weight_only_int8"),
            dt(BFloat16),
            int(-1),
        ],
        1,
    );
    is(&o[0], &[32, 64], BFloat16);
    let o = ok(
        "WeightDequantizeInferMeta",
        &[
            t(DataType::Int8, &[32, 256]),
            t(Float16, &[2, 64]),
            s("weight_only_int4"),
            int(128),
        ],
        1,
    );
    is(&o[0], &[256, 64], Float16);
    let e = err(
        "WeightDequantizeInferMeta",
        &[
            t(DataType::Int8, &[64, 32]),
            t(Float16, &[32]),
            s("weight_only_int8"),
            dt(Float16),
            int(-1),
        ],
        1,
    );
    assert!(e.contains("one value per channel (64)"), "{e}");
    let o = ok(
        "BeamSearchDecodeInferMeta",
        &[t(Int64, &[4, 1]), f32t(&[4, 1]), int(2), int(0)],
        2,
    );
    assert_eq!(o, vec![MetaOut::None, MetaOut::None]);
}

/// `fusion.cc` `FusedMultiTransformerInferMeta`, `backward.cc` `FusedRopeGradInferMeta`,
/// `multiary.cc` `UnchangedVectorInferMeta` and `DgcInferMeta`.
#[test]
fn fused_transformer_rope_grad_unchanged_vector() {
    let layer = |d: &[i64]| A::Ts(vec![TensorMeta::new(Float16, d)]);
    let mut args = vec![
        t(Float16, &[2, 5, 64]),
        layer(&[64]),
        A::NoTs,
        layer(&[3, 4, 16, 64]),
        A::NoTs,
        layer(&[2, 2, 4, 10, 16]),
        A::NoTs,
    ];
    args.extend([A::None, A::None, A::None, A::None, A::None]);
    args.extend([layer(&[64, 64]), A::NoTs, layer(&[64]), A::NoTs]);
    args.extend([layer(&[64, 256]), A::NoTs, layer(&[256, 64]), A::NoTs]);
    args.extend([b(true), fl(1e-5), fl(1.0), fl(0.5), int(0), b(false)]);
    args.extend([s("downgrade_in_infer"), s("gelu"), b(true), int(-1)]);
    args.extend([s("layernorm"), b(true), int(-1)]);
    let o = ok("FusedMultiTransformerInferMeta", &args, 2);
    assert_eq!(o[0], MetaOut::None);
    is(&o[1], &[2, 5, 64], Float32);
    args[5] = layer(&[2, 3, 4, 10, 16]);
    let e = err("FusedMultiTransformerInferMeta", &args, 2);
    assert_eq!(
        e,
        "the second dim of cache_kvs[0] [2, 3, 4, 10, 16] must be the batch size 2"
    );

    let rope = |k: A| {
        vec![
            A::None,
            A::None,
            A::None,
            t(BFloat16, &[2, 8, 4, 16]),
            k,
            A::None,
            b(true),
            b(false),
            fl(10000.0),
        ]
    };
    let o = ok(
        "FusedRopeGradInferMeta",
        &rope(t(BFloat16, &[2, 8, 2, 16])),
        3,
    );
    is(&o[0], &[2, 8, 4, 16], BFloat16);
    is(&o[1], &[2, 8, 2, 16], BFloat16);
    assert_eq!(o[2], MetaOut::None);

    let o = ok("UnchangedVectorInferMeta", &[ts(&[&[2], &[3, 4]])], 1);
    assert_eq!(dims_of(tv(&o[0])), [vec![2], vec![3, 4]]);
    let o = ok(
        "DgcInferMeta",
        &[
            f32t(&[4]),
            f32t(&[4]),
            f32t(&[4]),
            A::None,
            f32t(&[1]),
            f32t(&[1]),
        ],
        6,
    );
    assert!(o.iter().all(|m| *m == MetaOut::None));
}

/// `multiary.cc`: `LarsMomentumInferMeta`, `NceInferMeta`, `QuantizeLinearInferMeta`,
/// `SparseMomentumInferMeta`, `MergedAdamInferMeta` with `amsgrad`.
#[test]
fn optimizer_and_sampling_ports_follow_multiary_cc() {
    let p = || {
        A::Ts(vec![
            TensorMeta::new(Float16, &[4, 3]),
            TensorMeta::new(Float16, &[5]),
        ])
    };
    let lars = |decay: &[f64], master: A| {
        vec![
            p(),
            p(),
            ts(&[&[1], &[1]]),
            p(),
            master,
            fls(decay),
            fl(0.9),
            fl(0.001),
            fl(0.0),
            b(true),
            fl(1.0),
        ]
    };
    let o = ok("LarsMomentumInferMeta", &lars(&[5e-4, 5e-4], p()), 3);
    assert_eq!(dims_of(tv(&o[0])), [vec![4, 3], vec![5]]);
    assert!(tv(&o[0]).iter().all(|m| m.dtype == Float16));
    assert!(tv(&o[1]).iter().all(|m| m.dtype == Float32));
    assert!(tv(&o[2]).iter().all(|m| m.dtype == Float32));
    let o = ok("LarsMomentumInferMeta", &lars(&[5e-4, 5e-4], A::NoTs), 3);
    assert_eq!(o[2], MetaOut::None);
    let e = err("LarsMomentumInferMeta", &lars(&[5e-4], A::NoTs), 3);
    assert!(e.starts_with("lars_weight_decay holds 1 values"), "{e}");

    let nce = |label: &[i64], is_test: bool| {
        vec![
            f64t(&[-1, 8]),
            t(Int64, label),
            f64t(&[20, 8]),
            f64t(&[20, 1]),
            A::None,
            A::None,
            A::None,
            A::None,
            int(20),
            ints(&[]),
            int(10),
            int(0),
            int(0),
            b(false),
            b(false),
            b(is_test),
        ]
    };
    let o = ok("NceInferMeta", &nce(&[-1, 2], false), 3);
    is(&o[0], &[-1, 1], Float32);
    is(&o[1], &[-1, 12], Float32);
    is(&o[2], &[-1, 12], Float32);
    let o = ok("NceInferMeta", &nce(&[-1, 2], true), 3);
    assert_eq!((&o[1], &o[2]), (&MetaOut::None, &MetaOut::None));
    let mut bad = nce(&[-1, 1], false);
    bad[8] = int(21);
    let e = err("NceInferMeta", &bad, 3);
    assert!(e.starts_with("num_total_classes (21)"), "{e}");

    let q = |axis: i64| {
        vec![
            f32t(&[6, 4]),
            f32t(&[4]),
            t(Int32, &[4]),
            f32t(&[1]),
            f32t(&[1]),
            int(axis),
            int(8),
            int(0),
            b(true),
            b(false),
        ]
    };
    let o = ok("QuantizeLinearInferMeta", &q(1), 4);
    is(&o[0], &[6, 4], Float32);
    is(&o[1], &[1], Float32);
    is(&o[2], &[1], Float32);
    is(&o[3], &[4], Float32);
    let o = ok("QuantizeLinearInferMeta", &q(-1), 4);
    is(&o[3], &[4], Float32);
    let e = err("QuantizeLinearInferMeta", &q(2), 4);
    assert_eq!(e, "quant_axis should be 0, 1 or -1, but received 2");

    let o = ok(
        "SparseMomentumInferMeta",
        &[
            f64t(&[10, 3]),
            f64t(&[2, 3]),
            f64t(&[10, 3]),
            t(Int32, &[2]),
            f32t(&[1]),
        ],
        3,
    );
    is(&o[0], &[10, 3], Float32);
    is(&o[1], &[10, 3], Float32);
    is(&o[2], &[10, 3], Float32);
    let e = err(
        "SparseMomentumInferMeta",
        &[
            f64t(&[10, 3]),
            f64t(&[2, 3]),
            f64t(&[10, 4]),
            t(Int32, &[2]),
            f32t(&[1]),
        ],
        3,
    );
    assert!(e.contains("param [10, 3] and velocity [10, 4]"), "{e}");

    let v = || ts(&[&[4, 3], &[5]]);
    let one = || ts(&[&[1], &[1]]);
    let args = [
        v(),
        v(),
        one(),
        v(),
        v(),
        A::NoTs,
        one(),
        one(),
        A::NoTs,
        scf(0.9),
        scf(0.999),
        scf(1e-8),
        b(false),
        b(false),
        b(false),
    ];
    let o = ok("MergedAdamInferMeta", &args, 7);
    assert!(o.iter().all(|m| *m == MetaOut::None));
}

/// `ternary.cc`: `CSoftmaxWithMultiLabelCrossEntropyInferMeta`, `FasterTokenizerInferMeta`,
/// `MovingAverageAbsMaxScaleInferMeta`; `nullary.cc`: `RecvV2InferMeta`.
#[test]
fn ternary_and_nullary_ports_follow_paddle() {
    let c = |label: &[i64], sum: bool| {
        vec![
            f32t(&[-1, 1000]),
            t(Int64, label),
            f32t(label),
            i64a(-100),
            b(sum),
            int(0),
            int(2),
        ]
    };
    let o = ok(
        "CSoftmaxWithMultiLabelCrossEntropyInferMeta",
        &c(&[-1, 3], true),
        2,
    );
    is(&o[0], &[-1, 1000], Float32);
    is(&o[1], &[-1, 1], Float32);
    let o = ok(
        "CSoftmaxWithMultiLabelCrossEntropyInferMeta",
        &c(&[8, 3], false),
        2,
    );
    is(&o[1], &[8, 3], Float32);
    let mut bad = c(&[8, 3], false);
    bad[2] = f32t(&[8, 2]);
    let e = err("CSoftmaxWithMultiLabelCrossEntropyInferMeta", &bad, 2);
    assert!(e.contains("must have the same shape"), "{e}");

    let o = ok(
        "FasterTokenizerInferMeta",
        &[
            t(Int32, &[100]),
            t(Int32, &[2]),
            A::None,
            b(false),
            b(false),
            int(0),
            b(false),
        ],
        2,
    );
    is(&o[0], &[-1, -1], Int64);
    is(&o[1], &[-1, -1], Int64);

    let o = ok(
        "MovingAverageAbsMaxScaleInferMeta",
        &[f64t(&[4, 5]), f32t(&[1]), f32t(&[1])],
        4,
    );
    is(&o[0], &[4, 5], Float32);
    is(&o[1], &[1], Float32);
    is(&o[2], &[1], Float32);
    is(&o[3], &[1], Float32);

    let o = ok(
        "RecvV2InferMeta",
        &[int(0), b(false), int(1), ints(&[2, 3]), dt(Float16)],
        1,
    );
    is(&o[0], &[2, 3], Float16);
    let e = err(
        "RecvV2InferMeta",
        &[int(0), b(false), int(1), ints(&[2, -1]), dt(Float16)],
        1,
    );
    assert!(e.contains("its 1th element is -1"), "{e}");
    let o = ok(
        "RecvV2InferMeta",
        &[int(0), b(true), int(1), ints(&[-1]), dt(Int64)],
        1,
    );
    is(&o[0], &[], Int64);
}

/// `fusion.cc`: `FusedGateAttentionInferMeta` (merged and separate projections) and its grad.
#[test]
fn fused_gate_attention_follows_fusion_cc() {
    let ga = |merge: bool| {
        let mut a = vec![f16(&[2, 5, 7, 32])];
        if merge {
            a.extend([A::None, A::None, A::None, A::None, f16(&[3, 4, 8, 32])]);
        } else {
            a.extend([
                f16(&[2, 5, 9, 32]),
                f16(&[32, 4, 8]),
                f16(&[32, 4, 8]),
                f16(&[32, 4, 8]),
                A::None,
            ]);
        }
        a.extend([A::None, f16(&[2, 5, 1, 1, 7])]);
        a.extend([f16(&[32, 4, 8]), f16(&[4, 8]), f16(&[4, 8, 32]), f16(&[32])]);
        a.extend([b(true), b(merge), b(false)]);
        a
    };
    let o = ok("FusedGateAttentionInferMeta", &ga(true), 9);
    is(&o[3], &[3, 2, 5, 4, 7, 8], Float16);
    is(&o[4], &[2, 5, 4, 7, 7], Float16);
    assert_eq!(o[5], MetaOut::None);
    is(&o[6], &[2, 5, 7, 4, 8], Float16);
    is(&o[7], &[2, 5, 7, 4, 8], Float16);
    is(&o[8], &[2, 5, 7, 32], Float16);
    let o = ok("FusedGateAttentionInferMeta", &ga(false), 9);
    is(&o[0], &[2, 5, 4, 7, 8], Float16);
    is(&o[1], &[2, 5, 4, 9, 8], Float16);
    is(&o[4], &[2, 5, 4, 7, 9], Float16);
    let e = err(
        "FusedGateAttentionInferMeta",
        &{
            let mut a = ga(true);
            a[5] = A::None;
            a
        },
        9,
    );
    assert_eq!(e, "merge_qkv needs qkv_weight");

    // The grad: 21 tensors, 3 flags; gradients follow their tensors.
    let mut g = ga(true);
    let flags: Vec<A> = g.drain(12..).collect();
    g.extend((0..8).map(|_| A::None));
    g[12 + 6] = f16(&[2, 5, 7, 4, 8]); // fmha_out
    g.push(f16(&[2, 5, 7, 32])); // out_grad
    g.extend(flags);
    let o = ok("FusedGateAttentionGradInferMeta", &g, 11);
    is(&o[0], &[2, 5, 7, 32], Float16);
    assert_eq!(o[1], MetaOut::None);
    is(&o[5], &[3, 4, 8, 32], Float16);
    is(&o[7], &[32, 4, 8], Float16);
    is(&o[10], &[32], Float16);
}

fn f16(d: &[i64]) -> A {
    t(Float16, d)
}

/// `fusion.cc`: `ResnetUnitGradInferMeta`, `ResnetBasicBlockGradInferMeta`.
#[test]
fn resnet_grads_follow_fusion_cc() {
    let mut a = vec![
        f16(&[8, 32, 32, 64]),
        f16(&[64, 64, 3, 3]),
        f16(&[8, 32, 32, 64]),
        f32t(&[1, 1, 1, 64]),
        t(DataType::Float64, &[1, 1, 1, 64]),
        f32t(&[1, 1, 1, 64]),
        f32t(&[1, 1, 1, 64]),
    ];
    a.extend((0..7).map(|_| A::None));
    a.extend([
        f16(&[8, 32, 32, 64]),
        t(Int32, &[256, 2, 1]),
        f16(&[8, 32, 32, 64]),
    ]);
    a.extend([
        int(1),
        int(1),
        int(1),
        int(1),
        int(1),
        fl(0.9),
        fl(1e-5),
        s("NHWC"),
    ]);
    a.extend([b(false), b(false), b(false), b(false), b(false), s("relu")]);
    let o = ok("ResnetUnitGradInferMeta", &a, 8);
    is(&o[0], &[8, 32, 32, 64], Float16);
    is(&o[1], &[64, 64, 3, 3], Float16);
    is(&o[2], &[1, 1, 1, 64], Float32);
    is(&o[3], &[1, 1, 1, 64], DataType::Float64);
    assert!(o[4..].iter().all(|m| *m == MetaOut::None));

    let mut a = vec![
        f16(&[2, 16, 8, 8]),
        f16(&[32, 16, 3, 3]),
        f16(&[2, 32, 8, 8]),
        f32t(&[32]),
        f32t(&[32]),
        f32t(&[32]),
        f32t(&[32]),
        f16(&[32, 32, 3, 3]),
        f16(&[2, 32, 8, 8]),
        f16(&[2, 32, 8, 8]),
        f32t(&[32]),
        f32t(&[32]),
        f32t(&[32]),
        f32t(&[32]),
    ];
    a.extend((0..6).map(|_| A::None));
    a.extend((0..6).map(|_| f32t(&[6])));
    a.extend([f16(&[2, 32, 8, 8]), f16(&[2, 32, 8, 8])]);
    a.extend((0..10).map(|_| int(1)));
    a.extend([
        fl(0.9),
        fl(1e-5),
        s("NCHW"),
        b(false),
        b(false),
        b(false),
        b(false),
    ]);
    a.extend([s("relu"), b(true)]);
    let o = ok("ResnetBasicBlockGradInferMeta", &a, 10);
    is(&o[0], &[2, 16, 8, 8], Float16);
    is(&o[1], &[32, 16, 3, 3], Float16);
    is(&o[2], &[32], Float32);
    is(&o[4], &[32, 32, 3, 3], Float16);
    assert!(o[7..].iter().all(|m| *m == MetaOut::None));
}

/// `fusion.cc`: `FusedAttentionInferMeta` (both weight layouts, with a cache),
/// `FusedAttentionGradInferMeta`, `FusedFeedForwardInferMeta` and its grad,
/// `FusedBiasDropoutResidualLnGradInferMeta`, `FusedDotProductAttentionGradInferMeta`;
/// `backward.cc`: `FusedDropoutAddGradInferMeta`.
#[test]
fn fused_attention_and_feed_forward_follow_fusion_cc() {
    let attn = |w: A, transpose: bool, cache: A, is_test: bool| {
        let mut a = vec![
            f16(&[2, 6, 64]),
            A::None,
            A::None,
            w,
            f16(&[3, 4, 16]),
            cache,
        ];
        a.extend([
            f16(&[2, 4, 6, 6]),
            f16(&[64, 64]),
            A::None,
            A::None,
            A::None,
        ]);
        a.extend([int(4), b(transpose), b(true), fl(1e-5), fl(0.1), b(is_test)]);
        a.extend([
            b(false),
            int(0),
            s("upscale_in_train"),
            fl(0.1),
            b(false),
            int(0),
        ]);
        a.extend([s("upscale_in_train"), fl(1e-5), b(true), int(-1)]);
        a
    };
    let o = ok(
        "FusedAttentionInferMeta",
        &attn(f16(&[3, 4, 16, 64]), false, A::None, false),
        20,
    );
    is(&o[0], &[12], Float32);
    is(&o[2], &[2, 6, 64], Float32);
    is(&o[3], &[2, 6, 3, 4, 16], Float32);
    is(&o[5], &[3, 2, 4, 6, 16], Float32);
    is(&o[6], &[2, 4, 6, 6], Float32);
    is(&o[11], &[2, 4, 6, 6], Float32);
    is(&o[12], &[2, 6, 4, 16], Float32);
    assert_eq!(o[15], MetaOut::None);
    is(&o[19], &[2, 6, 64], Float16);
    let o = ok(
        "FusedAttentionInferMeta",
        &attn(f16(&[64, 192]), true, f16(&[2, 2, 4, 10, 16]), true),
        20,
    );
    is(&o[3], &[2, 6, 192], Float32);
    is(&o[6], &[2, 4, 6, 16], Float32);
    is(&o[18], &[2, 2, 4, 16, 16], Float32);
    assert_eq!(o[9], MetaOut::None);
    let e = err(
        "FusedAttentionInferMeta",
        &attn(f16(&[3, 4, 16, 32]), false, A::None, false),
        20,
    );
    assert!(e.contains("num_head * dim_head == dim_embed"), "{e}");
    // The cache checks the fused attention family shares, worded with the op's operand name.
    let e = err(
        "FusedAttentionInferMeta",
        &attn(f16(&[3, 4, 16, 64]), false, f16(&[2, 2, 4, 10, 8]), false),
        20,
    );
    assert_eq!(
        e,
        "the fifth dim of cache_kv [2, 2, 4, 10, 8] must be the head size 16"
    );

    let mut g = vec![
        f16(&[2, 6, 64]),
        f16(&[2, 6, 64]),
        f16(&[3, 4, 16, 64]),
        A::None,
        A::None,
    ];
    g.extend([
        A::None,
        A::None,
        f16(&[64, 64]),
        f16(&[64]),
        f32t(&[64]),
        f32t(&[64]),
    ]);
    g.extend([
        A::None,
        A::None,
        f16(&[2, 6, 64]),
        A::None,
        A::None,
        A::None,
        A::None,
        A::None,
    ]);
    g.extend([
        f16(&[2, 6, 3, 4, 16]),
        f16(&[3, 2, 4, 6, 16]),
        f16(&[2, 4, 6, 6]),
    ]);
    g.extend([
        f16(&[2, 4, 6, 16]),
        f16(&[2, 4, 6, 6]),
        t(UInt8, &[2, 4, 6, 6]),
    ]);
    g.extend([
        f16(&[2, 4, 6, 6]),
        f16(&[2, 6, 4, 16]),
        f16(&[2, 6, 64]),
        t(UInt8, &[2, 6, 64]),
    ]);
    g.extend(attn(A::None, false, A::None, false).split_off(11));
    let o = ok("FusedAttentionGradInferMeta", &g, 21);
    is(&o[3], &[64], Float32);
    is(&o[4], &[64], Float32);
    is(&o[8], &[2, 6, 64], Float32);
    is(&o[9], &[3, 4, 16, 64], Float32);
    is(&o[11], &[2, 6, 64], Float32);
    assert_eq!(
        (&o[0], &o[2], &o[6]),
        (&MetaOut::None, &MetaOut::None, &MetaOut::None)
    );
    g[34] = b(true);
    let e = err("FusedAttentionGradInferMeta", &g, 21);
    assert_eq!(e, "the grad op is only callable when is_test is false");

    let mut ff = vec![
        f16(&[4, 10, 32]),
        A::None,
        A::None,
        f16(&[32, 128]),
        A::None,
    ];
    ff.extend([
        f16(&[128, 32]),
        A::None,
        A::None,
        A::None,
        A::None,
        A::None,
        b(false),
    ]);
    ff.extend([
        fl(1e-5),
        fl(1e-5),
        s("gelu"),
        fl(0.1),
        fl(0.1),
        s("upscale_in_train"),
    ]);
    ff.extend([
        s("upscale_in_train"),
        b(false),
        b(false),
        b(false),
        int(0),
        int(0),
    ]);
    ff.extend([b(true), int(-1)]);
    let o = ok("FusedFeedForwardInferMeta", &ff, 11);
    is(&o[0], &[4, 10, 32], Float16);
    is(&o[1], &[4, 10, 128], Float32);
    is(&o[2], &[4, 10, 32], Float32);
    is(&o[5], &[40], Float32);
    assert_eq!(o[3], MetaOut::None);
    is(&o[7], &[4, 10, 128], Float32);

    let mut fg = vec![
        f16(&[4, 10, 32]),
        f16(&[4, 10, 32]),
        f16(&[32, 128]),
        f16(&[128]),
    ];
    fg.extend([
        f16(&[128, 32]),
        t(UInt8, &[4, 10, 128]),
        t(UInt8, &[4, 10, 32]),
    ]);
    fg.extend([f16(&[4, 10, 128]), f16(&[4, 10, 128]), A::None]);
    fg.extend((0..9).map(|_| A::None));
    fg.push(f16(&[32]));
    fg.extend(ff.split_off(11));
    let o = ok("FusedFeedForwardGradInferMeta", &fg, 9);
    is(&o[0], &[4, 10, 32], Float32);
    is(&o[1], &[32, 128], Float32);
    is(&o[2], &[128], Float32);
    is(&o[4], &[32], Float32);
    assert_eq!(o[5], MetaOut::None);

    let mut bd = vec![
        f16(&[2, 8, 16]),
        f16(&[2, 8, 16]),
        f16(&[16]),
        f32t(&[16]),
        f32t(&[16]),
    ];
    bd.extend([
        f32t(&[16]),
        f32t(&[16]),
        f16(&[2, 8, 16]),
        t(UInt8, &[2, 8, 16]),
    ]);
    bd.extend([f16(&[2, 8, 16]), fl(0.5), b(false), b(true), int(0)]);
    bd.extend([s("downgrade_in_infer"), fl(1e-5)]);
    let o = ok("FusedBiasDropoutResidualLnGradInferMeta", &bd, 5);
    is(&o[0], &[2, 8, 16], Float16);
    is(&o[3], &[16], Float16);

    let o = ok(
        "FusedDotProductAttentionGradInferMeta",
        &[
            f16(&[2, 8, 4, 16]),
            f16(&[2, 9, 4, 16]),
            f16(&[2, 9, 4, 16]),
            A::None,
        ],
        4,
    );
    is(&o[1], &[2, 9, 4, 16], Float16);
    assert_eq!(o[3], MetaOut::None);
    let o = ok(
        "FusedDropoutAddGradInferMeta",
        &[t(Int64, &[2]), f16(&[3, 5])],
        2,
    );
    is(&o[0], &[3, 5], Float16);
    is(&o[1], &[3, 5], Float16);
    let o = ok(
        "FlashAttnV3GradInferMeta",
        &[
            f16(&[2, 8, 4, 16]),
            f16(&[2, 9, 2, 16]),
            f16(&[2, 9, 2, 16]),
        ],
        3,
    );
    is(&o[1], &[2, 9, 2, 16], Float16);
}

fn strs(v: &[&str]) -> A {
    A::At(AttrValue::Strs(
        v.iter().map(|s| s.to_string().into()).collect(),
    ))
}

/// `fusion.cc`: `FusedSeqpoolCvmGradInferMeta`, `FusedElemwiseActivationGradInferMeta`.
#[test]
fn seqpool_cvm_and_elemwise_activation_grads_follow_fusion_cc() {
    let sp = |og: &[i64], use_cvm: bool| {
        vec![
            ts(&[&[-1, 11], &[-1, 11]]),
            f32t(&[-1, 2]),
            ts(&[og, og]),
            s("SUM"),
            fl(0.0),
            b(use_cvm),
            int(2),
        ]
    };
    let o = ok("FusedSeqpoolCvmGradInferMeta", &sp(&[-1, 11], true), 2);
    assert_eq!(dims_of(tv(&o[0])), [vec![-1, 11], vec![-1, 11]]);
    assert_eq!(o[1], MetaOut::None);
    ok("FusedSeqpoolCvmGradInferMeta", &sp(&[-1, 9], false), 2);
    let e = err("FusedSeqpoolCvmGradInferMeta", &sp(&[-1, 9], true), 2);
    assert!(
        e.starts_with("out_grad[0] [-1, 9] does not match x[0] [-1, 11]"),
        "{e}"
    );

    let ea = |x: A, functors: &[&str]| {
        vec![
            x,
            f16(&[8]),
            f16(&[4, 8]),
            A::None,
            f16(&[4, 8]),
            strs(functors),
            int(-1),
            fl(0.0),
            b(false),
        ]
    };
    let o = ok(
        "FusedElemwiseActivationGradInferMeta",
        &ea(f16(&[4, 8]), &["relu_grad", "elementwise_mul_grad"]),
        2,
    );
    is(&o[0], &[4, 8], Float16);
    is(&o[1], &[8], Float16);
    let o = ok(
        "FusedElemwiseActivationGradInferMeta",
        &ea(A::None, &["elementwise_add_grad", "relu_grad"]),
        2,
    );
    is(&o[0], &[4, 8], Float16);
    let e = err(
        "FusedElemwiseActivationGradInferMeta",
        &ea(A::None, &["relu_grad", "elementwise_mul_grad"]),
        2,
    );
    assert_eq!(e, "x must be given");
    let e = err(
        "FusedElemwiseActivationGradInferMeta",
        &ea(f16(&[4, 8]), &["relu_grad"]),
        2,
    );
    assert!(e.starts_with("invalid functor list size 1"), "{e}");
}

/// `multiary.cc`: `FusedAdamInferMeta`, `MaskedMultiheadAttentionInferMeta`.
#[test]
fn fused_adam_and_masked_mha_follow_multiary_cc() {
    let two =
        |d: &[&[i64]], dt: DataType| A::Ts(d.iter().map(|d| TensorMeta::new(dt, d)).collect());
    let adam = |amsgrad: bool, master: A| {
        vec![
            two(&[&[4, 3], &[5]], Float16),
            two(&[&[4, 3], &[5]], Float16),
            f32t(&[1]),
            two(&[&[4, 3], &[5]], Float32),
            two(&[&[4, 3], &[5]], Float32),
            if amsgrad {
                two(&[&[4, 3], &[5]], Float32)
            } else {
                A::NoTs
            },
            two(&[&[1], &[1]], Float32),
            two(&[&[1], &[1]], Float32),
            master,
            A::None,
            scf(0.9),
            scf(0.999),
            scf(1e-8),
            int(65536),
            fl(0.0),
            b(false),
            b(true),
            b(false),
            b(amsgrad),
        ]
    };
    let o = ok(
        "FusedAdamInferMeta",
        &adam(true, two(&[&[4, 3], &[5]], Float32)),
        7,
    );
    assert_eq!(dims_of(tv(&o[0])), [vec![4, 3], vec![5]]);
    assert!(tv(&o[0]).iter().all(|m| m.dtype == Float16));
    assert!(tv(&o[3]).iter().all(|m| m.dtype == Float32));
    assert_eq!(dims_of(tv(&o[4])), [vec![1], vec![1]]);
    assert!(tv(&o[6]).iter().all(|m| m.dtype == Float32));
    let o = ok("FusedAdamInferMeta", &adam(false, A::NoTs), 7);
    assert_eq!((&o[3], &o[6]), (&MetaOut::None, &MetaOut::None));

    let mha = |x: A, bias: A, cd: &str, scale: f32| {
        let mut a = vec![x, f16(&[2, 2, 4, 64, 16]), bias];
        a.extend((0..8).map(|_| A::None));
        a.extend([int(1), int(0), b(false), s(cd), fl(scale), int(1)]);
        a.extend([fl(127.0), fl(-127.0)]);
        a
    };
    // x [2, (8 + 2 * 4) * 16] -> 8 query heads.
    let o = ok(
        "MaskedMultiheadAttentionInferMeta",
        &mha(f16(&[2, 256]), A::None, "default", -1.0),
        3,
    );
    is(&o[0], &[2, 128], Float16);
    is(&o[1], &[2, 2, 4, 64, 16], Float16);
    assert_eq!(o[2], MetaOut::None);
    let o = ok(
        "MaskedMultiheadAttentionInferMeta",
        &mha(t(Int32, &[2, 256]), A::None, "bf16", -1.0),
        3,
    );
    is(&o[0], &[2, 128], BFloat16);
    let o = ok(
        "MaskedMultiheadAttentionInferMeta",
        &mha(f16(&[2, 256]), A::None, "fp16", 1.0),
        3,
    );
    is(&o[0], &[2, 128], DataType::Int8);
    let e = err(
        "MaskedMultiheadAttentionInferMeta",
        &mha(f16(&[2, 256]), f32t(&[256]), "default", -1.0),
        3,
    );
    assert!(e.contains("must have the same dtype"), "{e}");
    let e = err(
        "MaskedMultiheadAttentionInferMeta",
        &mha(f16(&[2, 240]), A::None, "default", -1.0),
        3,
    );
    assert!(e.contains("must be divisible"), "{e}");
}

/// `backward.cc`: `NceGradInferMeta`, `RowConvGradInferMeta`, `LodResetGradInferMeta`,
/// `CSoftmaxWithMultiLabelCrossEntropyGradInferMeta`.
#[test]
fn static_backward_grads_follow_backward_cc() {
    let o = ok(
        "NceGradInferMeta",
        &[f64t(&[4, 8]), A::None, f64t(&[20, 8])],
        3,
    );
    is(&o[0], &[4, 8], DataType::Float64);
    assert_eq!(o[1], MetaOut::None);
    is(&o[2], &[20, 8], DataType::Float64);
    let o = ok(
        "RowConvGradInferMeta",
        &[f64t(&[-1, 16]), f64t(&[3, 16])],
        2,
    );
    is(&o[0], &[-1, 16], Float32);
    is(&o[1], &[3, 16], Float32);
    let o = ok(
        "LodResetGradInferMeta",
        &[f64t(&[6, 2]), f64t(&[6, 2]), ints(&[]), b(true)],
        1,
    );
    is(&o[0], &[6, 2], DataType::Float64);
    let o = ok(
        "CSoftmaxWithMultiLabelCrossEntropyGradInferMeta",
        &[
            f16(&[8, 1000]),
            t(Int64, &[8, 3]),
            f16(&[8, 3]),
            f16(&[8, 1]),
        ]
        .into_iter()
        .chain([i64a(-100), b(true), int(0), int(2)])
        .collect::<Vec<_>>(),
        1,
    );
    is(&o[0], &[8, 1000], Float32);
}

/// Functions whose Paddle body is not in the reference store (their docs say so): the rules
/// are the legacy ops' (`Seed`, `PartialRecv`, `SequenceExpand`, `CommInitAll`), the sibling
/// function's (`Moe` as `FusedMoe`) or the gradient rule (a gradient is shaped like its
/// tensor).
#[test]
fn derived_rules_for_functions_without_a_stored_body() {
    let o = ok("SeedInferMeta", &[int(7)], 1);
    is(&o[0], &[1], Int32);
    let o = ok(
        "PartialRecvInferMeta",
        &[int(1), dt(Float16), ints(&[4, 8]), int(2), int(0)],
        1,
    );
    is(&o[0], &[4, 8], Float16);
    let e = err(
        "PartialRecvInferMeta",
        &[int(1), dt(Float16), ints(&[4, 8]), int(2), int(2)],
        1,
    );
    assert!(e.contains("must be >= 0 and < num (2)"), "{e}");
    ok("CommInitAllInferMeta", &[ints(&[0, 1]), int(0)], 0);
    let o = ok(
        "SequenceExpandInferMeta",
        &[f32t(&[4, 8]), f32t(&[10, 1]), int(-1)],
        1,
    );
    is(&o[0], &[-1, 8], Float32);
    let e = err(
        "SequenceExpandInferMeta",
        &[f32t(&[4]), f32t(&[10, 1]), int(-1)],
        1,
    );
    assert!(e.starts_with("x must have at least 2 dimensions"), "{e}");
    let o = ok(
        "MoeInferMeta",
        &[
            f16(&[6, 32]),
            f32t(&[32, 4]),
            f16(&[4, 32, 64]),
            f16(&[4, 1, 64]),
        ]
        .into_iter()
        .chain([f16(&[4, 64, 32]), f16(&[4, 1, 32]), s("gelu")])
        .collect::<Vec<_>>(),
        1,
    );
    is(&o[0], &[6, 32], Float16);

    let o = ok(
        "CalAuxLossGradInferMeta",
        &[
            f32t(&[6, 4]),
            f32t(&[]),
            f32t(&[4]),
            f32t(&[]),
            i64a(4),
            b(false),
            i64a(2),
        ],
        1,
    );
    is(&o[0], &[6, 4], Float32);
    let o = ok(
        "FusedRMSNormGradInferMeta",
        &[BFloat16, Float32, Float32, BFloat16]
            .iter()
            .zip([&[6, 32][..], &[32], &[6], &[6, 32]])
            .map(|(d, s)| t(*d, s))
            .chain([fl(1e-6)])
            .collect::<Vec<_>>(),
        2,
    );
    is(&o[0], &[6, 32], BFloat16);
    is(&o[1], &[32], Float32);
    let strides = || [ints(&[4, 5]), ints(&[5, 1]), ints(&[2]), ints(&[8])];
    let mut get = vec![f32t(&[4, 5]), ts(&[&[2]]), f32t(&[2, 5])];
    get.extend(strides());
    get.extend([i64a(0), b(true)]);
    let o = ok("IndexElementwiseGetGradInferMeta", &get, 1);
    is(&o[0], &[4, 5], Float32);
    get.push(b(false));
    let o = ok("IndexElementwiseGetGradInferMeta", &get, 1);
    is(&o[0], &[4, 5], Float32);
    let mut put = vec![f64t(&[4, 5]), ts(&[&[2]]), f64t(&[4, 5])];
    put.extend(strides());
    put.push(i64a(0));
    let o = ok("IndexElementwisePutGradInferMeta", &put, 1);
    is(&o[0], &[4, 5], DataType::Float64);
    put.insert(2, f64t(&[2, 5]));
    let o = ok("IndexElementwisePutWithTensorGradInferMeta", &put, 2);
    is(&o[1], &[2, 5], DataType::Float64);
    let o = ok(
        "MoeCombineGradInferMeta",
        &[
            f16(&[12, 32]),
            f32t(&[6, 2]),
            t(Int32, &[6, 2]),
            f16(&[6, 32]),
        ],
        2,
    );
    is(&o[0], &[12, 32], Float16);
    is(&o[1], &[6, 2], Float32);
}

/// `sparse/unary.cc` and `sparse/binary.cc` (the sparse ops' functions, by their qualified
/// names).
#[test]
fn sparse_functions_follow_paddle_sparse_infermeta() {
    let o = ok("sparse::IndicesInferMeta", &[f32t(&[1, 8, 8, 8, 4])], 1);
    is(&o[0], &[4, -1], Int32);
    let o = ok("sparse::ValuesInferMeta", &[f16(&[1, 8, 8, 8, 4])], 1);
    is(&o[0], &[-1, 4], Float16);
    let o = ok(
        "sparse::CastInferMeta",
        &[f32t(&[4, 5]), dt(Int32), dt(DataType::Float64)],
        1,
    );
    is(&o[0], &[4, 5], DataType::Float64);

    // A 3-D sparse conv: x [1, 8, 8, 8, 4], kernel [3, 3, 3, 4, 16].
    let conv = |subm: bool, pad: i64, stride: i64| {
        vec![
            f32t(&[1, 8, 8, 8, 4]),
            f32t(&[3, 3, 3, 4, 16]),
            ints(&[pad; 3]),
            ints(&[1; 3]),
            ints(&[stride; 3]),
            int(1),
            b(subm),
            s(""),
        ]
    };
    let o = ok("sparse::Conv3dInferMeta", &conv(false, 0, 1), 3);
    is(&o[0], &[1, 6, 6, 6, 16], Float32);
    is(&o[1], &[1], Int32);
    is(&o[2], &[1], Int32);
    let o = ok("sparse::Conv3dInferMeta", &conv(false, 1, 2), 3);
    is(&o[0], &[1, 4, 4, 4, 16], Float32);
    // Submanifold: padding k / 2 and stride 1 keep the extents.
    let o = ok("sparse::Conv3dImplicitGemmInferMeta", &conv(true, 0, 2), 1);
    is(&o[0], &[1, 8, 8, 8, 16], Float32);
    let mut bad = conv(false, 0, 1);
    bad[1] = f32t(&[3, 3, 4, 16]);
    let e = err("sparse::Conv3dInferMeta", &bad, 3);
    assert!(
        e.starts_with("the shape of kernel [3, 3, 4, 16] should have 5 dims"),
        "{e}"
    );

    let o = ok(
        "sparse::Pool3dInferMeta",
        &[
            f32t(&[1, 8, 8, 8, 4]),
            ints(&[3, 3, 3]),
            ints(&[1; 3]),
            ints(&[1; 3]),
            ints(&[2; 3]),
        ],
        3,
    );
    is(&o[0], &[1, 4, 4, 4, 4], Float32);
    let o = ok(
        "sparse::SparseCooTensorInferMeta",
        &[f16(&[5]), t(Int64, &[2, 5]), ints(&[3, 4])],
        1,
    );
    is(&o[0], &[3, 4], Float16);
    let o = ok(
        "sparse::FusedAttentionInferMeta",
        &[
            f16(&[1, 2, 4, 8]),
            f16(&[1, 2, 4, 8]),
            f16(&[1, 2, 4, 8]),
            f16(&[2, 4, 4]),
            A::None,
            A::None,
        ],
        2,
    );
    assert_eq!(o, vec![MetaOut::None, MetaOut::None]);
}

/// `fusion.cc` `FusedMultiTransformerInt8InferMeta`.
#[test]
fn fused_multi_transformer_int8_follows_fusion_cc() {
    let layer = |d: &[i64]| A::Ts(vec![TensorMeta::new(DataType::Int8, d)]);
    let args = |cache: A, ring: i64| {
        let mut a = vec![
            f16(&[2, 5, 64]),
            ts(&[&[64]]),
            ts(&[&[64]]),
            layer(&[3, 4, 16, 64]),
        ];
        a.extend([A::NoTs, cache, A::None, A::None, layer(&[64, 64]), A::NoTs]);
        a.extend([
            ts(&[&[64]]),
            ts(&[&[64]]),
            layer(&[64, 256]),
            A::NoTs,
            layer(&[256, 64]),
        ]);
        a.extend([A::NoTs, A::NoTs, A::NoTs, A::NoTs, A::NoTs]);
        a.extend([
            b(true),
            fl(1e-5),
            fl(0.0),
            b(true),
            s("upscale_in_train"),
            s("gelu"),
        ]);
        a.extend([b(true), int(ring), int(4), int(16), int(256)]);
        a.extend([fls(&[1.0]), fls(&[1.0]), fls(&[1.0]), fls(&[1.0]), int(1)]);
        a.extend([fl(127.0), fl(-127.0)]);
        a
    };
    let o = ok("FusedMultiTransformerInt8InferMeta", &args(A::NoTs, -1), 2);
    assert_eq!(o[0], MetaOut::None);
    is(&o[1], &[2, 5, 64], Float16);
    let cache = A::Ts(vec![TensorMeta::new(Float16, &[2, 2, 4, 0, 16])]);
    let e = err("FusedMultiTransformerInt8InferMeta", &args(cache, -1), 2);
    assert_eq!(
        e,
        "the fourth dim of cache_kv[0] [2, 2, 4, 0, 16] must be greater than 0"
    );
    let cache = A::Ts(vec![TensorMeta::new(Float16, &[2, 2, 3, 10, 16])]);
    let e = err("FusedMultiTransformerInt8InferMeta", &args(cache, -1), 2);
    assert_eq!(
        e,
        "the third dim of cache_kv[0] [2, 2, 3, 10, 16] must be the number of heads 4"
    );
}

/// `MoeGateDispatchGradInferMeta`: the shapes of Paddle's kernel (`combine_weights` `[s, k]`,
/// `scatter_index` `[k, s]`, `y_grad` `[experts × capacity, h]`): `x_grad` `[s, h]` in
/// `y_grad`'s dtype, `gate_logits_grad` float32 `[s, experts]`; a dynamic `y_grad` row count
/// leaves the experts unknown; wrong ranks and a zero capacity are refused.
#[test]
fn moe_gate_dispatch_grad_follows_the_kernel_shapes() {
    let args = |y: A, capacity: i64| {
        vec![
            f32t(&[6, 2]),
            t(Int32, &[2, 6]),
            t(Int32, &[6, 2]),
            y,
            f32t(&[6, 2]),
            i64a(2),
            i64a(capacity),
            b(true),
        ]
    };
    let o = ok("MoeGateDispatchGradInferMeta", &args(f16(&[24, 32]), 3), 2);
    is(&o[0], &[6, 32], Float16);
    is(&o[1], &[6, 8], Float32);
    let o = ok("MoeGateDispatchGradInferMeta", &args(f16(&[-1, 32]), 3), 2);
    is(&o[0], &[6, 32], Float16);
    is(&o[1], &[6, -1], Float32);
    let e = err("MoeGateDispatchGradInferMeta", &args(f16(&[24]), 3), 2);
    assert!(e.contains("y_grad"), "{e}");
    let e = err("MoeGateDispatchGradInferMeta", &args(f16(&[24, 32]), 0), 2);
    assert!(e.contains("capacity must be greater than 0"), "{e}");
}

/// The MoE dispatch gradients, shaped like their forwards' inputs (`ternary.cc`'s
/// `MoeGateDispatchPermuteInferMeta` / `MoeGateDispatchPartialNoSoftmaxTopKInferMeta`).
#[test]
fn moe_dispatch_grads_mirror_their_forwards() {
    let o = ok(
        "MoeGateDispatchPermuteGradInferMeta",
        &[
            f32t(&[6, 2]),
            t(Int32, &[2, 6]),
            t(Int32, &[6, 2]),
            f16(&[2, 4, 3, 32]),
        ]
        .into_iter()
        .chain([f32t(&[6, 2]), i64a(2), i64a(3), i64a(4)])
        .collect::<Vec<_>>(),
        2,
    );
    is(&o[0], &[6, 32], Float16);
    is(&o[1], &[6, 8], Float32);
    let mut p = vec![
        f32t(&[6, 2]),
        t(Int32, &[2, 6]),
        t(Int32, &[24]),
        t(Int64, &[8]),
    ];
    p.extend([
        t(Int64, &[8]),
        f16(&[-1, 32]),
        f32t(&[6, 2]),
        i64a(2),
        i64a(3),
    ]);
    p.extend([b(false), i64a(0), i64a(4)]);
    let o = ok("MoeGateDispatchPartialNoSoftmaxTopkGradInferMeta", &p, 2);
    is(&o[0], &[6, 32], Float16);
    is(&o[1], &[6, 2], Float32);
}
