//! The pattern-rewrite API: a [`Rewriter`] makes every change to the program (so use lists stay
//! right and the driver hears of each change), and a [`RewritePattern`] matches at one op and
//! rewrites through it. [`PatternSet`] indexes patterns by the op name they are rooted at.
//!
//! ```
//! use pir_passes::{greedy, PassError, PatternSet, RewritePattern, Rewriter};
//! use pir_runtime::{builtin, Builder, IrContext, OpId, Program, phi::DataType};
//! /// `builtin.combine` of one value, then `builtin.split` of it: the value itself.
//! struct SplitOfCombine;
//! impl RewritePattern for SplitOfCombine {
//!     fn name(&self) -> &str { "split_of_combine" }
//!     fn root(&self) -> Option<&str> { Some("builtin.split") }
//!     fn match_and_rewrite(&self, op: OpId, rw: &mut Rewriter<'_>) -> Result<bool, PassError> {
//!         let p = rw.program();
//!         let Some(src) = p.op(op).operand(0).and_then(|v| p.defining_op(v)) else { return Ok(false) };
//!         if p.op(src).name() != "builtin.combine" { return Ok(false); }
//!         let inputs: Vec<_> = p.op(src).operands().map(|v| v.unwrap()).collect();
//!         rw.replace_op(op, &inputs).map_err(|e| PassError::Ir { pass: "demo", source: e })?;
//!         Ok(true)
//!     }
//! }
//! let ctx = IrContext::new();
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
//! let x = builtin::parameter(&mut b, "x", t).unwrap();
//! let v = builtin::combine(&mut b, &[x]).unwrap();
//! let parts = builtin::split(&mut b, v).unwrap();
//! builtin::shadow_output(&mut b, parts[0], "out").unwrap();
//! let mut set = PatternSet::new();
//! set.add(Box::new(SplitOfCombine));
//! let stats = greedy::apply_patterns_greedily(&mut prog, &set, greedy::GreedyConfig::default()).unwrap();
//! assert_eq!(stats.rewrites, 1);
//! let out = prog.last_op(prog.block()).unwrap();
//! assert_eq!(prog.op(out).operand(0), Some(x)); // the shadow_output now reads x
//! ```

use rustc_hash::FxHashMap;

use pir_runtime::op_support::build_with_attributes;
use pir_runtime::{
    Attribute, BuildError, Builder, InsertPoint, IrError, OpDef, OpId, OperationArgs, Program,
    Value,
};

use crate::error::PassError;

/// A change the rewriter made, for the driver's worklist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RewriteEvent {
    /// A new op.
    Created(OpId),
    /// An op whose operands changed.
    Modified(OpId),
    /// An erased op.
    Erased(OpId),
}

/// Makes changes to a program and records them.
///
/// ```
/// use pir_passes::Rewriter;
/// use pir_passes::rewrite::RewriteEvent;
/// use pir_runtime::{builtin, Builder, InsertPoint, IrContext, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// let mut b = Builder::at_end(&mut prog);
/// let x = builtin::parameter(&mut b, "x", t).unwrap();
/// let y = builtin::parameter(&mut b, "y", t).unwrap();
/// builtin::shadow_output(&mut b, x, "out").unwrap();
/// let mut rw = Rewriter::new(&mut prog);
/// rw.replace_all_uses_with(x, y);
/// let x_op = rw.program().defining_op(x).unwrap();
/// rw.erase_op(x_op).unwrap();
/// assert!(matches!(rw.take_events()[..], [RewriteEvent::Modified(_), RewriteEvent::Erased(_)]));
/// assert_eq!(prog.use_count(y), 1);
/// ```
pub struct Rewriter<'p> {
    prog: &'p mut Program,
    events: Vec<RewriteEvent>,
}

