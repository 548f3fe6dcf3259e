//! Paddle's special op transcribers (`op_translator.cc`, `OpTranslator::special_handlers`) on
//! small hand-built legacy descs, translated with the pd_op dialect read from Paddle's yaml
//! (`PIR_PADDLE_YAML`; without it the tests print a notice and pass). Each expected line
//! follows the handler's rule as Paddle's source states it (cited per test); external inputs
//! become `pd_op.data` ops first, in reverse order of discovery.

mod common;

use std::path::Path;
use std::sync::OnceLock;

use common::{float_attr, op, program, slot, var};
use pir_runtime::yaml_dialect::YamlDialect;
use pir_translator::proto::var_type::Type as VT;
use pir_translator::proto::{self, AttrType};
use pir_translator::{TranslateError, Translator};

/// The yaml folder's dialect, loaded once for the whole test binary.
fn dialect() -> Option<&'static YamlDialect> {
    static D: OnceLock<Option<YamlDialect>> = OnceLock::new();
    D.get_or_init(|| {
        let dir = std::env::var_os("PIR_PADDLE_YAML").filter(|d| !d.is_empty());
        if dir.is_none() {
            eprintln!("notice: PIR_PADDLE_YAML not set; skipping the special-handler tests");
        }
        dir.map(|d| op_defs::yaml_dialect::load(Path::new(&d)).unwrap())
    })
    .as_ref()
}

fn translator() -> Option<Translator> {
    let d = dialect()?;
    let ctx = pir_runtime::IrContext::new();
    op_defs::yaml_dialect::register(&ctx, d).unwrap();
    Some(Translator::new(ctx))
}

/// The translation printed, after verifying it.
fn translate(bytes: &[u8]) -> Option<String> {
    let t = translator()?;
    let tr = t.translate_bytes(bytes).unwrap();
    pir_runtime::verify(&tr.program).unwrap();
    Some(tr.program.to_string())
}

fn translate_err(bytes: &[u8]) -> Option<TranslateError> {
    Some(translator()?.translate_bytes(bytes).unwrap_err())
}

fn attr(name: &str, ty: AttrType) -> proto::op_desc::Attr {
    proto::op_desc::Attr {
        name: Some(name.into()),
        r#type: Some(ty as i32),
        ..Default::default()
    }
}

fn int_attr(name: &str, v: i32) -> proto::op_desc::Attr {
    proto::op_desc::Attr {
        i: Some(v),
        ..attr(name, AttrType::Int)
    }
}

fn ints_attr(name: &str, v: &[i32]) -> proto::op_desc::Attr {
    proto::op_desc::Attr {
        ints: v.to_vec(),
        ..attr(name, AttrType::Ints)
    }
}

fn bool_attr(name: &str, v: bool) -> proto::op_desc::Attr {
    proto::op_desc::Attr {
        b: Some(v),
        ..attr(name, AttrType::Boolean)
    }
}

fn str_attr(name: &str, v: &str) -> proto::op_desc::Attr {
    proto::op_desc::Attr {
        s: Some(v.into()),
        ..attr(name, AttrType::String)
    }
}

fn one_hot_program() -> Vec<u8> {
    program(
        vec![
            var("idx", VT::Int64, &[4], true),
            var("out", VT::Fp32, &[4, 6], true),
        ],
        vec![op(
            "one_hot_v2",
            vec![slot("X", &["idx"]), slot("depth_tensor", &[])],
            vec![slot("Out", &["out"])],
            vec![int_attr("depth", 6), int_attr("dtype", 5)],
        )],
    )
}

