//! The legacy names of the ops Paddle writes by hand reach the translator's name tables
//! (`OpCompatInfo`), as Paddle's `OpNameNormalizer` holds them for every op.

use pir_translator::OpCompatInfo;

#[test]
fn hand_written_ops_map_from_their_legacy_names() {
    let ctx = pir_runtime::IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    let compat = OpCompatInfo::from_context(&ctx);
    assert_eq!(compat.op_name("fetch_v2"), "fetch");
    assert_eq!(compat.op_name("expand_v2"), "expand");
    assert_eq!(compat.op_name("tensor_array_to_tensor"), "array_to_tensor");
    assert_eq!(compat.legacy_arg_name("expand_v2", "x"), "X");
    assert_eq!(compat.legacy_arg_name("assert", "cond"), "Cond");
    assert_eq!(
        compat.legacy_arg_name("fused_gemm_epilogue_grad", "out_grad"),
        "DOut"
    );
    let shape = compat.mutable_attribute("expand_v2", "shape").unwrap();
    assert_eq!(shape.candidates, ["expand_shapes_tensor", "Shape"]);
}
