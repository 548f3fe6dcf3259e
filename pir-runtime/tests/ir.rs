//! Operations, values, use lists, erasure, insertion points, regions, verification.

use std::sync::Arc;

use pir_runtime::op_def::{sort_traits, OpDef, TraitEntry};
use pir_runtime::phi::DataType;
use pir_runtime::traits::{ReadOnly, SameOperandsAndResultType, UnaryElementWise};
use pir_runtime::{
    builtin, verify, Builder, Dialect, InsertPoint, IrContext, IrError, OpId, Program, Slot, Type,
    Value, ValueDef, VerifyErrorKind,
};

static UNARY_TRAITS: [TraitEntry; 3] = sort_traits([
    TraitEntry::of::<ReadOnly>(),
    TraitEntry::of::<UnaryElementWise>(),
    TraitEntry::of::<SameOperandsAndResultType>(),
]);
static SOURCE: OpDef = OpDef::new("test.source", "test");
static UNARY: OpDef = OpDef {
    traits: &UNARY_TRAITS,
    ..OpDef::new("test.unary", "test")
};
static SINK: OpDef = OpDef::new("test.sink", "test");
static REGION_OP: OpDef = OpDef::new("test.region", "test");
static TEST_OPS: [&OpDef; 4] = [&SOURCE, &UNARY, &SINK, &REGION_OP];

struct TestDialect;
impl Dialect for TestDialect {
    const NAME: &'static str = "test";
    fn op_defs() -> &'static [&'static OpDef] {
        &TEST_OPS
    }
}

fn setup() -> (Arc<IrContext>, Program, Type) {
    let ctx = IrContext::new();
    ctx.register_dialect::<TestDialect>().unwrap();
    let prog = Program::new(&ctx);
    let t = ctx.dense_tensor_type(DataType::Float32, &[2, 3]);
    (ctx, prog, t)
}

fn source(b: &mut Builder<'_>, t: Type) -> Value {
    let op = b
        .create_by_name("test.source", &[], &[], &[Some(t)])
        .unwrap();
    b.program().op(op).result(0)
}

fn unary(b: &mut Builder<'_>, x: Value, t: Type) -> OpId {
    b.create_by_name("test.unary", &[Some(x)], &[], &[Some(t)])
        .unwrap()
}

fn sink(b: &mut Builder<'_>, xs: &[Value]) -> OpId {
    let operands: Vec<_> = xs.iter().map(|&v| Some(v)).collect();
    b.create_by_name("test.sink", &operands, &[], &[]).unwrap()
}

#[test]
fn use_lists_track_every_use() {
    let (_ctx, mut prog, t) = setup();
    let mut b = Builder::at_end(&mut prog);
    let x = source(&mut b, t);
    let u1 = unary(&mut b, x, t);
    let u2 = unary(&mut b, x, t);
    let s = sink(&mut b, &[x, x]);
    assert_eq!(prog.use_count(x), 4);
    let mut users: Vec<(OpId, u32)> = prog.uses(x).map(|u| (u.op, u.index)).collect();
    users.sort();
    assert_eq!(users, vec![(u1, 0), (u2, 0), (s, 0), (s, 1)]);
    let y = prog.op(u1).result(0);
    assert_eq!(prog.value_def(y), ValueDef::OpResult { op: u1, index: 0 });
    assert_eq!(prog.defining_op(x), prog.block_ops(prog.block()).next());
    assert!(!prog.has_uses(y));
}

#[test]
fn replace_all_uses_moves_every_use() {
    let (_ctx, mut prog, t) = setup();
    let mut b = Builder::at_end(&mut prog);
    let x = source(&mut b, t);
    let y = source(&mut b, t);
    let u = unary(&mut b, y, t);
    let s = sink(&mut b, &[x, x, x]);
    prog.replace_all_uses_with(x, y);
    assert_eq!(prog.use_count(x), 0);
    assert_eq!(prog.use_count(y), 4);
    assert_eq!(prog.op(s).operands().collect::<Vec<_>>(), vec![Some(y); 3]);
    assert_eq!(prog.op(u).operand(0), Some(y));
    // And back, through the spliced list.
    prog.replace_all_uses_with(y, x);
    assert_eq!(prog.use_count(x), 4);
    assert_eq!(prog.use_count(y), 0);
    prog.replace_all_uses_with(x, x);
    assert_eq!(prog.use_count(x), 4);
}

