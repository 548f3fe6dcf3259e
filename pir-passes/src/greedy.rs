//! The greedy worklist driver: patterns applied until none matches (Paddle's
//! `ApplyPatternsGreedily`).
//!
//! The worklist starts with every op of the program in walk order and is popped from the back
//! (Paddle's default, bottom-up). After a rewrite, the ops it created and the users whose
//! operands it changed go on the worklist; erased ops are skipped. Each op is on the list at
//! most once, so a sweep costs O(ops + changes); a further sweep confirms the fixed point.

use pir_runtime::{OpId, Program};

use crate::error::PassError;
use crate::passes::util::Memo;
use crate::rewrite::{PatternSet, RewriteEvent, Rewriter};

/// How the driver runs.
#[derive(Clone, Copy, Debug)]
pub struct GreedyConfig {
    /// Full sweeps at most (Paddle: 10).
    pub max_iterations: usize,
    /// Process ops first to last instead of last to first.
    pub top_down: bool,
}

impl Default for GreedyConfig {
    fn default() -> Self {
        GreedyConfig {
            max_iterations: 10,
            top_down: false,
        }
    }
}

/// What the driver did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GreedyStats {
    /// Successful rewrites.
    pub rewrites: usize,
    /// Sweeps made.
    pub iterations: usize,
    /// Whether the last sweep changed nothing.
    pub converged: bool,
}

struct Worklist {
    list: Vec<OpId>,
    on_list: Vec<bool>,
}

impl Worklist {
    fn push(&mut self, op: OpId) {
        let i = op.index();
        if i >= self.on_list.len() {
            self.on_list
                .resize((i + 1).max(self.on_list.len() * 2), false);
        }
        if !self.on_list[i] {
            self.on_list[i] = true;
            self.list.push(op);
        }
    }

    fn pop(&mut self) -> Option<OpId> {
        let op = self.list.pop()?;
        self.on_list[op.index()] = false;
        Some(op)
    }
}

/// Applies `patterns` to `prog` until none matches or `config.max_iterations` sweeps.
///
/// # Errors
///
/// The first error a pattern returns.
pub fn apply_patterns_greedily(
    prog: &mut Program,
    patterns: &PatternSet,
    config: GreedyConfig,
) -> Result<GreedyStats, PassError> {
    let mut stats = GreedyStats::default();
    // Whether any pattern is rooted at a definition, looked up once per definition and not
    // by hashing the op's name at every op: most ops have none.
    let mut has_patterns: Memo<usize, bool> = Memo::default();
    // One event buffer for every op's rewriter.
    let mut events = Vec::new();
    while stats.iterations < config.max_iterations {
        stats.iterations += 1;
        let mut wl = Worklist {
            list: Vec::with_capacity(prog.num_values_allocated()),
            on_list: Vec::new(),
        };
        let module = prog.module_op();
        let mut all = Vec::new();
        prog.walk(module, &mut |op| {
            if op != module {
                all.push(op);
            }
        });
        if config.top_down {
            all.reverse();
        }
        for op in all {
            wl.push(op);
        }
        let before = stats.rewrites;
        while let Some(op) = wl.pop() {
            if !prog.is_alive(op) {
                continue;
            }
            let def = prog.op(op).def();
            let name = def.name;
            if !has_patterns.get_or(def as *const _ as usize, || {
                patterns.for_op(name).next().is_some()
            }) {
                continue;
            }
            let mut rw = Rewriter::with_events(prog, std::mem::take(&mut events));
            for p in patterns.for_op(name) {
                if p.match_and_rewrite(op, &mut rw)? {
                    stats.rewrites += 1;
                    break;
                }
            }
            events = rw.take_events();
            for e in events.drain(..) {
                match e {
                    RewriteEvent::Created(o) | RewriteEvent::Modified(o) => wl.push(o),
                    RewriteEvent::Erased(_) => {}
                }
            }
        }
        if stats.rewrites == before {
            stats.converged = true;
            break;
        }
    }
    Ok(stats)
}
