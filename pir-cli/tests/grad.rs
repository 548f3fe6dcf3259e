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

/// The last value defined by a top-level op of `text` (`%N` of its last `    (%..., %N) =`).
fn last_value(text: &str) -> usize {
    text.lines()
        .rev()
        .filter(|l| l.starts_with("    (%"))
        .find_map(|l| {
            let defs = l.split(')').next()?;
            defs.rsplit('%').next()?.parse().ok()
        })
        .unwrap_or(0)
}

#[test]
fn grad_on_paddles_control_flow_programs_verifies_or_fails_clearly() {
    // `programs/control_flow/*` (Paddle's prints and JSON of if / while / pylayer programs):
    // `pir grad` with the last value as loss either prints a verified program (it verifies
    // before printing) or fails with a message naming the file and the op, never a panic.
    // Only `pylayer` wants gradients there (its `x` does not stop them), and Paddle builds a
    // `pylayer`'s backward by running a Python function, which pir-rs cannot.
    // `cond_nested_multi` uses ops (`abs`) only the full dialect (`PIR_PADDLE_YAML`) has.
    let (Some(root), Some(_)) = (
        std::env::var_os("PIR_PADDLE_REF"),
        std::env::var_os("PIR_PADDLE_YAML"),
    ) else {
        eprintln!("notice: control-flow grad test skipped: set PIR_PADDLE_REF and PIR_PADDLE_YAML");
        return;
    };
    let dir = std::path::PathBuf::from(root).join("programs/control_flow");
    let mut seen = 0;
    for name in [
        "cond_simple",
        "cond_nested_multi",
        "while_simple",
        "pylayer",
    ] {
        for ext in ["txt", "json"] {
            let f = dir.join(format!("{name}.{ext}"));
            let text = std::fs::read_to_string(dir.join(format!("{name}.txt"))).unwrap();
            let loss = format!("%{}", last_value(&text));
            let o = pir(&["grad", f.to_str().unwrap(), "--loss", &loss]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!err.contains("panicked"), "{name}.{ext}: {err}");
            if name == "pylayer" {
                assert!(!o.status.success(), "{name}.{ext}");
                assert!(err.contains("pd_op.pylayer"), "{name}.{ext}: {err}");
                assert!(err.contains("backward_function_id"), "{name}.{ext}: {err}");
                assert!(
                    err.contains(&format!("{name}.{ext}")),
                    "{name}.{ext}: {err}"
                );
            } else {
                assert!(o.status.success(), "{name}.{ext}: {err}");
                let out = String::from_utf8_lossy(&o.stdout);
                assert!(out.contains("\"pd_op.if\"") || out.contains("\"pd_op.while\""));
            }
            seen += 1;
        }
    }
    assert_eq!(seen, 8);
}

/// `cond_simple` with `x` wanting gradients: the then branch's `scale` reads its `full`
/// through the cf pipe.
const COND: &str = "{
    (%0) = \"pd_op.data\" () {dtype:float32,name:\"x\",place:Place(undefined:0),shape:[4],stop_gradient:[false]} : () -> tensor<4xf32>
    (%1) = \"pd_op.full_int_array\" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[]} : () -> tensor<0xi64>
    (%2) = \"pd_op.sum\" (%0, %1) {dtype:Undefined,keepdim:false,stop_gradient:[false]} : (tensor<4xf32>, tensor<0xi64>) -> tensor<f32>
    (%3) = \"pd_op.full\" () {dtype:float32,place:Place(undefined:0),shape:[],stop_gradient:[true],value:0} : () -> tensor<f32>
    (%4) = \"pd_op.greater_than\" (%2, %3) {stop_gradient:[true]} : (tensor<f32>, tensor<f32>) -> tensor<b>
    (%5) = \"pd_op.if\" (%4) {stop_gradient:[false]} -> tensor<4xf32> {
        (%6) = \"pd_op.full\" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:2} : () -> tensor<1xf32>
        (%7) = \"pd_op.scale\" (%0, %6) {bias:0,bias_after_scale:true,stop_gradient:[false]} : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
        () = \"cf.yield\" (%7) {} : (tensor<4xf32>) -> 
    } else {
        (%8) = \"pd_op.full\" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
        (%9) = \"pd_op.scale\" (%0, %8) {bias:-1,bias_after_scale:true,stop_gradient:[false]} : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
        () = \"cf.yield\" (%9) {} : (tensor<4xf32>) -> 
    }
}
";

