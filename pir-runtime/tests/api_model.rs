//! A stateful property test of the library API (issue 18): random sequences of create, insert,
//! detach, erase, set-operand, replace-uses and region edits (blocks, block arguments), with
//! misuse mixed in (erased ops, handles of another program in and out of this one's range,
//! types of another context, inserting an op into its own regions, arguments on the top
//! block). After every step the program is compared
//! with a simple model: which ops are alive, every block's op list, every value's use count,
//! whether each call failed, and whether `verify` passes (the model applies the dominance and
//! structure rules itself).

use std::collections::HashMap;

use pir_runtime::phi::DataType;
use pir_runtime::{
    verify, BlockId, InsertPoint, IrContext, IrError, OpDef, OpId, OperationArgs, Program,
    RegionId, Type, Value,
};
use proptest::prelude::*;

static OP: OpDef = OpDef::new("test.op", "test");

#[derive(Clone, Debug)]
enum Action {
    /// An op with operands picked from all values, regions, at the end of a block or before an
    /// op.
    Create {
        block: usize,
        before: Option<usize>,
        operands: Vec<usize>,
        regions: usize,
    },
    AddBlock {
        op: usize,
    },
    AddBlockArg {
        block: usize,
    },
    Detach {
        op: usize,
    },
    Insert {
        op: usize,
        block: usize,
        at_start: bool,
    },
    Erase {
        op: usize,
    },
    SetOperand {
        op: usize,
        index: usize,
        value: Option<usize>,
    },
    ReplaceAllUses {
        old: usize,
        new: usize,
    },
    /// Misuse: handles of another program (in range here or not), a type of another
    /// context; `own` picks one of this program's ops or values to combine them with.
    Foreign {
        op: usize,
        own: usize,
    },
}

fn action() -> impl Strategy<Value = Action> {
    let n = 0..64usize;
    prop_oneof![
        4 => (n.clone(), proptest::option::weighted(0.3, n.clone()), proptest::collection::vec(n.clone(), 0..3), prop_oneof![4 => Just(0usize), 1 => 1..3usize])
            .prop_map(|(block, before, operands, regions)| Action::Create { block, before, operands, regions }),
        1 => n.clone().prop_map(|op| Action::AddBlock { op }),
        1 => n.clone().prop_map(|block| Action::AddBlockArg { block }),
        1 => n.clone().prop_map(|op| Action::Detach { op }),
        1 => (n.clone(), n.clone(), any::<bool>()).prop_map(|(op, block, at_start)| Action::Insert { op, block, at_start }),
        2 => n.clone().prop_map(|op| Action::Erase { op }),
        1 => (n.clone(), 0..3usize, proptest::option::of(n.clone())).prop_map(|(op, index, value)| Action::SetOperand { op, index, value }),
        1 => (n.clone(), n.clone()).prop_map(|(old, new)| Action::ReplaceAllUses { old, new }),
        2 => (0..300usize, n).prop_map(|(op, own)| Action::Foreign { op, own }),
    ]
}

#[derive(Debug)]
struct MOp {
    id: OpId,
    alive: bool,
    parent: Option<usize>,
    operands: Vec<Option<Value>>,
    results: Vec<Value>,
    regions: Vec<Vec<usize>>,
}

#[derive(Debug)]
struct MBlock {
    id: BlockId,
    /// The op owning the block's region (`None`: the top block).
    owner: Option<usize>,
    ops: Vec<usize>,
    args: Vec<Value>,
}

struct Model {
    ops: Vec<MOp>,
    blocks: Vec<MBlock>,
    values: Vec<Value>,
}

impl Model {
    /// Whether `block` is nested (at any depth) in the regions of op `op`.
    fn inside(&self, block: usize, op: usize) -> bool {
        let mut cur = self.blocks[block].owner;
        while let Some(o) = cur {
            if o == op {
                return true;
            }
            cur = self.ops[o].parent.and_then(|b| self.blocks[b].owner);
        }
        false
    }

