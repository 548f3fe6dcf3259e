//! Errors: unknown op types (one at a time and all at once), inconsistent programs made by
//! editing decoded fixtures (dangling variable, missing input, attribute of the wrong type,
//! missing attribute), corrupt bytes, and no panic on any edit of any fixture.

mod common;

use common::{fixture, op, program, slot, var};
use pir_translator::proto::var_type::Type as VT;
use pir_translator::{
    AttrValue, LegacyProgram, OpSlot, TranslateError, TranslateOptions, Translator,
};

fn translator() -> Translator {
    Translator::with_pd_op().unwrap()
}

fn op_index(p: &LegacyProgram, ty: &str) -> usize {
    p.global_block()
        .ops
        .iter()
        .position(|o| o.op_type == ty)
        .unwrap_or_else(|| panic!("no `{ty}` op"))
}

#[test]
fn unknown_op_type_is_named_with_its_position() {
    let Some(mut p) = fixture("small_cnn") else {
        return;
    };
    let i = op_index(&p, "relu");
    p.blocks[0].ops[i].op_type = "fancy_activation".into();
    let err = translator().translate(&p).unwrap_err();
    assert!(matches!(err, TranslateError::UnknownOp { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "block 0, op {i} (`fancy_activation`): cannot translate op type `fancy_activation`: \
             no special handler is registered for it and no registered dialect defines \
             `pd_op.fancy_activation`"
        )
    );
    let at = err.location().unwrap();
    assert_eq!((at.block, at.op.as_ref().map(|o| o.0)), (Some(0), Some(i)));
}

#[test]
fn op_whose_target_the_dialect_lacks_names_the_missing_op() {
    // `one_hot_v2` has a handler (Paddle's OneHotTranscriber) but needs `pd_op.one_hot`.
    let bytes = program(
        vec![
            var("ids", VT::Int64, &[-1, 1], true),
            var("oh", VT::Fp32, &[-1, 10], true),
        ],
        vec![op(
            "one_hot_v2",
            vec![slot("X", &["ids"])],
            vec![slot("Out", &["oh"])],
            vec![],
        )],
    );
    let err = translator().translate_bytes(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "block 0, op 0 (`one_hot_v2`): op `one_hot_v2` needs `pd_op.one_hot`, which this \
         dialect does not define"
    );
}

#[test]
fn every_unknown_op_is_reported_at_once() {
    let Some(mut p) = fixture("small_cnn") else {
        return;
    };
    let relu = op_index(&p, "relu");
    let pool = op_index(&p, "pool2d");
    let ops = &mut p.blocks[0].ops;
    ops[relu].op_type = "fancy_activation".into();
    ops[pool].op_type = "fancy_pool".into();
    // A second occurrence of the same unknown type, and an op whose target is missing.
    let mut again = ops[relu].clone();
    again.op_type = "fancy_activation".into();
    ops.push(again);
    let mut tril = ops[relu].clone();
    tril.op_type = "tril_triu".into();
    tril.attrs.push(pir_translator::OpAttr {
        name: "lower".into(),
        value: AttrValue::Bool(true),
    });
    ops.push(tril);
    let n = ops.len();

    let t = translator();
    let report = t.unknown_ops(&p);
    assert_eq!(report.ops.len(), 3, "{report}");
    assert_eq!(report.ops[0].op_type, "fancy_activation");
    assert_eq!(report.ops[0].positions, [(0, relu), (0, n - 2)]);
    assert_eq!(report.ops[0].missing, ["pd_op.fancy_activation"]);
    assert!(!report.ops[0].has_handler);
    assert_eq!(report.ops[1].op_type, "fancy_pool");
    assert_eq!(report.ops[1].positions, [(0, pool)]);
    assert_eq!(report.ops[2].op_type, "tril_triu");
    assert!(report.ops[2].has_handler);
    assert_eq!(report.ops[2].missing, ["pd_op.tril"]);
    assert_eq!(
        report.to_string(),
        format!(
            "3 op type(s) of the program cannot be translated:\n  `fancy_activation` (block 0 \
             op {relu}, block 0 op {}): no special handler is registered and no registered \
             dialect defines `pd_op.fancy_activation`\n  `fancy_pool` (block 0 op {pool}): no \
             special handler is registered and no registered dialect defines \
             `pd_op.fancy_pool`\n  `tril_triu` (block 0 op {}): its handler needs `pd_op.tril`, \
             which this dialect does not define",
            n - 2,
            n - 1
        )
    );

    // The option fails before translating anything, with the whole report.
    let err = t
        .translate_with(
            &p,
            TranslateOptions {
                report_unknown: true,
            },
        )
        .unwrap_err();
    match err {
        TranslateError::UnknownOps(r) => assert_eq!(r, report),
        other => panic!("{other:?}"),
    }
    // Without it, the first unknown op stops the translation.
    let err = t.translate(&p).unwrap_err();
    assert_eq!(err.location().unwrap().op.as_ref().unwrap().0, relu);
}

#[test]
fn fixtures_have_no_unknown_ops() {
    let t = translator();
    for name in [
        "small_cnn",
        "small_cnn_train",
        "small_cnn_startup",
        "small_cnn_inference",
        "split_slice",
    ] {
        let Some(p) = fixture(name) else { return };
        let report = t.unknown_ops(&p);
        assert!(report.is_empty(), "{name}: {report}");
        t.translate_with(
            &p,
            TranslateOptions {
                report_unknown: true,
            },
        )
        .unwrap();
    }
}

#[test]
fn dangling_input_variable_is_located() {
    let Some(mut p) = fixture("small_cnn") else {
        return;
    };
    let i = op_index(&p, "relu");
    p.blocks[0].ops[i].inputs[0].arguments[0] = "no_such_var".into();
    let err = translator().translate(&p).unwrap_err();
    assert!(
        matches!(err, TranslateError::UndeclaredVariable { .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "block 0, op {i} (`relu`): variable `no_such_var` is not declared in the block or \
             its parents"
        )
    );
}

#[test]
fn missing_required_input_is_located() {
    let Some(mut p) = fixture("small_cnn") else {
        return;
    };
    let i = op_index(&p, "conv2d");
    p.blocks[0].ops[i]
        .inputs
        .retain(|s| s.parameter != "Filter");
    let err = translator().translate(&p).unwrap_err();
    assert!(
        matches!(err, TranslateError::MissingInput { .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "block 0, op {i} (`conv2d`): input `filter` of `pd_op.conv2d` is required, but the \
             legacy op gives no argument for `Filter`"
        )
    );

    // An empty argument list is the same as an absent parameter.
    let Some(mut p) = fixture("small_cnn") else {
        return;
    };
    let slot = p.blocks[0].ops[i]
        .inputs
        .iter_mut()
        .find(|s| s.parameter == "Filter")
        .unwrap();
    slot.arguments.clear();
    let err = translator().translate(&p).unwrap_err();
    assert!(
        matches!(err, TranslateError::MissingInput { .. }),
        "{err:?}"
    );
}

#[test]
fn input_with_too_many_variables_is_located() {
    let Some(mut p) = fixture("small_cnn") else {
        return;
    };
    let i = op_index(&p, "relu");
    let x = p.blocks[0].ops[i].inputs[0].arguments[0].clone();
    p.blocks[0].ops[i].inputs[0].arguments.push(x);
    let err = translator().translate(&p).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "block 0, op {i} (`relu`): input `x` of `pd_op.relu` (legacy `X`): the input takes \
             one tensor, but the legacy op gives 2 variables"
        )
    );
}

#[test]
fn attribute_of_the_wrong_type_is_located() {
    let Some(mut p) = fixture("small_cnn") else {
        return;
    };
    let i = op_index(&p, "conv2d");
    let attrs = &mut p.blocks[0].ops[i].attrs;
    let a = attrs.iter().position(|a| a.name == "groups").unwrap();
    attrs[a].value = AttrValue::String("1".into());
    let err = translator().translate(&p).unwrap_err();
    assert!(matches!(err, TranslateError::Attribute { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "block 0, op {i} (`conv2d`), attribute {a} (`groups`): attribute `groups` of \
             `pd_op.conv2d` (legacy `groups`): expected a value for pir::Int32Attribute (yaml \
             `int`), found a legacy STRING"
        )
    );

    // A mutable attribute given as an attribute of the wrong type.
    let Some(mut p) = fixture("small_cnn") else {
        return;
    };
    let i = op_index(&p, "pool2d");
    let attrs = &mut p.blocks[0].ops[i].attrs;
    let a = attrs.iter().position(|a| a.name == "ksize").unwrap();
    attrs[a].value = AttrValue::Float(2.0);
    let err = translator().translate(&p).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "block 0, op {i} (`pool2d`), attribute {a} (`ksize`): attribute `kernel_size` of \
             `pd_op.pool2d` (legacy `ksize`): expected INTS or LONGS for an IntArray, found FLOAT"
        )
    );
}

