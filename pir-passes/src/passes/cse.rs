//! `common_subexpression_elimination_pass` (level 1): an op equal to an earlier one in scope
//! (same name, same registered attributes, equal operands, same result types) is replaced by
//! it, if it is *safe to replace*.
//!
//! Paddle's rule (`common_subexpression_elimination_pass.cc`): operands are equal if they are
//! the same data/parameter/constant value ("terminal") or block argument, or results of the
//! same index of equal ops, recursively; the operands of commutative ops (`add`, `multiply`,
//! `maximum`, ...) are compared as a set; attributes are compared by the op's registered
//! attribute names only (`OpInfo::GetAttributesName`, here [`OpDef::attribute_names`]), so
//! `stop_gradient` or `struct_name` do not keep two ops apart, and mutable attributes are
//! operands. Here each op gets a class number by hash-consing its key (definition, attribute
//! values, operand classes, result types), so deep equality is one lookup.
//!
//! Safe to replace (transitively through producers): no `SideEffect` trait, not in-place
//! itself, every result a dense tensor (or a vector of them), no result used by
//! `builtin.shadow_output`, `cf.yield` or `pd_op.while` nor written in place (or viewed) by its
//! user, and every non-terminal producer safe. The "not in-place itself" rule is read off
//! Paddle's output, not its source: in `small_cnn` the duplicate `scale`/`exp` below
//! `pd_op.batch_norm_` stay, and merge once `conv2d_bn_fuse_pass` has removed it (see
//! `tests/paddle_pairs.rs`).
//!
//! Paddle's source has varied here: one version blocks `builtin.shadow_output` users as
//! above, a later one blocks only `cf.yield`/`pd_op.while` and copies a shadowed value with an
//! `assign` instead. No reference pair decides it; the rule above is the one `PASSES.md`
//! records for 3.3.1 (`tests/cse_rules.rs` pins it).
//!
//! Nested blocks see the expressions of the blocks around them, and theirs are forgotten when
//! the block ends.
//!
//! Cost: one walk marks the values their users block or write; one walk in program order
//! gives each op its class. An op's class is looked up among the classes *anchored* at its
//! most recent operand class (a short chain, in memory the walk touched a moment ago), not in
//! one table over the whole program, whose every probe is a cache miss on a large program.
//! A chain holds at most 16 classes (`CHAIN_CAP`); the rest of its anchor's classes, and ops
//! without an op-result operand, go to one hash table, so no lookup walks more than that.

use std::hash::{Hash, Hasher};

use hashbrown::HashTable;
use rustc_hash::{FxHashMap, FxHasher};
use smallvec::SmallVec;

use pir_runtime::{Attribute, BlockId, OpDef, OpId, Program, Type, TypeData, Value};

use crate::error::PassError;
use crate::module::IrModule;
use crate::pass::{Pass, PassStats};
use crate::passes::util::{DefCache, Memo};

/// The pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct CommonSubexpressionElimination;

const NAME: &str = "common_subexpression_elimination_pass";

/// An operand, as equality sees it, packed in a word, and what the analysis knows of a value
/// (by value index): 0 for null; a terminal value or block argument by its index (tag
/// `LEAF`); result `index` of an op of class `class` (tag `RESULT`); `UNSAFE` for a value whose
/// op is not safe to replace, or not seen yet.
type Code = u64;

const LEAF: u64 = 1 << 62;
const RESULT: u64 = 2 << 62;
const UNSAFE: u64 = 3 << 62;
const TAG: u64 = 3 << 62;
/// Bits of a result's index in a code; the class is above them.
const INDEX_BITS: u32 = 24;

/// The longest anchored chain: a lookup compares at most this many hashes before the table.
const CHAIN_CAP: u32 = 16;
const NONE: u32 = u32::MAX;

/// Everything two equal ops share: definition, registered attributes (as a projection
/// number), operands, result types. Inline buffers: making one allocates nothing.
#[derive(Default)]
struct Key {
    def: usize,
    /// The op's attribute dictionary (equal dictionaries: equal projections).
    dict: Option<Attribute>,
    projection: u64,
    operands: SmallVec<[Code; 4]>,
    results: SmallVec<[Option<Type>; 2]>,
}

