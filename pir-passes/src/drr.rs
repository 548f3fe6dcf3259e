//! Declarative rewrite rules (Paddle's DRR), run by one generic engine.
//!
//! A [`DrrPattern`] is data: the source pattern (ops by name, the tensors they read and make,
//! the attributes they capture), a constraint, the result pattern (new ops, their attributes
//! from captures or computed from the match) and which source tensors the result replaces.
//! `pir_macros::drr!` writes these tables from a pattern checked against the ops' schemas at
//! compile time; [`DrrRewrite`] runs any of them as a [`RewritePattern`], as Paddle's
//! `DrrRewritePattern` does:
//!
//! - **Match** from the anchor (the source op whose results no other source op reads),
//!   breadth first towards the inputs. An op matches by name and operand and result counts; a
//!   tensor made and read inside the pattern must have exactly as many uses in the program as
//!   readers in the pattern; a tensor or capture bound twice must bind the same thing.
//! - **Create** the result ops in order, each at Paddle's place: before the first source op,
//!   unless one of its inputs is defined later, then right after the last such input.
//!   `stop_gradient` is set as Paddle's builds set it: true unless an input has it false.
//! - **Replace** the uses of each replaced tensor, then **delete** the source ops left unused,
//!   and, transitively, any producer of their operands left unused (Paddle's
//!   `DeleteSourcePatternOp`).

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use pir_runtime::{AttrData, Attribute, InsertPoint, IrContext, OpDef, OpId, Program, Value};

use crate::error::PassError;
use crate::rewrite::{RewritePattern, Rewriter};

/// A tensor name that stands for an absent (null) optional operand.
pub const NONE_TENSOR: &str = "";

/// One op of a source pattern.
#[derive(Debug)]
pub struct SourceOp {
    /// Full op name.
    pub name: &'static str,
    /// Tensors it reads, one per operand ([`NONE_TENSOR`] for a null operand).
    pub inputs: &'static [&'static str],
    /// Tensors it makes, one per result.
    pub outputs: &'static [&'static str],
    /// `(attribute, capture)`: the attribute's value is bound to the capture name.
    pub attrs: &'static [(&'static str, &'static str)],
}

/// Where a result op's attribute comes from.
#[derive(Clone, Copy)]
pub enum ResultAttr {
    /// The value captured from the source pattern under this name.
    Capture(&'static str),
    /// Computed from the match; `None` abandons the rewrite (the pattern does not apply).
    Compute(fn(&MatchContext<'_>) -> Option<Attribute>),
}

impl std::fmt::Debug for ResultAttr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ResultAttr::Capture(c) => write!(f, "Capture({c})"),
            ResultAttr::Compute(_) => f.write_str("Compute(..)"),
        }
    }
}

/// One op of a result pattern.
#[derive(Debug)]
pub struct ResultOp {
    /// Full op name.
    pub name: &'static str,
    /// Tensors it reads (source tensors or results of earlier result ops).
    pub inputs: &'static [&'static str],
    /// Names of its results.
    pub outputs: &'static [&'static str],
    /// Its attributes.
    pub attrs: &'static [(&'static str, ResultAttr)],
    /// Start from every attribute of the source op at this index (Paddle builds a fused op
    /// with `conv2d_op->attributes()`).
    pub copy_attrs_of: Option<usize>,
}

/// A declarative rewrite rule.
#[derive(Debug)]
pub struct DrrPattern {
    /// The pattern's name.
    pub name: &'static str,
    /// Source ops.
    pub source: &'static [SourceOp],
    /// Checked after a structural match.
    pub constraint: Option<fn(&MatchContext<'_>) -> bool>,
    /// Result ops, in creation order.
    pub result: &'static [ResultOp],
    /// `(source tensor, result tensor)`: uses of the first move to the second.
    pub replace: &'static [(&'static str, &'static str)],
    /// Higher benefits are tried first.
    pub benefit: u16,
}

/// The tensors a match binds, by slot ([`Slots`]): `None` unbound, `Some(None)` a null operand.
type Bound = SmallVec<[Option<Option<Value>>; 32]>;

/// What a match bound: ops, tensors and captured attributes.
pub struct MatchContext<'a> {
    prog: &'a Program,
    slots: &'a Slots,
    ops: SmallVec<[Option<OpId>; 8]>,
    tensors: Bound,
    attrs: SmallVec<[Option<Attribute>; 8]>,
}

