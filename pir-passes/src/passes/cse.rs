//! `common_subexpression_elimination_pass` (level 1): an op equal to an earlier one in scope
//! (same name, same schema attributes, equal operands, same result types) is replaced by it,
//! if it is *safe to replace*.
//!
//! Equality is Paddle's: operands are equal if they are the same data/parameter/constant value
//! ("terminal") or block argument, or results of the same index of equal ops, recursively;
//! the operands of commutative ops (`add`, `multiply`, `maximum`, ...) are compared as a set.
//! Here each op gets a class number by hash-consing its key (name, attributes, operand
//! classes, result types), so deep equality is one table lookup.
//!
//! Safe to replace (transitively through producers): no `SideEffect` trait, not in-place
//! itself, every result a dense tensor (or a vector of them), no result used by
//! `builtin.shadow_output`, `cf.yield` or `pd_op.while` nor written in place by its user, and
//! every non-terminal producer safe. The "not in-place itself" rule is read off Paddle's output:
//! in `small_cnn` the duplicate `scale`/`exp` below `pd_op.batch_norm_` stay, and merge once
//! `conv2d_bn_fuse_pass` has removed it (see `tests/paddle_pairs.rs`).
//!
//! Nested blocks see the expressions of the blocks around them, and theirs are forgotten when
//! the block ends.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use pir_runtime::traits::SideEffect;
use pir_runtime::{Attribute, OpId, Program, Type, TypeData, Value};

use crate::error::PassError;
use crate::module::IrModule;
use crate::pass::{Pass, PassStats};
use crate::passes::util::{is_inplace_op, written_in_place};

/// The pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct CommonSubexpressionElimination;

const NAME: &str = "common_subexpression_elimination_pass";

/// Ops whose operands 0 and 1 commute.
const COMMUTATIVE: &[&str] = &[
    "pd_op.multiply",
    "pd_op.add",
    "pd_op.maximum",
    "pd_op.minimum",
    "pd_op.logical_and",
    "pd_op.logical_or",
    "pd_op.logical_xor",
    "pd_op.equal",
    "pd_op.not_equal",
    "pd_op.bitwise_or",
    "pd_op.bitwise_xor",
    "pd_op.bitwise_and",
];

/// Users that make a value unsafe to replace.
const BLOCKED_USERS: &[&str] = &["builtin.shadow_output", "cf.yield", "pd_op.while"];

/// `Analyzer::info` of an op not analysed.
const NONE: (u32, bool) = (u32::MAX, false);

/// An operand, as equality sees it, packed in a word: 0 for null; a terminal value or block
/// argument by its index (tag `LEAF`); result `index` of an op of class `class` (tag
/// `RESULT`).
type Operand = u64;

const LEAF: u64 = 1 << 62;
const RESULT: u64 = 2 << 62;

/// Everything two equal ops share; the schema's attributes in schema order.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    def: usize,
    attrs: SmallVec<[Option<Attribute>; 4]>,
    operands: SmallVec<[Operand; 3]>,
    results: SmallVec<[Option<Type>; 2]>,
}

/// `data`, `parameter` and constant-tensor ops: their values are compared by identity.
fn is_terminal(prog: &Program, op: OpId) -> bool {
    let r = prog.op(op);
    match r.name() {
        "pd_op.data" | "builtin.parameter" => true,
        "builtin.constant" => r.result_type(0).is_some_and(|t| t.is_dense_tensor()),
        _ => false,
    }
}

struct Analyzer<'p> {
    prog: &'p Program,
    /// Class and safety of each analysed op, by op index (`NONE` if not analysed).
    info: Vec<(u32, bool)>,
    classes: FxHashMap<Key, u32>,
    /// The first safe op of each class in scope, by class; nested blocks log what they add.
    table: Vec<Option<OpId>>,
    undo: Vec<u32>,
    depth: usize,
    to_erase: Vec<(OpId, OpId)>,
    unique: u32,
}