#[test]
fn replace_uses_with_if_moves_only_matching_uses() {
    let (_ctx, mut prog, t) = setup();
    let mut b = Builder::at_end(&mut prog);
    let x = source(&mut b, t);
    let y = source(&mut b, t);
    let s = sink(&mut b, &[x, x, x, x]);
    prog.replace_uses_with_if(x, y, |u| u.index % 2 == 0);
    assert_eq!(
        prog.op(s).operands().collect::<Vec<_>>(),
        vec![Some(y), Some(x), Some(y), Some(x)]
    );
    assert_eq!(prog.use_count(x), 2);
    assert_eq!(prog.use_count(y), 2);
    assert!(prog.uses(y).all(|u| u.index % 2 == 0));
}

#[test]
fn erasing_an_op_whose_result_is_used_is_an_error_and_changes_nothing() {
    let (_ctx, mut prog, t) = setup();
    let mut b = Builder::at_end(&mut prog);
    let x = source(&mut b, t);
    let u = unary(&mut b, x, t);
    let y = prog.op(u).result(0);
    let s = {
        let mut b = Builder::at_end(&mut prog);
        sink(&mut b, &[y])
    };
    let src = prog.defining_op(x).unwrap();
    let err = prog.erase_op(src).unwrap_err();
    assert_eq!(
        err,
        IrError::ResultInUse {
            op: "test.source (op 0 of block 0)".into(),
            index: 0,
            uses: 1,
            user: "test.unary (op 1 of block 0)".into(),
        }
    );
    assert_eq!(
        err.to_string(),
        "cannot erase test.source (op 0 of block 0): its result 0 still has 1 use(s), the first by test.unary (op 1 of block 0)"
    );
    assert!(prog.is_alive(src));
    assert_eq!(prog.block_len(prog.block()), 3);
    // Erase users first, then it works; the use lists shrink as we go.
    prog.erase_op(s).unwrap();
    assert_eq!(prog.use_count(y), 0);
    prog.erase_op(u).unwrap();
    assert_eq!(prog.use_count(x), 0);
    prog.erase_op(src).unwrap();
    assert_eq!(prog.block_len(prog.block()), 0);
    assert!(matches!(prog.erase_op(src), Err(IrError::Erased(_))));
    verify(&prog).unwrap();
}

#[test]
fn erase_is_o1_per_use_with_many_uses() {
    let (_ctx, mut prog, t) = setup();
    let mut b = Builder::at_end(&mut prog);
    let x = source(&mut b, t);
    let users: Vec<OpId> = (0..10_000).map(|_| unary(&mut b, x, t)).collect();
    assert_eq!(prog.use_count(x), 10_000);
    // Erase in an order unrelated to the use-list order.
    for (i, &u) in users.iter().enumerate().filter(|(i, _)| i % 3 == 0) {
        prog.erase_op(u).unwrap_or_else(|e| panic!("{i}: {e}"));
    }
    assert_eq!(prog.use_count(x), 10_000 - 3334);
    verify(&prog).unwrap();
}

#[test]
fn insertion_points_and_detach() {
    let (ctx, mut prog, t) = setup();
    let mut b = Builder::at_end(&mut prog);
    let x = source(&mut b, t);
    let last = sink(&mut b, &[x]);
    b.set_insertion_point(InsertPoint::Before(last));
    let a = unary(&mut b, x, t);
    let c = unary(&mut b, x, t);
    b.set_insertion_point(InsertPoint::BlockStart(b.program().block()));
    let y = source(&mut b, t);
    let z = source(&mut b, t);
    let order: Vec<OpId> = prog.block_ops(prog.block()).collect();
    let (sx, sy, sz) = (
        prog.defining_op(x).unwrap(),
        prog.defining_op(y).unwrap(),
        prog.defining_op(z).unwrap(),
    );
    assert_eq!(order, vec![sy, sz, sx, a, c, last]);
    assert_eq!(prog.op_position(a), Some(3));
    prog.detach_op(a).unwrap();
    prog.insert_op(a, InsertPoint::After(last)).unwrap();
    assert_eq!(prog.block_ops(prog.block()).last(), Some(a));
    assert!(matches!(
        prog.insert_op(a, InsertPoint::After(c)),
        Err(IrError::AlreadyInBlock(_))
    ));
    assert!(matches!(
        prog.insert_op(a, InsertPoint::Before(a)),
        Err(IrError::AlreadyInBlock(_))
    ));
    assert_eq!(prog.block_len(prog.block()), 6);
    let _ = ctx;
}

