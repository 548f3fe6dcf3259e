//! CSE's equality and safety rules on small programs (Paddle's rules as PASSES.md and
//! Paddle's `common_subexpression_elimination_pass.cc` state them): commutative ops compare
//! their two operands as a set, equality is deep through producers, ops with other attributes
//! differ, and a value `builtin.shadow_output` uses is not replaced.

use std::sync::Arc;

use pir_passes::passes::CommonSubexpressionElimination;
use pir_passes::{IrModule, Pass};
use pir_runtime::phi::DataType;
use pir_runtime::{builtin, Attribute, Builder, IrContext, Program, Value};

fn ctx() -> Arc<IrContext> {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    ctx
}

/// `name(operands)` at the end of `prog`, one result of `[-1, 8]` float32.
fn op(prog: &mut Program, name: &str, operands: &[Value], attrs: Attribute) -> Value {
    let ctx = prog.ctx().clone();
    let t = ctx.dense_tensor_type(DataType::Float32, &[-1, 8]);
    let def = ctx.op_def(name).unwrap();
    let operands: Vec<Option<Value>> = operands.iter().map(|&v| Some(v)).collect();
    let mut b = Builder::at_end(prog);
    let o = b.create_with(def, &operands, attrs, &[Some(t)], 0).unwrap();
    prog.op(o).result(0)
}

/// Two data inputs `x`, `y`.
fn inputs(prog: &mut Program) -> (Value, Value) {
    let ctx = prog.ctx().clone();
    let data = |prog: &mut Program, name: &str| {
        let attrs = ctx.dict_attr(&[("name", ctx.str_attr(name))]);
        op(prog, "pd_op.data", &[], attrs)
    };
    (data(prog, "x"), data(prog, "y"))
}

/// `pd_op.fetch` of each value (a user that does not block replacement).
fn fetch_all(prog: &mut Program, values: &[Value]) {
    let ctx = prog.ctx().clone();
    for (i, &v) in values.iter().enumerate() {
        let attrs = ctx.dict_attr(&[
            ("name", ctx.str_attr(&format!("out{i}"))),
            ("col", ctx.i32_attr(i as i32)),
        ]);
        op(prog, "pd_op.fetch", &[v], attrs);
    }
}

/// Runs CSE; returns how many ops it merged and the op names left, in order.
fn cse(prog: Program) -> (usize, Vec<&'static str>) {
    let mut m = IrModule::from(prog);
    let changes = CommonSubexpressionElimination.run(&mut m).unwrap().changes;
    let p = &m.program;
    let names = p.block_ops(p.block()).map(|o| p.op(o).name()).collect();
    (changes, names)
}

#[test]
fn commutative_operands_compare_as_a_set() {
    let ctx = ctx();
    let mut prog = Program::new(&ctx);
    let (x, y) = inputs(&mut prog);
    let e = ctx.empty_dict();
    let a = op(&mut prog, "pd_op.add", &[x, y], e);
    let b = op(&mut prog, "pd_op.add", &[y, x], e); // add commutes: merges with `a`
    let s = op(&mut prog, "pd_op.subtract", &[x, y], e);
    let t = op(&mut prog, "pd_op.subtract", &[y, x], e); // subtract does not
    fetch_all(&mut prog, &[a, b, s, t]);
    let (merged, names) = cse(prog);
    assert_eq!(merged, 1);
    assert_eq!(names.iter().filter(|n| **n == "pd_op.add").count(), 1);
    assert_eq!(names.iter().filter(|n| **n == "pd_op.subtract").count(), 2);
}

#[test]
fn equality_is_deep_and_attributes_count() {
    let ctx = ctx();
    let mut prog = Program::new(&ctx);
    let (x, _) = inputs(&mut prog);
    let e = ctx.empty_dict();
    // relu(relu(x)) twice: both levels merge, the second only because the first did.
    let r1 = op(&mut prog, "pd_op.relu", &[x], e);
    let r2 = op(&mut prog, "pd_op.relu", &[r1], e);
    let s1 = op(&mut prog, "pd_op.relu", &[x], e);
    let s2 = op(&mut prog, "pd_op.relu", &[s1], e);
    // Two transposes of one input with other permutations stay apart (`perm` is a schema
    // attribute, `int[]`; not a mutable one, which would be an operand).
    let perm = |p: [i32; 2]| {
        let items = [ctx.i32_attr(p[0]), ctx.i32_attr(p[1])];
        ctx.dict_attr(&[("perm", ctx.array_attr(&items))])
    };
    let c1 = op(&mut prog, "pd_op.transpose", &[x], perm([1, 0]));
    let c2 = op(&mut prog, "pd_op.transpose", &[x], perm([0, 1]));
    fetch_all(&mut prog, &[r2, s2, c1, c2]);
    let (merged, names) = cse(prog);
    assert_eq!(merged, 2);
    assert_eq!(names.iter().filter(|n| **n == "pd_op.relu").count(), 2);
    assert_eq!(names.iter().filter(|n| **n == "pd_op.transpose").count(), 2);
}

