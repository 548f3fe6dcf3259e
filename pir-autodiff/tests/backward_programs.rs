//! `append_backward` and `grad` against Paddle 3.3.1 on `paddle-ref/programs/backward/`
//! (`mlp_mean`, `conv_bn_relu`): the program before, the loss (the last op's result), and for
//! `grad` the input `x` (the `pd_op.data` value), as Paddle's reference run used them
//! (`PASSES.md` §3). The result must print byte for byte, verify and type-check clean.

mod common;

use pir_runtime::{check_types, parser, verify, Program, Value};

fn loss_of(prog: &Program) -> Value {
    let last = prog.last_op(prog.block()).expect("a program with ops");
    prog.op(last).result(0)
}

fn data_value(prog: &Program) -> Value {
    let op = prog
        .block_ops(prog.block())
        .find(|&op| prog.op(op).name() == "pd_op.data")
        .expect("a pd_op.data op");
    prog.op(op).result(0)
}

/// The forward part of a print: its first `n` ops.
fn forward_part(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    format!("{{\n{}\n}}\n", lines[1..1 + n].join("\n"))
}

fn check(name: &str, got: &Program, expected: &str) {
    let text = got.to_string();
    assert!(
        text == expected,
        "{name}: {}",
        common::first_diff(&text, expected)
    );
    verify(got).unwrap_or_else(|e| panic!("{name}: verify: {e}"));
    let report = check_types(got);
    assert!(report.is_clean(), "{name}: {:?}", report.differences);
}

#[test]
fn backward_programs_are_reproduced_with_both_apis() {
    let Some(root) = common::paddle_ref("backward_programs") else {
        return;
    };
    let dir = root.join("programs/backward");
    let ctx = common::context();
    for name in ["mlp_mean", "conv_bn_relu"] {
        let read = |suffix: &str| std::fs::read_to_string(dir.join(format!("{name}_{suffix}.txt")));
        let before = read("before").unwrap();
        let n = before.lines().count() - 2;

        let mut prog = parser::parse_program(&ctx, &before).unwrap();
        let loss = loss_of(&prog);
        let pairs = pir_autodiff::append_backward(&mut prog, loss).unwrap();
        check(name, &prog, &read("append_backward").unwrap());
        // Every trainable parameter gets a gradient; the batch-norm statistics do not.
        let with_grad = pairs.iter().filter(|(_, g)| g.is_some()).count();
        assert_eq!(with_grad, 4, "{name}: {pairs:?}");

        let expected = read("ir_backward_grad").unwrap();
        let mut prog = parser::parse_program(&ctx, &forward_part(&expected, n)).unwrap();
        let (loss, x) = (loss_of(&prog), data_value(&prog));
        let grads = pir_autodiff::grad(&mut prog, &[loss], &[x], &[]).unwrap();
        assert!(grads[0].is_some(), "{name}: x gets a gradient");
        check(name, &prog, &expected);
    }
}
