//! `pir opt`: passes by name on a text program, `--list`, and a located error for an unknown
//! pass.

use std::process::Command;

const PROGRAM: &str = r#"{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[-1,3],stop_gradient:[true]} : () -> tensor<-1x3xf32>
    (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<-1x3xf32>) -> tensor<-1x3xf32>
    (%2) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<-1x3xf32>) -> tensor<-1x3xf32>
    (%3) = "pd_op.tanh" (%0) {stop_gradient:[true]} : (tensor<-1x3xf32>) -> tensor<-1x3xf32>
    (%4) = "pd_op.add" (%1, %2) {stop_gradient:[true]} : (tensor<-1x3xf32>, tensor<-1x3xf32>) -> tensor<-1x3xf32>
    (%5) = "pd_op.fetch" (%4) {col:0,name:"out"} : (tensor<-1x3xf32>) -> tensor<-1x3xf32>
}
"#;

fn pir(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pir"))
        .args(args)
        .output()
        .expect("pir runs")
}

fn program_file(name: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("pir-opt-{}-{name}.txt", std::process::id()));
    std::fs::write(&p, PROGRAM).unwrap();
    p
}

#[test]
fn cse_dce_and_fetch_replacement() {
    let f = program_file("pipeline");
    let out = pir(&[
        "opt",
        f.to_str().unwrap(),
        "--pass",
        "common_subexpression_elimination_pass,dead_code_elimination_pass",
        "--pass",
        "replace_fetch_with_shadow_output_pass",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let expected = concat!(
        "{\n",
        "    (%0) = \"pd_op.data\" () {dtype:float32,name:\"x\",place:Place(undefined:0),shape:[-1,3],stop_gradient:[true]} : () -> tensor<-1x3xf32>\n",
        "    (%1) = \"pd_op.relu\" (%0) {stop_gradient:[true]} : (tensor<-1x3xf32>) -> tensor<-1x3xf32>\n",
        "    (%2) = \"pd_op.add\" (%1, %1) {stop_gradient:[true]} : (tensor<-1x3xf32>, tensor<-1x3xf32>) -> tensor<-1x3xf32>\n",
        "    () = \"builtin.shadow_output\" (%2) {output_name:\"out\"} : (tensor<-1x3xf32>) -> \n",
        "}\n",
    );
    assert_eq!(text, expected);
}

#[test]
fn level_skips_passes_above_it() {
    let f = program_file("level");
    // CSE is a level-1 pass: at level 0 the program prints unchanged.
    let out = pir(&[
        "opt",
        f.to_str().unwrap(),
        "--pass",
        "common_subexpression_elimination_pass",
        "--opt-level",
        "0",
    ]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), PROGRAM);
}

#[test]
fn list_and_unknown_pass() {
    let out = pir(&["opt", "--list"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("dead_code_elimination_pass"));
    assert!(text.contains("conv2d_bn_fuse_pass"));
    let f = program_file("unknown");
    let out = pir(&["opt", f.to_str().unwrap(), "--pass", "nope"]);
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: pass `nope` has not been registered (`pir opt --list` lists the passes)\n"
    );
}

/// Paddle's pass pairs through the command, with the project's own `pd_op` dialect: each
/// `_before` file run through its passes prints byte for byte as `_after`. Without
/// `PIR_PADDLE_REF` the test prints a notice and passes.
#[test]
fn paddle_pairs_through_the_command() {
    let Some(root) = std::env::var_os("PIR_PADDLE_REF").map(std::path::PathBuf::from) else {
        eprintln!("notice: PIR_PADDLE_REF is not set; the pass pairs are not checked");
        return;
    };
    let dir = root.join("programs/passes");
    let registry = root.join("phi_kernels_cpu.json");
    let lower = format!("pd_op_to_kernel:kernel_registry={}", registry.display());
    let cases: &[(&str, &str, &str)] = &[
        (
            "small_cnn__dead_code_elimination_pass",
            "dead_code_elimination_pass",
            "2",
        ),
        (
            "small_cnn__common_subexpression_elimination_pass",
            "common_subexpression_elimination_pass",
            "2",
        ),
        ("small_cnn__conv2d_bn_fuse_pass", "conv2d_bn_fuse_pass", "2"),
        (
            "small_cnn__identity_op_clean_pass",
            "identity_op_clean_pass",
            "2",
        ),
        ("small_cnn__inplace_pass", "inplace_pass", "3"),
        (
            "small_cnn__pipeline_bnfuse_cse_dce",
            "conv2d_bn_fuse_pass,common_subexpression_elimination_pass,dead_code_elimination_pass",
            "2",
        ),
        (
            "small_cnn_predictor__conv2d_bn_fuse_pass",
            "conv2d_bn_fuse_pass",
            "2",
        ),
        (
            "small_cnn_predictor__common_subexpression_elimination_pass",
            "common_subexpression_elimination_pass",
            "2",
        ),
        (
            "small_cnn_predictor__dead_code_elimination_pass",
            "dead_code_elimination_pass",
            "2",
        ),
        (
            "small_cnn_predictor__replace_fetch_with_shadow_output_pass",
            "replace_fetch_with_shadow_output_pass",
            "2",
        ),
        ("small_cnn_predictor__pd_op_to_kernel", &lower, "2"),
        ("small_cnn_executor__pd_op_to_kernel", &lower, "2"),
        ("small_cnn_predictor__inplace_pass", "inplace_pass", "3"),
    ];
    for (stem, passes, level) in cases {
        let before = dir.join(format!("{stem}_before.txt"));
        let after = std::fs::read_to_string(dir.join(format!("{stem}_after.txt"))).unwrap();
        let out = pir(&[
            "opt",
            before.to_str().unwrap(),
            "--pass",
            passes,
            "--opt-level",
            level,
        ]);
        assert!(
            out.status.success(),
            "{stem}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8(out.stdout).unwrap() == after,
            "{stem}: output differs from Paddle's"
        );
    }
}
