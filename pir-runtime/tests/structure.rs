//! The verifier's structural checks (issue 18): regions where an op has none, arguments on
//! the top block, uses of an enclosing op's results inside its regions, and dims no Paddle
//! program holds, while what Paddle writes (`-1`, products of `-1` such as `-3`, `-8`) stays
//! valid. Programs are built by small generators here, and nest deep to show the checks do not
//! recurse.

use std::sync::Arc;

use pir_runtime::phi::DataType;
use pir_runtime::{builtin, verify, Builder, IrContext, OpDef, OpId, Program, Type, Value};

static SOURCE: OpDef = OpDef::new("test.source", "test");
static UNARY: OpDef = OpDef::new("test.unary", "test");
static LOOP: OpDef = OpDef::new("test.loop", "test");

fn setup() -> (Arc<IrContext>, Program) {
    let ctx = IrContext::new();
    ctx.register_ops("test", &[&SOURCE, &UNARY, &LOOP]).unwrap();
    let prog = Program::new(&ctx);
    (ctx, prog)
}

fn tensor(ctx: &IrContext, dims: &[i64]) -> Type {
    ctx.dense_tensor_type(DataType::Float32, dims)
}

fn op(b: &mut Builder<'_>, def: &'static OpDef, x: Option<Value>, t: Type, regions: usize) -> OpId {
    let operands: Vec<_> = x.into_iter().map(Some).collect();
    let empty = b.ctx().empty_dict();
    b.create_with(def, &operands, empty, &[Some(t)], regions)
        .unwrap()
}

/// A chain of `depth` loops, each in the one block of the previous one's region; returns the
/// loops and the innermost block.
fn nest(prog: &mut Program, depth: usize, t: Type) -> (Vec<OpId>, pir_runtime::BlockId) {
    let mut block = prog.block();
    let mut loops = Vec::new();
    for _ in 0..depth {
        let l = op(&mut Builder::at_block_end(prog, block), &LOOP, None, t, 1);
        block = prog.add_block(prog.op(l).region(0));
        loops.push(l);
    }
    (loops, block)
}

fn messages(prog: &Program) -> Vec<String> {
    match verify(prog) {
        Ok(()) => Vec::new(),
        Err(e) => e.0.iter().map(|e| e.to_string()).collect(),
    }
}

#[test]
fn a_builtin_or_generated_op_with_a_region_is_refused() {
    let (ctx, mut prog) = setup();
    let t = tensor(&ctx, &[2]);
    let mut b = Builder::at_end(&mut prog);
    let p = b
        .create_with(
            &builtin::PARAMETER_DEF,
            &[],
            ctx.dict_attr(&[("parameter_name", ctx.str_attr("w"))]),
            &[Some(t)],
            1,
        )
        .unwrap();
    // An op of an unknown dialect may have regions (Paddle's control flow ops do).
    op(&mut b, &LOOP, None, t, 2);
    let errs = verify(&prog).unwrap_err();
    assert_eq!(errs.0.len(), 1, "{errs}");
    assert_eq!(errs.0[0].op, p);
    assert_eq!(
        errs.0[0].to_string(),
        "builtin.parameter (op 0 of block 0): expected 0 regions, found 1"
    );
}

#[test]
fn arguments_on_the_top_block_are_refused() {
    let (ctx, mut prog) = setup();
    let top = prog.block();
    prog.add_block_arg(top, Some(tensor(&ctx, &[2])));
    prog.add_block_arg(top, None);
    assert_eq!(
        messages(&prog),
        ["builtin.module (the program's module): the top block has 2 argument(s): the module's body takes none"]
    );
    // Nested blocks may have arguments (a while body's loop variables).
    let (ctx, mut prog) = setup();
    let (_, inner) = nest(&mut prog, 3, tensor(&ctx, &[2]));
    prog.add_block_arg(inner, Some(tensor(&ctx, &[-1, 4])));
    assert_eq!(messages(&prog), Vec::<String>::new());
}

#[test]
fn a_region_using_an_enclosing_ops_result_is_refused_at_any_depth() {
    for depth in [1, 2, 50] {
        let (ctx, mut prog) = setup();
        let t = tensor(&ctx, &[2]);
        let (loops, inner) = nest(&mut prog, depth, t);
        let outer = prog.op(loops[0]).result(0);
        let u = op(
            &mut Builder::at_block_end(&mut prog, inner),
            &UNARY,
            Some(outer),
            t,
            0,
        );
        let errs = verify(&prog).unwrap_err();
        assert_eq!(errs.0.len(), 1, "{errs}");
        let e = &errs.0[0];
        assert_eq!(e.op, u);
        assert_eq!(e.kind.slot(), Some(pir_runtime::Slot::Operand(0)));
        assert!(
            e.message().contains(
                "test.loop (op 0 of block 0), which encloses this op: an op's results exist only after its regions ran"
            ),
            "{e}"
        );
    }
    // The same value used after the loop is fine, and so is a sibling loop's result.
    let (ctx, mut prog) = setup();
    let t = tensor(&ctx, &[2]);
    let (loops, _) = nest(&mut prog, 2, t);
    let r = prog.op(loops[0]).result(0);
    let mut b = Builder::at_end(&mut prog);
    let l2 = op(&mut b, &LOOP, None, t, 1);
    op(&mut b, &UNARY, Some(r), t, 0);
    let body = prog.add_block(prog.op(l2).region(0));
    op(
        &mut Builder::at_block_end(&mut prog, body),
        &UNARY,
        Some(r),
        t,
        0,
    );
    assert_eq!(messages(&prog), Vec::<String>::new());
}

