//! Every kind of bad input gives a located error (JSON path, op position and name, expected
//! versus found).

mod common;

use pir_json::error::OpLocation;
use pir_json::{read_program, JsonError};

const T3: &str = r##"{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[3],"NCHW",[],0]}"##;
const SG: &str =
    r##"[{"AT":{"#":"0.a_array","D":[{"#":"0.a_bool","D":false}]},"N":"stop_gradient"}]"##;

/// A small valid program: a parameter, a `data` and an `add` of the two.
fn doc() -> String {
    let data_attrs = r##"[{"AT":{"#":"0.a_str","D":"x"},"N":"name"},{"AT":{"#":"1.a_intarray","D":[3]},"N":"shape"},{"AT":{"#":"1.a_dtype","D":"float32"},"N":"dtype"},{"AT":{"#":"1.a_place","D":[0,0,""]},"N":"place"}]"##;
    format!(
        concat!(
            r##"{{"base_code":{{"magic":"pir","trainable":true,"version":4}},"program":{{"regions":[{{"#":"region_0","blocks":[{{"#":"block_0","args":[],"ops":["##,
            r##"{{"#":"p","A":[0,1,1,"w"],"DA":[],"O":{{"%":1,"TT":{t}}},"OA":[1,0,1],"QA":[]}},"##,
            r##"{{"#":"1.data","A":{data},"I":[],"O":[{{"%":2,"TT":{t}}}],"OA":{sg}}},"##,
            r##"{{"#":"1.add","A":[],"I":[{{"%":2}},{{"%":1}}],"O":[{{"%":3,"TT":{t}}}],"OA":{sg}}}"##,
            r##"]}}]}}]}}}}"##
        ),
        t = T3,
        sg = SG,
        data = data_attrs
    )
}

fn read_err(json: &str) -> JsonError {
    match read_program(&common::ctx(), json) {
        Ok(p) => panic!("expected an error, read:\n{p}"),
        Err(e) => e,
    }
}

/// `doc()` with the `n`-th occurrence (0-based) of `from` replaced by `to`.
fn edit(from: &str, to: &str, n: usize) -> String {
    let d = doc();
    let (at, _) = d
        .match_indices(from)
        .nth(n)
        .unwrap_or_else(|| panic!("{from:?} occurs fewer than {} time(s)", n + 1));
    format!("{}{}{}", &d[..at], to, &d[at + from.len()..])
}

fn op_at(e: &JsonError) -> Option<OpLocation> {
    e.location().and_then(|l| l.op.clone())
}

