//! Programs built in memory survive write → read: every type and attribute kind, null operands
//! and result types, nested regions with block arguments, values used across blocks. The text
//! printed before and after must be the same, and writing again gives the same bytes.

mod common;

use common::{assert_same_bytes, assert_same_text, ctx_with_test_dialect, everything_program};
use pir_json::{read_program, write_program, write_program_with, WriteOptions};

#[test]
fn every_kind_of_type_and_attribute_round_trips() {
    let ctx = ctx_with_test_dialect();
    let prog = everything_program(&ctx);
    let printed = prog.to_string();
    for readable in [false, true] {
        let opts = WriteOptions {
            readable,
            ..WriteOptions::default()
        };
        let json = write_program_with(&prog, &opts);
        // A fresh context: nothing may depend on handles interned before.
        let back = read_program(&ctx_with_test_dialect(), &json)
            .unwrap_or_else(|e| panic!("readable={readable}: {e}\n{json}"));
        assert_same_text("printed after a round trip", &back.to_string(), &printed);
        assert_same_bytes("written again", &write_program_with(&back, &opts), &json);
    }
}

#[test]
fn the_written_form_is_paddles() {
    let ctx = ctx_with_test_dialect();
    let json = write_program(&everything_program(&ctx));
    // The test dialect has Paddle's id -1; builtin 0; pd_op 1.
    for needle in [
        r##"{"#":"-1.region_op","A":["##,
        r##"{"#":"0.combine","A":[],"I":[{"%":1},{"%":1}],"O":[{"%":5,"TT":{"#":"0.t_vec","##,
        r##"{"#":"1.relu","A":[{"AT":{"#":"0.a_str","D":"/M/"},"N":"struct_name"}],"I":[{"%":7}],"##,
        // Block arguments count down from -1, in program order.
        r##""args":[{"#":-1,"TT":{"#":"1.t_dense_tensor_array","D":[{"#":"0.t_i64"},[4],"NCHW"]}},{"#":-2,"TT":{"#":"test.box","D":[{"#":"0.a_i32","D":3}]}}]"##,
        r##""args":[{"#":-3,"TT":{"#":"NULL"}}]"##,
        // A null operand, a null result type.
        r##""I":[{"%":1},{"%":0}],"O":[{"%":2,"TT":{"#":"0.t_vec""##,
        r##"{"%":3,"TT":{"#":"NULL"}}"##,
        // Regions and blocks are numbered in program order.
        r##""regions":[{"#":"region_1","blocks":[{"#":"block_1","##,
        r##"{"#":"block_2","args":[],"ops":[{"#":"-1.yield","A":[],"I":[],"O":[],"OA":[]}]}]},{"#":"region_2","blocks":[{"#":"block_3","##,
        // LoD, offset and layout of a dense tensor.
        r##"{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[2,3],"NHWC",[[0,1,2],[]],5]}"##,
        r##"{"AT":{"#":"0.a_f32","VD":"NaN"},"N":"a_f32_nan"}"##,
        r##"{"AT":{"#":"0.a_f64","VD":"-INF"},"N":"a_f64_neg_inf"}"##,
        r##"{"AT":{"#":"0.a_f32","D":9.999999747378752e-06},"N":"a_f32"}"##,
        r##"{"AT":{"#":"0.a_c64","D":[1.5,-2.0]},"N":"a_c64"}"##,
        r##"{"AT":{"#":"1.a_place","D":[2,1,""]},"N":"a_place_gpu"}"##,
        r##""D":"quote \" backslash \\ newline \n tab \t bell \u0007 é 漢""##,
    ] {
        assert!(json.contains(needle), "missing {needle}\nin {json}");
    }
}