#[test]
fn missing_attribute_without_default_is_located() {
    let Some(mut p) = fixture("small_cnn") else {
        return;
    };
    let i = op_index(&p, "batch_norm");
    p.blocks[0].ops[i].attrs.retain(|a| a.name != "momentum");
    let err = translator().translate(&p).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "block 0, op {i} (`batch_norm`): attribute `momentum` of `pd_op.batch_norm_` \
             (legacy `momentum`): the legacy op does not have it and the attribute has no \
             default"
        )
    );
}

#[test]
fn missing_attributes_take_handler_then_yaml_defaults() {
    let Some(mut p) = fixture("small_cnn") else {
        return;
    };
    let i = op_index(&p, "conv2d");
    // `padding_algorithm`: Paddle's Conv2dOpTranscriber default; `strides`: the yaml default
    // (`int[] strides={1, 1}`), where Paddle would leave a null attribute.
    p.blocks[0].ops[i]
        .attrs
        .retain(|a| a.name != "padding_algorithm" && a.name != "strides");
    let t = translator().translate(&p).unwrap();
    pir_runtime::verify(&t.program).unwrap();
    let text = t.program.to_string();
    let conv = text
        .lines()
        .find(|l| l.contains("\"pd_op.conv2d\""))
        .unwrap();
    assert!(conv.contains("padding_algorithm:\"EXPLICIT\""), "{conv}");
    assert!(conv.contains("strides:[1,1]"), "{conv}");
}

