//! Programs built with the generated typed builders — no explicit result types, every result
//! type inferred by the infer-meta functions — printed byte-identical to Paddle 3.3.1
//! (`paddle-ref/text/tiny_3op_pir.txt`, `small_features_pir.txt`, `small_features_startup_pir.txt`).
//!
//! The Python source of each program is in `../shared/README.md`; the code below makes the
//! same calls Paddle's Python API makes (its `_C_ops` functions build `full` / `full_int_array`
//! for list arguments, `builtin.combine` for tensor lists, `builtin.split` after ops with vector
//! outputs) and sets `stop_gradient` the way the Python API does. The reference files are read
//! from `$PIR_PADDLE_REF` or `$PIR_PADDLE_YAML/../paddle-ref`; without either the tests print a
//! notice and pass.

use std::path::PathBuf;

use op_defs::pd_op::*;
use pir_runtime::meta::Scalar;
use pir_runtime::phi::{DataType, Place};
use pir_runtime::{builtin, Builder, InsertPoint, OpId, Program, Value};

#[path = "common/fixtures.rs"]
mod fixtures;
use fixtures::context;

fn reference(name: &str) -> Option<String> {
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
    Some(std::fs::read_to_string(dir.join("text").join(name)).expect("reference program"))
}

/// `paddle.static.data(name, shape, dtype)`.
fn data(b: &mut Builder<'_>, name: &str, shape: &[i64], dtype: DataType) -> Value {
    fixtures::data(b, name, dtype, shape)
}

/// Sets `stop_gradient` on every op that does not have it yet, one `stop_gradient` flag per
/// result, as Paddle's Python API does for values that do not depend on trainable parameters.
fn default_stop_gradient(prog: &mut Program) {
    let ctx = prog.ctx().clone();
    let ops: Vec<OpId> = prog.block_ops(prog.block()).collect();
    for op in ops {
        let r = prog.op(op);
        if r.attr("stop_gradient").is_some() || r.name() == "builtin.set_parameter" {
            continue;
        }
        let flags = vec![true; r.num_results()];
        prog.set_attribute(op, "stop_gradient", ctx.bool_array_attr(&flags))
            .unwrap();
    }
}

fn set_stop_gradient(prog: &mut Program, v: Value, flag: bool) {
    let ctx = prog.ctx().clone();
    let op = prog.defining_op(v).unwrap();
    prog.set_attribute(op, "stop_gradient", ctx.bool_array_attr(&[flag]))
        .unwrap();
}

#[test]
fn tiny_3op_from_typed_builders() {
    let Some(expected) = reference("tiny_3op_pir.txt") else {
        return;
    };
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", &[-1, 3, 224, 224], DataType::Float32);
    let y = ReluOp::build(&mut b, x).unwrap().out(b.program());
    TanhOp::build(&mut b, y).unwrap();
    default_stop_gradient(&mut prog);
    pir_runtime::verify(&prog).unwrap();
    assert_eq!(prog.to_string(), expected);
}

/// `paddle.static.nn.fc(x, 5)`'s parameters, created as `paddle.create_parameter` does:
/// inserted at the start of the main block.
fn parameter(prog: &mut Program, name: &str, shape: &[i64]) -> Value {
    let ctx = prog.ctx().clone();
    let at = InsertPoint::BlockStart(prog.block());
    let mut b = Builder::new(prog, at);
    let t = ctx.dense_tensor_type(DataType::Float32, shape);
    let f = ctx.bool_array_attr(&[false]);
    let tr = ctx.bool_array_attr(&[true]);
    let attrs = ctx.dict_attr(&[
        ("parameter_name", ctx.str_attr(name)),
        ("is_distributed", f),
        ("is_parameter", tr),
        ("need_clip", tr),
        ("persistable", tr),
        ("stop_gradient", f),
        ("trainable", tr),
    ]);
    let op = b
        .create_with(&builtin::PARAMETER_DEF, &[], attrs, &[Some(t)], 0)
        .unwrap();
    prog.op(op).result(0)
}

