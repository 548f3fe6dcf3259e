//! A concurrent, append-only interner: the storage behind [`Type`](crate::Type) and
//! [`Attribute`](crate::Attribute) handles.
//!
//! Values live in a [`boxcar::Vec`] (lock-free append, lock-free indexed reads, never moves an
//! element), so reading the data behind a handle takes no lock. Deduplication uses a table of
//! indices split into shards, each behind a `parking_lot::RwLock`: a lookup of an existing value
//! takes one uncontended read lock and never allocates, because it hashes and compares a
//! *borrowed* key ([`Internable::Key`]) against the stored values.

use std::hash::{BuildHasher, Hash};

use hashbrown::HashTable;
use parking_lot::RwLock;
use rustc_hash::FxBuildHasher;

const SHARDS: usize = 16;

/// A value that can be interned, looked up by a borrowed key of its own shape.
pub(crate) trait Internable: Send + Sync + 'static {
    /// The borrowed form used for lookups (e.g. dims as `&[i64]` rather than `Box<[i64]>`).
    type Key<'a>: Hash;
    /// The borrowed form of a stored value. It must hash exactly as the equal key does.
    fn key(&self) -> Self::Key<'_>;
    /// Whether the stored value equals `key`.
    fn matches(&self, key: &Self::Key<'_>) -> bool;
}

pub(crate) struct Interner<T: Internable> {
    arena: boxcar::Vec<T>,
    shards: [RwLock<HashTable<u32>>; SHARDS],
    hasher: FxBuildHasher,
}

impl<T: Internable> Interner<T> {
    pub(crate) fn new() -> Self {
        Interner {
            arena: boxcar::Vec::new(),
            shards: std::array::from_fn(|_| RwLock::new(HashTable::new())),
            hasher: FxBuildHasher,
        }
    }

    /// The index of the value equal to `key`, storing `make(key)` first if there is none.
    pub(crate) fn intern<'k>(&self, key: T::Key<'k>, make: impl FnOnce(T::Key<'k>) -> T) -> u32 {
        let hash = self.hasher.hash_one(&key);
        let shard = &self.shards[(hash >> 60) as usize % SHARDS];
        if let Some(&idx) = shard
            .read()
            .find(hash, |&i| self.arena[i as usize].matches(&key))
        {
            return idx;
        }
        let mut table = shard.write();
        // Another thread may have inserted it between the two locks.
        if let Some(&idx) = table.find(hash, |&i| self.arena[i as usize].matches(&key)) {
            return idx;
        }
        let value = make(key);
        let idx = self.arena.push(value);
        let idx = u32::try_from(idx).expect("more than 2^32 interned values");
        table.insert_unique(hash, idx, |&i| {
            self.hasher.hash_one(self.arena[i as usize].key())
        });
        idx
    }

    /// The index of the value equal to `key`, if interned.
    pub(crate) fn lookup(&self, key: &T::Key<'_>) -> Option<u32> {
        let hash = self.hasher.hash_one(key);
        let shard = &self.shards[(hash >> 60) as usize % SHARDS];
        shard
            .read()
            .find(hash, |&i| self.arena[i as usize].matches(key))
            .copied()
    }

    /// The value at `idx`. Indices come only from this interner, so the lookup cannot fail
    /// for handles of this context.
    #[inline]
    pub(crate) fn get(&self, idx: u32) -> &T {
        &self.arena[idx as usize]
    }

    pub(crate) fn len(&self) -> usize {
        self.arena.count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Word(Box<str>);
    impl Internable for Word {
        type Key<'a> = &'a str;
        fn key(&self) -> &str {
            &self.0
        }
        fn matches(&self, key: &&str) -> bool {
            &*self.0 == *key
        }
    }

    #[test]
    fn interning_dedups_and_lookups_find() {
        let i = Interner::<Word>::new();
        let a = i.intern("a", |k| Word(k.into()));
        let b = i.intern("b", |k| Word(k.into()));
        assert_ne!(a, b);
        assert_eq!(i.intern("a", |_| unreachable!("already interned")), a);
        assert_eq!(i.lookup(&"b"), Some(b));
        assert_eq!(i.lookup(&"c"), None);
        assert_eq!(i.get(a), &Word("a".into()));
        assert_eq!(i.len(), 2);
    }

    #[test]
    fn many_values_survive_table_growth() {
        let i = Interner::<Word>::new();
        let ids: Vec<u32> = (0..10_000)
            .map(|n| i.intern(&n.to_string(), |k| Word(k.into())))
            .collect();
        for (n, id) in ids.iter().enumerate() {
            assert_eq!(i.lookup(&n.to_string().as_str()), Some(*id));
        }
    }
}