impl Key {
    fn hash(&self) -> u64 {
        let mut h = FxHasher::default();
        h.write_usize(self.def);
        h.write_u64(self.projection);
        for &w in &self.operands {
            h.write_u64(w);
        }
        self.results.hash(&mut h);
        h.finish()
    }

    /// The class whose chain this key's class is on: the largest class among the op-result
    /// operands (the most recent producer), if any.
    fn anchor(&self) -> Option<u32> {
        self.operands
            .iter()
            .filter(|&&c| c & TAG == RESULT)
            .map(|&c| ((c & !TAG) >> INDEX_BITS) as u32)
            .max()
    }
}

/// One class: 32 bytes, numbered in program order, so the classes a walk reads are mostly
/// the ones it just made.
#[derive(Clone, Copy)]
struct Class {
    hash: u64,
    /// The op that made it (its key is recomputed from it on a hash match).
    first: OpId,
    /// The first safe op of the class in scope.
    scope: Option<OpId>,
    /// The first class anchored at this one.
    head: u32,
    /// The next class on this class's anchor chain.
    next: u32,
}

struct Analyzer<'p> {
    prog: &'p Program,
    facts: DefCache,
    /// By value index: its [`Code`]. Before the walk reaches a value's op, `UNSAFE` or
    /// `BLOCKED` (a user blocks replacing it, or writes it).
    codes: Vec<Code>,
    /// `(definition, attribute dictionary)` → number of the values of the definition's
    /// registered attributes; two ops of one definition have equal attributes when the
    /// numbers are.
    projection_of: Memo<(usize, Attribute), u64>,
    projections: FxHashMap<SmallVec<[Option<Attribute>; 6]>, u64>,
    classes: Vec<Class>,
    /// Classes without an anchor, or whose anchor's chain was full, by hash.
    table: HashTable<u32>,
    /// Classes added to `scope` in nested blocks, undone when the block ends.
    undo: Vec<u32>,
    depth: usize,
    to_erase: Vec<(OpId, OpId)>,
    /// The last (definition, dictionary) asked for a projection, and its number.
    last_projection: Option<(usize, Attribute, u64)>,
    /// The last result type asked about, and whether it is a dense tensor or a vector of them.
    last_type: Option<(Type, bool)>,
}

/// A value a user blocks replacing or writes: its op is not safe (the code is overwritten with
/// `UNSAFE` or the op's class when the walk reaches the op, after reading this).
const BLOCKED: u64 = UNSAFE | 1;

