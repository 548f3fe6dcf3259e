//! Handlers: a user-registered handler for a legacy op type Paddle does not know, translating
//! it into an op of the user's own dialect; overriding a built-in handler; and special-handler
//! rules the fixtures do not exercise (elementwise axis broadcasting, `mul` with
//! `x_num_col_dims > 1`, `sum`, XShape grads with axes). Expected lines follow Paddle's
//! translator rules (docs/translator-notes.md) applied by hand.

mod common;

use std::borrow::Cow;

use common::{float_attr, op, program, slot, var};
use pir_macros::pir_op;
use pir_runtime::interfaces::InferShapeOp;
use pir_runtime::meta::{InferMetaCtx, InferMetaError};
use pir_runtime::OpDef;
use pir_translator::proto::var_type::Type as VT;
use pir_translator::proto::{self, AttrType};
use pir_translator::{OpContext, OpTranscriber, TranslateError, Translator};

/// `x * sigmoid(beta * x)`: an op of the test's own `custom` dialect.
#[pir_op(name = "custom.swish", interfaces(InferShape))]
pub struct SwishOp {
    /// The input.
    #[input]
    x: DenseTensor,
    /// The slope.
    #[attr(default = 1.0)]
    beta: f32,
    /// The result.
    #[output]
    out: DenseTensor,
}

impl InferShapeOp for SwishOp {
    fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
        let x = ctx.tensor(0)?.clone();
        ctx.set_output(0, x)
    }
}

pir_runtime::dialect!(
    /// The test's own dialect.
    pub CustomDialect = "custom" [SwishOp]
);

/// The user's handler: legacy `swish` (inputs `X`, output `Out`, attribute `beta`) is
/// `custom.swish`. Only the target and the argument names differ from the general
/// translation; operands, result types, attributes and the variable map are the general
/// stages'.
struct SwishHandler;

impl OpTranscriber for SwishHandler {
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        cx.op_def("custom.swish")
    }

    fn legacy_arg_name<'a>(&self, _: &OpContext<'a, '_>, arg: &'a str) -> Cow<'a, str> {
        match arg {
            "x" => Cow::Borrowed("X"),
            "out" => Cow::Borrowed("Out"),
            other => Cow::Borrowed(other),
        }
    }
}

fn swish_program() -> Vec<u8> {
    program(
        vec![
            var("x", VT::Fp32, &[-1, 4], true),
            var("y", VT::Fp32, &[-1, 4], false),
            var("z", VT::Fp32, &[-1, 4], false),
        ],
        vec![
            op(
                "swish",
                vec![slot("X", &["x"])],
                vec![slot("Out", &["y"])],
                vec![float_attr("beta", 2.0)],
            ),
            op(
                "relu",
                vec![slot("X", &["y"])],
                vec![slot("Out", &["z"])],
                vec![],
            ),
        ],
    )
}

#[test]
fn a_registered_handler_translates_a_custom_op() {
    let ctx = pir_runtime::IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    ctx.register_dialect::<CustomDialect>().unwrap();
    let mut t = Translator::new(ctx);

    // Unregistered: `swish` is an unknown op type.
    let err = t.translate_bytes(&swish_program()).unwrap_err();
    assert!(matches!(err, TranslateError::UnknownOp { .. }), "{err}");
    assert!(err.to_string().contains("`pd_op.swish`"), "{err}");

    assert!(t.register_handler("swish", SwishHandler).is_none());
    let translation = t.translate_bytes(&swish_program()).unwrap();
    pir_runtime::verify(&translation.program).unwrap();
    assert_eq!(
        translation.program.to_string(),
        "{\n    \
         (%0) = \"pd_op.data\" () {dtype:float32,name:\"x\",persistable:[false],place:Place(undefined:0),shape:[-1,4],stop_gradient:[true]} : () -> tensor<-1x4xf32>\n    \
         (%1) = \"custom.swish\" (%0) {beta:2,persistable:[false],stop_gradient:[false]} : (tensor<-1x4xf32>) -> tensor<-1x4xf32>\n    \
         (%2) = \"pd_op.relu\" (%1) {persistable:[false],stop_gradient:[false]} : (tensor<-1x4xf32>) -> tensor<-1x4xf32>\n\
         }\n"
    );
    assert!(t
        .unknown_ops(&pir_translator::LegacyProgram::decode(&swish_program()).unwrap())
        .is_empty());
    // The variable map records the custom op's result for `y`.
    let y = &translation
        .variables
        .iter()
        .find(|(n, _)| n == "y")
        .unwrap()
        .1;
    let p = &translation.program;
    assert_eq!(
        p.op(p.defining_op(y[0].value).unwrap()).name(),
        "custom.swish"
    );
}

