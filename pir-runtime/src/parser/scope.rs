//! Value names in scope.
//!
//! One table maps every visible name to its value; a region sees the names of the blocks
//! around it. Entering a block records a mark; leaving it removes the names defined since, so
//! lookups stay one hash probe (or one array index: the printer's `%0, %1, ...` names are
//! looked up by number) whatever the nesting, and the whole parse stays linear. A name already
//! visible cannot be defined again (no shadowing).

use rustc_hash::FxHashMap;

use crate::program::Value;

/// A definition: the value and the byte offset where its name was written.
#[derive(Clone, Copy)]
struct Def {
    value: Value,
    pos: u32,
}

pub(crate) struct Scope<'t> {
    /// Names that are canonical decimals (`0`, `17`), indexed by number.
    numbered: Vec<Option<Def>>,
    /// Every other name.
    named: FxHashMap<&'t str, Def>,
    /// Names in definition order, for leaving blocks.
    log: Vec<&'t str>,
    /// Numbers at or above this go to `named` (bounded by the text's length, so a huge
    /// number in a short text allocates nothing).
    limit: usize,
}

/// The index of a canonical decimal name below `limit`.
#[inline]
fn number(name: &str, limit: usize) -> Option<usize> {
    let b = name.as_bytes();
    if b.is_empty() || b.len() > 9 || (b[0] == b'0' && b.len() > 1) {
        return None;
    }
    let mut n = 0usize;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        n = n * 10 + usize::from(c - b'0');
    }
    (n < limit).then_some(n)
}

impl<'t> Scope<'t> {
    pub(crate) fn new(text_len: usize) -> Scope<'t> {
        Scope {
            numbered: Vec::new(),
            named: FxHashMap::default(),
            log: Vec::new(),
            limit: text_len,
        }
    }

    #[inline]
    pub(crate) fn get(&self, name: &str) -> Option<Value> {
        match number(name, self.limit) {
            Some(n) => self.numbered.get(n).copied().flatten().map(|d| d.value),
            None => self.named.get(name).map(|d| d.value),
        }
    }

    /// Defines `name`; `Err` with the offset of the visible definition of the same name.
    #[inline]
    pub(crate) fn define(&mut self, name: &'t str, value: Value, pos: usize) -> Result<(), usize> {
        let def = Def {
            value,
            pos: u32::try_from(pos).unwrap_or(u32::MAX),
        };
        match number(name, self.limit) {
            Some(n) => {
                if n >= self.numbered.len() {
                    self.numbered.resize(n + 1, None);
                }
                if let Some(old) = self.numbered[n] {
                    return Err(old.pos as usize);
                }
                self.numbered[n] = Some(def);
            }
            None => {
                if let Some(old) = self.named.get(name) {
                    return Err(old.pos as usize);
                }
                self.named.insert(name, def);
            }
        }
        self.log.push(name);
        Ok(())
    }

    /// A mark to leave a block with.
    pub(crate) fn mark(&self) -> usize {
        self.log.len()
    }

    /// Forgets every name defined since `mark`.
    pub(crate) fn leave(&mut self, mark: usize) {
        while self.log.len() > mark {
            let Some(name) = self.log.pop() else { break };
            match number(name, self.limit) {
                Some(n) => self.numbered[n] = None,
                None => {
                    self.named.remove(name);
                }
            }
        }
    }
}
