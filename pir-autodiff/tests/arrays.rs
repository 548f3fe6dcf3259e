//! The backward of the tensor-array ops. paddle-ref holds no program with a tensor array and
//! a backward (`programs/control_flow/` lists `while_tensor_array` in PASSES.md, but the files
//! are absent), so every expected structure here was derived by hand, before running the code,
//! from Paddle 3.3.1's source:
//!
//! - `manual_op_vjp.cc`: `ArrayWrite_Op::Vjp` = `array_read(array_grad, i)` as `x`'s gradient,
//!   then `array_write_(array_grad, zeros_like(x), i)`; `ArrayReadOp::Vjp` =
//!   `array_write_(array_grad, add(array_read(array_grad, i), out_grad), i)`, no gradient
//!   returned; `ArrayToTensorOp::Vjp` = `tensor_to_array(x, out_grad, axis, use_stack)`;
//! - `ir_backward.py`: `make_output_with_output_grad` gives `array_write_` the gradient of the
//!   array operand (not of its result) and gives `array_read` that gradient as a second output
//!   gradient; `append_full_like` makes an array's missing gradient with
//!   `create_array_like(array, 0.0)` (the one op recorded, never pruned as a `full_like`);
//!   `append_add_n` sums array gradients with `add_n_array`; the Vjps of `array_read` and
//!   `array_write_` run even when every input stops gradients; a program with `array_write_`
//!   (at top level or in a `while` body) is walked in reverse program order, unpruned
//!   (`is_inplace_net`);
//! - `pybind.cc` `call_vjp`: each returned gradient takes its forward input's type
//!   (`set_type`), so the `array_read` that reads `x`'s gradient is typed as `x` while its
//!   infer-meta gives `-1` extents: the one difference `check_types` reports, and Paddle's own
//!   program has it too.
//!
//! The forward programs are built as Paddle's Python API builds them (`array_write` casts `x`
//! to the array's element type and writes into the array it returns; `array_read` /
//! `array_write_` take `i` as an int64 `full`). Paddle's print leaves out an array's element
//! dims, so the programs are built in memory (the text form would read them back as rank 0).

use op_defs::control_flow::{set_stop_gradient, WhileOp};
use op_defs::pd_op::{DataOp, DataOpAttrs, FullOp, FullOpAttrs};
use pir_runtime::meta::Scalar;
use pir_runtime::op_support::{build_with_values, AttrArg};
use pir_runtime::phi::{DataType, Place};
use pir_runtime::{Builder, IrContext, Program, Value};

use op_defs::pd_op::context;