impl Analyzer<'_> {
    /// Marks the operands of `op` that its kind of op blocks replacing or writes.
    fn mark_blocked(&mut self, op: OpId) {
        let r = self.prog.op(op);
        let f = self.facts.get(r.def());
        if !f.blocks_replacement && f.writes == 0 {
            return;
        }
        for (i, v) in r.operands().enumerate() {
            let Some(v) = v else { continue };
            let blocked = f.blocks_replacement
                || match i {
                    0..63 => f.writes & (1 << i) != 0,
                    _ => self.facts.writes_operand(r.def(), i),
                };
            if blocked {
                self.codes[v.index()] = BLOCKED;
            }
        }
    }

    /// Whether values of type `t` may be replaced: a dense tensor or a vector of them.
    fn dense(&mut self, t: Option<Type>) -> bool {
        let Some(t) = t else { return false };
        if t.is_dense_tensor() {
            return true;
        }
        if let Some((last, dense)) = self.last_type {
            if last == t {
                return dense;
            }
        }
        let dense = match self.prog.ctx().type_data(t) {
            TypeData::Vector(ts) => ts.iter().all(|t| t.is_dense_tensor()),
            _ => false,
        };
        self.last_type = Some((t, dense));
        dense
    }

    /// The number of the values of `def`'s registered attributes in `dict`.
    fn projection(&mut self, def: &'static OpDef, dict: Attribute) -> u64 {
        // Most ops (relu, add, exp, ...) register no attribute: all of a kind are alike.
        if def.attribute_names.is_empty() {
            return u64::MAX;
        }
        let id = def as *const OpDef as usize;
        if let Some((d, a, p)) = self.last_projection {
            if d == id && a == dict {
                return p;
            }
        }
        let ctx = self.prog.ctx();
        let projections = &mut self.projections;
        let p = self.projection_of.get_or((id, dict), || {
            let values: SmallVec<[Option<Attribute>; 6]> = def
                .attribute_names
                .iter()
                .map(|name| ctx.dict_get(dict, name))
                .collect();
            let next = projections.len() as u64;
            *projections.entry(values).or_insert(next)
        });
        self.last_projection = Some((id, dict, p));
        p
    }

    fn code(&self, v: Option<Value>) -> Code {
        v.map_or(0, |v| self.codes[v.index()])
    }

    /// Whether `first` (an op already given a class: its producers are safe) has `key`,
    /// cheapest parts first.
    fn matches(&mut self, first: OpId, key: &Key, commutative: bool) -> bool {
        let r = self.prog.op(first);
        if r.def() as *const OpDef as usize != key.def
            || r.num_operands() != key.operands.len()
            || !r.result_types().eq(key.results.iter().copied())
        {
            return false;
        }
        let mut codes: SmallVec<[Code; 4]> = r.operands().map(|v| self.code(v)).collect();
        if commutative && codes.len() >= 2 {
            codes[..2].sort_unstable();
        }
        codes == key.operands
            && (key.dict == Some(r.attributes())
                || self.projection(r.def(), r.attributes()) == key.projection)
    }

    /// Whether `op` (not in place, no side effect) is safe to replace, and if so its operand
    /// codes and result types into `out`.
    fn safe_key(&mut self, op: OpId, commutative: bool, out: &mut Key) -> bool {
        let r = self.prog.op(op);
        let first = r.get_result(0).map_or(0, |v| v.index());
        for (i, t) in r.result_types().enumerate() {
            if self.codes[first + i] == BLOCKED || !self.dense(t) {
                return false;
            }
            out.results.push(t);
        }
        for v in r.operands() {
            let code = self.code(v);
            if code & TAG == UNSAFE {
                return false;
            }
            out.operands.push(code);
        }
        if commutative && out.operands.len() >= 2 {
            out.operands[..2].sort_unstable();
        }
        true
    }

    fn block(&mut self, block: BlockId) {
        let mark = self.undo.len();
        self.depth += 1;
        for &a in self.prog.block_args(block) {
            self.codes[a.index()] = LEAF | a.index() as u64;
        }
        for op in self.prog.block_ops(block) {
            self.operation(op);
        }
        self.depth -= 1;
        // A nested block's expressions are not visible after it.
        while self.undo.len() > mark {
            let class = self.undo.pop().expect("above the mark");
            self.classes[class as usize].scope = None;
        }
    }

    /// Sets the codes of `op`'s results: result `i` of class `class`, or `UNSAFE`.
    fn set_codes(&mut self, op: OpId, class: Option<u32>) {
        let r = self.prog.op(op);
        let Some(first) = r.get_result(0) else { return };
        // An op's results are consecutive values.
        let codes = &mut self.codes[first.index()..first.index() + r.num_results()];
        match class {
            Some(c) => {
                let base = RESULT | u64::from(c) << INDEX_BITS;
                for (i, code) in codes.iter_mut().enumerate() {
                    *code = base | (i as u64 & 0xff_ffff);
                }
            }
            None => codes.fill(UNSAFE),
        }
    }

    fn new_class(&mut self, op: OpId, hash: u64) -> u32 {
        let c = self.classes.len() as u32;
        self.classes.push(Class {
            hash,
            first: op,
            scope: None,
            head: NONE,
            next: NONE,
        });
        c
    }

    fn operation(&mut self, op: OpId) {
        let r = self.prog.op(op);
        let f = self.facts.get(r.def());
        if f.terminal || f.constant && r.result_type(0).is_some_and(|t| t.is_dense_tensor()) {
            for v in r.results() {
                self.codes[v.index()] = LEAF | v.index() as u64;
            }
            return;
        }
        let has_regions = r.num_regions() > 0;
        if has_regions {
            for region in r.regions() {
                for &b in self.prog.region_blocks(region) {
                    self.block(b);
                }
            }
        }
        let mut key = Key::default();
        let safe = !(f.side_effect || f.inplace) && self.safe_key(op, f.commutative, &mut key);
        // Unsafe ops are never merged and make their users unsafe: they need no key. Ops with
        // regions equal no other: a class of their own, so their users' keys tell them apart.
        if !safe || has_regions {
            let class = safe.then(|| self.new_class(op, 0));
            self.set_codes(op, class);
            return;
        }
        key.def = r.def() as *const OpDef as usize;
        key.dict = Some(r.attributes());
        key.projection = self.projection(r.def(), r.attributes());
        let hash = key.hash();
        let anchor = key.anchor();
        let class = match self.find(&key, hash, anchor, f.commutative) {
            Some(c) => c,
            None => {
                let c = self.new_class(op, hash);
                self.insert(c, hash, anchor);
                c
            }
        };
        self.set_codes(op, Some(class));
        match self.classes[class as usize].scope {
            Some(existing) => self.to_erase.push((op, existing)),
            None => {
                self.classes[class as usize].scope = Some(op);
                if self.depth > 1 {
                    self.undo.push(class);
                }
            }
        }
    }

    /// Whether class `c` (of hash `hash`) has key `key`.
    #[inline]
    fn is(&mut self, c: u32, hash: u64, key: &Key, commutative: bool) -> bool {
        let class = self.classes[c as usize];
        class.hash == hash && self.matches(class.first, key, commutative)
    }

    /// The class of `key`, if there is one: on its anchor's chain, or in the table if it has
    /// no anchor or the chain is full.
    fn find(&mut self, key: &Key, hash: u64, anchor: Option<u32>, comm: bool) -> Option<u32> {
        if let Some(a) = anchor {
            let (mut c, mut len) = (self.classes[a as usize].head, 0);
            while c != NONE {
                if self.is(c, hash, key, comm) {
                    return Some(c);
                }
                c = self.classes[c as usize].next;
                len += 1;
            }
            if len < CHAIN_CAP {
                return None;
            }
        }
        // Split borrows: the table is searched while keys are recomputed from `self`.
        let table = std::mem::take(&mut self.table);
        let found = table.find(hash, |&c| self.is(c, hash, key, comm)).copied();
        self.table = table;
        found
    }

    /// Files the new class `c` on its anchor's chain, or in the table.
    fn insert(&mut self, c: u32, hash: u64, anchor: Option<u32>) {
        if let Some(a) = anchor {
            let mut len = 0;
            let mut at = self.classes[a as usize].head;
            while at != NONE && len < CHAIN_CAP {
                at = self.classes[at as usize].next;
                len += 1;
            }
            if len < CHAIN_CAP {
                self.classes[c as usize].next = self.classes[a as usize].head;
                self.classes[a as usize].head = c;
                return;
            }
        }
        let classes = &self.classes;
        self.table
            .insert_unique(hash, c, |&c| classes[c as usize].hash);
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
            let prog = &m.program;
            let n = prog.num_values_allocated();
            let mut a = Analyzer {
                prog,
                facts: DefCache::default(),
                codes: vec![UNSAFE; n],
                projection_of: Memo::default(),
                projections: FxHashMap::default(),
                classes: Vec::with_capacity(n / 2),
                table: HashTable::new(),
                undo: Vec::new(),
                depth: 0,
                to_erase: Vec::new(),
                last_projection: None,
                last_type: None,
            };
            for op in prog.walk_ops(prog.module_op()) {
                a.mark_blocked(op);
            }
            a.block(prog.block());
            a.to_erase
        };
        let prog = &mut m.program;
        for &(op, existing) in &to_erase {
            for i in 0..prog.op(op).num_results() {
                let (old, new) = (prog.op(op).result(i), prog.op(existing).result(i));
                prog.replace_all_uses_with(old, new);
            }
            prog.erase_op(op)
                .map_err(|source| PassError::Ir { pass: NAME, source })?;
        }
        Ok(PassStats::changed(to_erase.len()))
    }
}