#[test]
fn traits_and_interfaces_are_answered_by_the_op() {
    let (_ctx, mut prog, t) = setup();
    let mut b = Builder::at_end(&mut prog);
    let x = source(&mut b, t);
    let u = unary(&mut b, x, t);
    let r = prog.op(u);
    assert!(r.has_trait::<ReadOnly>());
    assert!(r.has_trait::<UnaryElementWise>());
    assert!(!r.has_trait::<pir_runtime::traits::Inplace>());
    assert!(!r.has_interface::<pir_runtime::interfaces::InferMeta>());
    assert!(r.def().has_trait_named("ReadOnlyTrait"));
}

#[test]
fn trait_verifiers_run() {
    let (ctx, mut prog, t) = setup();
    let mut b = Builder::at_end(&mut prog);
    let x = source(&mut b, t);
    let other = ctx.dense_tensor_type(DataType::Int64, &[2, 3]);
    let u = unary(&mut b, x, other);
    let errs = verify(&prog).unwrap_err();
    assert_eq!(errs.0.len(), 1);
    let e = &errs.0[0];
    assert_eq!((e.op, e.op_name), (u, "test.unary"));
    assert_eq!(e.location, "op 1 of block 0");
    assert!(
        e.message()
            .starts_with("SameOperandsAndResultTypeTrait: result 0 has type"),
        "{}",
        e.message()
    );
    // The kind names the trait and the two values that differ.
    let VerifyErrorKind::Trait { name, error } = &*e.kind else {
        panic!("{e}")
    };
    assert_eq!(*name, "SameOperandsAndResultTypeTrait");
    assert_eq!(
        **error,
        VerifyErrorKind::Mismatch {
            what: "type",
            value: Slot::Result(0),
            found: "tensor<2x3xi64>".into(),
            other: Slot::Operand(0),
            other_found: "tensor<2x3xf32>".into(),
        }
    );
}

#[test]
fn verifier_reports_use_before_definition() {
    let (_ctx, mut prog, t) = setup();
    let mut b = Builder::at_end(&mut prog);
    let x = source(&mut b, t);
    let u = unary(&mut b, x, t);
    let src = prog.defining_op(x).unwrap();
    prog.detach_op(src).unwrap();
    prog.insert_op(src, InsertPoint::After(u)).unwrap();
    let errs = verify(&prog).unwrap_err();
    assert_eq!(
        errs.0[0].to_string(),
        "test.unary (op 0 of block 0): operand 0 is used before it is defined, or outside the block that defines it (defined by test.source (op 1 of block 0))"
    );
}

/// Value numbers past digit carries (9, 99, 999), names of the newest value and of older ones,
/// and one op signature printed at two indentations.
#[test]
fn value_numbers_carry_and_cached_lines_keep_their_indentation() {
    let (ctx, mut prog, t) = setup();
    let ty = "tensor<2x3xf32>";
    let mut b = Builder::at_end(&mut prog);
    let mut values = vec![source(&mut b, t)];
    let mut expected = format!("{{\n    (%0) = \"test.source\" () {{}} : () -> {ty}\n");
    let unary_line = |indent: &str, n: usize, operand: &str| {
        format!("{indent}(%{n}) = \"test.unary\" ({operand}) {{}} : ({ty}) -> {ty}\n")
    };
    for n in 1..=1205 {
        let op = unary(&mut b, values[n - 1], t);
        values.push(b.program().op(op).result(0));
        expected += &unary_line("    ", n, &format!("%{}", n - 1));
        if n % 7 == 0 {
            // The newest value and an older one (its name is formatted, not copied).
            sink(&mut b, &[values[n], values[n / 2]]);
            expected += &format!(
                "    () = \"test.sink\" (%{n}, %{}) {{}} : ({ty}, {ty}) -> \n",
                n / 2
            );
        }
    }
    let v = values[1205];
    let region_op = b
        .create_with(&REGION_OP, &[Some(v)], ctx.empty_dict(), &[Some(t)], 1)
        .unwrap();
    expected += &format!("    (%1206) = \"test.region\" (%1205) {{}} : ({ty}) -> {ty}\n    {{\n");
    let inner = prog.add_block(prog.op(region_op).region(0));
    let mut ib = Builder::at_block_end(&mut prog, inner);
    let y = unary(&mut ib, v, t);
    let y = prog.op(y).result(0);
    let mut ib = Builder::at_block_end(&mut prog, inner);
    unary(&mut ib, y, t);
    expected += &unary_line("        ", 1207, "%1205");
    expected += &unary_line("        ", 1208, "%1207");
    expected += "    }\n\n";
    let mut b = Builder::at_end(&mut prog);
    unary(&mut b, v, t);
    expected += &unary_line("    ", 1209, "%1205");
    expected += "}\n";
    assert_eq!(prog.to_string(), expected);
    // Through a writer (flushed in parts) as through `to_string`.
    let mut s = String::new();
    pir_runtime::printer::print_program(&mut s, &prog).unwrap();
    assert_eq!(s, expected);
}

