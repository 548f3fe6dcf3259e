//! Golden tests: every legacy fixture translated and printed must equal, byte for byte, what
//! Paddle 3.3.1's `paddle.pir.translate_to_pir` printed for it (`<name>_translated_pir.txt`),
//! and the result must verify; `check_types` must find no difference; and the variable map
//! must equal Paddle's (`<name>_param_map.json`).
//!
//! The fixtures are read in place from `$PIR_PADDLE_REF/legacy` (or
//! `$PIR_PADDLE_YAML/../paddle-ref/legacy`); without either variable the tests print a notice
//! and pass.

mod common;

use pir_translator::Translator;

const FIXTURES: [&str; 5] = [
    "small_cnn",
    "small_cnn_train",
    "small_cnn_startup",
    "small_cnn_inference",
    "split_slice",
];

fn fixtures() -> Option<std::path::PathBuf> {
    common::legacy_dir()
}

/// A readable line diff: every differing line with its number, expected then actual, and a
/// caret under the first differing byte.
fn diff(expected: &str, actual: &str) -> String {
    let e: Vec<&str> = expected.split('\n').collect();
    let a: Vec<&str> = actual.split('\n').collect();
    let mut out = String::new();
    let mut shown = 0;
    for i in 0..e.len().max(a.len()) {
        let (x, y) = (e.get(i).copied(), a.get(i).copied());
        if x == y {
            continue;
        }
        shown += 1;
        if shown > 12 {
            out.push_str("  ... more differing lines\n");
            break;
        }
        let x = x.unwrap_or("<missing>");
        let y = y.unwrap_or("<missing>");
        let col = x.bytes().zip(y.bytes()).take_while(|(p, q)| p == q).count();
        out.push_str(&format!(
            "line {}:\n  - {x}\n  + {y}\n    {}^ (column {})\n",
            i + 1,
            " ".repeat(col),
            col + 1
        ));
    }
    out
}

#[test]
fn every_fixture_translates_byte_identical_and_verifies() {
    let Some(dir) = fixtures() else { return };
    let translator = Translator::with_pd_op().unwrap();
    let mut failures = Vec::new();
    for name in FIXTURES {
        let bytes = std::fs::read(dir.join(format!("{name}.pdmodel"))).unwrap();
        let expected =
            std::fs::read_to_string(dir.join(format!("{name}_translated_pir.txt"))).unwrap();
        let translation = match translator.translate_bytes(&bytes) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{name}: translation failed: {e}"));
                continue;
            }
        };
        let printed = translation.program.to_string();
        if printed != expected {
            failures.push(format!(
                "{name}: differs from {name}_translated_pir.txt\n{}",
                diff(&expected, &printed)
            ));
        }
        if let Err(e) = pir_runtime::verify(&translation.program) {
            failures.push(format!("{name}: does not verify: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `check_types` re-runs every op's infer-meta on the translated programs: no result may
/// differ from the type the translation recorded (from the legacy `VarDesc`s).
#[test]
fn check_types_finds_no_difference() {
    let Some(dir) = fixtures() else { return };
    let translator = Translator::with_pd_op().unwrap();
    for name in FIXTURES {
        let bytes = std::fs::read(dir.join(format!("{name}.pdmodel"))).unwrap();
        let t = translator.translate_bytes(&bytes).unwrap();
        let report = pir_runtime::check_types(&t.program);
        eprintln!("{name}: {report}");
        assert!(report.is_clean(), "{name}: {report}");
        assert!(report.checked > 0, "{name}: {report}");
    }
}

/// The variable map (each legacy variable → the values that defined it, in push order) equals
/// Paddle's (`<name>_param_map.json`: type and defining op of each value).
#[test]
fn variable_map_matches_paddle() {
    let Some(dir) = fixtures() else { return };
    let translator = Translator::with_pd_op().unwrap();
    for name in FIXTURES {
        let bytes = std::fs::read(dir.join(format!("{name}.pdmodel"))).unwrap();
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{name}_param_map.json"))).unwrap(),
        )
        .unwrap();
        let t = translator.translate_bytes(&bytes).unwrap();
        let p = &t.program;
        let mut ours: Vec<(String, Vec<(String, String)>)> = t
            .variables
            .iter()
            .map(|(var, values)| {
                let defs = values
                    .iter()
                    .map(|info| {
                        let ty = p
                            .value_type(info.value)
                            .map_or("<<NULL TYPE>>".to_string(), |t| {
                                t.display(p.ctx()).to_string()
                            });
                        let op = p
                            .defining_op(info.value)
                            .map(|o| p.op(o).name())
                            .unwrap_or("");
                        (ty, op.to_string())
                    })
                    .collect();
                (var.clone(), defs)
            })
            .collect();
        ours.sort();
        let mut theirs: Vec<(String, Vec<(String, String)>)> = json
            .as_object()
            .unwrap()
            .iter()
            .map(|(var, values)| {
                let defs = values
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| {
                        (
                            v["type"].as_str().unwrap().to_string(),
                            v["defining_op"].as_str().unwrap().to_string(),
                        )
                    })
                    .collect();
                (var.clone(), defs)
            })
            .collect();
        theirs.sort();
        assert_eq!(
            ours, theirs,
            "{name}: variable map differs from {name}_param_map.json"
        );
    }
}

/// Paddle reads op inputs, outputs and attributes into maps and variables into a set, so the
/// order a file lists them in does not matter: reversed, every fixture still translates to
/// Paddle's output.
#[test]
fn file_order_of_slots_attributes_and_variables_does_not_matter() {
    let Some(dir) = fixtures() else { return };
    let translator = Translator::with_pd_op().unwrap();
    for name in FIXTURES {
        let bytes = std::fs::read(dir.join(format!("{name}.pdmodel"))).unwrap();
        let expected =
            std::fs::read_to_string(dir.join(format!("{name}_translated_pir.txt"))).unwrap();
        let mut legacy = pir_translator::LegacyProgram::decode(&bytes).unwrap();
        let block = &mut legacy.blocks[0];
        block.vars.reverse();
        for op in &mut block.ops {
            op.inputs.reverse();
            op.outputs.reverse();
            op.attrs.reverse();
        }
        let printed = translator.translate(&legacy).unwrap().program.to_string();
        assert!(
            printed == expected,
            "{name} (reversed):\n{}",
            diff(&expected, &printed)
        );
    }
}