/// `name(operands)` with attributes in schema order; its first result, whose `stop_gradient`
/// is `stop` (as the Python API sets it).
fn op(
    b: &mut Builder<'_>,
    name: &str,
    operands: &[Value],
    attrs: &[AttrArg<'_>],
    stop: bool,
) -> Value {
    let def = b.ctx().op_def(name).unwrap();
    let operands: Vec<Option<Value>> = operands.iter().copied().map(Some).collect();
    let id = build_with_values(b, def, &operands, attrs).unwrap();
    let v = b.program().op(id).result(0);
    set_stop_gradient(b.program_mut(), v, stop).unwrap();
    v
}

fn data(b: &mut Builder<'_>, name: &str, dims: &[i64]) -> Value {
    let attrs = DataOpAttrs {
        name,
        shape: dims,
        dtype: DataType::Float32,
        place: Place::default(),
    };
    let v = DataOp::build(b, attrs).unwrap().out(b.program());
    set_stop_gradient(b.program_mut(), v, false).unwrap();
    v
}

/// `full([1], value, dtype)` on the CPU, as the array APIs make an index.
fn full(b: &mut Builder<'_>, value: f64, dtype: DataType) -> Value {
    let attrs = FullOpAttrs {
        shape: &[1],
        value: Scalar::F64(value),
        dtype,
        place: Place::cpu(),
    };
    let v = FullOp::build(b, attrs).unwrap().out(b.program());
    set_stop_gradient(b.program_mut(), v, true).unwrap();
    v
}

/// `create_array(float32)`; `stop` is the array's flag.
fn create_array(b: &mut Builder<'_>, stop: bool) -> Value {
    op(
        b,
        "pd_op.create_array",
        &[],
        &[AttrArg::DataType(DataType::Float32)],
        stop,
    )
}

/// `paddle.tensor.array_write(x, i, array)`: `cast(x)`, then `array_write_`; the array.
fn array_write(b: &mut Builder<'_>, array: Value, x: Value, i: Value) -> Value {
    let x = op(
        b,
        "pd_op.cast",
        &[x],
        &[AttrArg::DataType(DataType::Float32)],
        false,
    );
    op(b, "pd_op.array_write_", &[array, x, i], &[], false);
    array
}

/// `sum(x)` over all axes.
fn sum(b: &mut Builder<'_>, x: Value) -> Value {
    let axis = op(
        b,
        "pd_op.full_int_array",
        &[],
        &[
            AttrArg::I64s(&[]),
            AttrArg::DataType(DataType::Int64),
            AttrArg::Place(Place::cpu()),
        ],
        true,
    );
    op(
        b,
        "pd_op.sum",
        &[x, axis],
        &[AttrArg::DataType(DataType::Undefined), AttrArg::Bool(false)],
        false,
    )
}

/// The op names of a printed program, in print order.
fn names(text: &str) -> Vec<&str> {
    text.lines().filter_map(|l| l.split('"').nth(1)).collect()
}

/// The printed line defining `%n`.
fn line_of(text: &str, n: usize) -> &str {
    let tag = format!("%{n}");
    text.lines()
        .find(|l| {
            let l = l.trim_start();
            l.starts_with('(')
                && l[1..]
                    .split(')')
                    .next()
                    .is_some_and(|r| r.split(", ").any(|v| v == tag))
        })
        .unwrap_or_else(|| panic!("no %{n} in\n{text}"))
}

/// Verify passes, and `check_types` differs only on results `call_vjp` retyped as their
/// forward input: the `array_read` that reads `x`'s gradient (typed as `x`, inferred with `-1`
/// extents) and `tensor_to_array` (typed as the forward array, whose element dims its
/// infer-meta does not set). `expected`: how many of each, in that order.
fn assert_clean(prog: &Program, expected: [usize; 2]) {
    pir_runtime::verify(prog).unwrap();
    let report = pir_runtime::check_types(prog);
    assert!(report.refused.is_empty(), "{report:?}");
    let ctx = prog.ctx();
    let mut seen = [0, 0];
    for d in &report.differences {
        let r = prog.op(d.op);
        match d.op_name {
            "pd_op.array_read" => {
                let inferred = d.inferred.ty.and_then(|t| t.as_dense_tensor(ctx));
                assert!(
                    inferred.is_some_and(|t| t.dims.iter().all(|&e| e == -1)),
                    "{d}"
                );
                seen[0] += 1;
            }
            "pd_op.tensor_to_array" => {
                let forward = r.operand(0).and_then(|x| prog.value_type(x));
                assert_eq!(d.recorded.ty, forward, "{d}");
                seen[1] += 1;
            }
            _ => panic!("unexpected difference: {d}"),
        }
    }
    assert_eq!(seen, expected, "{report:?}");
}

/// `arr = array_write(x, 0)`, `y = array_read(arr, 0)`, `loss = sum(y)`.
fn write_then_read(ctx: &std::sync::Arc<IrContext>) -> (Program, Value, Value) {
    let mut prog = Program::new(ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", &[2, 3]);
    let arr = create_array(&mut b, true);
    let i = full(&mut b, 0.0, DataType::Int64);
    let arr = array_write(&mut b, arr, x, i);
    let j = full(&mut b, 0.0, DataType::Int64);
    let y = op(&mut b, "pd_op.array_read", &[arr, j], &[], false);
    let loss = sum(&mut b, y);
    (prog, x, loss)
}

#[test]
fn a_read_after_a_write_differentiates_through_a_gradient_array() {
    // Expected (derived from the rules above): the net is in place, so the walk goes backward
    // in program order: sum_grad; array_read's Vjp on a fresh create_array_like of the array
    // (read entry 0, add sum's gradient, write it back); array_write_'s Vjp on that same
    // gradient array (read entry 0 as the cast's gradient, write zeros there); cast_grad
    // (`invoke cast`). No pruning: every op stays.
    let ctx = context();
    let (mut prog, x, loss) = write_then_read(&ctx);
    let grads = pir_autodiff::grad(&mut prog, &[loss], &[x], &[]).unwrap();
    let out = prog.to_string();
    assert_eq!(
        names(&out),
        [
            "pd_op.data",
            "pd_op.create_array",
            "pd_op.full",
            "pd_op.cast",
            "pd_op.array_write_",
            "pd_op.full",
            "pd_op.array_read",
            "pd_op.full_int_array",
            "pd_op.sum",
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
            "pd_op.cast",
        ],
        "{out}"
    );
    // %1 the array, %2 / %5 the indices, %3 the cast x, %11 sum's gradient.
    for (n, text) in [
        (
            12,
            "\"pd_op.create_array_like\" (%1) {stop_gradient:[true],val:0}",
        ),
        (13, "\"pd_op.array_read\" (%12, %5)"),
        (14, "\"pd_op.add\" (%13, %11)"),
        (15, "\"pd_op.array_write_\" (%12, %14, %5)"),
        (16, "\"pd_op.array_read\" (%12, %2)"),
        (18, "\"pd_op.full_like\" (%3, %17) {dtype:Undefined,"),
        (19, "\"pd_op.array_write_\" (%12, %18, %2)"),
        (20, "\"pd_op.cast\" (%16)"),
    ] {
        assert!(line_of(&out, n).contains(text), "%{n}: `{text}` in\n{out}");
    }
    // x's gradient was read as the cast's input type (call_vjp's set_type).
    assert!(line_of(&out, 16).ends_with("-> tensor<2x3xf32>"), "{out}");
    let ops: Vec<_> = prog.block_ops(prog.block()).collect();
    assert_eq!(grads, [Some(prog.op(ops[20]).result(0))]);
    assert_clean(&prog, [1, 0]);
}

#[test]
fn an_array_read_twice_sums_into_one_gradient_array() {
    // Two reads of the same array: the first read walked (the later one) makes the gradient
    // array, the second reads and writes the same array (the Vjp returns no gradient, so no
    // add_n is needed); both add their output gradient into entry `i`.
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", &[3]);
    let arr = create_array(&mut b, true);
    let i = full(&mut b, 0.0, DataType::Int64);
    let arr = array_write(&mut b, arr, x, i);
    let y1 = op(&mut b, "pd_op.array_read", &[arr, i], &[], false);
    let y2 = op(&mut b, "pd_op.array_read", &[arr, i], &[], false);
    let s = op(&mut b, "pd_op.add", &[y1, y2], &[], false);
    let loss = sum(&mut b, s);
    let grads = pir_autodiff::grad(&mut prog, &[loss], &[x], &[]).unwrap();
    let out = prog.to_string();
    // The forward part has 10 ops.
    let backward: Vec<&str> = names(&out).into_iter().skip(10).collect();
    assert_eq!(
        backward,
        [
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.sum_grad",
            "pd_op.add_grad",
            "pd_op.create_array_like",
            "pd_op.array_read",
            "pd_op.add",
            "pd_op.array_write_",
            "pd_op.array_read",
            "pd_op.add",
            "pd_op.array_write_",
            "pd_op.array_read",
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.array_write_",
            "pd_op.cast",
        ],
        "{out}"
    );
    assert_eq!(
        names(&out)
            .iter()
            .filter(|&&n| n == "pd_op.create_array_like")
            .count(),
        1
    );
    assert!(grads[0].is_some());
    assert_clean(&prog, [1, 0]);
}

/// The dynamic-RNN pattern: `arr = create_array()`, `while i < 3: array_write(tanh(x * w), i,
/// arr); i += 1`, then `array_to_tensor(arr, axis=0, use_stack=True)` and its sum.
fn rnn(ctx: &std::sync::Arc<IrContext>, array_stops: bool) -> (Program, [Value; 2], Value) {
    let mut prog = Program::new(ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", &[4]);
    let w = data(&mut b, "w", &[4]);
    let i = full(&mut b, 0.0, DataType::Int64);
    let n = full(&mut b, 3.0, DataType::Int64);
    let arr = create_array(&mut b, array_stops);
    let c = op(&mut b, "pd_op.less_than", &[i, n], &[], true);
    let looped = WhileOp::build(&mut b, c, &[i, arr], |b, args| {
        let h = op(b, "pd_op.multiply", &[x, w], &[], false);
        let h = op(b, "pd_op.tanh", &[h], &[], false);
        array_write(b, args[1], h, args[0]);
        let one = full(b, 1.0, DataType::Float32);
        let i1 = op(
            b,
            "pd_op.scale",
            &[args[0], one],
            &[AttrArg::Scalar(Scalar::F32(1.0)), AttrArg::Bool(true)],
            true,
        );
        let c1 = op(b, "pd_op.less_than", &[i1, n], &[], true);
        Ok((c1, vec![i1, args[1]]))
    })
    .unwrap();
    let arr_out = looped.results(b.program())[1];
    let out = op(
        &mut b,
        "pd_op.array_to_tensor",
        &[arr_out],
        &[AttrArg::I32(0), AttrArg::Bool(true)],
        false,
    );
    let loss = sum(&mut b, out);
    (prog, [x, w], loss)
}

#[test]
fn a_dynamic_rnn_loop_writes_its_gradient_array_backward() {
    // Expected (derived from the rules above): array_to_tensor's Vjp turns sum's gradient into
    // an array (tensor_to_array), the loop's output gradient for the array; WhileOp::Vjp makes
    // a backward while over cf.has_elements of the body's pipe, its loop variables the
    // gradients of the array and of x and w (read from outside: zeros to start, summed with
    // the body's multiply_grad by add_n in the backward body); in the backward body,
    // array_write_'s Vjp reads the entry at the popped index from the loop variable that
    // carries the gradient array and zeroes it, then cast_grad, tanh_grad, multiply_grad;
    // `append_yield` makes the next condition (cf.has_elements) before it sums x's and w's
    // gradients (add_n of the loop variable and multiply_grad's result).
    // The index's scale stops gradients and is skipped; the zero gradients of i, n and
    // out_index are unused and pruned.
    let ctx = context();
    let (mut prog, [x, w], loss) = rnn(&ctx, false);
    let grads = pir_autodiff::grad(&mut prog, &[loss], &[x, w], &[]).unwrap();
    let out = prog.to_string();
    let all = names(&out);
    let tail: Vec<&str> = all
        .iter()
        .copied()
        .skip_while(|&n| n != "pd_op.array_to_tensor")
        .collect();
    assert_eq!(
        tail,
        [
            "pd_op.array_to_tensor",
            "pd_op.full_int_array",
            "pd_op.sum",
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.sum_grad",
            "pd_op.tensor_to_array",
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.full",
            "pd_op.full_like",
            "cf.has_elements",
            "pd_op.while",
            "cf.tuple_pop",
            "pd_op.array_read",
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.array_write_",
            "pd_op.cast",
            "pd_op.tanh_grad",
            "pd_op.multiply_grad",
            "cf.has_elements",
            "builtin.combine",
            "pd_op.add_n",
            "builtin.combine",
            "pd_op.add_n",
            "cf.yield",
        ],
        "{out}"
    );
    // The backward loop carries the gradient array and x's and w's gradients.
    let w_line = out
        .lines()
        .rfind(|l| l.contains("\"pd_op.while\""))
        .unwrap();
    assert!(w_line.contains("inputs=%"), "{out}");
    assert!(
        out.contains("^%arg_2 {stop_gradient:false}, %arg_3 {stop_gradient:false}, %arg_4 {stop_gradient:false}"),
        "{out}"
    );
    // In the backward body, the array_write_ Vjp reads and zeroes the carried array.
    let body: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.contains("cf.tuple_pop"))
        .collect();
    assert!(body[1].contains("\"pd_op.array_read\" (%arg_2, "), "{out}");
    assert!(
        body[4].contains("\"pd_op.array_write_\" (%arg_2, "),
        "{out}"
    );
    assert!(grads.iter().all(Option::is_some), "{grads:?}");
    assert_clean(&prog, [1, 1]);
}

#[test]
fn a_stopped_array_skips_array_to_tensor_but_not_array_write() {
    // Expected (derived from the rules above): `all_input_stop_gradient_true` skips
    // array_to_tensor's Vjp when the array stops gradients (the exception covers only
    // array_read, array_write_ and increment_), so no tensor_to_array; the while still runs
    // (a while is never skipped for zero output gradients, and x and w want gradients), the
    // missing gradient of its array result being `create_array_like(result, 0)` at top level;
    // array_write_'s Vjp always runs and reads that zero array, so x and w get (zero)
    // gradients. The net is in place, so nothing is pruned.
    let ctx = context();
    let (mut prog, [x, w], loss) = rnn(&ctx, true);
    let grads = pir_autodiff::grad(&mut prog, &[loss], &[x, w], &[]).unwrap();
    let out = prog.to_string();
    assert!(!out.contains("tensor_to_array"), "{out}");
    let zero_array = out
        .lines()
        .find(|l| l.contains("pd_op.create_array_like"))
        .unwrap();
    assert!(zero_array.starts_with("    ("), "top level: {zero_array}");
    let body: Vec<&str> = names(&out)
        .into_iter()
        .skip_while(|&n| n != "cf.tuple_pop")
        .collect();
    assert_eq!(
        body[..6],
        [
            "cf.tuple_pop",
            "pd_op.array_read",
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.array_write_",
            "pd_op.cast"
        ],
        "{out}"
    );
    assert!(grads.iter().all(Option::is_some), "{grads:?}");
    assert_clean(&prog, [1, 0]);
}

#[test]
fn an_array_to_tensor_with_a_mistyped_axis_is_a_located_error() {
    // Paddle's Vjp reads `axis` as an Int32Attribute (a null cast otherwise); here the grad
    // stops with an error naming the op and where it is.
    let ctx = context();
    let (mut prog, [x, w], loss) = rnn(&ctx, false);
    let a2t = prog
        .block_ops(prog.block())
        .find(|&o| prog.op(o).name() == "pd_op.array_to_tensor")
        .unwrap();
    let axis = ctx.i64_attr(0);
    prog.set_attribute(a2t, "axis", axis).unwrap();
    let e = pir_autodiff::grad(&mut prog, &[loss], &[x, w], &[]).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("pd_op.array_to_tensor"), "{msg}");
    assert!(msg.contains("of block 0"), "{msg}");
    assert!(msg.contains("int32 `axis`"), "{msg}");
}

#[test]
fn the_array_vjps_reject_arguments_paddle_would_not_pass() {
    // `ArrayReadOp::Vjp` needs two output gradients (the result's and the array's, as
    // ir_backward passes them); a caller passing one gets an error, not a panic.
    let ctx = context();
    let (prog, _, _) = write_then_read(&ctx);
    let read = prog
        .block_ops(prog.block())
        .find(|&o| prog.op(o).name() == "pd_op.array_read")
        .unwrap();
    let vjp = prog
        .op(read)
        .def()
        .interface::<pir_runtime::interfaces::Vjp>()
        .and_then(|v| v.custom)
        .expect("array_read has a hand-written Vjp");
    let r = prog.op(read);
    let (array, i, out) = (r.operand(0), r.operand(1), r.result(0));
    let mut prog = prog;
    let inputs = [smallvec::smallvec![array], smallvec::smallvec![i]];
    let outputs = [smallvec::smallvec![Some(out)]];
    let out_grads = [smallvec::smallvec![Some(out)]];
    let args = pir_runtime::interfaces::VjpArgs {
        inputs: &inputs,
        outputs: &outputs,
        out_grads: &out_grads,
        stop_gradients: &[],
    };
    let e = vjp(&mut Builder::at_end(&mut prog), read, &args).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("pd_op.array_read"), "{msg}");
    assert!(msg.contains("2 output gradients, got 1"), "{msg}");
    // The other two check their arguments the same way.
    for name in ["pd_op.array_write_", "pd_op.array_to_tensor"] {
        let def = ctx.op_def(name).unwrap();
        let f = def
            .interface::<pir_runtime::interfaces::Vjp>()
            .and_then(|v| v.custom)
            .expect("a hand-written Vjp");
        let empty = pir_runtime::interfaces::VjpArgs {
            inputs: &[],
            outputs: &[],
            out_grads: &[],
            stop_gradients: &[],
        };
        let e = f(&mut Builder::at_end(&mut prog), read, &empty).unwrap_err();
        assert!(e.to_string().contains(name), "{e}");
    }
}