    /// Blocks whose owners are all alive, and (if `attached`) attached up to the top block.
    fn live_blocks(&self, attached: bool) -> Vec<usize> {
        (0..self.blocks.len())
            .filter(|&b| {
                let mut cur = self.blocks[b].owner;
                while let Some(o) = cur {
                    if !self.ops[o].alive {
                        return false;
                    }
                    match self.ops[o].parent {
                        Some(p) => cur = self.blocks[p].owner,
                        None => return !attached,
                    }
                }
                true
            })
            .collect()
    }

    /// The op and every op nested in its regions.
    fn subtree(&self, op: usize) -> Vec<usize> {
        let mut out = vec![op];
        let mut i = 0;
        while i < out.len() {
            let o = out[i];
            for r in &self.ops[o].regions {
                for &b in r {
                    out.extend(&self.blocks[b].ops);
                }
            }
            i += 1;
        }
        out
    }

    fn use_counts(&self) -> HashMap<Value, usize> {
        let mut m = HashMap::new();
        for o in self.ops.iter().filter(|o| o.alive) {
            for v in o.operands.iter().flatten() {
                *m.entry(*v).or_default() += 1;
            }
        }
        m
    }

    /// Whether `verify` must pass: every operand of an attached op is visible (defined
    /// earlier in its block or an enclosing one, or an argument of such a block; an op's own
    /// results only after its regions), and the top block has no argument.
    fn verifies(&self) -> bool {
        if !self.blocks[0].args.is_empty() {
            return false;
        }
        let mut visible: Vec<Value> = Vec::new();
        self.block_ok(0, &mut visible)
    }

    fn block_ok(&self, b: usize, visible: &mut Vec<Value>) -> bool {
        let mark = visible.len();
        visible.extend(&self.blocks[b].args);
        for &o in &self.blocks[b].ops {
            let op = &self.ops[o];
            if !op.operands.iter().flatten().all(|v| visible.contains(v)) {
                return false;
            }
            for r in &op.regions {
                for &nb in r {
                    if !self.block_ok(nb, visible) {
                        return false;
                    }
                }
            }
            visible.extend(&op.results);
        }
        visible.truncate(mark);
        true
    }
}

/// What a step did that the test counts.
enum Outcome {
    CycleRefused,
    EraseRefused,
    /// Foreign handles were refused; whether the value's index was in this program's range.
    ForeignRefused {
        in_range: bool,
    },
    Other,
}

struct Harness {
    prog: Program,
    model: Model,
    /// Ops of another program: the first ones are in range here, the last ones not.
    foreign: Vec<OpId>,
    foreign_values: Vec<Value>,
    foreign_block: BlockId,
    foreign_region: RegionId,
    /// A type of another context, at an index this context uses too.
    alien: Type,
    /// Keeps the other program (and so its handles' meaning) alive.
    _other: Program,
}

impl Harness {
    fn new() -> Harness {
        let ctx = IrContext::new();
        ctx.register_ops("test", &[&OP]).unwrap();
        let prog = Program::new(&ctx);
        let top = prog.block();
        // Another program, bigger than this one will get: its first handles are in range
        // here, its last ones not; each has a result and one region.
        let mut other = Program::new(&ctx);
        let top_other = other.block();
        let foreign: Vec<OpId> = (0..300)
            .map(|_| {
                other
                    .create_op_at(args(&ctx, &[], 1), InsertPoint::BlockEnd(top_other))
                    .unwrap()
            })
            .collect();
        let foreign_values = foreign.iter().map(|&o| other.op(o).result(0)).collect();
        let foreign_region = other.op(foreign[0]).region(0);
        let foreign_block = other.add_block(foreign_region);
        let alien_ctx = IrContext::new();
        let alien = alien_ctx.dense_tensor_type(DataType::Float32, &[2]);
        // The same type at the same index in this context: only the identity differs.
        ctx.dense_tensor_type(DataType::Float32, &[2]);
        Harness {
            prog,
            model: Model {
                ops: Vec::new(),
                blocks: vec![MBlock {
                    id: top,
                    owner: None,
                    ops: Vec::new(),
                    args: Vec::new(),
                }],
                values: Vec::new(),
            },
            foreign,
            foreign_values,
            foreign_block,
            foreign_region,
            alien,
            _other: other,
        }
    }