#[test]
fn a_value_shadow_output_uses_is_not_replaced() {
    let ctx = ctx();
    let mut prog = Program::new(&ctx);
    let (x, _) = inputs(&mut prog);
    let e = ctx.empty_dict();
    let a = op(&mut prog, "pd_op.tanh", &[x], e);
    let b = op(&mut prog, "pd_op.tanh", &[x], e); // equal to `a`, but shadow_output uses it
    let mut bld = Builder::at_end(&mut prog);
    builtin::shadow_output(&mut bld, a, "a").unwrap();
    builtin::shadow_output(&mut bld, b, "b").unwrap();
    let (merged, names) = cse(prog);
    assert_eq!(merged, 0);
    assert_eq!(names.iter().filter(|n| **n == "pd_op.tanh").count(), 2);
}

/// Paddle compares the attributes its `OpInfo` registers (`GetAttributesName`: the schema's
/// non-mutable attributes; `index` for `builtin.slice`), not the whole dictionary: two ops
/// that differ only in `stop_gradient`, `struct_name` or another unregistered entry merge.
#[test]
fn only_registered_attributes_count() {
    let ctx = ctx();
    let mut prog = Program::new(&ctx);
    let (x, y) = inputs(&mut prog);
    let sg = |b: bool| ctx.array_attr(&[ctx.bool_attr(b)]);
    let a = op(
        &mut prog,
        "pd_op.relu",
        &[x],
        ctx.dict_attr(&[("stop_gradient", sg(true))]),
    );
    let b = op(
        &mut prog,
        "pd_op.relu",
        &[x],
        ctx.dict_attr(&[
            ("stop_gradient", sg(false)),
            ("struct_name", ctx.str_attr("/A/")),
        ]),
    );
    // An op without a schema: `builtin.slice` registers `index` alone.
    let v = builtin::combine(&mut Builder::at_end(&mut prog), &[x, y]).unwrap();
    let t = ctx.dense_tensor_type(DataType::Float32, &[-1, 8]);
    let mut slice = |index: i32, extra: Option<&str>| {
        let mut entries = vec![("index", ctx.i32_attr(index))];
        if let Some(e) = extra {
            entries.push(("note", ctx.str_attr(e)));
        }
        let dict = ctx.dict_attr(&entries);
        let mut bld = Builder::at_end(&mut prog);
        let o = bld
            .create_with(&builtin::SLICE_DEF, &[Some(v)], dict, &[Some(t)], 0)
            .unwrap();
        bld.program().op(o).result(0)
    };
    let s0 = slice(0, None);
    let s0_noted = slice(0, Some("other")); // merges with `s0`
    let s1 = slice(1, Some("other")); // another index: stays
    fetch_all(&mut prog, &[a, b, s0, s0_noted, s1]);
    let (merged, names) = cse(prog);
    assert_eq!(merged, 2);
    assert_eq!(names.iter().filter(|n| **n == "pd_op.relu").count(), 1);
    assert_eq!(names.iter().filter(|n| **n == "builtin.slice").count(), 2);
}

/// An op with the `SideEffect` trait (`gaussian`: random) is never merged.
#[test]
fn side_effect_ops_are_never_merged() {
    let ctx = ctx();
    let mut prog = Program::new(&ctx);
    let (shape, _) = inputs(&mut prog); // `shape` is a mutable attribute: an operand
    let attrs = ctx.dict_attr(&[
        ("mean", ctx.f32_attr(0.0)),
        ("std", ctx.f32_attr(1.0)),
        ("seed", ctx.i32_attr(0)),
    ]);
    let a = op(&mut prog, "pd_op.gaussian", &[shape], attrs);
    let b = op(&mut prog, "pd_op.gaussian", &[shape], attrs);
    fetch_all(&mut prog, &[a, b]);
    assert_eq!(cse(prog).0, 0);
}