fn rnn_program() -> Vec<u8> {
    program(
        vec![
            var("x", VT::Fp32, &[5, 2, 4], true),
            var("h0", VT::Fp32, &[1, 2, 3], true),
            var("c0", VT::Fp32, &[1, 2, 3], true),
            var("w0", VT::Fp32, &[12, 4], true),
            var("w1", VT::Fp32, &[12, 3], true),
            var("b0", VT::Fp32, &[12], true),
            var("b1", VT::Fp32, &[12], true),
            var("out", VT::Fp32, &[5, 2, 3], true),
            var("ds", VT::Uint8, &[], true),
            var("h", VT::Fp32, &[1, 2, 3], true),
            var("c", VT::Fp32, &[1, 2, 3], true),
            var("rs", VT::Uint8, &[-1], true),
        ],
        vec![op(
            "rnn",
            vec![
                slot("Input", &["x"]),
                slot("PreState", &["h0", "c0"]),
                slot("SequenceLength", &[]),
                slot("WeightList", &["w0", "w1", "b0", "b1"]),
            ],
            vec![
                slot("DropoutState", &["ds"]),
                slot("Out", &["out"]),
                slot("Reserve", &["rs"]),
                slot("State", &["h", "c"]),
            ],
            vec![
                float_attr("dropout_prob", 0.0),
                int_attr("hidden_size", 3),
                int_attr("input_size", 4),
                bool_attr("is_bidirec", false),
                bool_attr("is_test", false),
                str_attr("mode", "LSTM"),
                int_attr("num_layers", 1),
                int_attr("seed", 0),
            ],
        )],
    )
}

fn range_program() -> Vec<u8> {
    program(
        vec![
            var("s", VT::Int64, &[1], true),
            var("e", VT::Int64, &[1], true),
            var("st", VT::Int64, &[1], true),
            var("out", VT::Int64, &[-1], true),
        ],
        vec![op(
            "range",
            vec![
                slot("End", &["e"]),
                slot("Start", &["s"]),
                slot("Step", &["st"]),
            ],
            vec![slot("Out", &["out"])],
            vec![],
        )],
    )
}

fn fill_constant_program() -> Vec<u8> {
    program(
        vec![
            var("a", VT::Int32, &[], true),
            var("b", VT::Int32, &[], true),
            var("out", VT::Fp32, &[2, -1], true),
        ],
        vec![op(
            "fill_constant",
            vec![
                slot("ShapeTensor", &[]),
                slot("ShapeTensorList", &["a", "b"]),
                slot("ValueTensor", &[]),
            ],
            vec![slot("Out", &["out"])],
            vec![
                int_attr("dtype", 5),
                ints_attr("shape", &[2, -1]),
                float_attr("value", 1.5),
                str_attr("str_value", "1.5"),
            ],
        )],
    )
}

fn set_value_program() -> Vec<u8> {
    program(
        vec![
            var("x", VT::Fp32, &[4, 6], true),
            var("v", VT::Fp32, &[1, 6], true),
        ],
        vec![op(
            "set_value",
            vec![slot("Input", &["x"]), slot("ValueTensor", &["v"])],
            vec![slot("Out", &["x"])],
            vec![
                ints_attr("axes", &[0]),
                ints_attr("starts", &[1]),
                ints_attr("ends", &[2]),
                ints_attr("steps", &[1]),
                ints_attr("decrease_axes", &[]),
                ints_attr("none_axes", &[]),
                ints_attr("shape", &[1, 6]),
            ],
        )],
    )
}

fn randint_program() -> Vec<u8> {
    program(
        vec![var("out", VT::Int32, &[2, 3], true)],
        vec![op(
            "randint",
            vec![],
            vec![slot("Out", &["out"])],
            vec![
                int_attr("low", 0),
                int_attr("high", 10),
                ints_attr("shape", &[2, 3]),
                int_attr("dtype", 3),
                int_attr("seed", 0),
            ],
        )],
    )
}

fn assign_value_program() -> Vec<u8> {
    program(
        vec![var("out", VT::Int32, &[3], true)],
        vec![op(
            "assign_value",
            vec![],
            vec![slot("Out", &["out"])],
            vec![
                ints_attr("shape", &[3]),
                int_attr("dtype", 2),
                proto::op_desc::Attr {
                    floats: vec![],
                    ..attr("fp32_values", AttrType::Floats)
                },
                ints_attr("int32_values", &[4, 5, 6]),
            ],
        )],
    )
}