/// A handler replacing a built-in one: `relu` translated as `pd_op.tanh` (an override of one
/// stage; the rest stays general).
#[test]
fn a_registered_handler_replaces_a_builtin_one() {
    struct ReluAsTanh;
    impl OpTranscriber for ReluAsTanh {
        fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
            cx.op_def("pd_op.tanh")
        }
    }
    let mut t = Translator::with_pd_op().unwrap();
    t.register_handler("relu", ReluAsTanh);
    let bytes = program(
        vec![
            var("x", VT::Fp32, &[3], true),
            var("y", VT::Fp32, &[3], true),
        ],
        vec![op(
            "relu",
            vec![slot("X", &["x"])],
            vec![slot("Out", &["y"])],
            vec![],
        )],
    );
    let text = t.translate_bytes(&bytes).unwrap().program.to_string();
    assert!(
        text.contains("(%1) = \"pd_op.tanh\" (%0) {persistable:[false],stop_gradient:[true]}"),
        "{text}"
    );
}

fn int_attr(name: &str, v: i32) -> proto::op_desc::Attr {
    proto::op_desc::Attr {
        name: Some(name.into()),
        r#type: Some(AttrType::Int as i32),
        i: Some(v),
        ..Default::default()
    }
}

fn ints_attr(name: &str, v: &[i32]) -> proto::op_desc::Attr {
    proto::op_desc::Attr {
        name: Some(name.into()),
        r#type: Some(AttrType::Ints as i32),
        ints: v.to_vec(),
        ..Default::default()
    }
}

fn translate(bytes: &[u8]) -> String {
    let t = Translator::with_pd_op().unwrap();
    let tr = t.translate_bytes(bytes).unwrap();
    pir_runtime::verify(&tr.program).unwrap();
    tr.program.to_string()
}

/// `elementwise_add` with `axis = 1`, `x: [2,3,4,5]`, `y: [3,4]`: `r = 4 - 1 - 2 = 1 > 0`, so
/// `y` (`%0`: external inputs are in reverse discovery order) is reshaped to `[1] ++ [3,4] ++ [1] = [1,3,4,1]` by a builder reshape (its own
/// `full_int_array`, `stop_gradient:[true]`, not mapped) before `pd_op.add`.
#[test]
fn elementwise_axis_broadcast_reshapes_y() {
    let bytes = program(
        vec![
            var("x", VT::Fp32, &[2, 3, 4, 5], true),
            var("y", VT::Fp32, &[3, 4], true),
            var("z", VT::Fp32, &[2, 3, 4, 5], true),
        ],
        vec![op(
            "elementwise_add",
            vec![slot("X", &["x"]), slot("Y", &["y"])],
            vec![slot("Out", &["z"])],
            vec![int_attr("axis", 1)],
        )],
    );
    let text = translate(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[3], "    (%2) = \"pd_op.full_int_array\" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[1,3,4,1]} : () -> tensor<4xi64>");
    assert_eq!(lines[4], "    (%3) = \"pd_op.reshape\" (%0, %2) {stop_gradient:[true]} : (tensor<3x4xf32>, tensor<4xi64>) -> tensor<1x3x4x1xf32>");
    assert_eq!(lines[5], "    (%4) = \"pd_op.add\" (%1, %3) {persistable:[false],stop_gradient:[true]} : (tensor<2x3x4x5xf32>, tensor<1x3x4x1xf32>) -> tensor<2x3x4x5xf32>");
}