impl<'a> MatchContext<'a> {
    /// The program.
    pub fn program(&self) -> &'a Program {
        self.prog
    }

    /// The context.
    pub fn ctx(&self) -> &'a IrContext {
        self.prog.ctx()
    }

    /// The value bound to tensor `name`.
    pub fn tensor(&self, name: &str) -> Option<Value> {
        let &i = self.slots.tensor.get(name)?;
        self.tensors[usize::from(i)].flatten()
    }

    /// The op bound to source op `index`.
    pub fn op(&self, index: usize) -> Option<OpId> {
        self.ops.get(index).copied().flatten()
    }

    /// The attribute captured as `name`.
    pub fn attr(&self, name: &str) -> Option<Attribute> {
        let &i = self.slots.capture.get(name)?;
        self.attrs[usize::from(i)]
    }

    /// The captured attribute's data.
    pub fn attr_data(&self, name: &str) -> Option<&'a AttrData> {
        self.attr(name).map(|a| self.ctx().attr_data(a))
    }

    /// A captured number, as `f64` (float, double or integer attributes).
    pub fn number(&self, name: &str) -> Option<f64> {
        Some(match *self.attr_data(name)? {
            AttrData::Float(v) => f64::from(v),
            AttrData::Double(v) => v,
            AttrData::Int32(v) => f64::from(v),
            AttrData::Int64(v) => v as f64,
            _ => return None,
        })
    }

    /// A captured string.
    pub fn str(&self, name: &str) -> Option<&'a str> {
        match self.attr_data(name)? {
            AttrData::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The dims of the dense tensor bound to `tensor`.
    pub fn dims(&self, tensor: &str) -> Option<&'a [i64]> {
        let t = self.prog.value_type(self.tensor(tensor)?)?;
        Some(&t.as_dense_tensor(self.ctx())?.dims)
    }

    /// The element type of the dense tensor bound to `tensor`.
    pub fn dtype(&self, tensor: &str) -> Option<pir_runtime::phi::DataType> {
        let t = self.prog.value_type(self.tensor(tensor)?)?;
        Some(t.as_dense_tensor(self.ctx())?.dtype)
    }

    /// Whether the value bound to `tensor` has no uses.
    pub fn unused(&self, tensor: &str) -> bool {
        self.tensor(tensor).is_none_or(|v| !self.prog.has_uses(v))
    }
}

/// A pattern's tensor and capture names numbered once, so a match binds them in arrays by
/// number (no map, no hashing of names per match); the maps serve the name lookups of
/// constraints and computed attributes.
pub struct Slots {
    /// Tensor name → slot (every name of the source, result and replace lists).
    tensor: FxHashMap<&'static str, u16>,
    /// Capture name → slot.
    capture: FxHashMap<&'static str, u16>,
    /// Per source op: its inputs' slots (`None` for [`NONE_TENSOR`]), outputs' and captures'.
    src_in: Vec<SmallVec<[Option<u16>; 6]>>,
    src_out: Vec<SmallVec<[u16; 6]>>,
    src_caps: Vec<SmallVec<[u16; 4]>>,
    /// Per result op: its inputs' and outputs' slots.
    res_in: Vec<SmallVec<[u16; 6]>>,
    res_out: Vec<SmallVec<[u16; 6]>>,
    /// Per replace entry: the slots of its two tensors.
    replace: Vec<(u16, u16)>,
}