#[test]
fn an_array_with_two_gradients_sums_them_with_add_n_array() {
    // Expected (derived from the rules above): two array_to_tensor of one array each give it
    // a gradient array (tensor_to_array); array_write_, walked next, finds two and sums them
    // with `builtin.combine` + `add_n_array` (append_add_n on an array) before its Vjp. The
    // zero gradients of the two out_index results are unused and pruned.
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", &[3]);
    let arr = create_array(&mut b, false);
    let i = full(&mut b, 0.0, DataType::Int64);
    let arr = array_write(&mut b, arr, x, i);
    let stack = [AttrArg::I32(0), AttrArg::Bool(true)];
    let t1 = op(&mut b, "pd_op.array_to_tensor", &[arr], &stack, false);
    let t2 = op(&mut b, "pd_op.array_to_tensor", &[arr], &stack, false);
    let s = op(&mut b, "pd_op.add", &[t1, t2], &[], false);
    let loss = sum(&mut b, s);
    let grads = pir_autodiff::grad(&mut prog, &[loss], &[x], &[]).unwrap();
    let out = prog.to_string();
    // The forward part has 10 ops.
    let backward: Vec<&str> = names(&out).into_iter().skip(10).collect();
    assert_eq!(
        backward,
        [
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.sum_grad",
            "pd_op.add_grad",
            "pd_op.tensor_to_array",
            "pd_op.tensor_to_array",
            "builtin.combine",
            "pd_op.add_n_array",
            "pd_op.array_read",
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.array_write_",
            "pd_op.cast",
        ],
        "{out}"
    );
    let sum_line = out.lines().find(|l| l.contains("add_n_array")).unwrap();
    assert!(
        sum_line.ends_with("-> pd_op.tensor_array<f32>"),
        "{sum_line}"
    );
    assert!(grads[0].is_some());
    assert_clean(&prog, [1, 2]);
}

