//! `pd_op_to_kernel` on `pd_op.if` and `pd_op.while`. Paddle's reference has no lowered
//! control-flow program, so the expected text is defined here from Paddle's source
//! (`pd_op_to_kernel_pass.cc`, `control_flow_op.cc`):
//!
//! * `HandleForIfOp` builds a new `pd_op.if` of the lowered condition with the lowered result
//!   types (`IfOp::Build(cond, output_types)` sets no attribute; only a true
//!   `fake_false_branch` is copied), then lowers each block into it.
//! * `HandleForWhileOp` builds `WhileOp::Build(cond, inputs)`: results and body arguments get
//!   the lowered inputs' types, each argument `{stop_gradient: <the input's>}` (the
//!   producer's `stop_gradient` entry, false when it has none: the new `if` has none).
//! * `cf.yield` is a "special op": copied with its operands mapped and `origin_id` = the id
//!   of the op it came from, like builtin ops; every new op takes the next id, in creation
//!   order (an `if` before the ops of its blocks), and `if`/`while`/`cf.yield` print theirs.

mod common;

use pir_passes::{IrModule, PassAttr, PassAttrs, PassManager};
use pir_runtime::parser;

const BEFORE: &str = r#"{
    (%0) = "pd_op.data" [id:10] () {dtype:float32,name:"x",place:Place(undefined:0),shape:[4],stop_gradient:[true]} : () -> tensor<4xf32>
    (%1) = "pd_op.data" [id:11] () {dtype:bool,name:"c",place:Place(undefined:0),shape:[],stop_gradient:[true]} : () -> tensor<b>
    (%2) = "pd_op.if" [id:12] (%1) {stop_gradient:[true]} -> tensor<4xf32> {
        (%3) = "pd_op.relu" [id:13] (%0) {stop_gradient:[true]} : (tensor<4xf32>) -> tensor<4xf32>
        () = "cf.yield" [id:14] (%3) {} : (tensor<4xf32>) -> 
    } else {
        () = "cf.yield" [id:15] (%0) {} : (tensor<4xf32>) -> 
    }
    (%4) = "pd_op.while" [id:16] (cond=%1, inputs=%2) { 
    ^%arg_0 {stop_gradient:true}
        (%5) = "pd_op.relu" [id:17] (%arg_0) {stop_gradient:[true]} : (tensor<4xf32>) -> tensor<4xf32>
        () = "cf.yield" [id:18] (%1, %5) {} : (tensor<b>, tensor<4xf32>) -> 
    }
    (%6) = "pd_op.fetch" [id:19] (%4) {col:0,name:"out",stop_gradient:[true]} : (tensor<4xf32>) -> tensor<4xf32>
}
"#;

/// Ids: the largest is 19, the new module takes 20, the new ops 21 on.
const AFTER: &str = r#"{
    (%0) = "data(phi_kernel)" () {dtype:float32,kernel_key:<backend:Undefined|layout:Undefined(AnyLayout)|dtype:float32>,kernel_name:"data",name:"x",op_name:"pd_op.data",origin_id:21,place:Place(undefined:0),shape:[4],stop_gradient:[true]} : () -> undefined_tensor<4xf32>
    (%1) = "data(phi_kernel)" () {dtype:bool,kernel_key:<backend:Undefined|layout:Undefined(AnyLayout)|dtype:bool>,kernel_name:"data",name:"c",op_name:"pd_op.data",origin_id:22,place:Place(undefined:0),shape:[],stop_gradient:[true]} : () -> undefined_tensor<b>
    (%2) = "pd_op.if" [id:23] (%1) {} -> cpu_tensor<4xf32> {
        (%3) = "relu(phi_kernel)" (%0) {kernel_key:<backend:CPU|layout:NCHW|dtype:float32>,kernel_name:"relu",op_name:"pd_op.relu",origin_id:24,stop_gradient:[true]} : (undefined_tensor<4xf32>) -> cpu_tensor<4xf32>
        () = "cf.yield" [id:25] (%3) {origin_id:14} : (cpu_tensor<4xf32>) -> 
    } else {
        () = "cf.yield" [id:26] (%0) {origin_id:15} : (undefined_tensor<4xf32>) -> 
    }
    (%4) = "pd_op.while" [id:27] (cond=%1, inputs=%2) { 
    ^%arg_0 {stop_gradient:false}
        (%5) = "relu(phi_kernel)" (%arg_0) {kernel_key:<backend:CPU|layout:NCHW|dtype:float32>,kernel_name:"relu",op_name:"pd_op.relu",origin_id:28,stop_gradient:[true]} : (cpu_tensor<4xf32>) -> cpu_tensor<4xf32>
        () = "cf.yield" [id:29] (%1, %5) {origin_id:18} : (undefined_tensor<b>, cpu_tensor<4xf32>) -> 
    }
    (%6) = "fetch(phi_kernel)" (%4) {col:0,kernel_key:<backend:CPU|layout:Undefined(AnyLayout)|dtype:float32>,kernel_name:"fetch",name:"out",op_name:"pd_op.fetch",origin_id:30,stop_gradient:[true]} : (cpu_tensor<4xf32>) -> cpu_tensor<4xf32>
}
"#;

#[test]
fn if_and_while_keep_their_regions_lowered() {
    let ctx = common::context();
    op_defs::control_flow::register(&ctx).unwrap();
    pir_passes::kernel::register(&ctx).unwrap();
    let parsed = parser::parse_module_with(&ctx, BEFORE, &pir_passes::kernel::syntax())
        .unwrap_or_else(|e| panic!("input:{e}"));
    let mut module = IrModule::from(parsed);
    assert_eq!(
        module.to_string(),
        BEFORE,
        "the input prints back as written"
    );
    let mut attrs = PassAttrs::new();
    if let Some(root) = std::env::var_os("PIR_PADDLE_REF") {
        // Kernels checked against the CPU wheel's registry when it is there.
        let reg = std::path::Path::new(&root).join("phi_kernels_cpu.json");
        attrs.insert(
            "kernel_registry".into(),
            PassAttr::Str(reg.display().to_string()),
        );
    }
    let mut pm = PassManager::new(2);
    pm.add_pass("pd_op_to_kernel", attrs).unwrap();
    pm.run(&mut module).unwrap();
    let got = module.to_string();
    if got != AFTER {
        let diff = got
            .lines()
            .zip(AFTER.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .map(|(i, (a, b))| format!("line {}:\n  got:      {a}\n  expected: {b}", i + 1))
            .unwrap_or_default();
        panic!("{diff}\n--- got ---\n{got}");
    }
}