impl Slots {
    fn new(pattern: &'static DrrPattern) -> Slots {
        fn slot(map: &mut FxHashMap<&'static str, u16>, name: &'static str) -> u16 {
            let n = map.len();
            *map.entry(name)
                .or_insert_with(|| u16::try_from(n).expect("fewer than 65,536 names"))
        }
        let (mut tensor, mut capture) = (FxHashMap::default(), FxHashMap::default());
        let src_in = pattern.source.iter().map(|o| {
            let ins = o.inputs.iter();
            ins.map(|&t| (t != NONE_TENSOR).then(|| slot(&mut tensor, t)))
                .collect()
        });
        let src_in = src_in.collect();
        let src_out = pattern
            .source
            .iter()
            .map(|o| o.outputs.iter().map(|&t| slot(&mut tensor, t)).collect());
        let src_out = src_out.collect();
        let src_caps = pattern.source.iter().map(|o| {
            o.attrs
                .iter()
                .map(|&(_, c)| slot(&mut capture, c))
                .collect()
        });
        let src_caps = src_caps.collect();
        let res_in = pattern
            .result
            .iter()
            .map(|o| o.inputs.iter().map(|&t| slot(&mut tensor, t)).collect());
        let res_in = res_in.collect();
        let res_out = pattern
            .result
            .iter()
            .map(|o| o.outputs.iter().map(|&t| slot(&mut tensor, t)).collect());
        let res_out = res_out.collect();
        let replace = pattern
            .replace
            .iter()
            .map(|&(a, b)| (slot(&mut tensor, a), slot(&mut tensor, b)));
        let replace = replace.collect();
        Slots {
            tensor,
            capture,
            src_in,
            src_out,
            src_caps,
            res_in,
            res_out,
            replace,
        }
    }
}

/// A [`DrrPattern`] ready to run: its anchor and the producer and reader counts of its
/// tensors.
pub struct DrrRewrite {
    pattern: &'static DrrPattern,
    anchor: usize,
    slots: Slots,
    /// By tensor slot: the (source op, result index) making it.
    producer: Vec<Option<(usize, usize)>>,
    /// By tensor slot: readers inside the source pattern.
    readers: Vec<usize>,
    /// The result ops' definitions, looked up once (a name lookup takes the registry's lock
    /// and hashes the name), with the context they were looked up in: `bool_attr(true)`'s
    /// handle carries the context's identity, which is never reused.
    defs: std::sync::OnceLock<(Attribute, Vec<Option<&'static OpDef>>)>,
    /// Per result op, its attribute entries sorted by name, a repeated name once (the last
    /// wins): indices into its `attrs`, `attrs.len()` for `stop_gradient` (set last, so it
    /// wins). The new op's entries are then merged without sorting them per match.
    attr_order: Vec<SmallVec<[usize; 8]>>,
}

impl DrrRewrite {
    /// Prepares `pattern`.
    ///
    /// # Panics
    ///
    /// If the source pattern is empty (`drr!` rejects that at compile time).
    pub fn new(pattern: &'static DrrPattern) -> DrrRewrite {
        assert!(!pattern.source.is_empty(), "empty source pattern");
        let mut producer = FxHashMap::default();
        let mut readers: FxHashMap<&'static str, usize> = FxHashMap::default();
        for (i, op) in pattern.source.iter().enumerate() {
            for (k, &t) in op.outputs.iter().enumerate() {
                producer.insert(t, (i, k));
            }
            for &t in op.inputs {
                *readers.entry(t).or_default() += 1;
            }
        }
        // The anchor: the last op none of whose results another source op reads.
        let anchor = (0..pattern.source.len())
            .rev()
            .find(|&i| {
                pattern.source[i]
                    .outputs
                    .iter()
                    .all(|t| !readers.contains_key(t))
            })
            .unwrap_or(pattern.source.len() - 1);
        let slots = Slots::new(pattern);
        let mut by_slot = vec![(None, 0); slots.tensor.len()];
        for (&t, &i) in &slots.tensor {
            by_slot[usize::from(i)] = (
                producer.get(t).copied(),
                readers.get(t).copied().unwrap_or(0),
            );
        }
        let (producer, readers) = by_slot.into_iter().unzip();
        DrrRewrite {
            pattern,
            anchor,
            slots,
            producer,
            readers,
            defs: std::sync::OnceLock::new(),
            attr_order: pattern.result.iter().map(sorted_attr_order).collect(),
        }
    }