#[test]
fn small_features_from_typed_builders() {
    let Some(expected) = reference("small_features_pir.txt") else {
        return;
    };
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let (x, i, bm) = {
        let mut b = Builder::at_end(&mut prog);
        (
            data(&mut b, "x", &[4, 6], DataType::Float32),
            data(&mut b, "i", &[4], DataType::Int64),
            data(&mut b, "b", &[4, 6], DataType::Bool),
        )
    };
    let mut b = Builder::at_end(&mut prog);
    // parts = paddle.split(x, [2, 4], axis=1)
    let parts = SplitOp::build(&mut b, x, &[2, 4], 1)
        .unwrap()
        .out(b.program());
    let parts = builtin::split(&mut b, parts).unwrap();
    // cat = paddle.concat([parts[1], parts[0]], axis=1): the axis tensor first, then the list.
    let attrs = FullOpAttrs {
        shape: &[1],
        value: Scalar::F64(1.0),
        dtype: DataType::Int32,
        place: Place::cpu(),
    };
    let axis = FullOp::build(&mut b, attrs).unwrap().out(b.program());
    let list = builtin::combine(&mut b, &[parts[1], parts[0]]).unwrap();
    let cat = ConcatOp::build_with_values(&mut b, list, axis)
        .unwrap()
        .out(b.program());
    // st = paddle.stack([x, cat])
    let list = builtin::combine(&mut b, &[x, cat]).unwrap();
    let st = StackOp::build(&mut b, list, StackOpAttrs { axis: 0 })
        .unwrap()
        .out(b.program());
    // r = paddle.reshape(st, [8, -1])
    let r = ReshapeOp::build(&mut b, st, &[8, -1])
        .unwrap()
        .out(b.program());
    // s = paddle.scale(r, scale=2.0, bias=1.0)
    ScaleOp::build(
        &mut b,
        r,
        2.0f32,
        ScaleOpAttrs {
            bias: Scalar::F32(1.0),
            bias_after_scale: true,
        },
    )
    .unwrap();
    // w = paddle.where(b, x, paddle.zeros_like(x))
    let z = FullLikeOp::build(
        &mut b,
        x,
        0.0f32,
        FullLikeOpAttrs {
            dtype: DataType::Float32,
            place: Place::default(),
        },
    )
    .unwrap()
    .out(b.program());
    WhereOp::build(&mut b, bm, x, z).unwrap();
    // g = paddle.gather(x, i, axis=0); h = paddle.cast(g, "bfloat16")
    let g = GatherOp::build(&mut b, x, i, 0).unwrap().out(b.program());
    CastOp::build(
        &mut b,
        g,
        CastOpAttrs {
            dtype: DataType::BFloat16,
        },
    )
    .unwrap();
    // m = paddle.meshgrid(x[:, 0], x[0, :])
    let attrs = |axis| SliceOpAttrs {
        axes: axis,
        infer_flags: &[1],
        decrease_axis: axis,
    };
    let c0 = SliceOp::build(&mut b, x, &[0], &[1], attrs(&[1]))
        .unwrap()
        .out(b.program());
    let r0 = SliceOp::build(&mut b, x, &[0], &[1], attrs(&[0]))
        .unwrap()
        .out(b.program());
    let list = builtin::combine(&mut b, &[c0, r0]).unwrap();
    let m = MeshgridOp::build(&mut b, list).unwrap().out(b.program());
    builtin::split(&mut b, m).unwrap();
    // y = paddle.static.nn.fc(x, 5): weight, then bias, each inserted at the block start.
    let w = parameter(&mut prog, "fc_0.w_0", &[6, 5]);
    let bias = parameter(&mut prog, "fc_0.b_0", &[5]);
    let mut b = Builder::at_end(&mut prog);
    let mm = MatmulOp::build(&mut b, x, w, MatmulOpAttrs::default())
        .unwrap()
        .out(b.program());
    let y = AddOp::build(&mut b, mm, bias).unwrap().out(b.program());
    // ub = paddle.unbind(st, axis=0)
    let ub = UnbindOp::build(&mut b, st, UnbindOpAttrs { axis: 0 })
        .unwrap()
        .out(b.program());
    builtin::split(&mut b, ub).unwrap();
    // am = paddle.argmax(x, axis=1); mx = paddle.max(x, axis=[0, 1], keepdim=True)
    ArgmaxOp::build(&mut b, x, 1i64, ArgmaxOpAttrs::default()).unwrap();
    MaxOp::build(&mut b, x, &[0, 1], MaxOpAttrs { keepdim: true }).unwrap();
    set_stop_gradient(&mut prog, mm, false);
    set_stop_gradient(&mut prog, y, false);
    default_stop_gradient(&mut prog);
    pir_runtime::verify(&prog).unwrap();
    assert_eq!(prog.to_string(), expected);
}

#[test]
fn small_features_startup_from_typed_builders() {
    let Some(expected) = reference("small_features_startup_pir.txt") else {
        return;
    };
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    // XavierUniform for fc_0.w_0 (6x5): limit = sqrt(6 / (6 + 5)).
    let limit = (6.0f32 / 11.0).sqrt();
    let attrs = UniformOpAttrs {
        dtype: DataType::Float32,
        seed: 0,
        place: Place::default(),
    };
    let w = UniformOp::build(&mut b, &[6, 5], -limit, limit, attrs)
        .unwrap()
        .out(b.program());
    builtin::set_parameter(&mut b, w, "fc_0.w_0").unwrap();
    // Constant(0) for fc_0.b_0.
    let attrs = FullOpAttrs {
        shape: &[5],
        value: Scalar::F64(0.0),
        dtype: DataType::Float32,
        place: Place::default(),
    };
    let bias = FullOp::build(&mut b, attrs).unwrap().out(b.program());
    builtin::set_parameter(&mut b, bias, "fc_0.b_0").unwrap();
    let persistable = ctx.bool_array_attr(&[true]);
    for v in [w, bias] {
        let op = prog.defining_op(v).unwrap();
        prog.set_attribute(op, "persistable", persistable).unwrap();
    }
    default_stop_gradient(&mut prog);
    pir_runtime::verify(&prog).unwrap();
    assert_eq!(prog.to_string(), expected);
}
