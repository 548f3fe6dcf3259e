//! The variable map (Paddle's `TranslationContext`): each legacy variable name maps to a
//! *stack* of the values that defined it, in push order. Readers take the newest value — the
//! SSA renaming of re-assigned variables (`batch_norm` writing `MeanOut` into its `Mean`,
//! `sgd` writing `ParamOut` into `Param`, `mul` remapping `Out` to its output reshape).

use pir_runtime::Value;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// What defined one value of a variable (Paddle's `VariableDefiningInfo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VariableDefiningInfo {
    /// The value.
    pub value: Value,
    /// The value is a `vec[...]` result and the variable is its element `idx_in_vector`;
    /// readers first take the element out with `builtin.slice`.
    pub generated_by_vector: bool,
    /// The element index when `generated_by_vector`, else `-1`.
    pub idx_in_vector: i32,
}

impl VariableDefiningInfo {
    /// A plain (non-vector) value.
    pub fn new(value: Value) -> Self {
        VariableDefiningInfo {
            value,
            generated_by_vector: false,
            idx_in_vector: -1,
        }
    }
}

/// The variable map of one translation. Names borrow from the legacy program.
#[derive(Debug, Default)]
pub struct VariableMap<'a> {
    map: FxHashMap<&'a str, SmallVec<[VariableDefiningInfo; 1]>>,
    /// Names in first-push order: the deterministic order of the final passes.
    order: Vec<&'a str>,
    /// Every push, in order, while a scope is open ([`VariableMap::mark`]).
    journal: Vec<&'a str>,
    /// Open scopes.
    scopes: usize,
}

impl<'a> VariableMap<'a> {
    /// An empty map.
    pub fn new() -> Self {
        VariableMap::default()
    }

    /// An empty map with room for `n` names.
    pub fn with_capacity(n: usize) -> Self {
        VariableMap {
            map: FxHashMap::with_capacity_and_hasher(n, Default::default()),
            order: Vec::with_capacity(n),
            journal: Vec::new(),
            scopes: 0,
        }
    }

    /// Pushes a new defining value of `name` (Paddle's `PushValue`).
    pub fn push(&mut self, name: &'a str, info: VariableDefiningInfo) {
        let entry = self.map.entry(name).or_default();
        if entry.is_empty() {
            self.order.push(name);
        }
        entry.push(info);
        if self.scopes > 0 {
            self.journal.push(name);
        }
    }

    /// Opens a scope (a sub-block being translated, Paddle's child `TranslationContext`):
    /// what is pushed from now on is undone by [`VariableMap::rollback`] with the mark returned.
    pub fn mark(&mut self) -> usize {
        self.scopes += 1;
        self.journal.len()
    }

    /// Closes the scope opened at `mark`: pops every value pushed since, newest first.
    pub fn rollback(&mut self, mark: usize) {
        while self.journal.len() > mark {
            if let Some(name) = self.journal.pop() {
                let emptied = self.map.get_mut(name).is_some_and(|v| {
                    v.pop();
                    v.is_empty()
                });
                if emptied {
                    // Its first push was in the scope: it leaves the order too.
                    if let Some(i) = self.order.iter().rposition(|&n| n == name) {
                        self.order.remove(i);
                    }
                }
            }
        }
        self.scopes = self.scopes.saturating_sub(1);
    }

    /// Pops the newest value of `name` (Paddle's `PopValue`).
    pub fn pop(&mut self, name: &str) -> Option<VariableDefiningInfo> {
        self.map.get_mut(name)?.pop()
    }

    /// The newest value of `name` (Paddle's `at` / `operator[]`).
    pub fn get(&self, name: &str) -> Option<&VariableDefiningInfo> {
        self.map.get(name)?.last()
    }

    /// Every value pushed for `name`, oldest first.
    pub fn values(&self, name: &str) -> &[VariableDefiningInfo] {
        self.map.get(name).map_or(&[], |v| v.as_slice())
    }

    /// Whether `name` has a value (Paddle's `count(name) != 0`).
    pub fn contains(&self, name: &str) -> bool {
        self.map.get(name).is_some_and(|v| !v.is_empty())
    }

    /// Names in first-push order with their stacks.
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, &[VariableDefiningInfo])> + '_ {
        self.order
            .iter()
            .filter_map(|n| self.map.get(n).map(|v| (*n, v.as_slice())))
            .filter(|(_, v)| !v.is_empty())
    }

    /// The number of names with at least one value.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// Whether no name has a value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