impl Analyzer<'_> {
    fn info(&self, op: OpId) -> (u32, bool) {
        self.info.get(op.index()).copied().unwrap_or(NONE)
    }

    fn operand(&self, v: Option<Value>) -> Operand {
        let Some(v) = v else { return 0 };
        match self.prog.defining_op(v) {
            Some(d) if !is_terminal(self.prog, d) => {
                let (class, _) = self.info(d);
                let index = match self.prog.value_def(v) {
                    pir_runtime::ValueDef::OpResult { index, .. } => index,
                    pir_runtime::ValueDef::BlockArg { index, .. } => index,
                };
                RESULT | u64::from(class) << 24 | u64::from(index)
            }
            _ => LEAF | v.index() as u64,
        }
    }

    fn class_of(&mut self, op: OpId) -> u32 {
        let r = self.prog.op(op);
        if r.num_regions() > 0 {
            // Ops with regions are never equal to another op.
            self.unique += 1;
            return u32::MAX - self.unique;
        }
        let ctx = self.prog.ctx();
        let attrs = match r.def().schema {
            Some(s) => s
                .attributes
                .iter()
                .map(|a| ctx.dict_get(r.attributes(), &a.name))
                .collect(),
            None => SmallVec::from_elem(Some(r.attributes()), 1),
        };
        let mut operands: SmallVec<[Operand; 3]> = r.operands().map(|v| self.operand(v)).collect();
        if COMMUTATIVE.contains(&r.name()) && operands.len() >= 2 {
            operands[..2].sort();
        }
        let key = Key {
            def: r.def() as *const _ as usize,
            attrs,
            operands,
            results: r.result_types().collect(),
        };
        let next = self.classes.len() as u32;
        *self.classes.entry(key).or_insert(next)
    }

    fn safe(&self, op: OpId) -> bool {
        let prog = self.prog;
        let r = prog.op(op);
        if r.has_trait::<SideEffect>() || is_inplace_op(r) {
            return false;
        }
        for v in r.results() {
            let dense = prog
                .value_type(v)
                .is_some_and(|t| match prog.ctx().type_data(t) {
                    TypeData::DenseTensor(_) => true,
                    TypeData::Vector(ts) => ts.iter().all(|t| t.is_dense_tensor()),
                    _ => false,
                });
            if !dense
                || prog
                    .uses(v)
                    .any(|u| BLOCKED_USERS.contains(&prog.op(u.op).name()))
                || written_in_place(prog, v)
            {
                return false;
            }
        }
        r.operands().flatten().all(|v| match prog.defining_op(v) {
            Some(d) if !is_terminal(prog, d) => self.info(d).1,
            _ => true,
        })
    }

    fn block(&mut self, block: pir_runtime::BlockId) {
        let mark = self.undo.len();
        self.depth += 1;
        for op in self.prog.block_ops(block) {
            self.operation(op);
        }
        self.depth -= 1;
        // A nested block's expressions are not visible after it.
        while self.undo.len() > mark {
            let class = self.undo.pop().expect("above the mark");
            self.table[class as usize] = None;
        }
    }

    fn operation(&mut self, op: OpId) {
        if is_terminal(self.prog, op) {
            return;
        }
        for region in self.prog.op(op).regions() {
            for &b in self.prog.region_blocks(region) {
                self.block(b);
            }
        }
        let class = self.class_of(op);
        let safe = self.safe(op);
        if op.index() >= self.info.len() {
            self.info.resize(op.index() + 1, NONE);
        }
        self.info[op.index()] = (class, safe);
        if !safe || class >= u32::MAX / 2 {
            return;
        }
        let c = class as usize;
        if c >= self.table.len() {
            self.table.resize(c + 1, None);
        }
        match self.table[c] {
            Some(existing) => self.to_erase.push((op, existing)),
            None => {
                self.table[c] = Some(op);
                if self.depth > 1 {
                    self.undo.push(class);
                }
            }
        }
    }
}

impl Pass for CommonSubexpressionElimination {
    fn name(&self) -> &'static str {
        NAME
    }

    fn opt_level(&self) -> u8 {
        1
    }

    fn run(&self, m: &mut IrModule) -> Result<PassStats, PassError> {
        let to_erase = {
            let n = m.program.num_values_allocated();
            let mut a = Analyzer {
                prog: &m.program,
                info: Vec::with_capacity(n),
                classes: FxHashMap::default(),
                table: Vec::new(),
                undo: Vec::new(),
                depth: 0,
                to_erase: Vec::new(),
                unique: 0,
            };
            a.block(m.program.block());
            a.to_erase
        };
        let prog = &mut m.program;
        for &(op, existing) in &to_erase {
            let pairs: Vec<(Value, Value)> = prog
                .op(op)
                .results()
                .zip(prog.op(existing).results())
                .collect();
            for (old, new) in pairs {
                prog.replace_all_uses_with(old, new);
            }
            prog.erase_op(op)
                .map_err(|source| PassError::Ir { pass: NAME, source })?;
        }
        Ok(PassStats::changed(to_erase.len()))
    }
}
