//! Structural comparison of two programs, for round-trip checks (`parse(print(p))` against
//! `p`, a parsed text against the same program read from JSON).

use rustc_hash::FxHashMap;

use crate::program::{BlockId, OpId, Program, Value};
use crate::types::TypeDisplay;

/// The first difference between programs `a` and `b` of one context, or `None` when they are
/// the same: the same ops (by definition) in the same blocks and order, with the same
/// attributes, operands (up to renaming of values), result types, regions and block arguments
/// (types and attributes). Op ids and parameters are not compared.
///
/// ```
/// use pir_runtime::{builtin, parser, Builder, IrContext, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut p = Program::new(&ctx);
/// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// builtin::parameter(&mut Builder::at_end(&mut p), "w", t).unwrap();
/// let q = parser::parse_program(&ctx, &p.to_string()).unwrap();
/// assert_eq!(parser::first_difference(&p, &q), None);
/// let r = parser::parse_program(&ctx, &p.to_string().replace("\"w\"", "\"v\"")).unwrap();
/// assert_eq!(parser::first_difference(&p, &r).unwrap(),
///     "builtin.parameter (op 0 of block 0): attributes {parameter_name:\"w\"} vs {parameter_name:\"v\"}");
/// ```
pub fn first_difference(a: &Program, b: &Program) -> Option<String> {
    let mut values: FxHashMap<Value, Value> = FxHashMap::default();
    let mut blocks = vec![(a.block(), b.block())];
    while let Some((ba, bb)) = blocks.pop() {
        if let Some(d) = compare_block(a, b, ba, bb, &mut values, &mut blocks) {
            return Some(d);
        }
    }
    None
}

fn compare_block(
    a: &Program,
    b: &Program,
    ba: BlockId,
    bb: BlockId,
    values: &mut FxHashMap<Value, Value>,
    blocks: &mut Vec<(BlockId, BlockId)>,
) -> Option<String> {
    let ctx = a.ctx();
    let (args_a, args_b) = (a.block_args(ba), b.block_args(bb));
    if args_a.len() != args_b.len() {
        return Some(format!(
            "{ba:?}: {} block argument(s) vs {}",
            args_a.len(),
            args_b.len()
        ));
    }
    for (i, (&x, &y)) in args_a.iter().zip(args_b).enumerate() {
        let (tx, ty) = (a.value_type(x), b.value_type(y));
        if tx != ty {
            return Some(format!(
                "{ba:?}: block argument {i} has type {} vs {}",
                TypeDisplay { ctx, ty: tx },
                TypeDisplay { ctx, ty }
            ));
        }
        let (ax, ay) = (a.block_arg_attrs(ba, i), b.block_arg_attrs(bb, i));
        let empty = Some(ctx.empty_dict());
        if ax.or(empty) != ay.or(empty) {
            return Some(format!("{ba:?}: block argument {i} has other attributes"));
        }
        values.insert(x, y);
    }
    let ops_a: Vec<OpId> = a.block_ops(ba).collect();
    let ops_b: Vec<OpId> = b.block_ops(bb).collect();
    if ops_a.len() != ops_b.len() {
        return Some(format!("{ba:?}: {} op(s) vs {}", ops_a.len(), ops_b.len()));
    }
    for (&x, &y) in ops_a.iter().zip(&ops_b) {
        if let Some(d) = compare_op(a, b, x, y, values) {
            return Some(format!("{}: {d}", a.describe(x)));
        }
        let (ra, rb) = (a.op(x), b.op(y));
        for (r1, r2) in ra.regions().zip(rb.regions()) {
            let (bl1, bl2) = (a.region_blocks(r1), b.region_blocks(r2));
            if bl1.len() != bl2.len() {
                return Some(format!(
                    "{}: a region has {} block(s) vs {}",
                    a.describe(x),
                    bl1.len(),
                    bl2.len()
                ));
            }
            blocks.extend(bl1.iter().copied().zip(bl2.iter().copied()));
        }
    }
    None
}

fn compare_op(
    a: &Program,
    b: &Program,
    x: OpId,
    y: OpId,
    values: &mut FxHashMap<Value, Value>,
) -> Option<String> {
    let ctx = a.ctx();
    let (ox, oy) = (a.op(x), b.op(y));
    if !std::ptr::eq(ox.def(), oy.def()) {
        return Some(format!("op {} vs {}", ox.name(), oy.name()));
    }
    if ox.attributes() != oy.attributes() {
        return Some(format!(
            "attributes {} vs {}",
            ox.attributes().display(ctx),
            oy.attributes().display(ctx)
        ));
    }
    if ox.num_operands() != oy.num_operands() {
        return Some(format!(
            "{} operand(s) vs {}",
            ox.num_operands(),
            oy.num_operands()
        ));
    }
    for (i, (p, q)) in ox.operands().zip(oy.operands()).enumerate() {
        let same = match (p, q) {
            (None, None) => true,
            (Some(p), Some(q)) => values.get(&p) == Some(&q),
            _ => false,
        };
        if !same {
            return Some(format!("operand {i} is another value"));
        }
    }
    if ox.num_results() != oy.num_results() || ox.num_regions() != oy.num_regions() {
        return Some(format!(
            "{} result(s), {} region(s) vs {}, {}",
            ox.num_results(),
            ox.num_regions(),
            oy.num_results(),
            oy.num_regions()
        ));
    }
    for (i, (p, q)) in ox.results().zip(oy.results()).enumerate() {
        let (tp, tq) = (a.value_type(p), b.value_type(q));
        if tp != tq {
            return Some(format!(
                "result {i} has type {} vs {}",
                TypeDisplay { ctx, ty: tp },
                TypeDisplay { ctx, ty: tq }
            ));
        }
        values.insert(p, q);
    }
    None
}