#[test]
fn a_loop_writing_into_an_outside_array_carries_its_gradient_as_a_loop_variable() {
    // The dygraph-to-static shape: the body writes into an array defined before the loop (not
    // a loop variable). Expected (derived from the rules above): the array is a value the
    // body uses from outside, so its gradient (tensor_to_array, made before the loop's
    // backward) becomes a loop variable of the backward while next to x's (zeros to start);
    // the backward body's array_write_ Vjp reads and zeroes that loop variable, and the yield
    // passes it on after x's summed gradient, in the order of the body's outside values (x,
    // then the array).
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", &[4]);
    let arr = create_array(&mut b, false);
    let i = full(&mut b, 0.0, DataType::Int64);
    let n = full(&mut b, 3.0, DataType::Int64);
    let c = op(&mut b, "pd_op.less_than", &[i, n], &[], true);
    WhileOp::build(&mut b, c, &[i], |b, args| {
        let h = op(b, "pd_op.tanh", &[x], &[], false);
        array_write(b, arr, h, args[0]);
        let one = full(b, 1.0, DataType::Float32);
        let scale = [AttrArg::Scalar(Scalar::F32(1.0)), AttrArg::Bool(true)];
        let i1 = op(b, "pd_op.scale", &[args[0], one], &scale, true);
        let c1 = op(b, "pd_op.less_than", &[i1, n], &[], true);
        Ok((c1, vec![i1]))
    })
    .unwrap();
    let stack = [AttrArg::I32(0), AttrArg::Bool(true)];
    let t = op(&mut b, "pd_op.array_to_tensor", &[arr], &stack, false);
    let loss = sum(&mut b, t);
    let grads = pir_autodiff::grad(&mut prog, &[loss], &[x], &[]).unwrap();
    let out = prog.to_string();
    let tail: Vec<&str> = names(&out)
        .into_iter()
        .skip_while(|&n| n != "pd_op.sum")
        .collect();
    assert_eq!(
        tail,
        [
            "pd_op.sum",
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.sum_grad",
            "pd_op.tensor_to_array",
            "pd_op.full",
            "pd_op.full_like",
            "cf.has_elements",
            "pd_op.while",
            "cf.tuple_pop",
            "pd_op.array_read",
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.array_write_",
            "pd_op.cast",
            "pd_op.tanh_grad",
            "cf.has_elements",
            "builtin.combine",
            "pd_op.add_n",
            "cf.yield",
        ],
        "{out}"
    );
    let bwd_while = out
        .lines()
        .rfind(|l| l.contains("\"pd_op.while\""))
        .unwrap();
    assert!(bwd_while.contains("inputs=%"), "{bwd_while}");
    let yield_line = out.lines().rfind(|l| l.contains("cf.yield")).unwrap();
    assert!(
        yield_line.contains("-> ") && yield_line.contains("pd_op.tensor_array<f32>) -> "),
        "the array's gradient is yielded last: {yield_line}"
    );
    assert!(grads[0].is_some());
    assert_clean(&prog, [1, 1]);
}

