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
}