    /// Matches at `op` (the anchor's candidate).
    pub fn match_at<'a>(&'a self, prog: &'a Program, op: OpId) -> Option<MatchContext<'a>> {
        let src = self.pattern.source;
        let sl = &self.slots;
        let mut m = MatchContext {
            prog,
            slots: sl,
            ops: smallvec::smallvec![None; src.len()],
            tensors: smallvec::smallvec![None; sl.tensor.len()],
            attrs: smallvec::smallvec![None; sl.capture.len()],
        };
        let mut bound_ir: SmallVec<[OpId; 8]> = SmallVec::new();
        let mut queue = std::collections::VecDeque::from([(self.anchor, op)]);
        m.ops[self.anchor] = Some(op);
        bound_ir.push(op);
        while let Some((i, op)) = queue.pop_front() {
            let s = &src[i];
            let r = prog.op(op);
            if r.name() != s.name
                || r.num_operands() != s.inputs.len()
                || r.num_results() != s.outputs.len()
            {
                return None;
            }
            for (&(a, _), &cap) in s.attrs.iter().zip(&sl.src_caps[i]) {
                let v = r.attr(a)?;
                if *m.attrs[usize::from(cap)].get_or_insert(v) != v {
                    return None;
                }
            }
            for (j, &t) in sl.src_in[i].iter().enumerate() {
                let v = r.operand(j);
                let Some(t) = t.map(usize::from) else {
                    if v.is_some() {
                        return None;
                    }
                    continue;
                };
                if *m.tensors[t].get_or_insert(v) != v {
                    return None;
                }
                let Some((p, k)) = self.producer[t] else {
                    continue;
                };
                let v = v?;
                if prog.use_count(v) != self.readers[t] {
                    return None;
                }
                let d = prog.defining_op(v)?;
                if prog.op(d).result(k) != v {
                    return None;
                }
                match m.ops[p] {
                    Some(b) if b != d => return None,
                    Some(_) => {}
                    None => {
                        if bound_ir.contains(&d) {
                            return None;
                        }
                        m.ops[p] = Some(d);
                        bound_ir.push(d);
                        queue.push_back((p, d));
                    }
                }
            }
            for (k, &t) in sl.src_out[i].iter().enumerate() {
                let v = Some(r.result(k));
                if *m.tensors[usize::from(t)].get_or_insert(v) != v {
                    return None;
                }
            }
        }
        if m.ops.iter().any(Option::is_none) {
            return None;
        }
        if let Some(c) = self.pattern.constraint {
            if !c(&m) {
                return None;
            }
        }
        Some(m)
    }
}

/// [`DrrRewrite::attr_order`] of one result op.
fn sorted_attr_order(res: &ResultOp) -> SmallVec<[usize; 8]> {
    let name = |i: usize| res.attrs.get(i).map_or("stop_gradient", |a| a.0);
    let mut order: SmallVec<[usize; 8]> = (0..=res.attrs.len()).collect();
    // Stable: of one name, the last set stays last; keep only it.
    order.sort_by(|&a, &b| name(a).cmp(name(b)));
    let mut kept: SmallVec<[usize; 8]> = SmallVec::new();
    for i in order {
        match kept.last_mut() {
            Some(last) if name(*last) == name(i) => *last = i,
            _ => kept.push(i),
        }
    }
    kept
}

/// Values without a `stop_gradient` entry count as stopped, as in Paddle.
fn stops_gradient(prog: &Program, v: Value) -> bool {
    let Some(d) = prog.defining_op(v) else {
        return true;
    };
    let r = prog.op(d);
    let Some(AttrData::Array(flags)) = r.attr_data("stop_gradient") else {
        return true;
    };
    let index = (0..r.num_results())
        .position(|i| r.result(i) == v)
        .unwrap_or(0);
    flags
        .get(index)
        .is_none_or(|&f| !matches!(prog.ctx().attr_data(f), AttrData::Bool(false)))
}

/// Positions of the ops of `block` from the first source op to the anchor, the anchor at 0,
/// and that first source op. Every source op is a producer of the anchor (the match reaches
/// them from it), so in the anchor's block none comes after it: walking back from the anchor
/// costs the match's span, not the block (placement was quadratic in the matches otherwise).
/// Ops before the first source op are absent, which placement reads as "before".
fn span_positions(
    prog: &Program,
    block: pir_runtime::BlockId,
    anchor: OpId,
    src_ops: &[OpId],
) -> (FxHashMap<OpId, f64>, OpId) {
    let in_block = |o: &&OpId| prog.op(**o).parent_block() == Some(block);
    let mut left = src_ops.iter().filter(in_block).count();
    // Room for a short span and the new ops, without regrowing.
    let mut pos = FxHashMap::with_capacity_and_hasher(64, Default::default());
    let (mut at, mut p, mut first) = (Some(anchor), 0.0, anchor);
    while let Some(o) = at {
        pos.insert(o, p);
        if src_ops.contains(&o) {
            first = o;
            left = left.saturating_sub(1);
            if left == 0 {
                break;
            }
        }
        at = prog.op(o).prev_op();
        p -= 1.0;
    }
    (pos, first)
}

/// Where the new ops of one match go: positions of the match's span (new ops get positions
/// between their neighbours'), from the first source op on.
struct Placement {
    pos: FxHashMap<OpId, f64>,
    first_src: OpId,
    first_pos: f64,
    /// The position of the last op put before the first source op.
    before_cursor: f64,
}

impl Placement {
    /// The placement of the match of `src_ops` at `anchor` in `block`.
    fn new(prog: &Program, block: pir_runtime::BlockId, anchor: OpId, src_ops: &[OpId]) -> Self {
        let (pos, first_src) = span_positions(prog, block, anchor, src_ops);
        let first_pos = pos.get(&first_src).copied().unwrap_or(0.0);
        Placement {
            pos,
            first_src,
            first_pos,
            before_cursor: first_pos - 1.0,
        }
    }