#[test]
fn nested_regions_scope_values_and_print_indented() {
    let (ctx, mut prog, t) = setup();
    let mut b = Builder::at_end(&mut prog);
    let x = source(&mut b, t);
    let region_op = b
        .create_with(&REGION_OP, &[Some(x)], ctx.empty_dict(), &[Some(t)], 1)
        .unwrap();
    let region = prog.op(region_op).region(0);
    let inner = prog.add_block(region);
    let arg = prog.add_block_arg(inner, Some(t));
    let attrs = ctx.dict_attr(&[("stop_gradient", ctx.bool_attr(true))]);
    prog.set_block_arg_attrs(inner, 0, attrs);
    let mut ib = Builder::at_block_end(&mut prog, inner);
    let y = unary(&mut ib, arg, t);
    let y = prog.op(y).result(0);
    let mut ib = Builder::at_block_end(&mut prog, inner);
    sink(&mut ib, &[y, x]);
    verify(&prog).unwrap();
    let expected = concat!(
        "{\n",
        "    (%0) = \"test.source\" () {} : () -> tensor<2x3xf32>\n",
        "    (%1) = \"test.region\" (%0) {} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n",
        "    {\n",
        "        (%2) = \"test.unary\" (%arg_0 {stop_gradient:true}) {} : (tensor<2x3xf32>) -> tensor<2x3xf32>\n",
        "        () = \"test.sink\" (%2, %0) {} : (tensor<2x3xf32>, tensor<2x3xf32>) -> \n",
        "    }\n",
        "\n",
        "}\n",
    );
    assert_eq!(prog.to_string(), expected);

    // A value defined inside the region is not visible after it.
    let mut b = Builder::at_end(&mut prog);
    sink(&mut b, &[y]);
    let errs = verify(&prog).unwrap_err();
    assert_eq!(errs.0.len(), 1);
    assert_eq!(errs.0[0].location, "op 2 of block 0");
    // Erasing the region op erases its body; it fails while the outer sink uses `y`.
    assert!(prog.erase_op(region_op).is_err());
    let outer_sink = prog.block_ops(prog.block()).last().unwrap();
    prog.erase_op(outer_sink).unwrap();
    prog.erase_op(region_op).unwrap();
    assert_eq!(prog.use_count(x), 0);
    verify(&prog).unwrap();
}

#[test]
fn builtin_ops_verify_and_catch_mismatches() {
    let (ctx, mut prog, t) = setup();
    let mut b = Builder::at_end(&mut prog);
    let x = source(&mut b, t);
    let i = ctx.dense_tensor_type(DataType::Int64, &[4]);
    let y = b
        .create_by_name("test.source", &[], &[], &[Some(i)])
        .unwrap();
    let y = b.program().op(y).result(0);
    let v = builtin::combine(&mut b, &[x, y]).unwrap();
    assert_eq!(
        b.program().value_type(v).unwrap().display(&ctx).to_string(),
        "vec[tensor<2x3xf32>,tensor<4xi64>]"
    );
    let parts = builtin::split(&mut b, v).unwrap();
    assert_eq!(parts.len(), 2);
    let s1 = builtin::slice(&mut b, v, 1).unwrap();
    assert_eq!(b.program().value_type(s1), Some(i));
    assert!(builtin::slice(&mut b, v, 2).is_err());
    assert!(builtin::split(&mut b, x).is_err());
    builtin::shadow_output(&mut b, s1, "out").unwrap();
    builtin::set_parameter(&mut b, x, "w").unwrap();
    verify(&prog).unwrap();

    // A parameter without its name.
    let mut b = Builder::at_end(&mut prog);
    b.create_by_name("builtin.parameter", &[], &[], &[Some(t)])
        .unwrap();
    // A combine whose vector type disagrees with its operands.
    let bad = ctx.vector_type(&[t]);
    b.create_by_name("builtin.combine", &[Some(x), Some(y)], &[], &[Some(bad)])
        .unwrap();
    let msgs: Vec<String> = verify(&prog)
        .unwrap_err()
        .0
        .iter()
        .map(|e| e.to_string())
        .collect();
    assert_eq!(
        msgs,
        vec![
            "builtin.parameter (op 7 of block 0): attribute `parameter_name` is missing (expected pir::StrAttribute)".to_string(),
            "builtin.combine (op 8 of block 0): result 0: the vector has 1 element(s) but the op has 2 operand(s)".to_string(),
        ]
    );
}