#[test]
fn missing_output_is_located() {
    let Some(mut p) = fixture("small_cnn") else {
        return;
    };
    let i = op_index(&p, "conv2d");
    p.blocks[0].ops[i].outputs.clear();
    let err = translator().translate(&p).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "block 0, op {i} (`conv2d`): output `out` of `pd_op.conv2d` is not optional, but \
             the legacy op has no `Output` output"
        )
    );
}

#[test]
fn control_flow_is_refused_with_its_position() {
    let Some(mut p) = fixture("small_cnn") else {
        return;
    };
    p.blocks[0].ops[2].op_type = "while_grad".into();
    let err = translator().translate(&p).unwrap_err();
    assert_eq!(
        err.to_string(),
        "block 0, op 2 (`while_grad`): the control-flow op `while_grad` is not supported by \
         this translator"
    );
}

#[test]
fn a_program_without_blocks_is_an_error() {
    let p = LegacyProgram {
        blocks: vec![],
        version: None,
        op_versions: vec![],
    };
    let err = translator().translate(&p).unwrap_err();
    assert!(matches!(
        err,
        TranslateError::Decode(pir_translator::DecodeError::NoBlocks)
    ));
    assert!(translator().unknown_ops(&p).is_empty());
}

#[test]
fn corrupt_bytes_are_decode_errors() {
    let bytes = program(
        vec![
            var("x", VT::Fp32, &[2], true),
            var("y", VT::Fp32, &[2], true),
        ],
        vec![op(
            "relu",
            vec![slot("X", &["x"])],
            vec![slot("Out", &["y"])],
            vec![],
        )],
    );
    let t = translator();
    t.translate_bytes(&bytes).unwrap();
    for cut in 1..bytes.len() {
        match t.translate_bytes(&bytes[..cut]) {
            Err(TranslateError::Decode(_)) => {}
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
}

/// Every single edit of every fixture — dropping an input or output parameter, renaming or
/// emptying an argument list, retyping or dropping an attribute, retyping an op — gives an
/// error or a program that verifies, never a panic.
#[test]
fn no_edit_of_a_fixture_panics() {
    let t = translator();
    let mut outcomes = (0usize, 0usize);
    let mut tally = |r: Result<pir_translator::Translation, TranslateError>| match r {
        Ok(tr) => {
            // What translates also verifies.
            if let Err(e) = pir_runtime::verify(&tr.program) {
                panic!("an edited fixture translated into a program that does not verify: {e}");
            }
            outcomes.0 += 1;
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            outcomes.1 += 1;
        }
    };
    for name in [
        "small_cnn",
        "small_cnn_train",
        "small_cnn_startup",
        "small_cnn_inference",
        "split_slice",
    ] {
        let Some(base) = fixture(name) else { return };
        let ops = base.global_block().ops.len();
        for i in 0..ops {
            let o = &base.global_block().ops[i];
            for s in 0..o.inputs.len() {
                let mut p = base.clone();
                p.blocks[0].ops[i].inputs.remove(s);
                tally(t.translate(&p));
                let mut p = base.clone();
                for a in &mut p.blocks[0].ops[i].inputs[s].arguments {
                    *a = "renamed".into();
                }
                tally(t.translate(&p));
                let mut p = base.clone();
                p.blocks[0].ops[i].inputs[s] = OpSlot {
                    parameter: o.inputs[s].parameter.clone(),
                    arguments: vec![],
                };
                tally(t.translate(&p));
            }
            for s in 0..o.outputs.len() {
                let mut p = base.clone();
                p.blocks[0].ops[i].outputs.remove(s);
                tally(t.translate(&p));
            }
            for a in 0..o.attrs.len() {
                for v in [
                    AttrValue::String("x".into()),
                    AttrValue::Ints(vec![]),
                    AttrValue::Int(-7),
                    AttrValue::Float(0.5),
                    AttrValue::Int(i32::MAX),
                    AttrValue::Ints(vec![i32::MIN, i32::MAX]),
                    AttrValue::Longs(vec![i64::MAX, i64::MAX]),
                ] {
                    let mut p = base.clone();
                    p.blocks[0].ops[i].attrs[a].value = v;
                    tally(t.translate(&p));
                }
                let mut p = base.clone();
                p.blocks[0].ops[i].attrs.remove(a);
                tally(t.translate(&p));
            }
            let mut p = base.clone();
            p.blocks[0].ops[i].op_type = "reshape2_grad".into();
            tally(t.translate(&p));
        }
    }
    eprintln!("edits translated: {} ok, {} errors", outcomes.0, outcomes.1);
}

/// A relu of `x` (dims `x_dims`) into `y`, `y` declared with `y_ty` (a dense tensor of dims
/// `y_dims` when `None`).
fn relu_program(
    x_dims: &[i64],
    y_dims: &[i64],
    y_ty: Option<pir_translator::proto::VarType>,
) -> Vec<u8> {
    let mut y = var("y", VT::Fp32, y_dims, true);
    if let Some(t) = y_ty {
        y.r#type = Some(t);
    }
    program(
        vec![var("x", VT::Fp32, x_dims, true), y],
        vec![op(
            "relu",
            vec![slot("X", &["x"])],
            vec![slot("Out", &["y"])],
            vec![],
        )],
    )
}

fn not_verified(bytes: &[u8]) -> String {
    match translator().translate_bytes(bytes) {
        Err(e @ TranslateError::NotVerified { .. }) => e.to_string(),
        other => panic!("expected NotVerified, got {other:?}"),
    }
}

/// Found by the `translate` fuzz target (branch harden2): legacy descs Paddle never writes
/// used to translate into programs that do not verify. Each is refused now, naming the op
/// and the legacy variable.
#[test]
fn descs_paddle_never_writes_are_refused_not_translated_into_invalid_programs() {
    // Declared dims below -1 on a variable no op writes (it becomes a `pd_op.data`).
    for d in [-2i64, -5, -1_048_577, i64::MIN] {
        let e = not_verified(&relu_program(&[d, 3], &[-1, 3], None));
        assert!(
            e.contains("pd_op.data") && e.contains("legacy variable(s) x"),
            "{e}"
        );
        assert!(e.contains("a dim below -1"), "{e}");
    }
    // Every dim valid, their product past an int64 (and relu copies it).
    for dims in [
        vec![1i64 << 40, 1 << 30],
        vec![i64::MAX, 8],
        vec![1_125_899_906_842_623, 1151, 32, 4223],
    ] {
        let e = not_verified(&relu_program(&dims, &[-1, 3], None));
        assert!(e.contains("does not fit in an int64"), "{e}");
    }
    // What Paddle writes still translates: -1 dims, zero dims, big but representable sizes.
    for dims in [vec![-1i64, 3], vec![0, 5], vec![1 << 20, 1 << 20]] {
        translator()
            .translate_bytes(&relu_program(&dims, &dims, None))
            .unwrap();
    }
}

/// Found by the `translate` fuzz target: the crash files it wrote, when `PIR_FUZZ_ARTIFACTS`
/// names their folder (not committed); each translates into a program that verifies, or is
/// refused.
#[test]
fn fuzz_artifacts_translate_into_verified_programs_or_errors() {
    let Some(dir) = std::env::var_os("PIR_FUZZ_ARTIFACTS") else {
        eprintln!("PIR_FUZZ_ARTIFACTS not set: skipped");
        return;
    };
    let t = translator();
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        if let Ok(tr) = t.translate_bytes(&bytes) {
            if let Err(e) = pir_runtime::verify(&tr.program) {
                // Untyped results: Paddle's translator writes them too.
                assert!(
                    e.0.iter().all(|x| x.message().contains("<<NULL TYPE>>")),
                    "{e}"
                );
            }
        }
        n += 1;
    }
    assert!(n > 0);
}
