//! `check_types` on programs built with the pd_op typed builders: clean when untouched; a
//! result whose recorded type was changed is reported with op, position, recorded and inferred
//! types; ops without an infer-meta function are listed as unchecked.

use op_defs::pd_op::*;
use pir_runtime::phi::{DataType, Place};
use pir_runtime::{check_types, Builder, IrContext, Program};

fn program() -> (Program, pir_runtime::OpId) {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let attrs = DataOpAttrs {
        name: "x",
        shape: &[-1, 3, 8, 8],
        dtype: DataType::Float32,
        place: Place::default(),
    };
    let x = DataOp::build(&mut b, attrs).unwrap().out(b.program());
    let w = DataOp::build(
        &mut b,
        DataOpAttrs {
            name: "w",
            shape: &[4, 3, 3, 3],
            ..attrs
        },
    )
    .unwrap()
    .out(b.program());
    let conv = Conv2dOp::build(&mut b, x, w, Conv2dOpAttrs::default()).unwrap();
    let y = conv.out(b.program());
    let r = ReluOp::build(&mut b, y).unwrap().out(b.program());
    let r = ReshapeOp::build(&mut b, r, &[-1, 144])
        .unwrap()
        .out(b.program());
    // split's axis arrives through a `full` whose double value infer-meta reads as an int.
    SplitOp::build(&mut b, r, &[100, 44], 1).unwrap();
    (prog, conv.op())
}

#[test]
fn typed_builds_check_clean() {
    let (prog, _) = program();
    let report = check_types(&prog);
    assert!(report.is_clean(), "{report}");
    assert_eq!(report.checked, 9, "{report}");
    assert!(report.unchecked.is_empty(), "{report}");
}

#[test]
fn a_changed_result_type_is_reported() {
    let (mut prog, conv) = program();
    let out = prog.op(conv).result(0);
    let wrong = prog
        .ctx()
        .dense_tensor_type(DataType::Float32, &[-1, 4, 8, 8]);
    prog.set_value_type(out, Some(wrong));
    let report = check_types(&prog);
    assert!(!report.is_clean());
    let msgs: Vec<String> = report.differences.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        msgs[0],
        "pd_op.conv2d (op 2 of block 0): result 0 (`out`) is recorded as tensor<-1x4x8x8xf32> but infers to tensor<-1x4x6x6xf32>"
    );
    // The relu after it now infers from the (wrong) recorded conv output, so it differs too.
    assert_eq!(report.differences.len(), 2, "{report}");
    // A difference names the op by handle and carries the inferred type's handle: recording
    // the conv's inferred type fixes the program (the relu's difference followed from it).
    let d = &report.differences[0];
    assert_eq!((d.op, d.result, d.name), (conv, 0, "out"));
    assert_eq!(d.recorded.ty, Some(wrong));
    let v = prog.op(d.op).result(d.result);
    prog.set_value_type(v, d.inferred.ty);
    let fixed = check_types(&prog);
    assert!(fixed.is_clean(), "{fixed}");
}

/// `UnchangedInferMeta` ops (`out->share_meta(x)`) give their result the input's exact type:
/// dims, dtype, layout, LoD and offset, the same handle (the typed build takes a fast path for
/// them; it must agree with Paddle's rule and with the general infer-meta path).
#[test]
fn unchanged_infer_meta_results_keep_the_whole_input_type() {
    use pir_runtime::meta::TensorMeta;
    use pir_runtime::phi::DataLayout;
    use pir_runtime::Op;

    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let mut meta = TensorMeta::new(DataType::Float16, &[-1, 7, 5]);
    meta.layout = DataLayout::Nhwc;
    meta.lod = vec![vec![0, 2, 7]];
    meta.offset = 64;
    let t = ctx.tensor_type_of(&meta);
    // A value of that type (a data op given the type explicitly).
    let dict = ctx.empty_dict();
    let src = b
        .create_with(DataOp::DEF, &[], dict, &[Some(t)], 0)
        .unwrap();
    let x = b.program().op(src).result(0);
    let relu = ReluOp::build(&mut b, x).unwrap();
    let y = relu.out(b.program());
    assert_eq!(b.program().value_type(y), Some(t));
    let z = TanhOp::build(&mut b, y).unwrap().out(b.program());
    assert_eq!(b.program().value_type(z), Some(t));
    // `check_types` re-runs the general infer-meta path on every op: it agrees.
    let report = check_types(&prog);
    assert!(report.is_clean(), "{report}");
    assert!(report.checked >= 2, "relu and tanh are checked: {report}");
}

/// Generated ops read their attributes back typed, named after the fields.
#[test]
fn attribute_accessors_read_back_what_was_built() {
    use pir_runtime::Op;
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let data = |b: &mut Builder<'_>, name, shape| {
        DataOp::build(
            b,
            DataOpAttrs::new(name, shape, DataType::Float32, Place::default()),
        )
        .unwrap()
        .out(b.program())
    };
    let x = data(&mut b, "x", &[-1, 3, 32, 32]);
    let w = data(&mut b, "w", &[8, 3, 3, 3]);
    let attrs = Conv2dOpAttrs {
        strides: &[2, 2],
        paddings: &[1, 1],
        data_format: "NCHW",
        ..Default::default()
    };
    let conv = Conv2dOp::build(&mut b, x, w, attrs).unwrap();
    let p = b.program();
    assert_eq!(conv.strides(p), Some(vec![2, 2]));
    assert_eq!(conv.paddings(p), Some(vec![1, 1]));
    assert_eq!(conv.padding_algorithm(p), Some("EXPLICIT"));
    assert_eq!(conv.data_format(p), Some("NCHW"));
    assert_eq!(conv.groups(p), Some(1));
    assert_eq!(conv.input(p), Some(x));
    let d = DataOp::from_id_unchecked(p.defining_op(x).unwrap());
    assert_eq!(d.name(p), Some("x"));
    assert_eq!(d.shape(p), Some(vec![-1, 3, 32, 32]));
    assert_eq!(d.dtype(p), Some(DataType::Float32));
    assert_eq!(d.place(p), Some(Place::default()));
}