    /// Paddle's place for a new op reading `operands`: max(after the last input defined in
    /// this block, before the first source op); with the position the op gets there.
    fn place(&mut self, prog: &Program, operands: &[Option<Value>]) -> (InsertPoint, f64) {
        let last_input = operands
            .iter()
            .flatten()
            .filter_map(|&v| prog.defining_op(v))
            .filter_map(|d| self.pos.get(&d).map(|&p| (p, d)))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        match last_input {
            Some((p, d)) if p >= self.first_pos => {
                let next = prog
                    .op(d)
                    .next_op()
                    .and_then(|n| self.pos.get(&n).copied())
                    .unwrap_or(p + 1.0);
                (InsertPoint::After(d), (p + next) / 2.0)
            }
            _ => {
                self.before_cursor = (self.before_cursor + self.first_pos) / 2.0;
                (InsertPoint::Before(self.first_src), self.before_cursor)
            }
        }
    }

    /// Builds an op at `at` and records its position `new_pos`, and just below it those of
    /// the ops the build made for mutable attributes.
    fn build(
        &mut self,
        rw: &mut Rewriter<'_>,
        at: InsertPoint,
        new_pos: f64,
        def: &'static OpDef,
        operands: &[Option<Value>],
        dict: Attribute,
    ) -> Result<OpId, PassError> {
        // The op the new ones follow: the build's extra ops sit between it and `op`.
        let mark = match at {
            InsertPoint::After(d) => Some(d),
            InsertPoint::Before(o) => rw.program().op(o).prev_op(),
            _ => None,
        };
        let op = rw
            .build(at, def, operands, dict)
            .map_err(|source| PassError::Build {
                pass: "drr",
                source,
            })?;
        // Ops the build made for mutable attributes sit just before `op`.
        let mut prev = rw.program().op(op).prev_op();
        self.pos.insert(op, new_pos);
        while let Some(p) = prev.filter(|&p| Some(p) != mark) {
            self.pos.insert(p, new_pos - 1e-9);
            prev = rw.program().op(p).prev_op();
        }
        Ok(op)
    }
}

/// `stop_gradient` of the values seen so far in one match (the new ops' are known when made),
/// and the flag arrays made: a match reads a few values many times and makes one or two kinds
/// of array.
#[derive(Default)]
struct StopFlags {
    stops: SmallVec<[(Value, bool); 24]>,
    arrays: SmallVec<[(bool, usize, Attribute); 4]>,
}

impl StopFlags {
    /// Whether every operand stops the gradient (a new op's flag).
    fn all_stopped(&mut self, prog: &Program, operands: &[Option<Value>]) -> bool {
        operands.iter().flatten().all(|&v| {
            if let Some(&(_, s)) = self.stops.iter().find(|e| e.0 == v) {
                return s;
            }
            let s = stops_gradient(prog, v);
            self.stops.push((v, s));
            s
        })
    }