#[test]
fn an_array_read_of_a_tensor_is_a_located_error() {
    // The text reader takes `array_read` of a dense tensor; its gradient cannot be built (a
    // tensor's zero gradient is not an array), and grad says where, instead of panicking.
    let ctx = context();
    let text = "{
    (%0) = \"pd_op.data\" () {dtype:float32,name:\"x\",place:Place(undefined:0),shape:[2,3],stop_gradient:[false]} : () -> tensor<2x3xf32>
    (%1) = \"pd_op.full\" () {dtype:int64,place:Place(cpu),shape:[1],stop_gradient:[true],value:0} : () -> tensor<1xi64>
    (%2) = \"pd_op.array_read\" (%0, %1) {stop_gradient:[false]} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<-1xf32>
    (%3) = \"pd_op.full_int_array\" () {dtype:int64,place:Place(cpu),stop_gradient:[true],value:[]} : () -> tensor<0xi64>
    (%4) = \"pd_op.sum\" (%2, %3) {dtype:Undefined,keepdim:false,stop_gradient:[false]} : (tensor<-1xf32>, tensor<0xi64>) -> tensor<f32>
}
";
    let mut prog = pir_runtime::parser::parse_program(&ctx, text).unwrap();
    let ops: Vec<_> = prog.block_ops(prog.block()).collect();
    let (x, loss) = (prog.op(ops[0]).result(0), prog.op(ops[4]).result(0));
    let e = pir_autodiff::grad(&mut prog, &[loss], &[x], &[]).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("pd_op.array_read (op 2 of block 0)"), "{msg}");
    assert!(msg.contains("input 0 (`array`)"), "{msg}");
}

