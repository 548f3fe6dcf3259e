//! A small yaml-generated dialect: typed builds, accessors, GetOpInfo, traits, verification.

use pir_runtime::interfaces::{InferMeta, OpYamlInfo, Vjp};
use pir_runtime::phi::DataType;
use pir_runtime::traits::{Inplace, SideEffect};
use pir_runtime::{verify, BuildError, Builder, IrContext, Op, Program};
use pir_tests::mini::*;

#[test]
fn typed_build_infers_types_and_accessors_work() {
    let ctx = IrContext::new();
    ctx.register_dialect::<MiniDialect>().unwrap();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = FullOp::build(
        &mut b,
        &[2, 3],
        FullOpAttrs {
            dtype: DataType::Float32,
            ..FullOpAttrs::new(1.5)
        },
    )
    .unwrap();
    let xv = x.out(b.program());
    let relu = ReluOp::build(&mut b, xv).unwrap();
    let y = relu.out(b.program());
    assert_eq!(relu.x(b.program()), Some(xv));
    assert_eq!(
        b.program().value_type(y),
        Some(ctx.dense_tensor_type(DataType::Float32, &[2, 3]))
    );
    // full's shape is a mutable attribute: a full_int_array op feeds it.
    let text = prog.to_string();
    assert!(text.contains("\"mini.full\""), "{text}");
    verify(&prog).unwrap();
    let op = prog.op(relu.op());
    assert_eq!(ReluOp::cast(op), Some(relu));
    assert_eq!(FullOp::cast(op), None);
}

#[test]
fn missing_infer_meta_is_a_clear_error_and_explicit_types_work() {
    let ctx = IrContext::new();
    ctx.register_dialect::<MiniDialect>().unwrap();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let t = ctx.dense_tensor_type(DataType::Float32, &[1, 3, 8, 8]);
    let w = ctx.dense_tensor_type(DataType::Float32, &[4, 3, 3, 3]);
    let x = pir_runtime::builtin::parameter(&mut b, "x", t).unwrap();
    let f = pir_runtime::builtin::parameter(&mut b, "w", w).unwrap();
    let err = Conv2dOp::build(&mut b, x, f, Conv2dOpAttrs::default()).unwrap_err();
    assert_eq!(
        err,
        BuildError::InferMetaMissing {
            op: "mini.conv2d",
            func: "ConvInferMeta"
        }
    );
    let out = ctx.dense_tensor_type(DataType::Float32, &[1, 4, 6, 6]);
    let attrs = ctx.dict_attr(&[
        (
            "strides",
            ctx.array_attr(&[ctx.i32_attr(1), ctx.i32_attr(1)]),
        ),
        (
            "paddings",
            ctx.array_attr(&[ctx.i32_attr(0), ctx.i32_attr(0)]),
        ),
        ("padding_algorithm", ctx.str_attr("EXPLICIT")),
        (
            "dilations",
            ctx.array_attr(&[ctx.i32_attr(1), ctx.i32_attr(1)]),
        ),
        ("groups", ctx.i32_attr(1)),
        ("data_format", ctx.str_attr("NCHW")),
    ]);
    let conv =
        Conv2dOp::build_with_types(&mut b, &[Some(x), Some(f)], attrs, &[Some(out)]).unwrap();
    verify(&prog).unwrap();
    assert_eq!(conv.out(&prog), prog.op(conv.op()).result(0));
}

#[test]
fn get_op_info_traits_and_interfaces() {
    let info = Adam_Op::get_op_info();
    let names: Vec<&str> = info.inputs.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "param",
            "grad",
            "learning_rate",
            "moment1",
            "moment2",
            "moment2_max",
            "beta1_pow",
            "beta2_pow",
            "master_param",
            "skip_update",
            "beta1",
            "beta2",
            "epsilon"
        ]
    );
    assert!(info.inputs[10].is_mutable_attribute);
    assert_eq!(
        info.runtime_info.inplace[0],
        ("param_out".to_string(), "param".to_string())
    );
    let def = Adam_Op::DEF;
    assert!(def.has_trait::<Inplace>());
    assert!(def.has_trait::<SideEffect>());
    assert!(def.has_interface::<OpYamlInfo>());
    assert_eq!(
        def.interface::<InferMeta>().unwrap().func_name,
        "AdamInferMeta"
    );
    assert_eq!(def.interface::<OpYamlInfo>().unwrap().get_op_info(), info);
    assert_eq!(
        Conv2dOp::DEF.interface::<Vjp>().unwrap().backward_op,
        "mini.conv2d_grad"
    );
    assert!(!ReluOp::DEF.has_trait::<Inplace>());
    assert!(Relu_Op::DEF.has_trait::<Inplace>());
}
