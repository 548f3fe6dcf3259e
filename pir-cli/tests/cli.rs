//! The `pir` binary, run as a user would: `--help` everywhere, the demo, op inspection, yaml
//! checking, and clear errors with a non-zero exit status on bad input.

use std::process::{Command, Output};

/// Runs pir with the compiled ops only (whatever the test environment's `PIR_PADDLE_YAML`).
fn pir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pir"))
        .env_remove("PIR_PADDLE_YAML")
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

/// A yaml folder with one op pir does not compile in (`my_swish`) and one it does (`relu`,
/// with another infer-meta function, which must not win over the compiled one).
fn yaml_folder(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("pir-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("ops.yaml"),
        "- op : my_swish\n  args : (Tensor x, float beta = 1.0)\n  output : Tensor(out)\n  \
         infer_meta :\n    func : UnchangedInferMeta\n    param : [x]\n  kernel :\n    func : swish\n\
         - op : relu\n  args : (Tensor x)\n  output : Tensor(out)\n  infer_meta :\n    \
         func : RealAndImagInferMeta\n  kernel :\n    func : relu\n",
    )
    .unwrap();
    dir
}

#[test]
fn yaml_ops_join_every_command_and_compiled_ops_win() {
    let dir = yaml_folder("ops");
    let d = dir.to_str().unwrap();
    // The flag is accepted before and after the subcommand, and read from the environment.
    for args in [
        vec!["--yaml", d, "ops", "list"],
        vec!["ops", "list", "--yaml", d],
        vec!["ops", "--yaml", d, "list"],
    ] {
        let o = pir(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let names = stdout(&o);
        assert!(names.lines().any(|l| l == "pd_op.my_swish"), "{args:?}");
        assert!(names.lines().any(|l| l == "pd_op.conv2d"), "{args:?}");
    }
    let o = Command::new(env!("CARGO_BIN_EXE_pir"))
        .env("PIR_PADDLE_YAML", d)
        .args(["ops", "show", "my_swish"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("defined at "), "{}", stdout(&o));
    assert!(stdout(&o).contains("ops.yaml:1)"), "{}", stdout(&o));
    // relu is compiled in: its infer-meta function stays UnchangedInferMeta.
    let o = pir(&["ops", "show", "relu", "--yaml", d]);
    assert!(
        stdout(&o).contains("infer_meta  UnchangedInferMeta("),
        "{}",
        stdout(&o)
    );
    // Without the folder my_swish is unknown.
    assert!(!pir(&["ops", "show", "my_swish"]).status.success());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_yaml_folder_is_a_located_error() {
    let dir = std::env::temp_dir().join(format!("pir-cli-badyaml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ops.yaml"), "- op : bad\n  args : (Tensor x\n").unwrap();
    let o = pir(&["ops", "list", "--yaml", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("ops.yaml:"), "{}", stderr(&o));
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = pir(&["demo", "--yaml", empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no Paddle generator yaml"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_yaml_class_that_cannot_be_defined_is_left_out_and_named_when_used() {
    let dir = std::env::temp_dir().join(format!("pir-cli-misfit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // ConvInferMeta takes (input, filter, strides, ...): one tensor does not fit it.
    std::fs::write(
        dir.join("ops.yaml"),
        "- op : my_conv\n  args : (Tensor x)\n  output : Tensor(out)\n  infer_meta :\n    \
         func : ConvInferMeta\n  kernel :\n    func : conv\n",
    )
    .unwrap();
    let d = dir.to_str().unwrap();
    let o = pir(&["ops", "list", "--yaml", d]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stdout(&o).contains("pd_op.my_conv"));
    assert!(
        stderr(&o).contains("1 op class(es) of the yaml"),
        "{}",
        stderr(&o)
    );
    let f = dir.join("p.txt");
    std::fs::write(
        &f,
        "{\n    (%0) = \"pd_op.my_conv\" () {} : () -> tensor<f32>\n}\n",
    )
    .unwrap();
    let o = pir(&["verify", f.to_str().unwrap(), "--yaml", d]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("p.txt:2:"), "{e}");
    assert!(
        e.contains("the yaml describes the op but it cannot be defined"),
        "{e}"
    );
    assert!(e.contains("ops.yaml:1: op `my_conv`"), "{e}");
    assert!(e.contains("ConvInferMeta"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_op_missing_from_the_dialect_is_located_with_a_hint() {
    let dir = std::env::temp_dir().join(format!("pir-cli-unknown-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("p.txt");
    std::fs::write(
        &f,
        "{\n    (%0) = \"pd_op.no_such_op\" () {} : () -> tensor<f32>\n}\n",
    )
    .unwrap();
    let o = pir(&["verify", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("p.txt:2:"), "{e}");
    assert!(e.contains("unknown op `pd_op.no_such_op`"), "{e}");
    assert!(e.contains("point --yaml"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 18: a full or closed standard output is an error with a message and status 1, never a
/// panic (status 101).
#[test]
fn a_full_or_closed_stdout_is_an_error_not_a_panic() {
    use std::process::Stdio;
    let ops_yaml = concat!(env!("CARGO_MANIFEST_DIR"), "/../ops-yaml/ops.yaml");
    let prog = std::env::temp_dir().join(format!("pir-cli-full-{}.txt", std::process::id()));
    std::fs::write(&prog, pir(&["demo"]).stdout).unwrap();
    let p = prog.to_str().unwrap();
    assert!(
        pir(&["verify", p]).status.success(),
        "{}",
        stderr(&pir(&["verify", p]))
    );
    if std::path::Path::new("/dev/full").exists() {
        for args in [
            vec!["yaml", "check", ops_yaml],
            vec!["print", p],
            vec!["verify", p],
            vec!["ops", "list"],
            vec!["ops", "dump", "--json"],
            vec!["ops", "show", "conv2d"],
            vec!["demo"],
        ] {
            let full = std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap();
            let o = Command::new(env!("CARGO_BIN_EXE_pir"))
                .env_remove("PIR_PADDLE_YAML")
                .args(&args)
                .stdout(full)
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
            assert!(
                stderr(&o).contains("cannot write to standard output"),
                "{args:?}: {}",
                stderr(&o)
            );
        }
    }
    // A closed pipe: the reader is gone before pir writes.
    let mut child = Command::new(env!("CARGO_BIN_EXE_pir"))
        .env_remove("PIR_PADDLE_YAML")
        .args(["demo", "--model", "resnet50"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot write to standard output"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_file(&prog).ok();
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
fn yaml_check_reports_class_collisions_and_backward_cycles() {
    let dir = std::env::temp_dir().join(format!("pir-cli-yaml-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ops = dir.join("ops.yaml");
    std::fs::write(
        &ops,
        "- op : a_b\n  args : (Tensor x)\n  output : Tensor(out)\n\n- op : a__b\n  args : (Tensor x)\n  output : Tensor(out)\n",
    )
    .unwrap();
    let o = pir(&["yaml", "check", ops.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains(&format!("{}:5: op `a__b`", ops.display())),
        "{err}"
    );
    assert!(err.contains("class `ABOp`"), "{err}");

    let backward = dir.join("backward.yaml");
    std::fs::write(
        &backward,
        "- backward_op : a_grad\n  forward : b_grad (Tensor x) -> Tensor(out)\n  args : (Tensor x)\n  output : Tensor(out)\n  backward : b_grad\n\n\
         - backward_op : b_grad\n  forward : a_grad (Tensor x) -> Tensor(out)\n  args : (Tensor x)\n  output : Tensor(out)\n  backward : a_grad\n",
    )
    .unwrap();
    std::fs::write(
        &ops,
        "- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n",
    )
    .unwrap();
    // A directory is read as Paddle's yaml folder.
    let o = pir(&["yaml", "check", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("backward.yaml:5: op `a_grad`"), "{err}");
    assert!(err.contains("a_grad -> b_grad -> a_grad"), "{err}");
    std::fs::remove_file(&backward).unwrap();
    let o = pir(&["yaml", "check", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("ok: 1 op class(es) from 1 file(s)"),
        "{}",
        stdout(&o)
    );
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