/// A value its user writes in place (`relu_` writes its input) is not replaced, nor is any
/// op computed from it (safety is transitive through producers).
#[test]
fn a_value_written_in_place_is_not_replaced() {
    let ctx = ctx();
    let mut prog = Program::new(&ctx);
    let (x, _) = inputs(&mut prog);
    let e = ctx.empty_dict();
    let a = op(&mut prog, "pd_op.tanh", &[x], e);
    let b = op(&mut prog, "pd_op.tanh", &[x], e); // equal to `a`, but written below
    let b_exp = op(&mut prog, "pd_op.exp", &[b], e);
    let a_exp = op(&mut prog, "pd_op.exp", &[a], e); // equal to `b_exp`, whose producer is unsafe
    let w = op(&mut prog, "pd_op.relu_", &[b], e);
    fetch_all(&mut prog, &[a, b_exp, a_exp, w]);
    let (merged, names) = cse(prog);
    assert_eq!(merged, 0);
    assert_eq!(names.iter().filter(|n| **n == "pd_op.tanh").count(), 2);
}

/// An in-place op is never merged, even on a terminal input. Paddle's source has no such
/// check (two `relu_` of one `pd_op.data` would pass its tests: data is terminal and nothing
/// uses the results), but its output shows the rule: in `small_cnn` nothing below the in-place
/// `batch_norm_` merges (`tests/paddle_pairs.rs`), and merging two in-place writes of one
/// tensor would drop one of the writes.
#[test]
fn in_place_ops_are_never_merged() {
    let ctx = ctx();
    let mut prog = Program::new(&ctx);
    let (x, _) = inputs(&mut prog);
    let e = ctx.empty_dict();
    let a = op(&mut prog, "pd_op.relu_", &[x], e);
    let b = op(&mut prog, "pd_op.relu_", &[x], e);
    fetch_all(&mut prog, &[a, b]);
    assert_eq!(cse(prog).0, 0);
}

/// Nested blocks see the expressions around them; theirs are forgotten when the block ends:
/// an op in the then-block equal to one before the `if` merges with it, one equal across the
/// then- and else-blocks does not, nor does one after the `if` equal to one inside.
#[test]
fn nested_blocks_see_outer_expressions_only() {
    use op_defs::control_flow::{IF_DEF, YIELD_DEF};
    let ctx = ctx();
    let mut prog = Program::new(&ctx);
    let (x, y) = inputs(&mut prog);
    let e = ctx.empty_dict();
    let outer = op(&mut prog, "pd_op.tanh", &[x], e);
    let t = ctx.dense_tensor_type(DataType::Float32, &[-1, 8]);
    let if_op = Builder::at_end(&mut prog)
        .create_with(&IF_DEF, &[Some(y)], e, &[Some(t)], 2)
        .unwrap();
    let (then_region, else_region) = (prog.op(if_op).region(0), prog.op(if_op).region(1));
    let then_block = prog.add_block(then_region);
    let else_block = prog.add_block(else_region);
    // `name(operands)` at the end of `block`.
    let at = |prog: &mut Program, block, name: &str, operands: &[Value]| {
        let def = ctx.op_def(name).unwrap();
        let operands: Vec<Option<Value>> = operands.iter().map(|&v| Some(v)).collect();
        let mut b = Builder::at_block_end(prog, block);
        let o = b.create_with(def, &operands, e, &[Some(t)], 0).unwrap();
        prog.op(o).result(0)
    };
    let yield_ = |prog: &mut Program, block, v: Value| {
        let mut b = Builder::at_block_end(prog, block);
        b.create_with(&YIELD_DEF, &[Some(v)], e, &[], 0).unwrap();
    };
    let inner = at(&mut prog, then_block, "pd_op.tanh", &[x]); // merges with `outer`
    at(&mut prog, then_block, "pd_op.relu", &[outer]);
    let then_exp = at(&mut prog, then_block, "pd_op.exp", &[inner]);
    yield_(&mut prog, then_block, then_exp);
    at(&mut prog, else_block, "pd_op.relu", &[outer]); // not with the then-block's relu
    let else_exp = at(&mut prog, else_block, "pd_op.exp", &[outer]);
    yield_(&mut prog, else_block, else_exp);
    let after = op(&mut prog, "pd_op.relu", &[outer], e); // the blocks' relus are out of scope
    let r = prog.op(if_op).result(0);
    fetch_all(&mut prog, &[r, after]);
    let mut m = IrModule::from(prog);
    let changes = CommonSubexpressionElimination.run(&mut m).unwrap().changes;
    assert_eq!(changes, 1);
    let p = &m.program;
    let names = |b| p.block_ops(b).map(|o| p.op(o).name()).collect::<Vec<_>>();
    assert_eq!(names(then_block), ["pd_op.relu", "pd_op.exp", "cf.yield"]);
    assert_eq!(names(else_block), ["pd_op.relu", "pd_op.exp", "cf.yield"]);
    assert_eq!(
        names(p.block())
            .iter()
            .filter(|n| **n == "pd_op.relu")
            .count(),
        1
    );
}