/// The line of `text` holding `needle` (a clear failure otherwise).
fn line_with<'t>(text: &'t str, needle: &str) -> &'t str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line contains {needle:?}:\n{text}"))
        .trim()
}

/// `OneHotTranscriber` / `TranslateNumClassesForOneHot`: without `depth_tensor`, `num_classes`
/// is `InsertFullOperationForAttributeInput` of the general translation of `depth` (an INT →
/// `Int32Attribute` → `full([1], 6, int32, cpu)`).
#[test]
fn one_hot_num_classes_from_depth() {
    let bytes = one_hot_program();
    let Some(text) = translate(&bytes) else {
        return;
    };
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    assert_eq!(
        lines[2],
        "(%1) = \"pd_op.full\" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:6} : () -> tensor<1xi32>"
    );
    assert_eq!(
        lines[3],
        "(%2) = \"pd_op.one_hot\" (%0, %1) {persistable:[false],stop_gradient:[true]} : (tensor<4xi64>, tensor<1xi32>) -> tensor<4x6xf32>"
    );
}

/// With `depth_tensor`, that tensor is `num_classes` and no `full` is made.
#[test]
fn one_hot_num_classes_from_depth_tensor() {
    let bytes = program(
        vec![
            var("idx", VT::Int64, &[4], true),
            var("d", VT::Int32, &[1], true),
            var("out", VT::Fp32, &[4, -1], true),
        ],
        vec![op(
            "one_hot_v2",
            vec![slot("X", &["idx"]), slot("depth_tensor", &["d"])],
            vec![slot("Out", &["out"])],
            vec![int_attr("depth", 6), int_attr("dtype", 5)],
        )],
    );
    let Some(text) = translate(&bytes) else {
        return;
    };
    assert!(!text.contains("pd_op.full"), "{text}");
    let one_hot = line_with(&text, "pd_op.one_hot");
    assert!(
        one_hot.ends_with(": (tensor<4xi64>, tensor<1xi32>) -> tensor<4x-1xf32>"),
        "{one_hot}"
    );
}

/// A `depth` that is not a number, or neither `depth` nor `depth_tensor`: a located error
/// naming the op, `num_classes` and `depth`.
#[test]
fn one_hot_bad_depth_is_a_located_error() {
    for attrs in [vec![str_attr("depth", "six")], vec![]] {
        let bytes = program(
            vec![
                var("idx", VT::Int64, &[4], true),
                var("out", VT::Fp32, &[4, 6], true),
            ],
            vec![op(
                "one_hot_v2",
                vec![slot("X", &["idx"])],
                vec![slot("Out", &["out"])],
                attrs,
            )],
        );
        let Some(e) = translate_err(&bytes) else {
            return;
        };
        let m = e.to_string();
        assert!(matches!(e, TranslateError::Attribute { .. }), "{m}");
        for part in [
            "op 0 (`one_hot_v2`)",
            "`num_classes`",
            "`depth`",
            "pd_op.one_hot",
        ] {
            assert!(m.contains(part), "{part}: {m}");
        }
    }
}

/// `RnnOpTranscriber` / `TranslateDropOutStateIn`: `dropout_state_in` is
/// `full(dims and dtype of the output DropoutState's variable, 0.0, cpu)`; `sequence_length`
/// (optional, no argument) is null.
#[test]
fn rnn_dropout_state_in_is_a_full_like_the_output() {
    let bytes = rnn_program();
    let Some(text) = translate(&bytes) else {
        return;
    };
    let full = line_with(&text, "pd_op.full");
    assert!(
        full.ends_with(
            "= \"pd_op.full\" () {dtype:uint8,place:Place(cpu),shape:[],stop_gradient:[true],value:0} : () -> tensor<u8>"
        ),
        "{full}"
    );
    let full_id = full.split(')').next().unwrap().trim_start_matches('(');
    let rnn = line_with(&text, "pd_op.rnn");
    assert!(
        rnn.contains(&format!(", <<NULL VALUE>>, {full_id}) {{")),
        "{rnn}"
    );
    assert!(
        rnn.ends_with("-> tensor<5x2x3xf32>, tensor<u8>, vec[tensor<1x2x3xf32>,tensor<1x2x3xf32>], tensor<-1xu8>"),
        "{rnn}"
    );
}

