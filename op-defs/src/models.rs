//! Example programs built with the generated typed builders of [`crate::pd_op`]: every result
//! type is inferred by the infer-meta functions, nothing is written by hand but the inputs and
//! parameters. `pir demo` prints them; the benchmarks build them.
//!
//! ```
//! let ctx = pir_runtime::IrContext::new();
//! op_defs::pd_op::register(&ctx).unwrap();
//! let prog = op_defs::models::small_cnn_train(&ctx).unwrap();
//! pir_runtime::verify(&prog).unwrap();
//! assert!(prog.to_string().contains("\"pd_op.conv2d_grad\""));
//! ```

use std::sync::Arc;

use pir_runtime::meta::Scalar;
use pir_runtime::phi::{DataType, Place};
use pir_runtime::{builtin, BuildError, Builder, InsertPoint, IrContext, OpId, Program, Value};

use crate::pd_op::*;

/// `paddle.static.data`.
fn data(
    b: &mut Builder<'_>,
    name: &str,
    shape: &[i64],
    dtype: DataType,
) -> Result<Value, BuildError> {
    let op = DataOp::build(
        b,
        DataOpAttrs {
            name,
            shape,
            dtype,
            place: Place::default(),
        },
    )?;
    Ok(op.out(b.program()))
}

/// A trainable (or, for batch-norm statistics, non-trainable) parameter, inserted at the start
/// of the block as Paddle's `create_parameter` does.
fn parameter(
    prog: &mut Program,
    name: &str,
    shape: &[i64],
    trainable: bool,
) -> Result<Value, BuildError> {
    let ctx = prog.ctx().clone();
    let t = ctx.dense_tensor_type(DataType::Float32, shape);
    let f = ctx.bool_array_attr(&[false]);
    let tr = ctx.bool_array_attr(&[true]);
    let attrs = ctx.dict_attr(&[
        ("parameter_name", ctx.str_attr(name)),
        ("is_distributed", f),
        ("is_parameter", tr),
        ("need_clip", tr),
        ("persistable", tr),
        ("stop_gradient", ctx.bool_array_attr(&[!trainable])),
        ("trainable", ctx.bool_array_attr(&[trainable])),
    ]);
    let at = InsertPoint::BlockStart(prog.block());
    let mut b = Builder::new(prog, at);
    let op = b.create_with(&builtin::PARAMETER_DEF, &[], attrs, &[Some(t)], 0)?;
    Ok(prog.op(op).result(0))
}

/// Sets `stop_gradient` on every op without one, as Paddle's Python API does: a result stops
/// the gradient unless an operand does not (parameters are the trainable roots). Ops built after
/// `backward_from` (backward and optimizer ops) get `true`.
fn mark_stop_gradient(prog: &mut Program, backward_from: Option<OpId>) {
    let ctx = prog.ctx().clone();
    let ops: Vec<OpId> = prog.block_ops(prog.block()).collect();
    let mut flows = vec![false; prog.num_values_allocated()];
    let mut in_backward = false;
    for op in ops {
        in_backward |= Some(op) == backward_from;
        let r = prog.op(op);
        if let Some(a) = r.attr("stop_gradient") {
            let flags: Vec<bool> = match ctx.attr_data(a) {
                pir_runtime::AttrData::Array(items) => items
                    .iter()
                    .map(|&x| matches!(ctx.attr_data(x), pir_runtime::AttrData::Bool(true)))
                    .collect(),
                _ => Vec::new(),
            };
            for (v, stop) in r.results().zip(flags) {
                flows[v.index()] = !stop;
            }
            continue;
        }
        if r.num_results() == 0 {
            continue;
        }
        let grad = !in_backward && r.operands().flatten().any(|v| flows[v.index()]);
        for v in r.results() {
            flows[v.index()] = grad;
        }
        let flags = vec![!grad; r.num_results()];
        let attr = ctx.bool_array_attr(&flags);
        let _ = prog.set_attribute(op, "stop_gradient", attr);
    }
}

/// conv2d (no bias) + batch_norm_ in training mode; returns the normalised output and the
/// batch-norm op (for its saved statistics).
struct ConvBn {
    out: Value,
    conv_in: Value,
    weight: Value,
    conv: Conv2dOp,
    bn: BatchNorm_Op,
    scale: Value,
    bias: Value,
}