/// `mul` with `x_num_col_dims = 2`, `x: [2,3,4]`, `y: [4,5]`: `x` flattens to
/// `[2*3, 4] = [6,4]`, `y` to `[4,5]`, and the `matmul` result `[6,5]` is reshaped to
/// `x[:2] ++ y[1:] = [2,3,5]`, which `Out` then maps to.
#[test]
fn mul_with_two_column_dims() {
    let bytes = program(
        vec![
            var("x", VT::Fp32, &[2, 3, 4], true),
            var("w", VT::Fp32, &[4, 5], true),
            var("o", VT::Fp32, &[6, 5], true),
            var("r", VT::Fp32, &[2, 3, 5], true),
        ],
        vec![
            op(
                "mul",
                vec![slot("X", &["x"]), slot("Y", &["w"])],
                vec![slot("Out", &["o"])],
                vec![int_attr("x_num_col_dims", 2), int_attr("y_num_col_dims", 1)],
            ),
            op(
                "relu",
                vec![slot("X", &["o"])],
                vec![slot("Out", &["r"])],
                vec![],
            ),
        ],
    );
    let text = translate(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[3].ends_with("value:[6,4]} : () -> tensor<2xi64>"),
        "{}",
        lines[3]
    );
    assert!(
        lines[4].ends_with(": (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>"),
        "{}",
        lines[4]
    );
    assert_eq!(lines[7], "    (%6) = \"pd_op.matmul\" (%3, %5) {persistable:[false],stop_gradient:[true],transpose_x:false,transpose_y:false} : (tensor<6x4xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>");
    assert!(
        lines[8].ends_with("value:[2,3,5]} : () -> tensor<3xi64>"),
        "{}",
        lines[8]
    );
    assert_eq!(lines[9], "    (%8) = \"pd_op.reshape\" (%6, %7) {persistable:[false],stop_gradient:[true]} : (tensor<6x5xf32>, tensor<3xi64>) -> tensor<2x3x5xf32>");
    assert_eq!(lines[10], "    (%9) = \"pd_op.relu\" (%8) {persistable:[false],stop_gradient:[true]} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>");
}