    fn step(&mut self, a: &Action) -> Outcome {
        let m = &mut self.model;
        let pick = |n: usize, i: usize| (n > 0).then(|| i % n);
        match *a {
            Action::Create {
                block,
                before,
                ref operands,
                regions,
            } => {
                let live = m.live_blocks(true);
                let b = live[block % live.len()];
                let ops: Vec<Option<Value>> = operands
                    .iter()
                    .filter_map(|&i| pick(m.values.len(), i).map(|i| Some(m.values[i])))
                    .collect();
                let before = before.and_then(|i| pick(m.blocks[b].ops.len(), i));
                let at = match before {
                    Some(p) => InsertPoint::Before(m.ops[m.blocks[b].ops[p]].id),
                    None => InsertPoint::BlockEnd(m.blocks[b].id),
                };
                let ctx = self.prog.ctx().clone();
                let id = self
                    .prog
                    .create_op_at(args(&ctx, &ops, regions), at)
                    .unwrap();
                let r = self.prog.op(id);
                let idx = m.ops.len();
                m.ops.push(MOp {
                    id,
                    alive: true,
                    parent: Some(b),
                    operands: ops,
                    results: r.results().collect(),
                    regions: vec![Vec::new(); regions],
                });
                m.values.extend(r.results());
                match before {
                    Some(p) => m.blocks[b].ops.insert(p, idx),
                    None => m.blocks[b].ops.push(idx),
                }
            }
            Action::AddBlock { op } => {
                let with: Vec<usize> = (0..m.ops.len())
                    .filter(|&o| m.ops[o].alive && !m.ops[o].regions.is_empty())
                    .collect();
                let Some(o) = pick(with.len(), op).map(|i| with[i]) else {
                    return Outcome::Other;
                };
                let region = self.prog.op(m.ops[o].id).region(0);
                let id = self.prog.add_block(region);
                m.ops[o].regions[0].push(m.blocks.len());
                m.blocks.push(MBlock {
                    id,
                    owner: Some(o),
                    ops: Vec::new(),
                    args: Vec::new(),
                });
            }
            Action::AddBlockArg { block } => {
                // Rarely on the top block (misuse: verify must then fail).
                let b = if block == 0 {
                    0
                } else {
                    block % m.blocks.len()
                };
                let t = self.prog.ctx().dense_tensor_type(DataType::Float32, &[2]);
                let v = self.prog.add_block_arg(m.blocks[b].id, Some(t));
                m.blocks[b].args.push(v);
                m.values.push(v);
            }
            Action::Detach { op } => {
                let Some(o) = pick(m.ops.len(), op) else {
                    return Outcome::Other;
                };
                let r = self.prog.detach_op(m.ops[o].id);
                let ok = m.ops[o].alive && m.ops[o].parent.is_some();
                assert_eq!(r.is_ok(), ok, "detach {:?}: {r:?}", m.ops[o]);
                if let (true, Some(p)) = (ok, m.ops[o].parent.take()) {
                    m.blocks[p].ops.retain(|&x| x != o);
                }
            }
            Action::Insert {
                op,
                block,
                at_start,
            } => {
                let Some(o) = pick(m.ops.len(), op) else {
                    return Outcome::Other;
                };
                // Detached subtrees too: where an op may land inside itself.
                let live = m.live_blocks(false);
                let b = live[block % live.len()];
                let bid = m.blocks[b].id;
                let at = if at_start {
                    InsertPoint::BlockStart(bid)
                } else {
                    InsertPoint::BlockEnd(bid)
                };
                let r = self.prog.insert_op(m.ops[o].id, at);
                let ok = m.ops[o].alive && m.ops[o].parent.is_none() && !m.inside(b, o);
                assert_eq!(r.is_ok(), ok, "insert {o} into block {b}: {r:?}");
                if m.ops[o].alive && m.ops[o].parent.is_none() && m.inside(b, o) {
                    return Outcome::CycleRefused;
                }
                if ok {
                    m.ops[o].parent = Some(b);
                    if at_start {
                        m.blocks[b].ops.insert(0, o);
                    } else {
                        m.blocks[b].ops.push(o);
                    }
                }
            }
            Action::Erase { op } => {
                let Some(o) = pick(m.ops.len(), op) else {
                    return Outcome::Other;
                };
                let r = self.prog.erase_op(m.ops[o].id);
                if !m.ops[o].alive {
                    assert!(r.is_err(), "erasing an erased op");
                    return Outcome::Other;
                }
                let doomed = m.subtree(o);
                let results: Vec<Value> = doomed
                    .iter()
                    .flat_map(|&d| m.ops[d].results.clone())
                    .collect();
                let used_outside = m.ops.iter().enumerate().any(|(i, x)| {
                    x.alive
                        && !doomed.contains(&i)
                        && x.operands.iter().flatten().any(|v| results.contains(v))
                });
                assert_eq!(r.is_ok(), !used_outside, "erase {o}: {r:?}");
                if used_outside {
                    return Outcome::EraseRefused;
                }
                {
                    for d in doomed {
                        if let Some(p) = m.ops[d].parent.take() {
                            m.blocks[p].ops.retain(|&x| x != d);
                        }
                        m.ops[d].alive = false;
                    }
                }
            }
            Action::SetOperand { op, index, value } => {
                let Some(o) = pick(m.ops.len(), op) else {
                    return Outcome::Other;
                };
                let v = value
                    .and_then(|i| pick(m.values.len(), i))
                    .map(|i| m.values[i]);
                let r = self.prog.set_operand(m.ops[o].id, index, v);
                let ok = m.ops[o].alive && index < m.ops[o].operands.len();
                assert_eq!(r.is_ok(), ok, "set_operand: {r:?}");
                if ok {
                    m.ops[o].operands[index] = v;
                }
            }
            Action::ReplaceAllUses { old, new } => {
                let (Some(a), Some(b)) = (pick(m.values.len(), old), pick(m.values.len(), new))
                else {
                    return Outcome::Other;
                };
                let (a, b) = (m.values[a], m.values[b]);
                self.prog.replace_all_uses_with(a, b);
                for x in m.ops.iter_mut().filter(|x| x.alive) {
                    for v in x.operands.iter_mut().flatten() {
                        if *v == a {
                            *v = b;
                        }
                    }
                }
            }
            Action::Foreign { op, own } => {
                let (f, fv) = (self.foreign[op], self.foreign_values[op]);
                fn foreign<T>(r: Result<T, IrError>) -> bool {
                    matches!(r, Err(IrError::Foreign(_)))
                }
                assert!(foreign(self.prog.erase_op(f)));
                assert!(foreign(self.prog.detach_op(f)));
                assert!(foreign(self.prog.set_operand(f, 0, None)));
                let top = self.prog.block();
                assert!(foreign(self.prog.insert_op(f, InsertPoint::BlockEnd(top))));
                assert!(!self.prog.is_alive(f));
                let ctx = self.prog.ctx().clone();
                let at_end = InsertPoint::BlockEnd(top);
                // Creating with a foreign operand, type or place creates nothing.
                let fv_operands = [Some(fv)];
                let a = args(&ctx, &fv_operands, 0);
                assert!(foreign(self.prog.create_op_at(a, at_end)));
                let typed = OperationArgs {
                    result_types: &[Some(self.alien)],
                    ..args(&ctx, &[], 0)
                };
                assert!(foreign(self.prog.create_op_at(typed, at_end)));
                for at in [
                    InsertPoint::BlockEnd(self.foreign_block),
                    InsertPoint::Before(f),
                    InsertPoint::After(f),
                ] {
                    assert!(foreign(self.prog.create_op_at(args(&ctx, &[], 0), at)));
                }
                // A foreign value into one of this program's live ops with an operand.
                let with: Vec<usize> = (0..m.ops.len())
                    .filter(|&o| m.ops[o].alive && !m.ops[o].operands.is_empty())
                    .collect();
                if let Some(o) = pick(with.len(), own).map(|i| with[i]) {
                    assert!(foreign(self.prog.set_operand(m.ops[o].id, 0, Some(fv))));
                }
                // Calls without a Result panic, before changing anything.
                let region = self.foreign_region;
                let prog = &mut self.prog;
                let panics = |f: &mut dyn FnMut()| {
                    // Quietly: the default hook would print (and capture a backtrace) each time.
                    let hook = std::panic::take_hook();
                    std::panic::set_hook(Box::new(|_| {}));
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
                    std::panic::set_hook(hook);
                    r.is_err()
                };
                assert!(panics(&mut || {
                    prog.value_type(fv);
                }));
                assert!(panics(&mut || {
                    prog.add_block(region);
                }));
                if let Some(v) = pick(m.values.len(), own).map(|i| m.values[i]) {
                    assert!(panics(&mut || prog.replace_all_uses_with(fv, v)));
                    assert!(panics(&mut || prog.replace_all_uses_with(v, fv)));
                }
                let in_range = fv.index() < self.prog.num_values_allocated();
                return Outcome::ForeignRefused { in_range };
            }
        }
        Outcome::Other
    }

