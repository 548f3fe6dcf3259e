//! The `pir` binary, run as a user would: `--help` everywhere, the demo, op inspection, yaml
//! checking, and clear errors with a non-zero exit status on bad input.

use std::process::{Command, Output};

fn pir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pir"))
        .args(args)
        .output()
        .expect("run pir")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn every_command_answers_help() {
    for args in [
        vec!["--help"],
        vec!["demo", "--help"],
        vec!["ops", "--help"],
        vec!["ops", "list", "--help"],
        vec!["ops", "show", "--help"],
        vec!["ops", "dump", "--help"],
        vec!["yaml", "--help"],
        vec!["yaml", "check", "--help"],
        vec!["translate", "--help"],
        vec!["verify", "--help"],
        vec!["print", "--help"],
    ] {
        let o = pir(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).contains("Usage:"), "{args:?}: {}", stdout(&o));
    }
}

#[test]
fn demo_builds_a_training_step_that_verifies() {
    let o = pir(&["demo"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("{\n") && text.ends_with("}\n"));
    for op in [
        "pd_op.conv2d",
        "pd_op.batch_norm_",
        "pd_op.cross_entropy_with_softmax_grad",
        "pd_op.conv2d_grad",
        "pd_op.sgd_",
    ] {
        assert!(text.contains(&format!("\"{op}\"")), "{op} missing");
    }
    assert!(stderr(&o).contains("verified"));
    let o = pir(&["demo", "--model", "resnet50"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o)
            .lines()
            .filter(|l| l.contains("\"pd_op.conv2d\""))
            .count(),
        53
    );
    assert!(stderr(&o).contains("446 ops"));
}

#[test]
fn ops_list_show_and_dump() {
    let o = pir(&["ops", "list", "--trait", "InplaceTrait"]);
    assert!(o.status.success());
    let names = stdout(&o);
    assert!(names.lines().any(|l| l == "pd_op.relu_"));
    assert!(!names.lines().any(|l| l == "pd_op.relu"));

    let o = pir(&["ops", "show", "conv2d"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(
        text.contains("pd_op.conv2d  (Conv2dOp, forward op, defined at ../ops-yaml/ops.yaml:"),
        "{text}"
    );
    assert!(text.contains("infer_meta  ConvInferMeta("));
    assert!(text.contains("backward:     conv2d_grad"));

    let o = pir(&["ops", "dump", "--json"]);
    assert!(o.status.success());
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let entries = json.as_array().expect("an array");
    let relu = entries
        .iter()
        .find(|e| e["op_name"] == "pd_op.relu")
        .expect("relu");
    assert_eq!(
        relu["runtime_info"]["infer_meta_func"],
        "UnchangedInferMeta"
    );
    assert_eq!(
        relu.as_object().unwrap().keys().collect::<Vec<_>>(),
        [
            "op_name",
            "inputs",
            "attributes",
            "outputs",
            "runtime_info",
            "traits",
            "interfaces"
        ]
    );
}

#[test]
fn ops_dump_reads_yaml_at_run_time() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../ops-yaml");
    let o = pir(&["ops", "dump", "--json", "--yaml", dir]);
    assert!(o.status.success(), "{}", stderr(&o));
    let from_yaml: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let o = pir(&["ops", "dump", "--json"]);
    let registered: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // The run-time load of ops-yaml/ gives what the macro compiled into the binary.
    let mut a: Vec<_> = from_yaml
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.to_string())
        .collect();
    let mut b: Vec<_> = registered
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.to_string())
        .collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

#[test]
fn unknown_op_is_a_clear_error() {
    let o = pir(&["ops", "show", "conv3"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).starts_with("error: no op named `conv3`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn yaml_check_reports_file_line_and_op() {
    let dir = std::env::temp_dir().join(format!("pir-cli-yaml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.yaml");
    std::fs::write(
        &good,
        "- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n",
    )
    .unwrap();
    let o = pir(&["yaml", "check", good.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("ok: 1 op class(es)"));

    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, "- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n\n- op : g\n  args : (Tensor x, wibble y)\n  output : Tensor(out)\n").unwrap();
    let o = pir(&["yaml", "check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains(&format!("{}:6", bad.display())), "{err}");
    assert!(err.contains("op `g`"), "{err}");
    assert!(err.contains("wibble"), "{err}");

    let o = pir(&["yaml", "check", dir.join("missing.yaml").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("missing.yaml"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_arguments_are_usage_errors() {
    let o = pir(&["demo", "--model", "vgg"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("invalid value 'vgg'"));
    let o = pir(&["ops", "dump"]);
    assert!(!o.status.success());
}