    /// The array of `n_results` copies of `stop`, made once per match.
    fn flag_array(&mut self, ctx: &IrContext, stop: bool, n_results: usize) -> Attribute {
        match self.arrays.iter().find(|e| e.0 == stop && e.1 == n_results) {
            Some(e) => e.2,
            None => {
                let a = ctx.array_attr(&vec![ctx.bool_attr(stop); n_results]);
                self.arrays.push((stop, n_results, a));
                a
            }
        }
    }

    /// Every result of the new op carries the same flag.
    fn record(&mut self, prog: &Program, op: OpId, n_results: usize, stop: bool) {
        self.stops
            .extend(prog.op(op).results().take(n_results).map(|v| (v, stop)));
    }
}

impl DrrRewrite {
    /// The definition of result op `ri`, from the cache when it was filled in this context.
    fn result_def(&self, ctx: &IrContext, ri: usize) -> Option<&'static OpDef> {
        let key = ctx.bool_attr(true);
        let (k, defs) = self.defs.get_or_init(|| {
            let defs = self.pattern.result.iter().map(|r| ctx.op_def(r.name));
            (key, defs.collect())
        });
        if *k == key {
            defs[ri]
        } else {
            ctx.op_def(self.pattern.result[ri].name)
        }
    }

    fn err(&self, prog: &Program, op: OpId, msg: impl Into<String>) -> PassError {
        PassError::Op {
            pass: "drr",
            op: prog.describe(op),
            message: format!("pattern `{}`: {}", self.pattern.name, msg.into()),
        }
    }

    /// Builds the result ops of one match (its source ops `src_ops`, its bound `tensors` and
    /// captured `attr_values`), each at Paddle's place; returns the tensors with theirs bound.
    fn rewrite(
        &self,
        anchor: OpId,
        src_ops: &[OpId],
        mut tensors: Bound,
        attr_values: &[Attribute],
        rw: &mut Rewriter<'_>,
    ) -> Result<Bound, PassError> {
        let ctx = rw.program().ctx().clone();
        let block = rw
            .program()
            .op(anchor)
            .parent_block()
            .ok_or_else(|| self.err(rw.program(), anchor, "the anchor is not in a block"))?;
        let mut place = Placement::new(rw.program(), block, anchor, src_ops);
        let mut stops = StopFlags::default();
        let mut values_at = 0;
        for (ri, res) in self.pattern.result.iter().enumerate() {
            let values = &attr_values[values_at..values_at + res.attrs.len()];
            values_at += res.attrs.len();
            let def = self.result_def(&ctx, ri).ok_or_else(|| {
                self.err(
                    rw.program(),
                    anchor,
                    format!("op `{}` is not registered", res.name),
                )
            })?;
            let operands: SmallVec<[Option<Value>; 6]> = self.slots.res_in[ri]
                .iter()
                .map(|&t| tensors[usize::from(t)].flatten())
                .collect();
            let (at, new_pos) = place.place(rw.program(), &operands);
            let stop = stops.all_stopped(rw.program(), &operands);
            let n_results = def.schema.map_or(res.outputs.len(), |s| s.outputs.len());
            let flags = stops.flag_array(&ctx, stop, n_results);
            let dict = self.result_dict(&ctx, rw.program(), ri, values, flags, src_ops);
            let op = place.build(rw, at, new_pos, def, &operands, dict)?;
            for (k, &t) in self.slots.res_out[ri].iter().enumerate() {
                tensors[usize::from(t)] = Some(rw.program().op(op).get_result(k));
            }
            stops.record(rw.program(), op, n_results, stop);
        }
        Ok(tensors)
    }

