//! [`VarIndex`]: every variable of a legacy program by block and name, with
//! `FindVarRecursive` (a block, then its ancestors).

use rustc_hash::FxHashMap;

use pir_legacy::{LegacyProgram, LegacyVar};

/// Every variable of a legacy program by block and name.
#[derive(Debug)]
pub(crate) struct VarIndex<'a> {
    blocks: Vec<FxHashMap<&'a str, &'a LegacyVar>>,
    parents: Vec<Option<usize>>,
}

impl<'a> VarIndex<'a> {
    pub(crate) fn new(legacy: &'a LegacyProgram) -> Self {
        VarIndex {
            blocks: legacy
                .blocks
                .iter()
                .map(|b| b.vars.iter().map(|v| (v.name.as_str(), v)).collect())
                .collect(),
            parents: legacy.blocks.iter().map(|b| b.parent).collect(),
        }
    }

    /// The variable `name` of block `block` itself.
    pub(crate) fn local(&self, block: usize, name: &str) -> Option<&'a LegacyVar> {
        self.blocks.get(block)?.get(name).copied()
    }

    /// `FindVarRecursive`: block `block`, then its ancestors.
    pub(crate) fn find(&self, block: usize, name: &str) -> Option<&'a LegacyVar> {
        let mut current = Some(block);
        for _ in 0..=self.blocks.len() {
            let b = current?;
            if let Some(v) = self.local(b, name) {
                return Some(v);
            }
            current = *self.parents.get(b)?;
        }
        None
    }

    /// Every variable name declared anywhere, with the variable [`VarIndex::find`] gives for
    /// it from the last block (by index) from which it finds one, and that block: what
    /// Paddle's passes that run `FindVarRecursive` for every block in order leave in effect.
    ///
    /// Linear in blocks and variables: the blocks finding a name are the subtrees (in the
    /// parent forest) of the blocks declaring it, so the last is the largest block index
    /// under a declaring block, and its variable is that of the deepest declaring block above
    /// it.
    pub(crate) fn last_found(&self) -> FxHashMap<&'a str, (usize, &'a LegacyVar)> {
        let (depth, last_below) = self.forest();
        // Name → ((last block finding it, depth of the declaring block), variable).
        let mut best: FxHashMap<&'a str, ((usize, usize), &'a LegacyVar)> = FxHashMap::default();
        for (b, vars) in self.blocks.iter().enumerate() {
            let key = (last_below[b], depth[b]);
            for (&name, &var) in vars {
                let entry = best.entry(name).or_insert((key, var));
                if key > entry.0 {
                    *entry = (key, var);
                }
            }
        }
        best.into_iter()
            .map(|(name, ((last, _), var))| (name, (last, var)))
            .collect()
    }

    /// Each block's depth in the parent forest and the largest block index in its subtree.
    /// (A parent link that would close a loop, possible only in a hand-built program, is
    /// treated as absent.)
    fn forest(&self) -> (Vec<usize>, Vec<usize>) {
        let n = self.blocks.len();
        let mut parent: Vec<Option<usize>> =
            self.parents.iter().map(|p| p.filter(|&p| p < n)).collect();
        let mut depth: Vec<Option<usize>> = vec![None; n];
        let mut on_walk = vec![false; n];
        let mut walk = Vec::new();
        for start in 0..n {
            // Walk up to a root, a block of known depth, or a block of this walk (a loop).
            let mut current = Some(start);
            let mut base = 0;
            while let Some(b) = current {
                if let Some(d) = depth[b] {
                    base = d + 1;
                    break;
                }
                if on_walk[b] {
                    if let Some(&top) = walk.last() {
                        parent[top] = None;
                    }
                    break;
                }
                on_walk[b] = true;
                walk.push(b);
                current = parent[b];
            }
            for (i, &b) in walk.iter().rev().enumerate() {
                depth[b] = Some(base + i);
                on_walk[b] = false;
            }
            walk.clear();
        }
        let depth: Vec<usize> = depth.into_iter().map(|d| d.unwrap_or(0)).collect();
        let mut by_depth: Vec<usize> = (0..n).collect();
        by_depth.sort_unstable_by_key(|&b| std::cmp::Reverse(depth[b]));
        let mut last_below: Vec<usize> = (0..n).collect();
        for b in by_depth {
            if let Some(p) = parent[b] {
                last_below[p] = last_below[p].max(last_below[b]);
            }
        }
        (depth, last_below)
    }
}