#[test]
fn parameters_get_paddles_defaults_and_odd_ones_keep_the_general_form() {
    let ctx = common::ctx();
    let t = ctx.dense_tensor_type(pir_runtime::phi::DataType::Float32, &[2]);
    let mut prog = pir_runtime::Program::new(&ctx);
    let mut b = pir_runtime::Builder::at_end(&mut prog);
    // As the translator makes them: only the name, persistable and stop_gradient.
    b.create_by_name(
        "builtin.parameter",
        &[],
        &[
            ("parameter_name", ctx.str_attr("a")),
            ("persistable", ctx.bool_array_attr(&[true])),
            ("stop_gradient", ctx.bool_array_attr(&[false])),
        ],
        &[Some(t)],
    )
    .unwrap();
    // An attribute the compressed form has no place for.
    b.create_by_name(
        "builtin.parameter",
        &[],
        &[
            ("parameter_name", ctx.str_attr("b")),
            ("extra", ctx.i32_attr(1)),
        ],
        &[Some(t)],
    )
    .unwrap();
    let json = write_program(&prog);
    assert!(
        json.contains(r##"{"#":"p","A":[0,1,0,"a"],"DA":[],"O":{"%":1,"##),
        "{json}"
    );
    assert!(json.contains(r##""OA":[1,0,1],"QA":[]}"##), "{json}");
    assert!(json.contains(r##"{"#":"0.parameter","A":[{"AT":{"#":"0.a_i32","D":1},"N":"extra"},{"AT":{"#":"0.a_str","D":"b"},"N":"parameter_name"}],"I":[],"O":[{"%":2,"##), "{json}");
    let back = read_program(&ctx, &json).unwrap();
    let text = back.to_string();
    assert!(text.contains(r##"{is_distributed:[false],is_parameter:[true],need_clip:[false],parameter_name:"a",persistable:[true],stop_gradient:[false],trainable:[true]}"##), "{text}");
    assert!(text.contains(r##"{extra:1,parameter_name:"b"}"##), "{text}");
    assert_eq!(write_program(&back), json);
}

#[test]
fn without_trainable_the_result_attributes_are_not_written() {
    let ctx = ctx_with_test_dialect();
    let opts = WriteOptions {
        trainable: false,
        ..WriteOptions::default()
    };
    let json = write_program_with(&everything_program(&ctx), &opts);
    assert!(json.starts_with(r##"{"base_code":{"magic":"pir","trainable":false,"version":4}"##));
    assert!(!json.contains(r##""OA""##));
    let m = pir_json::read_module(&ctx, &json).unwrap();
    assert!(!m.trainable);
    assert!(!m.program.to_string().contains("stop_gradient"));
}

#[test]
fn a_byte_order_mark_and_surrounding_whitespace_are_accepted() {
    let ctx = ctx_with_test_dialect();
    let prog = everything_program(&ctx);
    let json = format!("\u{feff}\n  {}\n", write_program(&prog));
    let back = read_program(&ctx, &json).unwrap();
    assert_eq!(back.to_string(), prog.to_string());
}

/// Paddle writes an undefined data type attribute as `"Undefined(ALL_DTYPE)"` in JSON (and
/// `Undefined` in text): ops/README.md quirk 8, e.g. `sum`'s dtype in
/// `paddle-ref/ops/programs/sum.json`.
#[test]
fn an_undefined_dtype_is_spelled_as_paddle_writes_it() {
    let ctx = pir_runtime::IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    let json = concat!(
        r##"{"base_code":{"magic":"pir","trainable":true,"version":4},"program":{"regions":[{"#":"region_0","blocks":[{"#":"block_0","args":[],"ops":["##,
        r##"{"#":"1.full","A":[{"AT":{"#":"1.a_intarray","D":[1]},"N":"shape"},{"AT":{"#":"0.a_f64","D":1.0},"N":"value"},"##,
        r##"{"AT":{"#":"1.a_dtype","D":"Undefined(ALL_DTYPE)"},"N":"dtype"},{"AT":{"#":"1.a_place","D":[1,0,""]},"N":"place"}],"I":[],"##,
        r##""O":[{"%":1,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[1],"NCHW",[],0]}}],"##,
        r##""OA":[{"AT":{"#":"0.a_array","D":[{"#":"0.a_bool","D":true}]},"N":"stop_gradient"}]}]}]}]}}"##,
    );
    let prog = pir_json::read_program(&ctx, json).unwrap();
    assert!(prog.to_string().contains("dtype:Undefined,"), "{prog}");
    assert_eq!(pir_json::write_program(&prog), json);
    let bad = json.replace("Undefined(ALL_DTYPE)", "Undefined(SOME)");
    let e = pir_json::read_program(&ctx, &bad).unwrap_err().to_string();
    assert!(e.contains("a data type name"), "{e}");
}