    /// The attribute dictionary of result op `ri`: the entries copied from a source op, then
    /// the set ones (later names win) with `stop_gradient` = `flags`, merged in one go.
    fn result_dict(
        &self,
        ctx: &IrContext,
        prog: &Program,
        ri: usize,
        values: &[Attribute],
        flags: Attribute,
        src_ops: &[OpId],
    ) -> Attribute {
        let res = &self.pattern.result[ri];
        let copied = match res.copy_attrs_of {
            Some(i) => prog.op(src_ops[i]).attribute_entries(),
            None => &[],
        };
        let added: SmallVec<[(&str, Attribute); 8]> = self.attr_order[ri]
            .iter()
            .map(|&i| match res.attrs.get(i) {
                Some(a) => (a.0, values[i]),
                None => ("stop_gradient", flags),
            })
            .collect();
        crate::passes::util::dict_merged(ctx, copied, &added)
    }

    /// Paddle's `DeleteSourcePatternOp`: source ops left unused go, then (transitively) the
    /// producers of their operands left unused.
    fn delete_unused(&self, src_ops: &[OpId], rw: &mut Rewriter<'_>) -> Result<(), PassError> {
        let unused = |p: &Program, o: OpId| p.op(o).results().all(|v| !p.has_uses(v));
        let mut queue: std::collections::VecDeque<OpId> = std::collections::VecDeque::new();
        let mut seen: rustc_hash::FxHashSet<OpId> = Default::default();
        // Source ops in pattern order (inputs before outputs).
        for &o in src_ops {
            if unused(rw.program(), o) && seen.insert(o) {
                queue.push_back(o);
            }
        }
        while let Some(o) = queue.pop_front() {
            if !rw.program().is_alive(o) {
                continue;
            }
            let inputs: SmallVec<[Value; 6]> = rw.program().op(o).operands().flatten().collect();
            rw.erase_op(o).map_err(|source| PassError::Ir {
                pass: "drr",
                source,
            })?;
            for v in inputs {
                if let Some(d) = rw.program().defining_op(v) {
                    if rw.program().is_alive(d) && unused(rw.program(), d) && seen.insert(d) {
                        queue.push_back(d);
                    }
                }
            }
        }
        Ok(())
    }
}

impl RewritePattern for DrrRewrite {
    fn name(&self) -> &str {
        self.pattern.name
    }

    fn root(&self) -> Option<&str> {
        Some(self.pattern.source[self.anchor].name)
    }

    fn benefit(&self) -> u16 {
        self.pattern.benefit
    }

    fn match_and_rewrite(&self, op: OpId, rw: &mut Rewriter<'_>) -> Result<bool, PassError> {
        // Match, and compute every result attribute while the match is borrowed.
        let (src_ops, tensors, attrs) = {
            let Some(m) = self.match_at(rw.program(), op) else {
                return Ok(false);
            };
            // Every result op's attribute values, in pattern order, one after another.
            let mut attrs: SmallVec<[Attribute; 32]> = SmallVec::new();
            for res in self.pattern.result {
                for &(_, how) in res.attrs {
                    let a = match how {
                        ResultAttr::Capture(c) => m.attr(c),
                        ResultAttr::Compute(f) => f(&m),
                    };
                    let Some(a) = a else { return Ok(false) };
                    attrs.push(a);
                }
            }
            let src_ops: SmallVec<[OpId; 8]> = m.ops.iter().flatten().copied().collect();
            (src_ops, m.tensors, attrs)
        };
        // The replaced values, read before result tensors of the same name are bound.
        let olds: SmallVec<[Option<Value>; 4]> = self
            .slots
            .replace
            .iter()
            .map(|&(from, _)| tensors[usize::from(from)].flatten())
            .collect();
        let after = self.rewrite(op, &src_ops, tensors, &attrs, rw)?;
        for (&(_, to), old) in self.slots.replace.iter().zip(olds) {
            if let (Some(old), Some(new)) = (old, after[usize::from(to)].flatten()) {
                rw.replace_all_uses_with(old, new);
            }
        }
        self.delete_unused(&src_ops, rw)?;
        Ok(true)
    }
}