/// `ArangeOpTranscriber` / `TranslateDtypeForArange`: `dtype` is the data type of `Start`'s
/// variable (int64 here), whatever the legacy op's attributes say.
#[test]
fn range_dtype_is_starts() {
    let bytes = range_program();
    let Some(text) = translate(&bytes) else {
        return;
    };
    let arange = line_with(&text, "pd_op.arange");
    assert!(arange.contains("{dtype:int64,"), "{arange}");
}

fn reduce_all_program(reduce_all: bool) -> Vec<u8> {
    program(
        vec![
            var("x", VT::Bool, &[2, 3], true),
            var("out", VT::Bool, &[2], true),
        ],
        vec![op(
            "reduce_all",
            vec![slot("X", &["x"])],
            vec![slot("Out", &["out"])],
            vec![
                ints_attr("dim", &[1]),
                bool_attr("keep_dim", false),
                bool_attr("reduce_all", reduce_all),
            ],
        )],
    )
}

/// `ReduceOpTranscriber` / `TranslateReduceAll`: `axis` is `[]` when `reduce_all` is true,
/// else `dim` translated for `int64_t[]`.
#[test]
fn reduce_all_axis_follows_reduce_all() {
    let Some(text) = translate(&reduce_all_program(true)) else {
        return;
    };
    let all = line_with(&text, "pd_op.all");
    assert!(all.contains("{axis:[],keepdim:false,"), "{all}");
    let text = translate(&reduce_all_program(false)).unwrap();
    let all = line_with(&text, "pd_op.all");
    assert!(all.contains("{axis:[1],keepdim:false,"), "{all}");
}

/// `IncrementOpTranscriber`: the one attribute `value` is the FLOAT `step` (general visitor →
/// `FloatAttribute`), `1` when the op has no `step`.
#[test]
fn increment_value_is_step() {
    for (attrs, want) in [
        (vec![float_attr("step", 2.5)], ",value:2.5}"),
        (vec![], ",value:1}"),
    ] {
        let bytes = program(
            vec![
                var("i", VT::Int64, &[1], true),
                var("j", VT::Int64, &[1], true),
            ],
            vec![op(
                "increment",
                vec![slot("X", &["i"])],
                vec![slot("Out", &["j"])],
                attrs,
            )],
        );
        let Some(text) = translate(&bytes) else {
            return;
        };
        let inc = line_with(&text, "pd_op.increment");
        assert!(inc.contains("\"pd_op.increment\" (%0) "), "{inc}");
        assert!(inc.contains(want), "{want}: {inc}");
    }
}

/// `AssignValueOpTranscriber`: no operands; `shape`, `dtype` translated, `place` undefined,
/// `values` from the first non-empty of `bool_values`, `fp32_values`, `int32_values`,
/// `int64_values`, `values` (here the empty `fp32_values` is skipped for `int32_values`).
#[test]
fn assign_value_takes_the_first_non_empty_values() {
    let bytes = assign_value_program();
    let Some(text) = translate(&bytes) else {
        return;
    };
    assert_eq!(
        text.lines().nth(1).unwrap().trim(),
        "(%0) = \"pd_op.assign_value\" () {dtype:int32,persistable:[false],place:Place(undefined:0),shape:[3],stop_gradient:[true],values:[4,5,6]} : () -> tensor<3xi32>"
    );
    // Without any values: a located error naming `values`.
    let bytes = program(
        vec![var("out", VT::Int32, &[3], true)],
        vec![op(
            "assign_value",
            vec![],
            vec![slot("Out", &["out"])],
            vec![ints_attr("shape", &[3]), int_attr("dtype", 2)],
        )],
    );
    let e = translate_err(&bytes).unwrap().to_string();
    assert!(
        e.contains("op 0 (`assign_value`)") && e.contains("`values`"),
        "{e}"
    );
}