/// Forty different ops of one op result (more than the chain of classes anchored at its
/// class holds: the rest go to the table), each twice: every duplicate is found, none of the
/// different ones merge.
#[test]
fn many_different_users_of_one_value() {
    let ctx = ctx();
    let mut prog = Program::new(&ctx);
    let (data, _) = inputs(&mut prog);
    let x = op(&mut prog, "pd_op.relu", &[data], ctx.empty_dict());
    let perm = |k: i32| {
        let items = [ctx.i32_attr(k), ctx.i32_attr(0)];
        ctx.dict_attr(&[("perm", ctx.array_attr(&items))])
    };
    let mut outs = Vec::new();
    for round in 0..2 {
        for k in 0..40 {
            // The second round in another order, so lookups hit both chain and table.
            let k = if round == 0 { k } else { 39 - k };
            outs.push(op(&mut prog, "pd_op.transpose", &[x], perm(k)));
        }
    }
    fetch_all(&mut prog, &outs);
    let (merged, names) = cse(prog);
    assert_eq!(merged, 40);
    assert_eq!(
        names.iter().filter(|n| **n == "pd_op.transpose").count(),
        40
    );
}

/// Random programs against a direct reading of Paddle's rule (pairwise deep equality,
/// quadratic, written for clarity): the pass erases exactly the safe ops that equal an
/// earlier safe op.
#[test]
fn random_programs_match_the_rule_read_directly() {
    use std::collections::HashMap;

    /// One op of a random program: its kind, operands (value numbers: 0 and 1 are the data
    /// inputs, `2 + i` the result of op `i`) and, for `transpose`, its `perm` seed.
    struct Node {
        name: &'static str,
        operands: Vec<usize>,
        perm: i32,
    }
    const KINDS: [&str; 7] = [
        "pd_op.relu",
        "pd_op.tanh",
        "pd_op.add",
        "pd_op.multiply",
        "pd_op.subtract",
        "pd_op.transpose",
        "pd_op.relu_",
    ];
    fn equal_values(
        n: &[Node],
        a: usize,
        b: usize,
        memo: &mut HashMap<(usize, usize), bool>,
    ) -> bool {
        a == b || a >= 2 && b >= 2 && equal_ops(n, a - 2, b - 2, memo)
    }
    fn equal_ops(n: &[Node], a: usize, b: usize, memo: &mut HashMap<(usize, usize), bool>) -> bool {
        if let Some(&e) = memo.get(&(a, b)) {
            return e;
        }
        let (x, y) = (&n[a], &n[b]);
        let e = x.name == y.name
            && x.perm == y.perm
            && match x.name {
                "pd_op.add" | "pd_op.multiply" => {
                    let (p, q) = (
                        (x.operands[0], x.operands[1]),
                        (y.operands[0], y.operands[1]),
                    );
                    (equal_values(n, p.0, q.0, memo) && equal_values(n, p.1, q.1, memo))
                        || (equal_values(n, p.0, q.1, memo) && equal_values(n, p.1, q.0, memo))
                }
                _ => x
                    .operands
                    .iter()
                    .zip(&y.operands)
                    .all(|(&p, &q)| equal_values(n, p, q, memo)),
            };
        memo.insert((a, b), e);
        e
    }

    let mut seed: u64 = 0x5eed;
    let mut next = |m: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) as usize) % m
    };
    let (mut total, mut unsafe_equal) = (0, 0);
    for _ in 0..150 {
        // The program, as nodes.
        let len = 20 + next(40);
        let mut nodes: Vec<Node> = Vec::new();
        for i in 0..len {
            let kind = KINDS[match next(20) {
                0 => 6, // relu_: rare
                k => k % 6,
            }];
            // Operands among the last few values, so equal subexpressions are common.
            let mut pick = || {
                let values = i + 2;
                values - 1 - next(values.min(6))
            };
            let operands = match kind {
                "pd_op.add" | "pd_op.multiply" | "pd_op.subtract" => vec![pick(), pick()],
                _ => vec![pick()],
            };
            let perm = if kind == "pd_op.transpose" {
                next(2) as i32
            } else {
                -1
            };
            nodes.push(Node {
                name: kind,
                operands,
                perm,
            });
        }
        let shadowed: Vec<usize> = (0..2).map(|_| 2 + next(len)).collect();

        // The rule, read directly.
        let mut blocked = vec![false; len + 2];
        for n in &nodes {
            if n.name == "pd_op.relu_" {
                blocked[n.operands[0]] = true;
            }
        }
        for &v in &shadowed {
            blocked[v] = true;
        }
        let mut safe = vec![false; len];
        for i in 0..len {
            safe[i] = nodes[i].name != "pd_op.relu_"
                && !blocked[i + 2]
                && nodes[i].operands.iter().all(|&v| v < 2 || safe[v - 2]);
        }
        let mut memo = HashMap::new();
        let erased: Vec<bool> = (0..len)
            .map(|i| safe[i] && (0..i).any(|j| safe[j] && equal_ops(&nodes, j, i, &mut memo)))
            .collect();

        // The program, built, and the pass.
        let ctx = ctx();
        let mut prog = Program::new(&ctx);
        let (x, y) = inputs(&mut prog);
        let mut values = vec![x, y];
        for n in &nodes {
            let operands: Vec<Value> = n.operands.iter().map(|&v| values[v]).collect();
            let attrs = if n.perm >= 0 {
                let items = [ctx.i32_attr(n.perm), ctx.i32_attr(1 - n.perm)];
                ctx.dict_attr(&[("perm", ctx.array_attr(&items))])
            } else {
                ctx.empty_dict()
            };
            values.push(op(&mut prog, n.name, &operands, attrs));
        }
        let mut bld = Builder::at_end(&mut prog);
        for (k, &v) in shadowed.iter().enumerate() {
            builtin::shadow_output(&mut bld, values[v], &format!("s{k}")).unwrap();
        }
        let (merged, names) = cse(prog);
        let expected: Vec<&str> = ["pd_op.data", "pd_op.data"]
            .into_iter()
            .chain((0..len).filter(|&i| !erased[i]).map(|i| nodes[i].name))
            .chain(["builtin.shadow_output"; 2])
            .collect();
        assert_eq!(merged, erased.iter().filter(|&&e| e).count());
        assert_eq!(names, expected);
        total += merged;
        unsafe_equal += (0..len)
            .filter(|&i| !safe[i] && (0..i).any(|j| equal_ops(&nodes, j, i, &mut memo)))
            .count();
    }
    // The programs exercise both sides of the rule.
    assert!(
        total > 50 && unsafe_equal > 50,
        "{total} merged, {unsafe_equal} unsafe"
    );
}