    fn check(&self) {
        let (p, m) = (&self.prog, &self.model);
        for b in &m.blocks {
            let ids: Vec<OpId> = b.ops.iter().map(|&o| m.ops[o].id).collect();
            assert_eq!(
                p.block_ops(b.id).collect::<Vec<_>>(),
                ids,
                "block {:?}",
                b.id
            );
            assert_eq!(p.block_args(b.id), b.args);
        }
        for o in &m.ops {
            assert_eq!(p.is_alive(o.id), o.alive);
            if o.alive {
                assert_eq!(p.op(o.id).operands().collect::<Vec<_>>(), o.operands);
                p.location(o.id); // terminates: no op is inside itself
            }
        }
        assert_eq!(p.num_ops(), 1 + m.ops.iter().filter(|o| o.alive).count());
        let counts = m.use_counts();
        for v in &m.values {
            assert_eq!(
                p.use_count(*v),
                counts.get(v).copied().unwrap_or(0),
                "uses of {v:?}"
            );
        }
        let r = verify(p);
        assert_eq!(r.is_ok(), m.verifies(), "verify: {r:?}");
    }
}

fn args<'a>(ctx: &IrContext, operands: &'a [Option<Value>], regions: usize) -> OperationArgs<'a> {
    OperationArgs {
        def: &OP,
        operands,
        attributes: ctx.empty_dict(),
        result_types: &[None],
        num_regions: regions,
    }
}