#[test]
fn grad_of_an_if_prints_the_cf_pipes() {
    let p = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("grad_cond.txt");
    std::fs::write(&p, COND).unwrap();
    let o = pir(&["grad", p.to_str().unwrap(), "--loss", "%5"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    // Both branches' backward read their scale: two pipes, two pops.
    assert!(
        out.starts_with("{\n    (%stack_0, %inlet_0, %outlet_0) = \"cf.stack_create\" () {}"),
        "{out}"
    );
    assert!(
        out.contains("(%stack_1, %inlet_1, %outlet_1) = \"cf.stack_create\""),
        "{out}"
    );
    assert_eq!(out.matches("\"cf.tuple_pop\"").count(), 2, "{out}");
    assert_eq!(out.matches("\"cf.tuple_push\"").count(), 2, "{out}");
    // Each pipe's stack goes first in the program, so the else branch's (laid second) prints
    // first: the then branch pushes into %inlet_1, the else branch into %inlet_0.
    assert!(
        out.contains("() = \"cf.tuple_push\" (%inlet_1, %6, %7) {}"),
        "{out}"
    );
    assert!(
        out.contains("() = \"cf.tuple_push\" (%inlet_0, %8, %9) {}"),
        "{out}"
    );
    assert!(
        out.contains("(%13, %14) = \"cf.tuple_pop\" (%outlet_1) {}"),
        "{out}"
    );
    assert!(out.contains("(%15) = \"pd_op.scale\" (%11, %13)"), "{out}");
    assert!(out.contains("(%18) = \"pd_op.scale\" (%11, %16)"), "{out}");
}

/// `y = array_read(array_write(x, 0), 0)`, `loss = sum(y)`, as Paddle's Python API builds it,
/// written as Paddle 3 JSON (the text form drops an array's element dims).
fn array_program_file() -> std::path::PathBuf {
    use pir_runtime::op_support::{build_with_values, AttrArg};
    use pir_runtime::phi::{DataType, Place};
    use pir_runtime::{Builder, Program, Value};
    let ctx = pir_runtime::IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let op = |b: &mut Builder<'_>, name: &str, xs: &[Value], attrs: &[AttrArg<'_>], stop| {
        let def = b.ctx().op_def(name).unwrap();
        let xs: Vec<Option<Value>> = xs.iter().copied().map(Some).collect();
        let id = build_with_values(b, def, &xs, attrs).unwrap();
        let v = b.program().op(id).result(0);
        op_defs::control_flow::set_stop_gradient(b.program_mut(), v, stop).unwrap();
        v
    };
    let f32 = AttrArg::DataType(DataType::Float32);
    let index = [
        AttrArg::I64s(&[1]),
        AttrArg::Scalar(pir_runtime::meta::Scalar::F64(0.0)),
        AttrArg::DataType(DataType::Int64),
        AttrArg::Place(Place::cpu()),
    ];
    let data = [
        AttrArg::Str("x"),
        AttrArg::I64s(&[2, 3]),
        f32,
        AttrArg::Place(Place::default()),
    ];
    let x = op(&mut b, "pd_op.data", &[], &data, false);
    let arr = op(&mut b, "pd_op.create_array", &[], &[f32], true);
    let i = op(&mut b, "pd_op.full", &[], &index, true);
    let xc = op(&mut b, "pd_op.cast", &[x], &[f32], false);
    op(&mut b, "pd_op.array_write_", &[arr, xc, i], &[], false);
    let j = op(&mut b, "pd_op.full", &[], &index, true);
    let y = op(&mut b, "pd_op.array_read", &[arr, j], &[], false);
    let axis = [
        AttrArg::I64s(&[]),
        AttrArg::DataType(DataType::Int64),
        AttrArg::Place(Place::cpu()),
    ];
    let axis = op(&mut b, "pd_op.full_int_array", &[], &axis, true);
    let sum = [AttrArg::DataType(DataType::Undefined), AttrArg::Bool(false)];
    op(&mut b, "pd_op.sum", &[y, axis], &sum, false);
    let opts = pir_json::WriteOptions {
        readable: true,
        trainable: true,
    };
    let p = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("grad_array.json");
    std::fs::write(&p, pir_json::write_program_with(&prog, &opts)).unwrap();
    p
}

#[test]
fn grad_differentiates_through_a_tensor_array() {
    // Expected from Paddle's ArrayReadOp::Vjp / ArrayWrite_Op::Vjp and ir_backward's array
    // rules (see pir-autodiff's tests/arrays.rs): a zero gradient array, entry 0 of it summed
    // with sum's gradient, then read back as x's gradient and zeroed.
    let f = array_program_file();
    let o = pir(&[
        "grad",
        f.to_str().unwrap(),
        "--loss",
        "%8",
        "--inputs",
        "%0",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let names: Vec<&str> = out.lines().filter_map(|l| l.split('"').nth(1)).collect();
    assert_eq!(
        names[9..],
        [
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.sum_grad",
            "pd_op.create_array_like",
            "pd_op.array_read",
            "pd_op.add",
            "pd_op.array_write_",
            "pd_op.array_read",
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.array_write_",
            "pd_op.cast"
        ],
        "{out}"
    );
    assert!(
        out.contains("(%12) = \"pd_op.create_array_like\" (%1) {stop_gradient:[true],val:0}"),
        "{out}"
    );
    // `pir grad` verified the result; what it printed reads back and verifies too.
    let ctx = pir_runtime::IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    let again = pir_runtime::parser::parse_program(&ctx, &out).unwrap();
    pir_runtime::verify(&again).unwrap();
}
