//! Control flow built with the typed closure builders, printed byte-identical to Paddle
//! 3.3.1 (`text/control_flow_pir.txt`, `programs/control_flow/{cond,while}_simple.txt`; the
//! programs with ops the project's dialect lacks are in paddle-corpus' tests); the verifier's named
//! errors on control flow built wrongly; `check_types` inside regions; and a hundred thousand
//! nested regions verified, printed, walked and erased without recursion.
//!
//! The references are read from `$PIR_PADDLE_REF` (or `$PIR_PADDLE_YAML/../paddle-ref`); without
//! either the comparisons print a notice and pass (the other tests run regardless).

use std::path::PathBuf;

use op_defs::control_flow::{set_stop_gradient, ControlFlowError, IfOp, WhileOp};
use op_defs::pd_op::*;
use pir_runtime::meta::Scalar;
use pir_runtime::phi::{DataType, Place};
use pir_runtime::{Builder, OpId, Program, Value};

#[path = "common/fixtures.rs"]
mod fixtures;
use fixtures::context;

fn reference(rel: &str) -> Option<String> {
    let dir = match std::env::var_os("PIR_PADDLE_REF") {
        Some(p) => PathBuf::from(p),
        None => match std::env::var_os("PIR_PADDLE_YAML") {
            Some(p) => PathBuf::from(p).join("../paddle-ref"),
            None => {
                eprintln!("notice: PIR_PADDLE_REF / PIR_PADDLE_YAML not set; skipping the comparison with Paddle");
                return None;
            }
        },
    };
    Some(std::fs::read_to_string(dir.join(rel)).expect("reference program"))
}

/// Sets every result's `stop_gradient` of `v`'s op, as the Python API does when it creates it.
fn sg(b: &mut Builder<'_>, v: Value, flag: bool) -> Value {
    set_stop_gradient(b.program_mut(), v, flag).unwrap();
    v
}

/// `paddle.static.data(name, [4], dtype)`.
fn data(b: &mut Builder<'_>, name: &str, dtype: DataType, stop: bool) -> Value {
    let v = fixtures::data(b, name, dtype, &[4]);
    sg(b, v, stop)
}

/// `paddle.full(shape, value, dtype)` (place undefined, as `paddle.full` makes it).
fn full(b: &mut Builder<'_>, shape: &[i64], value: f64, dtype: DataType) -> Value {
    let attrs = FullOpAttrs {
        shape,
        value: Scalar::F64(value),
        dtype,
        place: Place::default(),
    };
    let v = FullOp::build(b, attrs).unwrap().out(b.program());
    sg(b, v, true)
}

/// `x * scale + bias` (`paddle.scale`, and Python's `x * 2.0`, `x - 1.0`, `i + 1`): the scale
/// is a `full` on the CPU.
fn scale(b: &mut Builder<'_>, x: Value, s: f32, bias: f32, stop: bool) -> Value {
    let attrs = FullOpAttrs {
        shape: &[1],
        value: Scalar::F64(f64::from(s)),
        dtype: DataType::Float32,
        place: Place::cpu(),
    };
    let f = FullOp::build(b, attrs).unwrap().out(b.program());
    sg(b, f, true);
    let attrs = ScaleOpAttrs {
        bias: Scalar::F32(bias),
        bias_after_scale: true,
    };
    let v = ScaleOp::build_with_values(b, x, f, attrs)
        .unwrap()
        .out(b.program());
    sg(b, v, stop)
}

fn less_than(b: &mut Builder<'_>, x: Value, y: Value) -> Value {
    let v = LessThanOp::build(b, x, y).unwrap().out(b.program());
    sg(b, v, true)
}

fn greater_than(b: &mut Builder<'_>, x: Value, y: Value) -> Value {
    let v = GreaterThanOp::build(b, x, y).unwrap().out(b.program());
    sg(b, v, true)
}

/// `pred = paddle.sum(x) > 0`, then `cond(pred, x * 2.0, x - 1.0)`.
fn sum_cond(b: &mut Builder<'_>, x: Value) -> Value {
    let attrs = SumOpAttrs {
        dtype: DataType::Undefined,
        keepdim: false,
    };
    let s = SumOp::build(b, x, &[], attrs).unwrap().out(b.program());
    sg(b, s, true);
    let all_ints = |b: &mut Builder<'_>| {
        let ops: Vec<OpId> = b.program().block_ops(b.program().block()).collect();
        for op in ops {
            let v = b.program().op(op).result(0);
            sg(b, v, true);
        }
    };
    all_ints(b);
    let zero = full(b, &[], 0.0, DataType::Float32);
    let pred = greater_than(b, s, zero);
    let op = IfOp::build(
        b,
        pred,
        |b| Ok(vec![scale(b, x, 2.0, 0.0, true)]),
        |b| Ok(vec![scale(b, x, 1.0, -1.0, true)]),
    )
    .unwrap();
    op.results(b.program())[0]
}