#[allow(clippy::too_many_arguments)]
fn conv_bn(
    prog: &mut Program,
    name: &str,
    x: Value,
    in_c: i64,
    out_c: i64,
    k: i64,
    stride: i32,
    pad: i32,
    is_test: bool,
) -> Result<ConvBn, BuildError> {
    let weight = parameter(prog, &format!("{name}.w_0"), &[out_c, in_c, k, k], true)?;
    let scale = parameter(prog, &format!("{name}_bn.w_0"), &[out_c], true)?;
    let bias = parameter(prog, &format!("{name}_bn.b_0"), &[out_c], true)?;
    let mean = parameter(prog, &format!("{name}_bn.w_1"), &[out_c], false)?;
    let variance = parameter(prog, &format!("{name}_bn.w_2"), &[out_c], false)?;
    let mut b = Builder::at_end(prog);
    let attrs = Conv2dOpAttrs {
        strides: &[stride, stride],
        paddings: &[pad, pad],
        ..Default::default()
    };
    let conv = Conv2dOp::build(&mut b, x, weight, attrs)?;
    let y = conv.out(b.program());
    let bn_attrs = BatchNorm_OpAttrs {
        is_test,
        momentum: 0.9,
        epsilon: 1e-5,
        data_format: "NCHW",
        use_global_stats: false,
        trainable_statistics: false,
    };
    let bn = BatchNorm_Op::build(&mut b, y, mean, variance, Some(scale), Some(bias), bn_attrs)?;
    Ok(ConvBn {
        out: bn.out(b.program()),
        conv_in: x,
        weight,
        conv,
        bn,
        scale,
        bias,
    })
}

