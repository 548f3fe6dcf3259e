//! `grad` against Paddle 3.3.1 on every one-op program of `paddle-ref/ops/vjp/`: the forward
//! part (the print up to the loss) is parsed, `grad(loss, inputs)` runs with the loss and
//! inputs Paddle used (the `pd_op.data` values with `stop_gradient:[false]`), and the result
//! must print byte for byte as Paddle's program, verify, and have the result types infer-meta
//! computes. Exceptions are listed with the evidence; at most 2% may be exceptions.

mod common;

use pir_runtime::{check_types, parser, verify, Program, Value};

/// The `pd_op.data` results that do not stop gradients, in program order.
fn grad_inputs(prog: &Program) -> Vec<Value> {
    prog.block_ops(prog.block())
        .filter(|&op| prog.op(op).name() == "pd_op.data")
        .map(|op| prog.op(op).result(0))
        .filter(|&v| !pir_autodiff::stop_gradient::value_stop_gradient(prog, v))
        .collect()
}

#[test]
fn every_vjp_program_is_reproduced_byte_for_byte() {
    let Some(root) = common::paddle_ref("vjp_programs") else {
        return;
    };
    let dir = root.join("ops/vjp");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("MANIFEST.json")).unwrap())
            .unwrap();
    let ctx = common::context();
    let cases = manifest["cases"].as_array().unwrap();
    let mut failures = Vec::new();
    for case in cases {
        let id = case["case_id"].as_str().unwrap();
        let only = std::env::var("PIR_VJP_CASE").ok();
        if only.as_deref().is_some_and(|o| o != id) {
            continue;
        }
        let text_file = case["program_text"].as_str().unwrap();
        let expected = std::fs::read_to_string(root.join("ops").join(text_file)).unwrap();
        let n_fwd = case["forward_ops"].as_array().unwrap().len()
            + case["loss_ops"].as_array().unwrap().len();
        let lines: Vec<&str> = expected.lines().collect();
        let forward = format!("{{\n{}\n}}\n", lines[1..1 + n_fwd].join("\n"));
        let mut prog = match parser::parse_program(&ctx, &forward) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{id}: forward part does not parse: {e}"));
                continue;
            }
        };
        let last = prog.last_op(prog.block()).unwrap();
        let loss = prog.op(last).result(0);
        let inputs = grad_inputs(&prog);
        if let Err(e) = pir_autodiff::grad(&mut prog, &[loss], &inputs, &[]) {
            failures.push(format!("{id}: grad failed: {e}"));
            continue;
        }
        let got = prog.to_string();
        if only.is_some() {
            eprintln!("{got}");
        }
        if got != expected {
            failures.push(format!("{id}: {}", common::first_diff(&got, &expected)));
            continue;
        }
        if let Err(e) = verify(&prog) {
            failures.push(format!("{id}: verify: {e}"));
            continue;
        }
        let report = check_types(&prog);
        if !report.is_clean() {
            failures.push(format!("{id}: check_types: {:?}", report.differences));
        }
    }
    eprintln!("{} of {} vjp programs reproduced", cases.len() - failures.len(), cases.len());
    for f in &failures {
        eprintln!("  {f}");
    }
    let allowed = cases.len() * 2 / 100;
    assert!(
        failures.len() <= allowed,
        "{} exceptions, at most {allowed} allowed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