impl<'p> Rewriter<'p> {
    /// A rewriter of `prog`.
    pub fn new(prog: &'p mut Program) -> Rewriter<'p> {
        Rewriter {
            prog,
            events: Vec::new(),
        }
    }

    /// A rewriter of `prog` that records into `events` (emptied first), so a driver can reuse
    /// one buffer for every op ([`Rewriter::take_events`] hands it back).
    pub fn with_events(prog: &'p mut Program, mut events: Vec<RewriteEvent>) -> Rewriter<'p> {
        events.clear();
        Rewriter { prog, events }
    }

    /// The program, to read.
    pub fn program(&self) -> &Program {
        self.prog
    }

    /// The changes since the last call.
    pub fn take_events(&mut self) -> Vec<RewriteEvent> {
        std::mem::take(&mut self.events)
    }

    /// Creates an op at `at` with explicit result types.
    ///
    /// # Errors
    ///
    /// An [`IrError`] if `at` is not a place in this program.
    pub fn create(&mut self, args: OperationArgs<'_>, at: InsertPoint) -> Result<OpId, IrError> {
        let op = self.prog.create_op_at(args, at)?;
        self.events.push(RewriteEvent::Created(op));
        Ok(op)
    }

    /// Builds an op of `def` at `at` from operands and an attribute dictionary, its result
    /// types inferred by the op's infer-meta function (Paddle's generated `Build`).
    ///
    /// # Errors
    ///
    /// A [`BuildError`]: operands or attributes that do not fit the op's schema, or an
    /// infer-meta failure.
    pub fn build(
        &mut self,
        at: InsertPoint,
        def: &'static OpDef,
        operands: &[Option<Value>],
        attributes: Attribute,
    ) -> Result<OpId, BuildError> {
        let mut b = Builder::new(self.prog, at);
        let op = build_with_attributes(&mut b, def, operands, attributes)?;
        self.events.push(RewriteEvent::Created(op));
        Ok(op)
    }

    /// Erases `op`, which must have no uses left.
    ///
    /// # Errors
    ///
    /// [`IrError::ResultInUse`] if a result is still used (nothing is changed then).
    pub fn erase_op(&mut self, op: OpId) -> Result<(), IrError> {
        self.prog.erase_op(op)?;
        self.events.push(RewriteEvent::Erased(op));
        Ok(())
    }

    /// Points every use of `old` at `new`.
    pub fn replace_all_uses_with(&mut self, old: Value, new: Value) {
        if old == new {
            return;
        }
        for u in self.prog.uses(old) {
            self.events.push(RewriteEvent::Modified(u.op));
        }
        self.prog.replace_all_uses_with(old, new);
    }

    /// Replaces the results of `op` by `values` (one per result) and erases `op`.
    ///
    /// # Errors
    ///
    /// [`IrError::Invalid`] if the counts differ.
    pub fn replace_op(&mut self, op: OpId, values: &[Value]) -> Result<(), IrError> {
        let results: Vec<Value> = self.prog.op(op).results().collect();
        if results.len() != values.len() {
            return Err(IrError::Invalid(format!(
                "{} has {} results, replaced by {} values",
                self.prog.describe(op),
                results.len(),
                values.len()
            )));
        }
        for (&r, &v) in results.iter().zip(values) {
            self.replace_all_uses_with(r, v);
        }
        self.erase_op(op)
    }

    /// Sets operand `index` of `op`.
    ///
    /// # Errors
    ///
    /// An [`IrError`] for an erased op or an index out of range.
    pub fn set_operand(
        &mut self,
        op: OpId,
        index: usize,
        value: Option<Value>,
    ) -> Result<(), IrError> {
        self.prog.set_operand(op, index, value)?;
        self.events.push(RewriteEvent::Modified(op));
        Ok(())
    }

    /// Replaces the attribute dictionary of `op`.
    ///
    /// # Errors
    ///
    /// An [`IrError`] for an erased op.
    pub fn set_attributes(&mut self, op: OpId, dict: Attribute) -> Result<(), IrError> {
        self.prog.set_attributes(op, dict)?;
        self.events.push(RewriteEvent::Modified(op));
        Ok(())
    }

    /// Moves `op` to `at`.
    ///
    /// # Errors
    ///
    /// An [`IrError`] for an erased op or a bad place.
    pub fn move_op(&mut self, op: OpId, at: InsertPoint) -> Result<(), IrError> {
        if self.prog.op(op).parent_block().is_some() {
            self.prog.detach_op(op)?;
        }
        self.prog.insert_op(op, at)?;
        self.events.push(RewriteEvent::Modified(op));
        Ok(())
    }
}

/// A rewrite rooted at one op.
pub trait RewritePattern: Send + Sync {
    /// The pattern's name (for messages).
    fn name(&self) -> &str;
    /// The name of the op it is rooted at; `None` tries it on every op.
    fn root(&self) -> Option<&str>;
    /// Higher benefits are tried first.
    fn benefit(&self) -> u16 {
        1
    }
    /// Matches at `op` and, if it matches, rewrites through `rw` and returns `true`. A pattern
    /// that does not match changes nothing.
    ///
    /// # Errors
    ///
    /// A [`PassError`] when a rewrite that matched cannot be completed.
    fn match_and_rewrite(&self, op: OpId, rw: &mut Rewriter<'_>) -> Result<bool, PassError>;
}

/// Patterns, indexed by root op name.
#[derive(Default)]
pub struct PatternSet {
    patterns: Vec<Box<dyn RewritePattern>>,
    by_root: FxHashMap<String, Vec<usize>>,
    any: Vec<usize>,
}

impl PatternSet {
    /// An empty set.
    pub fn new() -> PatternSet {
        PatternSet::default()
    }

    /// Adds a pattern.
    pub fn add(&mut self, p: Box<dyn RewritePattern>) {
        let i = self.patterns.len();
        let list = match p.root() {
            Some(r) => self.by_root.entry(r.to_string()).or_default(),
            None => &mut self.any,
        };
        list.push(i);
        // Stable by benefit, highest first.
        let pats = &self.patterns;
        let benefit = p.benefit();
        list.sort_by_key(|&j| std::cmp::Reverse(if j == i { benefit } else { pats[j].benefit() }));
        self.patterns.push(p);
    }

    /// How many patterns.
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// The patterns to try at an op named `name`, best first.
    pub fn for_op<'s>(&'s self, name: &str) -> impl Iterator<Item = &'s dyn RewritePattern> + 's {
        let rooted = self.by_root.get(name).map(Vec::as_slice).unwrap_or(&[]);
        rooted.iter().chain(&self.any).map(|&i| &*self.patterns[i])
    }
}
