//! Builds Paddle refuses (issue 18): conv2d with negative paddings or a dilation whose kernel
//! extent overflows Paddle's `int`, and tensor-tensor elementwise ops mixing integer and
//! floating-point dtypes. Each fails with an infer-meta error and creates no op; the nearby
//! builds Paddle accepts still succeed.

use op_defs::pd_op::*;
use pir_runtime::phi::{DataType, Place};
use pir_runtime::{BuildError, Builder, IrContext, Program, Value};

fn setup() -> Program {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    Program::new(&ctx)
}

fn data(prog: &mut Program, name: &str, shape: &[i64], dtype: DataType) -> Value {
    let mut b = Builder::at_end(prog);
    let attrs = DataOpAttrs::new(name, shape, dtype, Place::default());
    DataOp::build(&mut b, attrs).unwrap().out(b.program())
}

#[track_caller]
fn refused<T: std::fmt::Debug>(
    prog: &Program,
    ops_before: usize,
    r: Result<T, BuildError>,
    func: &str,
    text: &str,
) {
    match r.expect_err("Paddle refuses this build") {
        BuildError::InferMeta {
            func: f, message, ..
        } => {
            assert_eq!(f, func);
            assert!(message.contains(text), "`{text}` not in `{message}`");
        }
        other => panic!("expected an infer-meta error, got {other}"),
    }
    assert_eq!(
        prog.block_len(prog.block()),
        ops_before,
        "the refused op was created"
    );
}

fn conv(
    prog: &mut Program,
    paddings: &[i32],
    dilations: &[i32],
    input: &[i64],
) -> Result<Vec<i64>, BuildError> {
    let x = data(prog, "x", input, DataType::Float32);
    let w = data(prog, "w", &[4, 3, 3, 3], DataType::Float32);
    let attrs = Conv2dOpAttrs {
        paddings,
        dilations,
        ..Default::default()
    };
    let mut b = Builder::at_end(prog);
    let op = Conv2dOp::build(&mut b, x, w, attrs)?;
    let p = b.program();
    let t = p.value_type(op.out(p)).unwrap();
    Ok(t.as_dense_tensor(p.ctx()).unwrap().dims.to_vec())
}

#[test]
fn conv2d_refuses_negative_paddings_whatever_their_size() {
    for pad in [-100, -1] {
        for paddings in [vec![pad, pad], vec![0, pad, 0, 0]] {
            let mut prog = setup();
            let n = prog.block_len(prog.block()) + 2;
            let r = conv(&mut prog, &paddings, &[1, 1], &[1, 3, 8, 8]);
            refused(
                &prog,
                n,
                r,
                "ConvInferMeta",
                "Invalid padding, all value should be larger than or equal to 0",
            );
        }
    }
    assert_eq!(
        conv(&mut setup(), &[0, 0], &[1, 1], &[1, 3, 8, 8]).unwrap(),
        [1, 4, 6, 6]
    );
    // Positive paddings widen the output.
    assert_eq!(
        conv(&mut setup(), &[2, 2], &[1, 1], &[1, 3, 8, 8]).unwrap(),
        [1, 4, 10, 10]
    );
}

#[test]
fn conv2d_refuses_a_dilated_kernel_past_paddles_int() {
    for dil in [i32::MAX, 1 << 30] {
        let mut prog = setup();
        let n = prog.block_len(prog.block()) + 2;
        let r = conv(&mut prog, &[0, 0], &[1, dil], &[1, 3, 8, 8]);
        refused(&prog, n, r, "ConvInferMeta", "overflows the 32-bit int");
    }
    // Large but representable: the output extent is negative, as Paddle computes it.
    let d = (i32::MAX - 1) / 2;
    assert_eq!(
        conv(&mut setup(), &[0, 0], &[1, d], &[1, 3, 8, 8]).unwrap(),
        [1, 4, 6, 8 - 2 * i64::from(d)]
    );
    // Unknown extents are not computed, so nothing overflows.
    assert_eq!(
        conv(&mut setup(), &[0, 0], &[1, i32::MAX], &[1, 3, 8, -1]).unwrap(),
        [1, 4, 6, -1]
    );
}

#[test]
fn elementwise_ops_refuse_integer_with_floating_point_tensors() {
    type Build = fn(&mut Builder<'_>, Value, Value) -> Result<Value, BuildError>;
    let ops: [(&str, Build); 4] = [
        ("add", |b, x, y| {
            AddOp::build(b, x, y).map(|o| o.out(b.program()))
        }),
        ("subtract", |b, x, y| {
            SubtractOp::build(b, x, y).map(|o| o.out(b.program()))
        }),
        ("multiply", |b, x, y| {
            MultiplyOp::build(b, x, y).map(|o| o.out(b.program()))
        }),
        ("divide", |b, x, y| {
            DivideOp::build(b, x, y).map(|o| o.out(b.program()))
        }),
    ];
    use DataType::*;
    for (name, build) in ops {
        for (a, c) in [
            (Float32, Int64),
            (Int32, Float32),
            (Bool, Float64),
            (Int64, Int32),
        ] {
            let mut prog = setup();
            let x = data(&mut prog, "x", &[2, 3], a);
            let y = data(&mut prog, "y", &[2, 3], c);
            let n = prog.block_len(prog.block());
            let r = build(&mut Builder::at_end(&mut prog), x, y);
            refused(&prog, n, r, "ElementwiseInferMeta", &format!(
                "(InvalidType) Type promotion only support calculations between floating-point numbers and between complex and real numbers. But got different data type x: {a}, y: {c}."
            ));
            let _ = name;
        }
        // Accepted: same dtype, floats of two widths, a 0-D operand.
        for (a, c, ys) in [
            (Int64, Int64, &[2, 3][..]),
            (Float32, Float64, &[3]),
            (Float32, Int64, &[]),
        ] {
            let mut prog = setup();
            let x = data(&mut prog, "x", &[2, 3], a);
            let y = data(&mut prog, "y", ys, c);
            build(&mut Builder::at_end(&mut prog), x, y).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