/// `sum` (a legacy op) is `pd_op.add_n` over a `builtin.combine` of its inputs.
#[test]
fn sum_is_add_n_of_a_combine() {
    let bytes = program(
        vec![
            var("a", VT::Fp32, &[2], false),
            var("b", VT::Fp32, &[2], false),
            var("s", VT::Fp32, &[2], false),
        ],
        vec![op(
            "sum",
            vec![slot("X", &["a", "b"])],
            vec![slot("Out", &["s"])],
            vec![],
        )],
    );
    let text = translate(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    // `a` and `b` are external inputs, in reverse discovery order: `b` is `%0`.
    assert_eq!(lines[3], "    (%2) = \"builtin.combine\" (%1, %0) {} : (tensor<2xf32>, tensor<2xf32>) -> vec[tensor<2xf32>,tensor<2xf32>]");
    assert_eq!(lines[4], "    (%3) = \"pd_op.add_n\" (%2) {persistable:[false],stop_gradient:[false]} : (vec[tensor<2xf32>,tensor<2xf32>]) -> tensor<2xf32>");
}

/// `unsqueeze2_grad`: `pd_op.data` for `XShape` (dims without the leading 0), the axes as a
/// `full_int_array`, then `pd_op.unsqueeze_grad`, whose result `X@GRAD` maps to.
#[test]
fn unsqueeze2_grad_reads_xshape_through_data() {
    let bytes = program(
        vec![
            var("xs", VT::Fp32, &[0, 3, 4], false),
            var("og", VT::Fp32, &[3, 1, 4], false),
            var("xg", VT::Fp32, &[3, 4], false),
        ],
        vec![op(
            "unsqueeze2_grad",
            vec![slot("Out@GRAD", &["og"]), slot("XShape", &["xs"])],
            vec![slot("X@GRAD", &["xg"])],
            vec![ints_attr("axes", &[1])],
        )],
    );
    let text = translate(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    // `og` and `xs` are external inputs (reverse discovery order); `xs`'s data op is then
    // replaced by the grad op's own.
    assert_eq!(lines.len(), 6, "{text}");
    assert_eq!(lines[1], "    (%0) = \"pd_op.data\" () {dtype:float32,name:\"og\",persistable:[false],place:Place(undefined:0),shape:[3,1,4],stop_gradient:[false]} : () -> tensor<3x1x4xf32>");
    assert_eq!(lines[2], "    (%1) = \"pd_op.data\" () {dtype:float32,name:\"xs\",persistable:[false],place:Place(undefined:0),shape:[3,4],stop_gradient:[false]} : () -> tensor<3x4xf32>");
    assert_eq!(lines[3], "    (%2) = \"pd_op.full_int_array\" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[1]} : () -> tensor<1xi64>");
    assert_eq!(lines[4], "    (%3) = \"pd_op.unsqueeze_grad\" (%1, %0, %2) {persistable:[false],stop_gradient:[false]} : (tensor<3x4xf32>, tensor<3x1x4xf32>, tensor<1xi64>) -> tensor<3x4xf32>");
}

/// With a dynamic `y` dim the reshape target is computed at run time:
/// `concat(shape64(y), full_int_array([1]*r))` feeds a reshape of `y` before the multiply
/// (`pd_op.shape64` is in the project's op list since Paddle 3.3.1 has it).
#[test]
fn elementwise_axis_broadcast_with_dynamic_y_reshapes_by_shape64() {
    let bytes = program(
        vec![
            var("x", VT::Fp32, &[2, -1, 4, 5], true),
            var("y", VT::Fp32, &[-1, 4], true),
            var("z", VT::Fp32, &[2, -1, 4, 5], true),
        ],
        vec![op(
            "elementwise_mul",
            vec![slot("X", &["x"]), slot("Y", &["y"])],
            vec![slot("Out", &["z"])],
            vec![int_attr("axis", 1)],
        )],
    );
    let text = translate(&bytes);
    let pos = |name: &str| {
        text.find(name)
            .unwrap_or_else(|| panic!("no {name} in\n{text}"))
    };
    // The target shape is y's run-time shape followed by one `1` per trailing dim of x.
    assert!(text.contains("value:[1]"), "{text}");
    assert!(pos("\"pd_op.shape64\"") < pos("\"pd_op.concat\""), "{text}");
    assert!(pos("\"pd_op.concat\"") < pos("\"pd_op.reshape\""), "{text}");
    assert!(
        pos("\"pd_op.reshape\"") < pos("\"pd_op.multiply\""),
        "{text}"
    );
}

fn attr_of(name: &str, ty: AttrType) -> proto::op_desc::Attr {
    proto::op_desc::Attr {
        name: Some(name.into()),
        r#type: Some(ty as i32),
        ..Default::default()
    }
}

fn persistable(mut v: proto::VarDesc) -> proto::VarDesc {
    v.persistable = Some(true);
    v
}

/// `cast`: the one attribute `dtype` comes from the legacy `out_dtype` (a `VarType` code:
/// 3 = INT64).
#[test]
fn cast_takes_dtype_from_out_dtype() {
    let bytes = program(
        vec![
            var("x", VT::Fp32, &[2], true),
            var("y", VT::Int64, &[2], true),
        ],
        vec![op(
            "cast",
            vec![slot("X", &["x"])],
            vec![slot("Out", &["y"])],
            vec![int_attr("in_dtype", 5), int_attr("out_dtype", 3)],
        )],
    );
    let text = translate(&bytes);
    assert_eq!(
        text.lines().nth(2).unwrap(),
        "    (%1) = \"pd_op.cast\" (%0) {dtype:int64,persistable:[false],stop_gradient:[true]} : (tensor<2xf32>) -> tensor<2xi64>"
    );
}

/// `lookup_table_v2` → `pd_op.embedding(ids, w)` with `sparse` from `is_sparse`; the table is
/// a parameter.
#[test]
fn lookup_table_v2_is_embedding() {
    let bytes = program(
        vec![
            var("ids", VT::Int64, &[-1, 1], true),
            persistable(var("w", VT::Fp32, &[100, 8], false)),
            var("e", VT::Fp32, &[-1, 1, 8], false),
        ],
        vec![op(
            "lookup_table_v2",
            vec![slot("Ids", &["ids"]), slot("W", &["w"])],
            vec![slot("Out", &["e"])],
            vec![
                proto::op_desc::Attr {
                    l: Some(-1),
                    ..attr_of("padding_idx", AttrType::Long)
                },
                proto::op_desc::Attr {
                    b: Some(false),
                    ..attr_of("is_sparse", AttrType::Boolean)
                },
            ],
        )],
    );
    let text = translate(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[1], "    (%0) = \"pd_op.data\" () {dtype:int64,name:\"ids\",persistable:[false],place:Place(undefined:0),shape:[-1,1],stop_gradient:[true]} : () -> tensor<-1x1xi64>");
    assert_eq!(lines[2], "    (%1) = \"builtin.parameter\" () {parameter_name:\"w\",persistable:[true],stop_gradient:[false]} : () -> tensor<100x8xf32>");
    assert_eq!(lines[3], "    (%2) = \"pd_op.embedding\" (%0, %1) {padding_idx:-1,persistable:[false],sparse:false,stop_gradient:[false]} : (tensor<-1x1xi64>, tensor<100x8xf32>) -> tensor<-1x1x8xf32>");
}

/// The legacy `data` op → `pd_op.data` with the place of its allocation type (1 = CPU), then
/// `shadow_output`; a `shadow_output` of an unknown variable is skipped.
#[test]
fn data_and_shadow_output() {
    let bytes = program(
        vec![
            var("x", VT::Fp32, &[-1, 3], false),
            var("y", VT::Fp32, &[-1, 3], false),
        ],
        vec![
            op(
                "data",
                vec![],
                vec![slot("out", &["x"])],
                vec![
                    proto::op_desc::Attr {
                        s: Some("x".into()),
                        ..attr_of("name", AttrType::String)
                    },
                    ints_attr("shape", &[-1, 3]),
                    int_attr("dtype", 5),
                    int_attr("place", 1),
                ],
            ),
            op(
                "relu",
                vec![slot("X", &["x"])],
                vec![slot("Out", &["y"])],
                vec![],
            ),
            op(
                "shadow_output",
                vec![slot("x", &["y"])],
                vec![slot("out", &["y"])],
                vec![proto::op_desc::Attr {
                    s: Some("y_out".into()),
                    ..attr_of("name", AttrType::String)
                }],
            ),
            op(
                "shadow_output",
                vec![slot("x", &["never_defined"])],
                vec![],
                vec![proto::op_desc::Attr {
                    s: Some("nothing".into()),
                    ..attr_of("name", AttrType::String)
                }],
            ),
        ],
    );
    assert_eq!(
        translate(&bytes),
        "{\n    \
         (%0) = \"pd_op.data\" () {dtype:float32,name:\"x\",persistable:[false],place:Place(cpu),shape:[-1,3],stop_gradient:[false]} : () -> tensor<-1x3xf32>\n    \
         (%1) = \"pd_op.relu\" (%0) {persistable:[false],stop_gradient:[false]} : (tensor<-1x3xf32>) -> tensor<-1x3xf32>\n    \
         () = \"builtin.shadow_output\" (%1) {output_name:\"y_out\"} : (tensor<-1x3xf32>) -> \n\
         }\n"
    );
}

/// `grad_add` is `pd_op.add` (with the elementwise axis rules).
#[test]
fn grad_add_is_add() {
    let bytes = program(
        vec![
            var("a", VT::Fp32, &[2, 3], false),
            var("b", VT::Fp32, &[2, 3], false),
            var("c", VT::Fp32, &[2, 3], false),
        ],
        vec![op(
            "grad_add",
            vec![slot("X", &["a"]), slot("Y", &["b"])],
            vec![slot("Out", &["c"])],
            vec![int_attr("axis", -1)],
        )],
    );
    let text = translate(&bytes);
    assert_eq!(
        text.lines().nth(3).unwrap(),
        "    (%2) = \"pd_op.add\" (%1, %0) {persistable:[false],stop_gradient:[false]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>"
    );
}