#[test]
fn unknown_ops_and_wrong_dialects_are_errors() {
    let (ctx, mut prog, _t) = setup();
    let mut b = Builder::at_end(&mut prog);
    assert_eq!(
        b.create_by_name("pd_op.nope", &[], &[], &[])
            .unwrap_err()
            .to_string(),
        "op `pd_op.nope` is not registered in this context (is its dialect registered?)"
    );
    static MISNAMED: OpDef = OpDef::new("other.x", "test");
    assert!(matches!(
        ctx.register_ops("test", &[&MISNAMED]),
        Err(IrError::WrongDialect { .. })
    ));
    static DUP: OpDef = OpDef::new("test.unary", "test");
    assert!(matches!(
        ctx.register_ops("test", &[&DUP]),
        Err(IrError::DuplicateOp(_))
    ));
    // Registering the same dialect twice is fine.
    ctx.register_dialect::<TestDialect>().unwrap();
    assert_eq!(ctx.dialects(), vec!["builtin", "test"]);
}

#[test]
fn parameters_map() {
    let (ctx, mut prog, t) = setup();
    prog.set_parameter(
        "w",
        pir_runtime::Parameter {
            bytes: vec![0; 24],
            ty: t,
            is_mutable: true,
        },
    );
    assert_eq!(prog.parameter("w").unwrap().bytes.len(), 24);
    assert!(prog.parameter("v").is_none());
    assert_eq!(prog.parameters().len(), 1);
    let _ = ctx;
}

/// Ops keep operand and result counts in 16 bits and regions elsewhere; bigger ops must work
/// the same.
#[test]
fn ops_with_more_than_65535_operands_or_results_and_ops_with_regions() {
    let (ctx, mut prog, t) = setup();
    let mut b = Builder::at_end(&mut prog);
    let x = source(&mut b, t);
    let n = 70_000;
    let many = vec![Some(x); n];
    let wide = b
        .create_with(&SINK, &many, ctx.empty_dict(), &[], 0)
        .unwrap();
    let types = vec![Some(t); n];
    let fan = b
        .create_with(&SOURCE, &[], ctx.empty_dict(), &types, 0)
        .unwrap();
    let looped = b
        .create_with(&REGION_OP, &[Some(x)], ctx.empty_dict(), &[Some(t)], 3)
        .unwrap();
    let after = unary(&mut b, x, t);
    assert_eq!(prog.op(wide).num_operands(), n);
    assert_eq!(prog.use_count(x), n + 2);
    assert_eq!(prog.op(wide).operand(n - 1), Some(x));
    assert_eq!(prog.op(fan).num_results(), n);
    let last = prog.op(fan).result(n - 1);
    assert_eq!(
        prog.value_def(last),
        ValueDef::OpResult {
            op: fan,
            index: n as u32 - 1
        }
    );
    assert_eq!(prog.op(fan).result_types().len(), n);
    assert_eq!(prog.op(looped).num_regions(), 3);
    let body = prog.add_block(prog.op(looped).region(2));
    let arg = prog.add_block_arg(body, Some(t));
    let arg2 = prog.add_block_arg(body, Some(t));
    assert_eq!(
        prog.value_def(arg2),
        ValueDef::BlockArg {
            block: body,
            index: 1
        }
    );
    assert_eq!(prog.defining_op(arg), None);
    assert_eq!(prog.op(after).num_operands(), 1);
    prog.erase_op(wide).unwrap();
    assert_eq!(prog.use_count(x), 2);
    prog.erase_op(fan).unwrap();
    assert!(!prog.is_alive(fan));
    assert_eq!(prog.op(looped).regions().count(), 3);
    assert!(prog.location(after).starts_with("op 2 of block 0"));
}