/// Results must be dense tensors or vectors of them (`IsDenseTensorOrVectorOfDenseTensorType`):
/// two equal `builtin.combine`s merge; two equal ops with a selected-rows result do not.
#[test]
fn results_must_be_dense_tensors_or_vectors_of_them() {
    let ctx = ctx();
    let mut prog = Program::new(&ctx);
    let (x, y) = inputs(&mut prog);
    let mut bld = Builder::at_end(&mut prog);
    let a = builtin::combine(&mut bld, &[x, y]).unwrap();
    let b = builtin::combine(&mut bld, &[x, y]).unwrap(); // merges with `a`
    let rows = ctx.selected_rows_type(DataType::Float32, &[-1, 8]);
    let relu = ctx.op_def("pd_op.relu").unwrap();
    let mut sparse = || {
        let o = bld
            .create_with(relu, &[Some(x)], ctx.empty_dict(), &[Some(rows)], 0)
            .unwrap();
        bld.program().op(o).result(0)
    };
    let (s, t) = (sparse(), sparse()); // equal, but not dense: stay
    fetch_all(&mut prog, &[a, b, s, t]);
    let (merged, names) = cse(prog);
    assert_eq!(merged, 1);
    assert_eq!(names.iter().filter(|n| **n == "builtin.combine").count(), 1);
    assert_eq!(names.iter().filter(|n| **n == "pd_op.relu").count(), 2);
}