/// A small CNN training step: conv2d → batch_norm_ → relu → max pool2d → flatten → fc
/// (matmul + add) → cross_entropy_with_softmax → mean, the backward ops of each, and an SGD
/// update of every trainable parameter — the program `pir demo` prints.
pub fn small_cnn_train(ctx: &Arc<IrContext>) -> Result<Program, BuildError> {
    let mut prog = Program::new(ctx);
    let (x, label, lr) = {
        let mut b = Builder::at_end(&mut prog);
        let x = data(&mut b, "x", &[-1, 3, 32, 32], DataType::Float32)?;
        let label = data(&mut b, "label", &[-1, 1], DataType::Int64)?;
        let lr = data(&mut b, "learning_rate_0", &[], DataType::Float32)?;
        (x, label, lr)
    };
    let lr_op = prog
        .defining_op(lr)
        .ok_or_else(|| invalid("learning rate"))?;
    prog.set_attribute(lr_op, "persistable", ctx.bool_array_attr(&[true]))?;

    // Forward.
    let cb = conv_bn(&mut prog, "conv2d_0", x, 3, 8, 3, 1, 1, false)?;
    let fc_w = parameter(&mut prog, "fc_0.w_0", &[2048, 10], true)?;
    let fc_b = parameter(&mut prog, "fc_0.b_0", &[10], true)?;
    let mut b = Builder::at_end(&mut prog);
    let relu = ReluOp::build(&mut b, cb.out)?;
    let r = relu.out(b.program());
    let attrs = pool_attrs("max", &[2, 2], &[0, 0], false);
    let pool = Pool2dOp::build(&mut b, r, &[2, 2], attrs)?;
    let p = pool.out(b.program());
    let flat = FlattenOp::build(
        &mut b,
        p,
        FlattenOpAttrs {
            start_axis: 1,
            stop_axis: 3,
        },
    )?
    .out(b.program());
    let mm = MatmulOp::build(&mut b, flat, fc_w, MatmulOpAttrs::default())?.out(b.program());
    let logits = AddOp::build(&mut b, mm, fc_b)?.out(b.program());
    let ce = CrossEntropyWithSoftmaxOp::build(&mut b, logits, label, Default::default())?;
    let (softmax, loss) = (ce.softmax(b.program()), ce.loss(b.program()));
    let avg = MeanOp::build(&mut b, loss, &[], MeanOpAttrs { keepdim: false })?.out(b.program());

    // Backward, from d(mean)/d(mean) = 1.
    let seed_attrs = FullOpAttrs {
        shape: &[],
        value: Scalar::F64(1.0),
        dtype: DataType::Float32,
        place: Place::default(),
    };
    let seed_op = FullOp::build(&mut b, seed_attrs)?;
    let seed = seed_op.out(b.program());
    let _ = avg;
    let d_loss = MeanGradOp::build(
        &mut b,
        loss,
        seed,
        &[],
        MeanGradOpAttrs {
            keepdim: false,
            reduce_all: true,
        },
    )?
    .x_grad(b.program());
    let ce_attrs = CrossEntropyWithSoftmaxGradOpAttrs {
        soft_label: false,
        use_softmax: true,
        numeric_stable_mode: true,
        ignore_index: -100,
        axis: -1,
    };
    let d_logits = CrossEntropyWithSoftmaxGradOp::build(&mut b, label, softmax, d_loss, ce_attrs)?
        .input_grad(b.program());
    let add_grad = AddGradOp::build(&mut b, mm, fc_b, d_logits, AddGradOpAttrs { axis: -1 })?;
    let (d_mm, d_fc_b) = (add_grad.x_grad(b.program()), add_grad.y_grad(b.program()));
    let mm_grad = MatmulGradOp::build(&mut b, flat, fc_w, d_mm, MatmulGradOpAttrs::default())?;
    let (d_flat, d_fc_w) = (mm_grad.x_grad(b.program()), mm_grad.y_grad(b.program()));
    let d_p = FlattenGradOp::build(&mut b, p, d_flat)?.x_grad(b.program());
    let d_r =
        Pool2dGradOp::build(&mut b, r, p, d_p, &[2, 2], pool_grad_attrs())?.x_grad(b.program());
    let d_bn = ReluGradOp::build(&mut b, r, d_r)?.x_grad(b.program());
    let bn = cb.bn;
    let prog_ref = b.program();
    let bn_grad_attrs = BatchNormGradOpAttrs {
        momentum: 0.9,
        epsilon: 1e-5,
        data_format: "NCHW",
        is_test: false,
        use_global_stats: false,
        trainable_statistics: false,
    };
    let (conv_out, mean_out, var_out, saved_mean, saved_var, reserve) = (
        cb.conv.out(prog_ref),
        bn.mean_out(prog_ref),
        bn.variance_out(prog_ref),
        bn.saved_mean(prog_ref),
        bn.saved_variance(prog_ref),
        bn.reserve_space(prog_ref),
    );
    let bn_grad = BatchNormGradOp::build(
        &mut b,
        conv_out,
        Some(cb.scale),
        Some(cb.bias),
        Some(mean_out),
        Some(var_out),
        saved_mean,
        saved_var,
        Some(reserve),
        d_bn,
        bn_grad_attrs,
    )?;
    let (d_conv, d_scale, d_bias) = (
        bn_grad.x_grad(b.program()),
        bn_grad.scale_grad(b.program()),
        bn_grad.bias_grad(b.program()),
    );
    let conv_grad = Conv2dGradOp::build(
        &mut b,
        cb.conv_in,
        cb.weight,
        d_conv,
        Conv2dGradOpAttrs {
            strides: &[1, 1],
            paddings: &[1, 1],
            padding_algorithm: "EXPLICIT",
            dilations: &[1, 1],
            groups: 1,
            data_format: "NCHW",
        },
    )?;
    let d_w = conv_grad.filter_grad(b.program());

    // SGD: param -= lr * grad, in place.
    for (param, grad) in [
        (cb.weight, d_w),
        (cb.scale, d_scale),
        (cb.bias, d_bias),
        (fc_w, d_fc_w),
        (fc_b, d_fc_b),
    ] {
        Sgd_Op::build(
            &mut b,
            param,
            lr,
            grad,
            None,
            Sgd_OpAttrs {
                multi_precision: false,
            },
        )?;
    }
    mark_stop_gradient(&mut prog, Some(seed_op.op()));
    Ok(prog)
}

/// A `pool2d` on NCHW with explicit paddings, exclusive, not ceil-mode, not global (the
/// models' pools differ only in type, strides, paddings and `adaptive`).
fn pool_attrs(
    pooling_type: &'static str,
    strides: &'static [i64],
    paddings: &'static [i64],
    adaptive: bool,
) -> Pool2dOpAttrs<'static> {
    Pool2dOpAttrs {
        strides,
        paddings,
        ceil_mode: false,
        exclusive: true,
        data_format: "NCHW",
        pooling_type,
        global_pooling: false,
        adaptive,
        padding_algorithm: "EXPLICIT",
    }
}