/// How often each interesting outcome happened over the whole run (the test fails if one
/// never did: the generator must reach every rule).
#[derive(Default, Debug)]
struct Seen {
    cycle_refused: usize,
    erase_refused: usize,
    verify_failed: usize,
    verify_passed: usize,
    nested_ops: usize,
    foreign_in_range: usize,
    foreign_out_of_range: usize,
}

#[test]
fn the_api_agrees_with_the_model() {
    use proptest::test_runner::{Config, TestRunner};
    let seen = std::cell::RefCell::new(Seen::default());
    let mut runner = TestRunner::new(Config {
        cases: 400,
        ..Config::default()
    });
    let strategy = proptest::collection::vec(action(), 1..80);
    runner
        .run(&strategy, |actions| {
            let mut h = Harness::new();
            for a in &actions {
                let outcome = h.step(a);
                h.check();
                let mut s = seen.borrow_mut();
                match outcome {
                    Outcome::CycleRefused => s.cycle_refused += 1,
                    Outcome::EraseRefused => s.erase_refused += 1,
                    Outcome::ForeignRefused { in_range: true } => s.foreign_in_range += 1,
                    Outcome::ForeignRefused { in_range: false } => s.foreign_out_of_range += 1,
                    Outcome::Other => {}
                }
                if h.model.verifies() {
                    s.verify_passed += 1;
                } else {
                    s.verify_failed += 1;
                }
                s.nested_ops += h
                    .model
                    .ops
                    .iter()
                    .filter(|o| o.alive && o.parent.is_some_and(|b| b != 0))
                    .count()
                    .min(1);
            }
            Ok(())
        })
        .unwrap();
    let s = seen.into_inner();
    assert!(
        s.cycle_refused > 0
            && s.erase_refused > 0
            && s.verify_failed > 0
            && s.verify_passed > 0
            && s.nested_ops > 0
            && s.foreign_in_range > 0
            && s.foreign_out_of_range > 0,
        "{s:?}"
    );
}