/// `while_loop(i < n, [i + 1, v * 2.0])` from `i = 0`.
fn count_loop(b: &mut Builder<'_>, v: Value, n: f64, body_scale: f32, extra: bool) -> WhileOp {
    let i = full(b, &[1], 0.0, DataType::Int64);
    let n = full(b, &[1], n, DataType::Int64);
    let c = less_than(b, i, n);
    WhileOp::build(b, c, &[i, v], |b, args| {
        let i1 = scale(b, args[0], 1.0, 1.0, true);
        let mut v1 = scale(b, args[1], body_scale, 0.0, true);
        if extra {
            v1 = scale(b, v1, 1.0, 1.0, true);
        }
        let c1 = less_than(b, i1, n);
        Ok((c1, vec![i1, v1]))
    })
    .unwrap()
}

#[test]
fn control_flow_pir_from_typed_builders() {
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", DataType::Float32, true);
    let r = sum_cond(&mut b, x);
    count_loop(&mut b, r, 3.0, 2.0, false);
    pir_runtime::verify(&prog).unwrap();
    if let Some(expected) = reference("text/control_flow_pir.txt") {
        assert_eq!(prog.to_string(), expected);
    }
}

#[test]
fn cond_simple_from_typed_builders() {
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", DataType::Float32, true);
    sum_cond(&mut b, x);
    pir_runtime::verify(&prog).unwrap();
    if let Some(expected) = reference("programs/control_flow/cond_simple.txt") {
        assert_eq!(prog.to_string(), expected);
    }
}

#[test]
fn while_simple_from_typed_builders() {
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", DataType::Float32, true);
    let w = count_loop(&mut b, x, 5.0, 0.5, true);
    pir_runtime::verify(&prog).unwrap();
    // The results are typed from the loop variables.
    let t = |d: DataType, dims: &[i64]| Some(ctx.dense_tensor_type(d, dims));
    let types: Vec<_> = w
        .results(&prog)
        .iter()
        .map(|&v| prog.value_type(v))
        .collect();
    assert_eq!(
        types,
        [t(DataType::Int64, &[1]), t(DataType::Float32, &[4])]
    );
    if let Some(expected) = reference("programs/control_flow/while_simple.txt") {
        assert_eq!(prog.to_string(), expected);
    }
}

#[test]
fn branches_that_disagree_are_refused_when_building() {
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", DataType::Float32, true);
    let y = data(&mut b, "y", DataType::Int32, true);
    let c = data(&mut b, "c", DataType::Bool, true);
    let err = IfOp::build(&mut b, c, |_| Ok(vec![x]), |_| Ok(vec![])).unwrap_err();
    assert_eq!(err, ControlFlowError::BranchCount { then: 1, else_: 0 });
    let err = IfOp::build(&mut b, c, |_| Ok(vec![x]), |_| Ok(vec![y])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "pd_op.if: value 0 is tensor<4xf32> in the then branch but tensor<4xi32> in the else branch"
    );
    // Dims that differ become -1, as Paddle's IfOp::Build merges them.
    let z = full(&mut b, &[7], 0.0, DataType::Float32);
    let op = IfOp::build(&mut b, c, |_| Ok(vec![x]), |_| Ok(vec![z])).unwrap();
    let r = op.results(b.program())[0];
    assert_eq!(
        b.program().value_type(r),
        Some(ctx.dense_tensor_type(DataType::Float32, &[-1]))
    );
}

/// Paddle declares `YieldOp : Op<YieldOp, SideEffectTrait>`: passes that erase unused ops
/// (dead-code elimination) must see a region's terminator as having a side effect.
#[test]
fn yield_has_paddles_side_effect_trait() {
    use pir_runtime::traits::SideEffect;
    let ctx = context();
    let def = ctx
        .op_def("cf.yield")
        .expect("cf.yield registered with pd_op");
    assert!(def.has_trait::<SideEffect>() && def.has_trait_named("SideEffectTrait"));
    assert!(!ctx.op_def("pd_op.if").unwrap().has_trait::<SideEffect>());
}
