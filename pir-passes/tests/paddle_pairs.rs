//! Every pass pair in `paddle-ref/programs/passes/` this crate implements: the `_before` program
//! is parsed, the pass (or pipeline) runs through the `PassManager`, and the result must print
//! byte for byte as Paddle's `_after`.

mod common;

use pir_passes::{IrModule, PassManager};
use pir_runtime::parser;

/// Runs `passes` at `level` on `<stem>_before.txt` and compares with `<stem>_after.txt`.
fn check_pair(stem: &str, level: u8, passes: &[&str]) {
    let Some(root) = common::paddle_ref() else {
        return;
    };
    let ctx = common::context();
    let before = common::pair_file(&root, &format!("{stem}_before.txt"));
    let after = common::pair_file(&root, &format!("{stem}_after.txt"));
    // Kernel programs (the inplace pass's input) read with the kernel dialect's syntax.
    pir_passes::kernel::register(&ctx).unwrap();
    let parsed = parser::parse_module_with(&ctx, &before, &pir_passes::kernel::syntax())
        .unwrap_or_else(|e| panic!("{stem}_before.txt:{e}"));
    let mut module = IrModule::from(parsed);
    let mut pm = PassManager::new(level);
    for p in passes {
        let mut attrs = pir_passes::PassAttrs::new();
        if *p == "pd_op_to_kernel" {
            // Kernels are checked against the CPU wheel's registry.
            let reg = root.join("phi_kernels_cpu.json");
            attrs.insert(
                "kernel_registry".into(),
                pir_passes::PassAttr::Str(reg.display().to_string()),
            );
        }
        pm.add_pass(p, attrs).unwrap();
    }
    pm.run(&mut module)
        .unwrap_or_else(|e| panic!("{stem}: {e}"));
    let got = module.to_string();
    if got != after {
        let diff = got
            .lines()
            .zip(after.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .map(|(i, (a, b))| format!("line {}:\n  got:      {a}\n  expected: {b}", i + 1))
            .unwrap_or_else(|| {
                format!("{} lines vs {}", got.lines().count(), after.lines().count())
            });
        panic!("{stem}: output differs from Paddle's\n{diff}\n--- got ---\n{got}");
    }
}

#[test]
fn dead_code_elimination() {
    check_pair(
        "small_cnn__dead_code_elimination_pass",
        2,
        &["dead_code_elimination_pass"],
    );
}

#[test]
fn dead_code_elimination_predictor() {
    check_pair(
        "small_cnn_predictor__dead_code_elimination_pass",
        2,
        &["dead_code_elimination_pass"],
    );
}

/// Only the duplicate `full(0.1)` merges: the `scale`/`exp` pairs below the in-place
/// `batch_norm_` are not safe to replace (Paddle's output is the evidence for the rule that an
/// in-place op is never safe to replace).
#[test]
fn common_subexpression_elimination() {
    check_pair(
        "small_cnn__common_subexpression_elimination_pass",
        2,
        &["common_subexpression_elimination_pass"],
    );
}

/// After the BN fusion the chain is safe: `full`, `scale` and `exp` merge.
#[test]
fn common_subexpression_elimination_predictor() {
    check_pair(
        "small_cnn_predictor__common_subexpression_elimination_pass",
        2,
        &["common_subexpression_elimination_pass"],
    );
}

#[test]
fn replace_fetch_with_shadow_output() {
    check_pair(
        "small_cnn_predictor__replace_fetch_with_shadow_output_pass",
        2,
        &["replace_fetch_with_shadow_output_pass"],
    );
}

#[test]
fn conv2d_bn_fuse() {
    check_pair(
        "small_cnn__conv2d_bn_fuse_pass",
        2,
        &["conv2d_bn_fuse_pass"],
    );
}

#[test]
fn conv2d_bn_fuse_predictor() {
    check_pair(
        "small_cnn_predictor__conv2d_bn_fuse_pass",
        2,
        &["conv2d_bn_fuse_pass"],
    );
}

/// One manager, three passes: after the fusion CSE merges the `scale`/`exp` chain too.
#[test]
fn pipeline_bnfuse_cse_dce() {
    check_pair(
        "small_cnn__pipeline_bnfuse_cse_dce",
        2,
        &[
            "conv2d_bn_fuse_pass",
            "common_subexpression_elimination_pass",
            "dead_code_elimination_pass",
        ],
    );
}

/// Nothing to clean in `small_cnn`: the program prints unchanged.
#[test]
fn identity_op_clean() {
    check_pair(
        "small_cnn__identity_op_clean_pass",
        2,
        &["identity_op_clean_pass"],
    );
}

/// The executor's lowering of the whole training-free program (with its `fetch`), ids
/// continuing Paddle's counter.
#[test]
fn pd_op_to_kernel_executor() {
    check_pair(
        "small_cnn_executor__pd_op_to_kernel",
        2,
        &["pd_op_to_kernel"],
    );
}

/// The predictor's lowering, after constant folding and `shadow_output`.
#[test]
fn pd_op_to_kernel_predictor() {
    check_pair(
        "small_cnn_predictor__pd_op_to_kernel",
        2,
        &["pd_op_to_kernel"],
    );
}

/// Nine kernels switch to their in-place twins.
#[test]
fn inplace_predictor() {
    check_pair("small_cnn_predictor__inplace_pass", 3, &["inplace_pass"]);
}

/// On a `pd_op` program the pass changes nothing (it rewrites kernel ops only).
#[test]
fn inplace_on_pd_op_program() {
    check_pair("small_cnn__inplace_pass", 3, &["inplace_pass"]);
}
