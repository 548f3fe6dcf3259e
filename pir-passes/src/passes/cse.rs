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

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};
use smallvec::SmallVec;

use pir_runtime::{Attribute, OpId, Program, Type, TypeData, Value};

use crate::error::PassError;
use crate::module::IrModule;
use crate::pass::{Pass, PassStats};
use crate::passes::util::DefCache;

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

/// What the analysis knows of an op, by op index.
#[derive(Clone, Copy)]
struct Info {
    /// The op's class: the index of the first op with its key (`NO_CLASS` if it has none:
    /// unsafe ops, whose users are unsafe too, and ops with regions, equal to no other).
    class: u32,
    safe: bool,
    terminal: bool,
}

const NO_CLASS: u32 = u32::MAX;
const UNSEEN: Info = Info {
    class: NO_CLASS,
    safe: false,
    terminal: false,
};

/// An operand, as equality sees it, packed in a word: 0 for null; a terminal value or block
/// argument by its index (tag `LEAF`); result `index` of an op of class `class` (tag
/// `RESULT`).
type Operand = u64;

const LEAF: u64 = 1 << 62;
const RESULT: u64 = 2 << 62;

/// Everything two equal ops share: definition, schema attributes (as a projection number),
/// operands, result types. Built in reused buffers, so making one allocates nothing.
#[derive(Default, PartialEq, Eq, Hash)]
struct Key {
    def: usize,
    projection: u64,
    operands: SmallVec<[Operand; 4]>,
    results: SmallVec<[Option<Type>; 2]>,
}

struct Analyzer<'p> {
    prog: &'p Program,
    facts: DefCache,
    info: Vec<Info>,
    /// Commutative and blocking users, by definition address.
    commutative: FxHashMap<usize, (bool, bool)>,
    /// `(definition, attribute dictionary)` → number of its schema attributes' values; two
    /// ops of one definition have equal schema attributes when the numbers are.
    projection_of: FxHashMap<(usize, Attribute), u64>,
    projections: FxHashMap<SmallVec<[Option<Attribute>; 6]>, u64>,
    /// `(hash, class)` of each class; a class's key is recomputed from its first op when a
    /// hash matches, so no key is stored.
    classes: HashTable<(u64, u32)>,
    /// The first op of each class.
    first: Vec<OpId>,
    /// The first safe op of each class in scope, by class; nested blocks log what they add.
    scope: Vec<Option<OpId>>,
    undo: Vec<u32>,
    depth: usize,
    to_erase: Vec<(OpId, OpId)>,
    key: Key,
    other: Key,
}

