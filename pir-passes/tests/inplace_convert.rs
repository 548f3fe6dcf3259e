//! The in-place ↔ out-of-place conversions (defined by these tests; Paddle has no reference).

use pir_passes::{IrModule, PassManager};
use pir_runtime::{parser, IrContext};

fn run(pass: &str, text: &str) -> String {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    let prog = parser::parse_program(&ctx, text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    pir_runtime::verify(&prog).unwrap();
    let mut m = IrModule::from(prog);
    let mut pm = PassManager::new(3);
    pm.add_pass(pass, Default::default()).unwrap();
    pm.run(&mut m).unwrap();
    pir_runtime::verify(&m.program).unwrap();
    m.program.to_string()
}

const T: &str = "tensor<2x3xf32>";

fn line(lhs: &str, op: &str, args: &str, n_in: usize) -> String {
    let ins = vec![T; n_in].join(", ");
    format!("    ({lhs}) = \"pd_op.{op}\" ({args}) {{stop_gradient:[true]}} : ({ins}) -> {T}\n")
}

fn program(lines: &[String]) -> String {
    let data = format!("    (%0) = \"pd_op.data\" () {{dtype:float32,name:\"x\",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]}} : () -> {T}\n");
    format!("{{\n{data}{}}}\n", lines.concat())
}

/// `relu_` becomes `relu`; the `add` after it read the written `%1`, so it reads `%2` now.
#[test]
fn inplace_becomes_out_of_place_and_later_readers_follow() {
    let before = program(&[
        line("%1", "tanh", "%0", 1),
        line("%2", "relu_", "%1", 1),
        line("%3", "add", "%1, %2", 2),
    ]);
    let after = program(&[
        line("%1", "tanh", "%0", 1),
        line("%2", "relu", "%1", 1),
        line("%3", "add", "%2, %2", 2),
    ]);
    assert_eq!(run("inplace_to_out_of_place_pass", &before), after);
}

/// A reader before the in-place op keeps the old value.
#[test]
fn earlier_readers_keep_the_input() {
    let before = program(&[
        line("%1", "tanh", "%0", 1),
        line("%2", "exp", "%1", 1),
        line("%3", "relu_", "%1", 1),
        line("%4", "add", "%2, %3", 2),
    ]);
    let after = before.replace("\"pd_op.relu_\"", "\"pd_op.relu\"");
    assert_eq!(run("inplace_to_out_of_place_pass", &before), after);
}

/// `relu` becomes `relu_` where it is the last reader of a value another op made.
#[test]
fn last_reader_goes_in_place() {
    let before = program(&[line("%1", "tanh", "%0", 1), line("%2", "relu", "%1", 1)]);
    let after = program(&[line("%1", "tanh", "%0", 1), line("%2", "relu_", "%1", 1)]);
    assert_eq!(run("out_of_place_to_inplace_pass", &before), after);
}

/// Not when the input is read later, nor when it is the feed.
#[test]
fn shared_inputs_and_feeds_stay() {
    let shared = program(&[
        line("%1", "tanh", "%0", 1),
        line("%2", "relu", "%1", 1),
        line("%3", "add", "%1, %2", 2),
    ]);
    assert_eq!(run("out_of_place_to_inplace_pass", &shared), shared);
    let feed = program(&[line("%1", "relu", "%0", 1)]);
    assert_eq!(run("out_of_place_to_inplace_pass", &feed), feed);
}

/// The two are inverses where both apply.
#[test]
fn round_trip() {
    let p = program(&[
        line("%1", "tanh", "%0", 1),
        line("%2", "relu", "%1", 1),
        line("%3", "exp", "%2", 1),
    ]);
    let inplace = run("out_of_place_to_inplace_pass", &p);
    assert!(inplace.contains("pd_op.relu_") && inplace.contains("pd_op.exp_"));
    assert_eq!(run("inplace_to_out_of_place_pass", &inplace), p);
}