#[test]
fn an_array_output_is_seeded_with_create_array_like_one() {
    // `prepare_grad_outputs` seeds each output through `append_full_like(1.0, ...)`, which
    // for an array is `create_array_like(array, 1.0)` (no `full`); array_write_'s Vjp then
    // reads x's gradient from it.
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", &[3]);
    let arr = create_array(&mut b, false);
    let i = full(&mut b, 0.0, DataType::Int64);
    let arr = array_write(&mut b, arr, x, i);
    let grads = pir_autodiff::grad(&mut prog, &[arr], &[x], &[]).unwrap();
    let out = prog.to_string();
    let backward: Vec<&str> = names(&out).into_iter().skip(5).collect();
    assert_eq!(
        backward,
        [
            "pd_op.create_array_like",
            "pd_op.array_read",
            "pd_op.full",
            "pd_op.full_like",
            "pd_op.array_write_",
            "pd_op.cast"
        ],
        "{out}"
    );
    assert!(
        line_of(&out, 5).contains("\"pd_op.create_array_like\" (%1) {stop_gradient:[false],val:1}"),
        "{out}"
    );
    assert!(grads[0].is_some());
    assert_clean(&prog, [1, 0]);
}

#[test]
fn array_write_runs_its_vjp_even_when_the_written_tensor_stops_gradients() {
    // `append_backward_ops` exempts array_read and array_write_ from the skip for inputs that
    // all stop gradients: array_write_ still reads and zeroes its entry of the gradient array
    // (it must, for the reads before it), but returns no gradient, so the cast gets none.
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let x = data(&mut b, "x", &[3]);
    set_stop_gradient(b.program_mut(), x, true).unwrap();
    let arr = create_array(&mut b, true);
    let i = full(&mut b, 0.0, DataType::Int64);
    let xc = op(
        &mut b,
        "pd_op.cast",
        &[x],
        &[AttrArg::DataType(DataType::Float32)],
        true,
    );
    op(&mut b, "pd_op.array_write_", &[arr, xc, i], &[], true);
    let y = op(&mut b, "pd_op.array_read", &[arr, i], &[], false);
    let loss = sum(&mut b, y);
    let grads = pir_autodiff::grad(&mut prog, &[loss], &[x], &[]).unwrap();
    let out = prog.to_string();
    let backward: Vec<&str> = names(&out).into_iter().skip(8).collect();
    assert_eq!(
        backward,
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
        ],
        "{out}"
    );
    assert_eq!(grads, [None]);
    // The unused read of x's would-be gradient keeps its inferred type (no set_type).
    assert_clean(&prog, [0, 0]);
}
