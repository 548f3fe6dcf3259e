//! `identity_op_clean_pass`, rule by rule, on small programs of the project's `pd_op` dialect.

use pir_passes::{IrModule, PassManager};
use pir_runtime::{parser, IrContext};

fn run(text: &str) -> String {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    let prog = parser::parse_program(&ctx, text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut m = IrModule::from(prog);
    let mut pm = PassManager::new(2);
    pm.add_pass("identity_op_clean_pass", Default::default())
        .unwrap();
    pm.run(&mut m).unwrap();
    m.program.to_string()
}

const DATA: &str = "    (%0) = \"pd_op.data\" () {dtype:float32,name:\"x\",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>\n";

fn program(body: &str) -> String {
    format!("{{\n{DATA}{body}}}\n")
}

#[test]
fn scale_by_one_goes_with_its_full() {
    let text = program(concat!(
        "    (%1) = \"pd_op.full\" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>\n",
        "    (%2) = \"pd_op.scale\" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>\n",
        "    (%3) = \"pd_op.relu\" (%2) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n",
    ));
    let expected = program(
        "    (%1) = \"pd_op.relu\" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n",
    );
    assert_eq!(run(&text), expected);
}

#[test]
fn scale_by_two_stays() {
    let text = program(concat!(
        "    (%1) = \"pd_op.full\" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:2} : () -> tensor<1xf32>\n",
        "    (%2) = \"pd_op.scale\" (%0, %1) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>\n",
        "    (%3) = \"pd_op.relu\" (%2) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n",
    ));
    assert_eq!(run(&text), text);
}

/// `(x*2 + 1)*3 + 4` is `x*6 + 7`: one `full(6)` and one `scale` with bias 7, placed before the
/// first source op.
#[test]
fn two_scales_fold() {
    let text = program(concat!(
        "    (%1) = \"pd_op.full\" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:2} : () -> tensor<1xf32>\n",
        "    (%2) = \"pd_op.scale\" (%0, %1) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>\n",
        "    (%3) = \"pd_op.full\" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:3} : () -> tensor<1xf32>\n",
        "    (%4) = \"pd_op.scale\" (%2, %3) {bias:4,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>\n",
        "    (%5) = \"pd_op.relu\" (%4) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n",
    ));
    let expected = program(concat!(
        "    (%1) = \"pd_op.full\" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:6} : () -> tensor<1xf32>\n",
        "    (%2) = \"pd_op.scale\" (%0, %1) {bias:7,bias_after_scale:true,stop_gradient:[true]} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>\n",
        "    (%3) = \"pd_op.relu\" (%2) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n",
    ));
    assert_eq!(run(&text), expected);
}

#[test]
fn casts() {
    // A cast to float32 of a float32 tensor goes; cast(cast(x, f64), f16) is cast(x, f16).
    let text = program(concat!(
        "    (%1) = \"pd_op.cast\" (%0) {dtype:float32,stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n",
        "    (%2) = \"pd_op.cast\" (%1) {dtype:float64,stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf64>\n",
        "    (%3) = \"pd_op.cast\" (%2) {dtype:float16,stop_gradient:[true]} : (tensor<2x3xf64>) -> tensor<2x3xf16>\n",
        "    (%4) = \"pd_op.relu\" (%3) {stop_gradient:[true]} : (tensor<2x3xf16>) -> tensor<2x3xf16>\n",
    ));
    let expected = program(concat!(
        "    (%1) = \"pd_op.cast\" (%0) {dtype:float16,stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf16>\n",
        "    (%2) = \"pd_op.relu\" (%1) {stop_gradient:[true]} : (tensor<2x3xf16>) -> tensor<2x3xf16>\n",
    ));
    assert_eq!(run(&text), expected);
}

/// A cast through int32 loses values: the pair stays.
#[test]
fn cast_through_int_stays() {
    let text = program(concat!(
        "    (%1) = \"pd_op.cast\" (%0) {dtype:int32,stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xi32>\n",
        "    (%2) = \"pd_op.cast\" (%1) {dtype:float32,stop_gradient:[true]} : (tensor<2x3xi32>) -> tensor<2x3xf32>\n",
        "    (%3) = \"pd_op.relu\" (%2) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n",
    ));
    assert_eq!(run(&text), text);
}

#[test]
fn concat_of_one() {
    let text = program(concat!(
        "    (%1) = \"builtin.combine\" (%0) {} : (tensor<2x3xf32>) -> vec[tensor<2x3xf32>]\n",
        "    (%2) = \"pd_op.full\" () {dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:0} : () -> tensor<1xi32>\n",
        "    (%3) = \"pd_op.concat\" (%1, %2) {stop_gradient:[true]} : (vec[tensor<2x3xf32>], tensor<1xi32>) -> tensor<2x3xf32>\n",
        "    (%4) = \"pd_op.relu\" (%3) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n",
    ));
    // The axis `full` is not a source op, but Paddle's deletion takes it too once unused.
    let expected = program(
        "    (%1) = \"pd_op.relu\" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n",
    );
    assert_eq!(run(&text), expected);
}
