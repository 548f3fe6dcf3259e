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

use std::hash::{Hash, Hasher};

use hashbrown::HashTable;
use rustc_hash::{FxHashMap, FxHasher};
use smallvec::SmallVec;

use pir_runtime::{Attribute, OpDef, OpId, Program, Type, TypeData, Value};

use crate::error::PassError;
use crate::module::IrModule;
use crate::pass::{Pass, PassStats};
use crate::passes::util::{DefCache, DefFacts, Memo};

/// The pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct CommonSubexpressionElimination;

const NAME: &str = "common_subexpression_elimination_pass";

/// What the analysis knows of an op, by op index.
#[derive(Clone, Copy)]
struct Info {
    /// The op's class: the number of its key (`NO_CLASS` if it has none: unsafe ops, whose
    /// users are unsafe too). An op with regions has a class of its own.
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
#[derive(Default, PartialEq, Eq)]
struct Key {
    def: usize,
    projection: u64,
    operands: Vec<Operand>,
    results: Vec<Option<Type>>,
}

struct Analyzer<'p> {
    prog: &'p Program,
    facts: DefCache,
    info: Vec<Info>,
    /// `(definition, attribute dictionary)` → number of its schema attributes' values; two
    /// ops of one definition have equal schema attributes when the numbers are.
    projection_of: Memo<(usize, Attribute), u64>,
    projections: FxHashMap<SmallVec<[Option<Attribute>; 6]>, u64>,
    /// The classes, by hash; a class's key is recomputed from its first op when a hash
    /// matches, so no key is stored. Four bytes a slot: the table is the one structure read
    /// at random, so its size is what a large program's time goes to.
    classes: HashTable<u32>,
    /// The hash of each class.
    hashes: Vec<u64>,
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

    /// The number of the values of `def`'s schema attributes in `dict` (the whole dictionary
    /// without a schema).
    fn projection(&mut self, def: &'static OpDef, dict: Attribute) -> u64 {
        let ctx = self.prog.ctx();
        let projections = &mut self.projections;
        self.projection_of
            .get_or((def as *const OpDef as usize, dict), || {
                let values: SmallVec<[Option<Attribute>; 6]> = match def.schema {
                    Some(s) => s
                        .attributes
                        .iter()
                        .map(|a| ctx.dict_get(dict, &a.name))
                        .collect(),
                    None => SmallVec::from_elem(Some(dict), 1),
                };
                let next = projections.len() as u64;
                *projections.entry(values).or_insert(next)
            })
    }

    /// `op`'s key into `out` (an op already given a class: its producers are safe).
    fn key_of(&mut self, op: OpId, commutative: bool, out: &mut Key) {
        let r = self.prog.op(op);
        out.def = r.def() as *const OpDef as usize;
        out.projection = self.projection(r.def(), r.attributes());
        out.operands.clear();
        for v in r.operands() {
            out.operands.push(self.operand(v));
        }
        if commutative && out.operands.len() >= 2 {
            out.operands[..2].sort_unstable();
        }
        out.results.clear();
        out.results.extend(r.result_types());
    }
}

impl Key {
    fn hash(&self) -> u64 {
        let out = self;
        let mut h = FxHasher::default();
        h.write_usize(out.def);
        h.write_u64(out.projection);
        for &w in &out.operands {
            h.write_u64(w);
        }
        out.results.hash(&mut h);
        h.finish()
    }
}

impl Analyzer<'_> {
    /// Whether `op` (of facts `f`) is safe to replace, and if so its key into `out` (operand
    /// codes and result types; definition and projection are the caller's) and hash: one walk
    /// over its results, their uses and its operands does both.
    fn safe_key(&mut self, op: OpId, f: DefFacts, out: &mut Key) -> bool {
        if f.side_effect || f.inplace {
            return false;
        }
        let prog = self.prog;
        let r = prog.op(op);
        out.results.clear();
        for v in r.results() {
            let t = prog.value_type(v);
            out.results.push(t);
            let dense = t.is_some_and(|t| match prog.ctx().type_data(t) {
                TypeData::DenseTensor(_) => true,
                TypeData::Vector(ts) => ts.iter().all(|t| t.is_dense_tensor()),
                _ => false,
            });
            if !dense {
                return false;
            }
            for u in prog.uses(v) {
                let user = prog.op(u.op).def();
                let uf = self.facts.get(user);
                let index = u.index as usize;
                let writes = match index {
                    0..63 => uf.writes & (1 << index) != 0,
                    _ => self.facts.writes_operand(user, index),
                };
                if uf.blocks_replacement || writes {
                    return false;
                }
            }
        }
        out.operands.clear();
        for v in r.operands() {
            let code = match v.map(|v| (v, prog.value_def(v))) {
                None => 0,
                Some((v, pir_runtime::ValueDef::OpResult { op: d, index })) => {
                    let i = self.info(d);
                    if i.terminal {
                        LEAF | v.index() as u64
                    } else if i.safe {
                        RESULT | u64::from(i.class) << 24 | u64::from(index)
                    } else {
                        return false;
                    }
                }
                Some((v, pir_runtime::ValueDef::BlockArg { .. })) => LEAF | v.index() as u64,
            };
            out.operands.push(code);
        }
        if f.commutative && out.operands.len() >= 2 {
            out.operands[..2].sort_unstable();
        }
        true
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

    fn set_info(&mut self, op: OpId, info: Info) {
        if op.index() >= self.info.len() {
            self.info.resize(op.index() + 1, UNSEEN);
        }
        self.info[op.index()] = info;
    }

    fn operation(&mut self, op: OpId) {
        let r = self.prog.op(op);
        let f = self.facts.get(r.def());
        if f.terminal || f.constant && r.result_type(0).is_some_and(|t| t.is_dense_tensor()) {
            self.set_info(
                op,
                Info {
                    terminal: true,
                    ..UNSEEN
                },
            );
            return;
        }
        let has_regions = r.num_regions() > 0;
        if has_regions {
            for region in self.prog.op(op).regions() {
                for &b in self.prog.region_blocks(region) {
                    self.block(b);
                }
            }
        }
        let mut key = std::mem::take(&mut self.key);
        let safe = self.safe_key(op, f, &mut key);
        let mut info = Info { safe, ..UNSEEN };
        // Unsafe ops are never merged and make their users unsafe: they need no key. Ops with
        // regions equal no other: a class of their own, so their users' keys tell them apart.
        if !safe || has_regions {
            self.key = key;
            if safe {
                info.class = self.first.len() as u32;
                self.first.push(op);
                self.scope.push(None);
                self.hashes.push(0);
            }
            self.set_info(op, info);
            return;
        }
        let r = self.prog.op(op);
        key.def = r.def() as *const OpDef as usize;
        key.projection = self.projection(r.def(), r.attributes());
        let hash = key.hash();
        let mut other = std::mem::take(&mut self.other);
        let found = {
            // Split borrows: the table is searched while keys are recomputed from `self`.
            let classes = std::mem::take(&mut self.classes);
            let found = classes
                .find(hash, |&c| {
                    self.hashes[c as usize] == hash && {
                        self.key_of(self.first[c as usize], f.commutative, &mut other);
                        other == key
                    }
                })
                .copied();
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
                self.hashes.push(hash);
                let hashes = &self.hashes;
                self.classes.insert_unique(hash, c, |&c| hashes[c as usize]);
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
                projection_of: Memo::default(),
                projections: FxHashMap::default(),
                classes: HashTable::with_capacity(n / 4 * 3),
                hashes: Vec::with_capacity(n / 2),
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