impl Analyzer<'_> {
    fn info(&self, op: OpId) -> Info {
        self.info.get(op.index()).copied().unwrap_or(UNSEEN)
    }

    fn operand(&self, v: Option<Value>) -> Operand {
        let Some(v) = v else { return 0 };
        match self.prog.value_def(v) {
            pir_runtime::ValueDef::OpResult { op, index } => {
                let i = self.info(op);
                if i.terminal {
                    LEAF | v.index() as u64
                } else {
                    RESULT | u64::from(i.class) << 24 | u64::from(index)
                }
            }
            pir_runtime::ValueDef::BlockArg { .. } => LEAF | v.index() as u64,
        }
    }

    fn def_flags(&mut self, op: OpId) -> (bool, bool) {
        let def = self.prog.op(op).def();
        *self
            .commutative
            .entry(def as *const _ as usize)
            .or_insert_with(|| {
                (
                    COMMUTATIVE.contains(&def.name),
                    BLOCKED_USERS.contains(&def.name),
                )
            })
    }

    /// The number of `op`'s schema attributes' values (its whole dictionary without a schema).
    fn projection(&mut self, op: OpId) -> u64 {
        let r = self.prog.op(op);
        let (def, dict) = (r.def(), r.attributes());
        let slot = (def as *const _ as usize, dict);
        if let Some(&p) = self.projection_of.get(&slot) {
            return p;
        }
        let ctx = self.prog.ctx();
        let values: SmallVec<[Option<Attribute>; 6]> = match def.schema {
            Some(s) => s
                .attributes
                .iter()
                .map(|a| ctx.dict_get(dict, &a.name))
                .collect(),
            None => SmallVec::from_elem(Some(dict), 1),
        };
        let next = self.projections.len() as u64;
        let p = *self.projections.entry(values).or_insert(next);
        self.projection_of.insert(slot, p);
        p
    }

    /// `op`'s key into `out`.
    fn key_of(&mut self, op: OpId, out: &mut Key) {
        out.def = self.prog.op(op).def() as *const _ as usize;
        out.projection = self.projection(op);
        let (commutative, _) = self.def_flags(op);
        let r = self.prog.op(op);
        out.operands.clear();
        out.operands.extend(r.operands().map(|v| self.operand(v)));
        if commutative && out.operands.len() >= 2 {
            out.operands[..2].sort_unstable();
        }
        out.results.clear();
        out.results.extend(r.result_types());
    }

    fn safe(&mut self, op: OpId) -> bool {
        let prog = self.prog;
        let r = prog.op(op);
        let f = self.facts.get(r.def());
        if f.side_effect || f.inplace {
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
            if !dense {
                return false;
            }
            for u in prog.uses(v) {
                if self.def_flags(u.op).1
                    || self
                        .facts
                        .writes_operand(prog.op(u.op).def(), u.index as usize)
                {
                    return false;
                }
            }
        }
        r.operands().flatten().all(|v| match prog.defining_op(v) {
            Some(d) => {
                let i = self.info(d);
                i.terminal || i.safe
            }
            None => true,
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
            self.scope[class as usize] = None;
        }
    }

    fn terminal(&mut self, op: OpId) -> bool {
        let r = self.prog.op(op);
        let f = self.facts.get(r.def());
        f.terminal || f.constant && r.result_type(0).is_some_and(|t| t.is_dense_tensor())
    }

    fn set_info(&mut self, op: OpId, info: Info) {
        if op.index() >= self.info.len() {
            self.info.resize(op.index() + 1, UNSEEN);
        }
        self.info[op.index()] = info;
    }

    fn operation(&mut self, op: OpId) {
        if self.terminal(op) {
            self.set_info(
                op,
                Info {
                    terminal: true,
                    ..UNSEEN
                },
            );
            return;
        }
        let has_regions = self.prog.op(op).num_regions() > 0;
        for region in self.prog.op(op).regions() {
            for &b in self.prog.region_blocks(region) {
                self.block(b);
            }
        }
        let safe = self.safe(op);
        let mut info = Info { safe, ..UNSEEN };
        // Unsafe ops are never merged and make their users unsafe; ops with regions equal no
        // other: neither needs a key.
        if !safe || has_regions {
            self.set_info(op, info);
            return;
        }
        let mut key = std::mem::take(&mut self.key);
        self.key_of(op, &mut key);
        let hash = FxBuildHasher.hash_one(&key);
        let mut other = std::mem::take(&mut self.other);
        let found = {
            // Split borrows: the table is searched while keys are recomputed from `self`.
            let classes = std::mem::take(&mut self.classes);
            let found = classes
                .find(hash, |&(h, c)| {
                    h == hash && {
                        self.key_of(self.first[c as usize], &mut other);
                        other == key
                    }
                })
                .map(|&(_, c)| c);
            self.classes = classes;
            found
        };
        self.key = key;
        self.other = other;
        let class = match found {
            Some(c) => c,
            None => {
                let c = self.first.len() as u32;
                self.first.push(op);
                self.scope.push(None);
                self.classes.insert_unique(hash, (hash, c), |&(h, _)| h);
                c
            }
        };
        info.class = class;
        self.set_info(op, info);
        match self.scope[class as usize] {
            Some(existing) => self.to_erase.push((op, existing)),
            None => {
                self.scope[class as usize] = Some(op);
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
                facts: DefCache::default(),
                info: Vec::with_capacity(n),
                commutative: FxHashMap::default(),
                projection_of: FxHashMap::default(),
                projections: FxHashMap::default(),
                classes: HashTable::with_capacity(n / 2),
                first: Vec::with_capacity(n / 2),
                scope: Vec::with_capacity(n / 2),
                undo: Vec::new(),
                depth: 0,
                to_erase: Vec::new(),
                key: Key::default(),
                other: Key::default(),
            };
            a.block(m.program.block());
            a.to_erase
        };
        let prog = &mut m.program;
        for &(op, existing) in &to_erase {
            let pairs: SmallVec<[(Value, Value); 4]> = prog
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
