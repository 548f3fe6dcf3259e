//! `pir print` / `pir verify` on Paddle 3 PIR JSON programs (`.json`), run as a user would.
//!
//! Paddle's files are read in place from `$PIR_PADDLE_REF/pir_json` (fallback
//! `$PIR_PADDLE_YAML/../paddle-ref/pir_json`); without either, those checks print a notice and
//! pass. The bad-input checks need no fixture.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pir"))
        .args(args)
        .output()
        .expect("run pir")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn pir_json_dir() -> Option<PathBuf> {
    let base = match std::env::var_os("PIR_PADDLE_REF") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("PIR_PADDLE_YAML")?)
            .join("..")
            .join("paddle-ref"),
    };
    Some(base.join("pir_json")).filter(|d| d.is_dir())
}

/// Paddle's `.json` programs and Paddle's print of each program read back.
const FIXTURES: [(&str, &str, usize); 3] = [
    ("small_cnn.json", "small_cnn_roundtrip_pir.txt", 21),
    (
        "small_linear_relu.json",
        "small_linear_relu_roundtrip_pir.txt",
        7,
    ),
    ("static_adam.json", "static_adam_pir.txt", 29),
];

#[test]
fn print_and_verify_paddle_json_programs() {
    let Some(dir) = pir_json_dir() else {
        eprintln!(
            "NOTICE: neither PIR_PADDLE_REF nor PIR_PADDLE_YAML points at paddle-ref/pir_json; \
             skipping `pir print`/`pir verify` on Paddle's JSON programs"
        );
        return;
    };
    for (json, txt, ops) in FIXTURES {
        let file = dir.join(json);
        let file = file.to_str().expect("utf-8 path");
        let o = pir(&["print", file]);
        assert!(o.status.success(), "print {json}: {}", text(&o.stderr));
        let expected = std::fs::read_to_string(dir.join(txt)).unwrap();
        assert!(
            text(&o.stdout) == expected,
            "pir print {json} differs from Paddle's print:\n--- expected\n{expected}\n--- actual\n{}",
            text(&o.stdout)
        );
        let o = pir(&["verify", file]);
        assert!(o.status.success(), "verify {json}: {}", text(&o.stderr));
        assert_eq!(text(&o.stdout), format!("{file}: verified ({ops} ops)\n"));
    }
}

/// `std`, `masked_fill_`, `variance`, `all_reduce`, `reduce` and
/// `fused_bias_residual_layernorm`, which the project's `ops-yaml/` declares because the shared
/// yaml snapshot lacks them: Paddle 3.3.1's one-op programs and (where there is one) their backward
/// (`$PIR_PADDLE_REF/ops/{programs,vjp}/`) verify with `--check-types` on the built-in dialect
/// (every op checked, no difference) and print as Paddle printed them.
#[test]
fn ops_beyond_the_snapshot_verify_and_print_as_paddle() {
    let Some(root) = std::env::var_os("PIR_PADDLE_REF").map(PathBuf::from) else {
        eprintln!(
            "NOTICE: PIR_PADDLE_REF is not set; skipping the programs of ops beyond the snapshot"
        );
        return;
    };
    for (rel, ops) in [
        ("ops/programs/std", 4),
        ("ops/vjp/std", 8),
        ("ops/programs/masked_fill_", 4),
        ("ops/vjp/masked_fill_", 10),
        ("ops/programs/variance", 4),
        ("ops/programs/all_reduce", 2),
        ("ops/programs/reduce", 2),
        ("ops/programs/fused_bias_residual_layernorm", 4),
    ] {
        let json = root.join(format!("{rel}.json"));
        let file = json.to_str().expect("utf-8 path");
        let o = pir(&["verify", "--check-types", file]);
        assert!(o.status.success(), "verify {rel}: {}", text(&o.stderr));
        assert_eq!(text(&o.stdout), format!("{file}: verified ({ops} ops)\n"));
        assert_eq!(
            text(&o.stderr),
            format!(
                "check-types: {ops} op(s) checked, 0 difference(s), 0 op kind(s) not checked\n"
            ),
            "{rel}"
        );
        let o = pir(&["print", file]);
        assert!(o.status.success(), "print {rel}: {}", text(&o.stderr));
        let expected = std::fs::read_to_string(root.join(format!("{rel}.txt"))).unwrap();
        assert!(
            text(&o.stdout) == expected,
            "pir print {rel}.json differs from {rel}.txt"
        );
    }
}

fn write_tmp(name: &str, contents: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

const PROGRAM: &str = concat!(
    r##"{"base_code":{"magic":"pir","trainable":true,"version":4},"program":{"regions":[{"#":"region_0","blocks":[{"#":"block_0","args":[],"ops":["##,
    r##"{"#":"p","A":[0,1,1,"w"],"DA":[],"O":{"%":1,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[3],"NCHW",[],0]}},"OA":[1,0,1],"QA":[]},"##,
    r##"{"#":"1.relu","A":[],"I":[{"%":1}],"O":[{"%":2,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[3],"NCHW",[],0]}}],"OA":[]}]}]}]}}"##,
);

#[test]
fn a_small_json_program_prints_and_verifies() {
    let path = write_tmp("pir_cli_json_ok.json", PROGRAM);
    let file = path.to_str().unwrap();
    let o = pir(&["print", file]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        concat!(
            "{\n",
            "    (%0) = \"builtin.parameter\" () {is_distributed:[false],is_parameter:[true],need_clip:[true],parameter_name:\"w\",persistable:[true],stop_gradient:[false],trainable:[true]} : () -> tensor<3xf32>\n",
            "    (%1) = \"pd_op.relu\" (%0) {} : (tensor<3xf32>) -> tensor<3xf32>\n",
            "}\n",
        )
    );
    let o = pir(&["verify", file]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn bad_json_programs_fail_with_a_located_message() {
    for (name, contents, message) in [
        (
            "pir_cli_json_truncated.json",
            &PROGRAM[..PROGRAM.len() / 2],
            "invalid JSON at line 1",
        ),
        (
            "pir_cli_json_unknown_op.json",
            &PROGRAM.replace("1.relu", "1.relu_typo"),
            r##"op 1 ("1.relu_typo") at $.program.regions[0].blocks[0].ops[1]["#"]: unknown op `pd_op.relu_typo`"##,
        ),
        (
            "pir_cli_json_undefined_value.json",
            &PROGRAM.replace(r##""I":[{"%":1}]"##, r##""I":[{"%":5}]"##),
            r#"ops[1].I[0]["%"]: value %5 is not defined"#,
        ),
    ] {
        let path = write_tmp(name, contents);
        for cmd in ["print", "verify"] {
            let o = pir(&[cmd, path.to_str().unwrap()]);
            assert!(!o.status.success(), "{cmd} {name} succeeded");
            let err = text(&o.stderr);
            assert!(err.starts_with("error: "), "{err}");
            assert!(err.contains(path.to_str().unwrap()), "{err}");
            assert!(err.contains(message), "{cmd} {name}: {err}");
            assert!(o.stdout.is_empty());
        }
    }
    // A JSON program that reads but does not verify: relu of a vector.
    let bad = PROGRAM.replace(
        r##""I":[{"%":1}],"O":[{"%":2,"TT":{"#":"0.t_dtensor""##,
        r##""I":[{"%":1}],"O":[{"%":2,"TT":{"#":"0.t_vec","D":[]},"X":{"#":"0.t_dtensor""##,
    );
    let path = write_tmp("pir_cli_json_invalid.json", &bad);
    let o = pir(&["verify", path.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("pd_op.relu (op 1 of block 0)"),
        "{}",
        text(&o.stderr)
    );
}