/// `FillConstant2FullWithTensorTranscriber`: with a `ShapeTensorList`, the operands are
/// `full([1], value, float32, cpu)` and a `stack` (axis 0) of a `builtin.combine` of the list;
/// the one attribute is `dtype`.
#[test]
fn fill_constant_with_shape_tensor_list() {
    let bytes = fill_constant_program();
    let Some(text) = translate(&bytes) else {
        return;
    };
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    assert_eq!(lines[3], "(%2) = \"pd_op.full\" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1.5} : () -> tensor<1xf32>");
    assert_eq!(lines[4], "(%3) = \"builtin.combine\" (%1, %0) {} : (tensor<i32>, tensor<i32>) -> vec[tensor<i32>,tensor<i32>]");
    assert_eq!(lines[5], "(%4) = \"pd_op.stack\" (%3) {axis:0,stop_gradient:[true]} : (vec[tensor<i32>,tensor<i32>]) -> tensor<2xi32>");
    assert_eq!(lines[6], "(%5) = \"pd_op.full_with_tensor\" (%2, %4) {dtype:float32,persistable:[false],stop_gradient:[true]} : (tensor<1xf32>, tensor<2xi32>) -> tensor<2x-1xf32>");
}

/// `GenerateOperationOutput`: an `@EMPTY@` element of a vector output is a null type in the
/// vector (printed `<<NULL TYPE>>`), as in Paddle's translation of `rnn_grad`. A backward op
/// verifies with it (Paddle generates no `VerifySig` for backward ops); a forward op does not
/// (Paddle's `VerifySig` requires every element to be a dense tensor).
#[test]
fn empty_vector_output_element_is_a_null_type() {
    let bytes = program(
        vec![
            var("x1", VT::Fp32, &[2, 3], false),
            var("x2", VT::Fp32, &[2, 3], false),
            var("g", VT::Fp32, &[4, 3], false),
            var("g1", VT::Fp32, &[2, 3], false),
        ],
        vec![op(
            "concat_grad",
            vec![slot("Out@GRAD", &["g"]), slot("X", &["x1", "x2"])],
            vec![slot("X@GRAD", &["g1", "@EMPTY@"])],
            vec![int_attr("axis", 0)],
        )],
    );
    let Some(text) = translate(&bytes) else {
        return;
    };
    let grad = line_with(&text, "pd_op.concat_grad");
    assert!(
        grad.ends_with("-> vec[tensor<2x3xf32>,<<NULL TYPE>>]"),
        "{grad}"
    );
    let bytes = program(
        vec![
            var("x", VT::Fp32, &[4, 6], true),
            var("a", VT::Fp32, &[4, 3], true),
        ],
        vec![op(
            "split",
            vec![slot("X", &["x"])],
            vec![slot("Out", &["a", "@EMPTY@"])],
            vec![int_attr("num", 2), int_attr("axis", 1)],
        )],
    );
    let tr = translator().unwrap().translate_bytes(&bytes).unwrap();
    let text = tr.program.to_string();
    let split = line_with(&text, "pd_op.split_with_num");
    assert!(
        split.ends_with("-> vec[tensor<4x3xf32>,<<NULL TYPE>>]"),
        "{split}"
    );
    let e = pir_runtime::verify(&tr.program).unwrap_err().to_string();
    assert!(
        e.contains("pd_op.split_with_num") && e.contains("<<NULL TYPE>>"),
        "{e}"
    );
}

/// `LegacySetValueDispatcher`: with a `ValueTensor`, `pd_op.set_value_with_tensor` (never the
/// in-place name) whose `values` operand is that tensor; the IntArray attributes become
/// `full_int_array`s.
#[test]
fn set_value_with_value_tensor() {
    let bytes = set_value_program();
    let Some(text) = translate(&bytes) else {
        return;
    };
    let sv = line_with(&text, "pd_op.set_value");
    assert!(sv.contains("\"pd_op.set_value_with_tensor\" ("), "{sv}");
    assert!(
        sv.ends_with(": (tensor<4x6xf32>, tensor<1x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x6xf32>"),
        "{sv}"
    );
}