#[test]
fn deep_nesting_is_checked_without_recursion() {
    let (ctx, mut prog) = setup();
    let t = tensor(&ctx, &[2]);
    let (_, inner) = nest(&mut prog, 200_000, t);
    // A declared -7 at the bottom: every value of the nest is then looked at.
    prog.add_block_arg(inner, Some(tensor(&ctx, &[-7])));
    // Only the structural check is run here: the op verifier's own walk is engineer cflow's.
    let errs = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            pir_runtime::verify::verify_structure(&prog)
                .unwrap_err()
                .0
                .len()
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(errs, 1);
}

/// `source` (no operand: declared dims) then `unary` (inferred dims) on `dims`.
fn dims_program(dims: &[i64]) -> (Program, OpId, OpId) {
    let (ctx, mut prog) = setup();
    let ok = tensor(&ctx, &[-1, 3]);
    let t = tensor(&ctx, dims);
    let mut b = Builder::at_end(&mut prog);
    let s = op(&mut b, &SOURCE, None, t, 0);
    let x = b.program().op(s).result(0);
    let s2 = op(&mut b, &SOURCE, None, ok, 0);
    let y = b.program().op(s2).result(0);
    let _ = x;
    let u = op(&mut b, &UNARY, Some(y), t, 0);
    (prog, s, u)
}

#[test]
fn dims_paddle_writes_pass_and_others_are_refused_with_the_reason() {
    // What Paddle writes: -1, known dims, and on inferred results products of -1 (-3, -8).
    let (ctx, mut prog) = setup();
    let mut b = Builder::at_end(&mut prog);
    let x = op(&mut b, &SOURCE, None, tensor(&ctx, &[-1, 8, 16, 16]), 0);
    let x = b.program().op(x).result(0);
    for dims in [&[-8][..], &[-3], &[-1, -1], &[0], &[1 << 20, 1 << 20]] {
        op(&mut b, &UNARY, Some(x), tensor(&ctx, dims), 0);
    }
    assert_eq!(messages(&prog), Vec::<String>::new());

    for (dims, bad, declared_only) in [
        (&[-5][..], -5, true),
        (&[-1, -1000], -1000, true),
        (&[3, i64::MAX], i64::MAX, false),
        (&[i64::MIN], i64::MIN, false),
        (&[1 << 32, 1 << 32], 1 << 32, false),
    ] {
        let (prog, s, u) = dims_program(dims);
        let errs = verify(&prog).unwrap_err();
        let expected = if declared_only { vec![s] } else { vec![s, u] };
        assert_eq!(
            errs.0.iter().map(|e| e.op).collect::<Vec<_>>(),
            expected,
            "{errs}"
        );
        // The last error: the inferred result's when it is refused too.
        let m = errs.0.last().unwrap().message();
        assert!(m.contains(&format!("has dim {bad}: ")), "{m}");
        let why = if declared_only {
            "a dim below -1 is only written by Paddle as the product of an input's unknown (-1) dim"
        } else {
            "size in bytes does not fit in an int64"
        };
        assert!(m.contains(why), "{m}");
    }
}

#[test]
fn block_arguments_and_vector_elements_are_checked_too() {
    let (ctx, mut prog) = setup();
    let (loops, inner) = nest(&mut prog, 2, tensor(&ctx, &[2]));
    prog.add_block_arg(inner, Some(tensor(&ctx, &[-7])));
    let errs = verify(&prog).unwrap_err();
    assert_eq!(errs.0.len(), 1);
    assert_eq!(errs.0[0].op, loops[1]);
    assert!(
        errs.0[0].message().starts_with("argument 0 of block"),
        "{}",
        errs.0[0]
    );

    let (ctx, mut prog) = setup();
    let v = ctx.vector_type(&[tensor(&ctx, &[2]), tensor(&ctx, &[i64::MAX, 2])]);
    op(&mut Builder::at_end(&mut prog), &SOURCE, None, v, 0);
    let m = messages(&prog);
    assert_eq!(m.len(), 1);
    assert!(
        m[0].contains(
            "vec[tensor<2xf32>,tensor<9223372036854775807x2xf32>] has dim 9223372036854775807"
        ),
        "{}",
        m[0]
    );
}
