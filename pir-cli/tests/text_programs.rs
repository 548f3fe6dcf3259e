//! `pir print` / `pir verify [--check-types]` on programs in Paddle's text form, run as a user
//! would; formats are recognised by content, whatever the extension.
//!
//! Paddle's prints are read in place from `$PIR_PADDLE_REF` (fallback
//! `$PIR_PADDLE_YAML/../paddle-ref`); without either, those checks print a notice and pass.

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

fn write_tmp(name: &str, contents: &[u8]) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

const PROGRAM: &str = r#"{
    (%0) = "pd_op.data" [id:12] () {dtype:float32,name:"x",place:Place(undefined:0),shape:[-1,3],stop_gradient:[true]} : () -> tensor<-1x3xf32>
    (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<-1x3xf32>) -> tensor<-1x3xf32>
    (%2) = "pd_op.tanh" (%1) {stop_gradient:[true]} : (tensor<-1x3xf32>) -> tensor<-1x3xf32>
}
"#;

#[test]
fn a_text_program_prints_back_and_verifies_whatever_its_extension() {
    for name in ["pir_cli_text.txt", "pir_cli_text.json", "pir_cli_text"] {
        let path = write_tmp(name, PROGRAM.as_bytes());
        let file = path.to_str().unwrap();
        let o = pir(&["print", file]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(text(&o.stdout), PROGRAM);
        let o = pir(&["verify", file]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(text(&o.stdout), format!("{file}: verified (3 ops)\n"));
        let o = pir(&["verify", "--check-types", file]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(text(&o.stderr).starts_with("check-types: 3 op(s) checked, 0 difference(s)"));
    }
}

#[test]
fn check_types_lists_every_difference_and_fails() {
    let bad = PROGRAM
        .replace(
            "(tensor<-1x3xf32>) -> tensor<-1x3xf32>\n    (%2)",
            "(tensor<-1x3xf32>) -> tensor<-1x4xf32>\n    (%2)",
        )
        .replace(
            "(%1) {stop_gradient:[true]} : (tensor<-1x3xf32>) -> tensor<-1x3xf32>",
            "(%1) {stop_gradient:[true]} : (tensor<-1x4xf32>) -> tensor<-1x5xf32>",
        );
    let path = write_tmp("pir_cli_text_types.txt", bad.as_bytes());
    let file = path.to_str().unwrap();
    let o = pir(&["verify", file]);
    assert!(
        o.status.success(),
        "types are not verify's business: {}",
        text(&o.stderr)
    );
    let o = pir(&["verify", "--check-types", file]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(err.contains(
        "differs: pd_op.relu (op 1 of block 0): result 0 (`out`) is recorded as tensor<-1x4xf32> but infers to tensor<-1x3xf32>"
    ), "{err}");
    assert!(err.contains(
        "differs: pd_op.tanh (op 2 of block 0): result 0 (`out`) is recorded as tensor<-1x5xf32> but infers to tensor<-1x4xf32>"
    ), "{err}");
    assert!(
        err.ends_with(&format!(
            "error: {file}: check-types found 2 result type(s) that differ from their infer-meta\n"
        )),
        "{err}"
    );
}

#[test]
fn bad_text_programs_fail_with_file_line_and_column() {
    let cases = [
        (
            PROGRAM.replace("pd_op.tanh", "pd_op.tanhh"),
            "4:13: op `pd_op.tanhh`: unknown op `pd_op.tanhh` (is its dialect registered?)",
        ),
        (
            PROGRAM.replace("(%1) {stop", "(%7) {stop"),
            "4:26: op `pd_op.tanh`: value `%7` is not defined by an earlier op result or block argument in scope",
        ),
        (
            "{\n    (%0) =".to_string(),
            "2:11: op starting at 2:5: expected a string in double quotes, found the end of the input",
        ),
    ];
    for (i, (program, message)) in cases.iter().enumerate() {
        let path = write_tmp(&format!("pir_cli_bad_text_{i}.pir"), program.as_bytes());
        let file = path.to_str().unwrap();
        for cmd in ["print", "verify"] {
            let o = pir(&[cmd, file]);
            assert!(!o.status.success());
            let err = text(&o.stderr);
            let first = format!("error: {file}:{message}\n");
            if i == 0 {
                // An unknown op: then a hint to point --yaml at Paddle's yaml.
                let hint = err.strip_prefix(&first).unwrap_or_else(|| panic!("{err}"));
                assert!(
                    hint.starts_with("hint: ") && hint.contains("--yaml"),
                    "{err}"
                );
            } else {
                assert_eq!(err, first);
            }
        }
    }
    // Neither text nor JSON nor a ProgramDesc.
    let path = write_tmp("pir_cli_not_a_program.txt", b"hello");
    let o = pir(&["print", path.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr)
            .contains("not Paddle's text form, a PIR JSON program or a legacy ProgramDesc"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn paddles_prints_read_back_through_the_cli() {
    let base = match std::env::var_os("PIR_PADDLE_REF") {
        Some(d) => PathBuf::from(d),
        None => {
            match std::env::var_os("PIR_PADDLE_YAML") {
                Some(y) => PathBuf::from(y).join("../paddle-ref"),
                None => {
                    eprintln!("NOTICE: PIR_PADDLE_REF / PIR_PADDLE_YAML not set; skipping Paddle's prints");
                    return;
                }
            }
        }
    };
    for rel in [
        "text/tiny_3op_pir.txt",
        "text/small_features_pir.txt",
        "legacy/small_cnn_train_translated_pir.txt",
        "programs/backward/conv_bn_relu_ir_backward_grad.txt",
    ] {
        let path = base.join(rel);
        let file = path.to_str().unwrap();
        let o = pir(&["print", file]);
        assert!(o.status.success(), "{rel}: {}", text(&o.stderr));
        assert_eq!(
            text(&o.stdout),
            std::fs::read_to_string(&path).unwrap(),
            "{rel}"
        );
        let o = pir(&["verify", "--check-types", file]);
        assert!(o.status.success(), "{rel}: {}", text(&o.stderr));
    }
}