/// `RandIntOpTranscriber`: the result has `Out`'s dims and the `dtype` attribute's element
/// type (int64 here, though the variable says int32).
#[test]
fn randint_result_type_from_dtype() {
    let bytes = randint_program();
    let Some(text) = translate(&bytes) else {
        return;
    };
    let r = line_with(&text, "pd_op.randint");
    assert!(r.ends_with("-> tensor<2x3xi64>"), "{r}");
}

fn repeat_interleave_program() -> Vec<u8> {
    program(
        vec![
            var("x", VT::Fp32, &[3, 4], true),
            var("r", VT::Int64, &[3], true),
            var("out", VT::Fp32, &[-1, 4], true),
        ],
        vec![op(
            "repeat_interleave",
            vec![slot("RepeatsTensor", &["r"]), slot("X", &["x"])],
            vec![slot("Out", &["out"])],
            vec![int_attr("dim", 0), int_attr("Repeats", 0)],
        )],
    )
}

/// `RepeatInterLeaveOpTranscriber`: with a `RepeatsTensor`, the target is
/// `pd_op.repeat_interleave_with_tensor_index` and the operands are exactly `X` then the
/// repeats tensor; `axis` comes from the legacy `dim`, which only the second of op_compat.yaml's
/// two `repeat_interleave` entries maps (Paddle's `op_compat_gen.py` merges them).
#[test]
fn repeat_interleave_with_a_repeats_tensor() {
    let Some(text) = translate(&repeat_interleave_program()) else {
        return;
    };
    let r = line_with(&text, "pd_op.repeat_interleave");
    assert!(
        r.contains("\"pd_op.repeat_interleave_with_tensor_index\" (%0, %1) {axis:0,"),
        "{r}"
    );
    assert!(
        r.ends_with(": (tensor<3x4xf32>, tensor<3xi64>) -> tensor<-1x4xf32>"),
        "{r}"
    );
}

/// Bad input never panics: every special-handler program above, with each attribute, each
/// input parameter or each output parameter of its op removed in turn, either translates or
/// fails with an error located at that op (block 0, op 0).
#[test]
fn handler_programs_with_a_part_removed_fail_cleanly() {
    use prost::Message;
    if translator().is_none() {
        return;
    }
    let programs = [
        one_hot_program(),
        rnn_program(),
        range_program(),
        reduce_all_program(false),
        fill_constant_program(),
        set_value_program(),
        randint_program(),
        assign_value_program(),
        repeat_interleave_program(),
    ];
    let mut variants = 0;
    for bytes in programs {
        let desc = proto::ProgramDesc::decode(bytes.as_slice()).unwrap();
        let op = &desc.blocks[0].ops[0];
        let (na, ni, no) = (op.attrs.len(), op.inputs.len(), op.outputs.len());
        for (part, count) in [(0, na), (1, ni), (2, no)] {
            for i in 0..count {
                let mut d = desc.clone();
                let o = &mut d.blocks[0].ops[0];
                match part {
                    0 => drop(o.attrs.remove(i)),
                    1 => drop(o.inputs.remove(i)),
                    _ => drop(o.outputs.remove(i)),
                }
                let ty = o.r#type.clone().unwrap_or_default();
                let edited = d.encode_to_vec();
                let t = translator().unwrap();
                let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    t.translate_bytes(&edited).map(|_| ())
                }));
                let Ok(result) = got else {
                    panic!("{ty} with part {part}/{i} removed panicked");
                };
                if let Err(e) = result {
                    let m = e.to_string();
                    assert!(m.starts_with(&format!("block 0, op 0 (`{ty}`)")), "{m}");
                }
                variants += 1;
            }
        }
    }
    assert!(variants > 40, "{variants}");
}