#[test]
fn the_base_document_reads_and_verifies() {
    let prog = read_program(&common::ctx(), &doc()).unwrap();
    pir_runtime::verify(&prog).unwrap();
    assert!(prog
        .to_string()
        .contains(r##"(%2) = "pd_op.add" (%1, %0) {stop_gradient:[false]}"##));
}

#[test]
fn truncated_json_is_a_syntax_error_with_its_position() {
    let d = doc();
    let e = read_err(&d[..d.len() / 2]);
    match e {
        JsonError::Syntax {
            line,
            column,
            ref message,
        } => {
            assert_eq!(line, 1);
            assert_eq!(column, d.len() / 2);
            assert!(message.contains("EOF"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(read_err(""), JsonError::Syntax { .. }));
    assert!(matches!(
        read_err("{\"base_code\":}"),
        JsonError::Syntax { .. }
    ));
    // Nesting deeper than the parser's limit is refused, not a stack overflow.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(matches!(read_err(&deep), JsonError::Syntax { .. }));
}

#[test]
fn an_unknown_op_names_the_op_and_its_position() {
    let e = read_err(&edit("1.add", "1.add_typo", 0));
    assert_eq!(
        e.to_string(),
        r##"op 2 ("1.add_typo") at $.program.regions[0].blocks[0].ops[2]["#"]: unknown op `pd_op.add_typo` (not registered in the context; is its dialect registered, and does the dialect have it?)"##
    );
    // Without the pd_op dialect, every pd_op op is unknown.
    let e = read_program(&pir_runtime::IrContext::new(), &doc()).unwrap_err();
    assert!(
        matches!(e, JsonError::UnknownOp { ref name, .. } if name == "pd_op.data"),
        "{e}"
    );
}

#[test]
fn an_unknown_dialect_id_is_reported() {
    let e = read_err(&edit("1.add", "9.add", 0));
    assert!(
        matches!(e, JsonError::UnknownDialect { ref dialect, .. } if dialect == "9"),
        "{e}"
    );
    let e = read_err(&edit("1.add", "add", 0));
    assert!(
        e.to_string()
            .contains(r##"expected an op name "<dialect id>.<op>""##),
        "{e}"
    );
}

#[test]
fn an_unknown_type_tag_is_reported_with_its_path() {
    // The add's result type (the 3rd tensor type of the document).
    let e = read_err(&edit("0.t_f32", "0.t_f33", 2));
    assert_eq!(
        e.to_string(),
        r##"op 2 ("1.add") at $.program.regions[0].blocks[0].ops[2].O[0].TT.D[0]["#"]: unknown type tag "0.t_f33""##
    );
    let e = read_err(&edit(r##""#":"0.t_dtensor""##, r##""#":"7.t_dtensor""##, 0));
    assert!(
        matches!(e, JsonError::UnknownTag { kind: "type", .. }),
        "{e}"
    );
    assert_eq!(op_at(&e).map(|o| o.name), Some("p".to_string()));
}

#[test]
fn an_unknown_attribute_tag_is_reported() {
    let e = read_err(&edit("1.a_dtype", "1.a_dtyp", 0));
    assert_eq!(
        e.to_string(),
        r##"op 1 ("1.data") at $.program.regions[0].blocks[0].ops[1].A[2].AT["#"]: unknown attribute tag "1.a_dtyp""##
    );
}

#[test]
fn operands_must_name_values_defined_earlier() {
    let e = read_err(&edit(r##"{"%":1}]"##, r##"{"%":9}]"##, 0));
    assert_eq!(
        e.to_string(),
        r##"op 2 ("1.add") at $.program.regions[0].blocks[0].ops[2].I[1]["%"]: value %9 is not defined by an earlier op result or block argument"##
    );
    // An op cannot use its own result.
    let e = read_err(&edit(r##"{"%":1}]"##, r##"{"%":3}]"##, 0));
    assert!(matches!(e, JsonError::UndefinedValue { id: 3, .. }), "{e}");
    // Ids that are not integers.
    let e = read_err(&edit(r##"{"%":1}]"##, r##"{"%":1.5}]"##, 0));
    assert!(
        e.to_string()
            .ends_with("expected a value id (an integer), found 1.5"),
        "{e}"
    );
    let e = read_err(&edit(
        r##"{"%":1}]"##,
        r##"{"%":18446744073709551615}]"##,
        0,
    ));
    assert!(matches!(e, JsonError::Unexpected { .. }), "{e}");
}

#[test]
fn value_ids_are_defined_once_and_never_zero() {
    let e = read_err(&edit(r##""%":2,"TT""##, r##""%":1,"TT""##, 0));
    assert_eq!(
        e.to_string(),
        r##"op 1 ("1.data") at $.program.regions[0].blocks[0].ops[1].O[0]["%"]: value id 1 is defined twice"##
    );
    let e = read_err(&edit(r##""%":2,"TT""##, r##""%":0,"TT""##, 0));
    assert!(matches!(e, JsonError::BadValueId { id: 0, .. }), "{e}");
}

#[test]
fn missing_keys_and_wrong_shapes_say_what_was_expected() {
    let e = read_err(&edit(r##""I":[{"%":2},{"%":1}],"##, "", 0));
    assert_eq!(
        e.to_string(),
        r##"op 2 ("1.add") at $.program.regions[0].blocks[0].ops[2]: missing key "I" (expected the op's operands)"##
    );
    let e = read_err(&edit(r##"[3],"NCHW""##, r##""3","NCHW""##, 0));
    assert_eq!(
        e.to_string(),
        r##"op 0 ("p") at $.program.regions[0].blocks[0].ops[0].O.TT.D[1]: expected the dims: an array of integers, found a string "3""##
    );
    let e = read_err(&edit(
        r##"[{"#":"0.t_f32"},[3],"NCHW",[],0]"##,
        r##"[{"#":"0.t_f32"},[3],"NCHW",[]]"##,
        1,
    ));
    assert!(
        e.to_string().contains("expected an array of 5 elements [dtype, dims, layout, lod, offset], found an array of 4 element(s)"),
        "{e}"
    );
    let e = read_err(&edit("NCHW", "NCWH", 0));
    assert!(
        e.to_string()
            .contains(r##"expected a data layout name such as "NCHW", found a string "NCWH""##),
        "{e}"
    );
    let e = read_err(&edit(r##""D":"float32""##, r##""D":"float33""##, 0));
    assert!(
        e.to_string()
            .contains(r##"expected a data type name such as "float32", found a string "float33""##),
        "{e}"
    );
    let e = read_err(&edit(
        r##"{"#":"0.a_str","D":"x"}"##,
        r##"{"#":"0.a_i32","D":3000000000}"##,
        0,
    ));
    assert!(
        e.to_string()
            .ends_with("A[0].AT.D: expected a 32-bit integer, found 3000000000"),
        "{e}"
    );
    let e = read_err(&edit(r##""D":[0,0,""]"##, r##""D":[0,0]"##, 0));
    assert!(
        e.to_string().contains(
            "expected an array of 3 elements [allocation type, device id, custom device type]"
        ),
        "{e}"
    );
    let e = read_err(&edit(r##""ops":["##, r##""ops":[7,"##, 0));
    assert!(e.to_string().starts_with(r##"op 0 ("") at $.program.regions[0].blocks[0].ops[0]: expected an object with key "#""##), "{e}");
}

#[test]
fn the_parameter_op_has_four_attributes_and_three_flags() {
    let e = read_err(&edit(r##""A":[0,1,1,"w"]"##, r##""A":[0,1,"w"]"##, 0));
    assert!(e.to_string().starts_with(r##"op 0 ("p") at $.program.regions[0].blocks[0].ops[0].A: expected an array of 4 elements"##), "{e}");
    let e = read_err(&edit(r##""OA":[1,0,1]"##, r##""OA":[1,0]"##, 0));
    assert!(
        e.to_string()
            .contains("expected an array of 3 flags [persistable, stop_gradient, trainable]"),
        "{e}"
    );
    let e = read_err(&edit(r##""A":[0,1,1,"w"]"##, r##""A":[0,"1",1,"w"]"##, 0));
    assert!(
        e.to_string()
            .ends_with(r##"A[1]: expected a flag (0 or 1), found a string "1""##),
        "{e}"
    );
    let e = read_err(&edit(r##""O":{"%":1,"##, r##""O":[{"%":1,"##, 0));
    assert!(
        matches!(e, JsonError::Syntax { .. } | JsonError::Unexpected { .. }),
        "{e}"
    );
}

#[test]
fn the_header_is_checked() {
    let e = read_err(&edit(r##""version":4"##, r##""version":5"##, 0));
    assert!(
        matches!(
            e,
            JsonError::UnsupportedVersion {
                found: 5,
                supported: 4
            }
        ),
        "{e}"
    );
    let e = read_err(&edit(r##""magic":"pir""##, r##""magic":"pdmodel""##, 0));
    assert_eq!(
        e.to_string(),
        r##"at $.base_code.magic: expected "pir", found a string "pdmodel""##
    );
    let e = read_err(r##"{"program":{}}"##);
    assert!(
        matches!(e, JsonError::MissingKey { ref key, .. } if key == "base_code"),
        "{e}"
    );
    let e = read_err(&edit(
        r##""regions":[{"##,
        r##""regions":[{"#":"region_9","blocks":[]},{"##,
        0,
    ));
    assert!(
        e.to_string()
            .contains("expected an array of exactly 1 region, found an array of 2 element(s)"),
        "{e}"
    );
}

#[test]
fn valid_paddle_content_pir_rs_cannot_hold_is_unsupported() {
    for (from, to, what) in [
        (
            "0.t_dtensor",
            "4.t_dist_dtensor",
            "the distributed type `4.t_dist_dtensor`",
        ),
        (
            r##"{"#":"0.a_str","D":"x"}"##,
            r##"{"#":"0.a_tensorname","D":"x"}"##,
            "the attribute kind `0.a_tensorname`",
        ),
        (
            r##"{"#":"0.a_str","D":"x"}"##,
            r##"{"#":"NULL"}"##,
            r##"a null attribute (`{"#":"NULL"}`)"##,
        ),
        (
            r##""D":[0,0,""]"##,
            r##""D":[9,0,"npu"]"##,
            "a place with a custom device type",
        ),
        (
            r##""args":[],"##,
            r##""args":[],"kwargs":[{"#":-1,"TT":{"#":"0.t_f32"},"key":"k"}],"##,
            "a block with keyword arguments (`kwargs`)",
        ),
    ] {
        let e = read_err(&edit(from, to, 0));
        match &e {
            JsonError::Unsupported { what: w, .. } => assert_eq!(w, what),
            other => panic!("{from} -> {to}: {other}"),
        }
        assert!(e.to_string().ends_with("is not supported by pir-rs"), "{e}");
    }
}

#[test]
fn duplicate_attributes_keep_the_first_as_paddle_does() {
    let d = edit(
        r##"{"AT":{"#":"0.a_str","D":"x"},"N":"name"}"##,
        r##"{"AT":{"#":"0.a_str","D":"x"},"N":"name"},{"AT":{"#":"0.a_str","D":"y"},"N":"name"}"##,
        0,
    );
    let prog = read_program(&common::ctx(), &d).unwrap();
    assert!(prog.to_string().contains(r##"name:"x""##));
    // An entry without "AT" was deleted by a patch and is skipped.
    let d = edit(
        r##"{"AT":{"#":"0.a_str","D":"x"},"N":"name"}"##,
        r##"{"N":"name"}"##,
        0,
    );
    let prog = read_program(&common::ctx(), &d).unwrap();
    assert!(!prog.to_string().contains(r##"name:"x""##));
    assert!(
        pir_runtime::verify(&prog).is_err(),
        "data without its name must not verify"
    );
}