fn pool_grad_attrs() -> Pool2dGradOpAttrs<'static> {
    Pool2dGradOpAttrs {
        strides: &[2, 2],
        paddings: &[0, 0],
        ceil_mode: false,
        exclusive: true,
        data_format: "NCHW",
        pooling_type: "max",
        global_pooling: false,
        adaptive: false,
        padding_algorithm: "EXPLICIT",
    }
}

fn invalid(what: &str) -> BuildError {
    BuildError::Invalid {
        op: "models",
        kind: format!("{what} has no defining op").into(),
    }
}

/// ResNet-50's forward pass for `batch` images of 3×224×224 (`-1` for a dynamic batch):
/// 267 parameters, 53 conv2d + batch_norm_, 49 relu, 16 residual adds, two pools, flatten and
/// the fc layer — 446 ops, as Paddle's PIR-mode ResNet-50.
pub fn resnet50(ctx: &Arc<IrContext>, batch: i64) -> Result<Program, BuildError> {
    let mut prog = Program::new(ctx);
    let x = {
        let mut b = Builder::at_end(&mut prog);
        data(&mut b, "x", &[batch, 3, 224, 224], DataType::Float32)?
    };
    let mut n = 0;
    let mut next = |prog: &mut Program, x, in_c, out_c, k, s, p| -> Result<Value, BuildError> {
        let name = format!("conv2d_{n}");
        n += 1;
        Ok(conv_bn(prog, &name, x, in_c, out_c, k, s, p, true)?.out)
    };
    let relu = |prog: &mut Program, v| -> Result<Value, BuildError> {
        let mut b = Builder::at_end(prog);
        Ok(ReluOp::build(&mut b, v)?.out(b.program()))
    };
    let stem = next(&mut prog, x, 3, 64, 7, 2, 3)?;
    let stem = relu(&mut prog, stem)?;
    let mut y = {
        let mut b = Builder::at_end(&mut prog);
        let attrs = pool_attrs("max", &[2, 2], &[1, 1], false);
        Pool2dOp::build(&mut b, stem, &[3, 3], attrs)?.out(b.program())
    };
    let mut in_c = 64;
    for (stage, (blocks, width)) in [(3, 64), (4, 128), (6, 256), (3, 512)]
        .into_iter()
        .enumerate()
    {
        for block in 0..blocks {
            let stride = if block == 0 && stage > 0 { 2 } else { 1 };
            let a = next(&mut prog, y, in_c, width, 1, 1, 0)?;
            let a = relu(&mut prog, a)?;
            let c = next(&mut prog, a, width, width, 3, stride, 1)?;
            let c = relu(&mut prog, c)?;
            let d = next(&mut prog, c, width, width * 4, 1, 1, 0)?;
            let shortcut = if block == 0 {
                next(&mut prog, y, in_c, width * 4, 1, stride, 0)?
            } else {
                y
            };
            let sum = {
                let mut b = Builder::at_end(&mut prog);
                AddOp::build(&mut b, d, shortcut)?.out(b.program())
            };
            y = relu(&mut prog, sum)?;
            in_c = width * 4;
        }
    }
    let fc_w = parameter(&mut prog, "fc_0.w_0", &[2048, 1000], true)?;
    let fc_b = parameter(&mut prog, "fc_0.b_0", &[1000], true)?;
    let mut b = Builder::at_end(&mut prog);
    let attrs = pool_attrs("avg", &[1, 1], &[0, 0], true);
    let pooled = Pool2dOp::build(&mut b, y, &[1, 1], attrs)?.out(b.program());
    let flat = FlattenOp::build(
        &mut b,
        pooled,
        FlattenOpAttrs {
            start_axis: 1,
            stop_axis: 3,
        },
    )?
    .out(b.program());
    let mm = MatmulOp::build(&mut b, flat, fc_w, MatmulOpAttrs::default())?.out(b.program());
    AddOp::build(&mut b, mm, fc_b)?;
    mark_stop_gradient(&mut prog, None);
    Ok(prog)
}
