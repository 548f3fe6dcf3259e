//! `pir grad`: the backward of a program file with both APIs, and clear errors for bad value
//! names.

use std::process::{Command, Output};

fn pir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pir"))
        .args(args)
        .output()
        .expect("run pir")
}

/// A two-op program of the project's own dialect: `relu(data)` then `mean`.
const PROGRAM: &str = "{
    (%0) = \"pd_op.data\" () {dtype:float32,name:\"x\",place:Place(undefined:0),shape:[2,3],stop_gradient:[false]} : () -> tensor<2x3xf32>
    (%1) = \"pd_op.relu\" (%0) {stop_gradient:[false]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    (%2) = \"pd_op.full_int_array\" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[]} : () -> tensor<0xi64>
    (%3) = \"pd_op.mean\" (%1, %2) {keepdim:false,stop_gradient:[false]} : (tensor<2x3xf32>, tensor<0xi64>) -> tensor<f32>
}
";

/// `PROGRAM` in a file of the target's temporary directory named after `test`.
fn program_file(test: &str) -> std::path::PathBuf {
    let p = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("grad_{test}.txt"));
    std::fs::write(&p, PROGRAM).unwrap();
    p
}

#[test]
fn grad_appends_the_backward_ops_in_paddles_order() {
    let f = program_file("order");
    let o = pir(&[
        "grad",
        f.to_str().unwrap(),
        "--loss",
        "%3",
        "--inputs",
        "%0",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let names: Vec<&str> = out.lines().filter_map(|l| l.split('"').nth(1)).collect();
    assert_eq!(
        names,
        [
            "pd_op.data",
            "pd_op.relu",
            "pd_op.full_int_array",
            "pd_op.mean",
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.mean_grad",
            "pd_op.relu_grad"
        ]
    );
    assert!(
        out.contains("(%7) = \"pd_op.relu_grad\" (%1, %6) {stop_gradient:[false]}"),
        "{out}"
    );
}

#[test]
fn bad_value_names_are_clear_errors() {
    let f = program_file("errors");
    let path = f.to_str().unwrap();
    for (args, msg) in [
        (vec!["--loss", "%9"], "the program has 4 values (%0 to %3)"),
        (vec!["--loss", "x"], "expected a value name like %3"),
        (vec!["--loss", "%3", "--inputs", "%0,%17"], "--inputs `%17`"),
    ] {
        let mut all = vec!["grad", path];
        all.extend(args);
        let o = pir(&all);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(msg), "{all:?}: {err}");
    }
}

#[test]
fn grad_output_replaces_the_seed() {
    // `relu(x)` differentiated with the initial gradient `x` (same shape); a 2x3 gradient for
    // the 0-D `mean` is refused.
    let f = program_file("seed");
    let path = f.to_str().unwrap();
    let o = pir(&["grad", path, "--loss", "%1", "--grad-output", "%0"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    // relu's gradient is fed `%0` directly: no `full` / `full_like` seed.
    assert!(!out.contains("pd_op.full_like"), "{out}");
    assert!(
        out.contains("(%4) = \"pd_op.relu_grad\" (%1, %0) {stop_gradient:[false]}"),
        "{out}"
    );
    let o = pir(&["grad", path, "--loss", "%3", "--grad-output", "%1"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the shape of grad_outputs[0] (tensor<2x3xf32>) should be the same as the shape of outputs[0] (tensor<f32>)"),
        "{err}"
    );
}
