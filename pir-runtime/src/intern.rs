//! A concurrent, append-only interner: the storage behind [`Type`](crate::Type) and
//! [`Attribute`](crate::Attribute) handles.
//!
//! Values live in a [`boxcar::Vec`] (lock-free append and indexed reads; elements never move).
//! Deduplication uses an insert-only open-addressing table of `AtomicU64` slots, each holding
//! the upper half of the value's hash and its index. Because nothing is ever removed, a lookup
//! needs no lock and no atomic read-modify-write: it hashes the *borrowed* key
//! ([`Internable::Key`]), probes with plain acquire loads, and compares candidates with the
//! stored values — so looking up an interned value never allocates and never waits. Inserts
//! (and table growth) are serialised by a mutex; a grown table is filled completely before it
//! is published, and a lookup that misses always re-checks under the mutex, so a reader that
//! raced with growth can at worst take the slow path.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;

use parking_lot::Mutex;
use rustc_hash::FxBuildHasher;

/// A value that can be interned, looked up by a borrowed key of its own shape.
pub(crate) trait Internable: Send + Sync + 'static {
    /// The borrowed form used for lookups (e.g. dims as `&[i64]` rather than `Box<[i64]>`).
    type Key<'a>: std::hash::Hash;
    /// The borrowed form of a stored value. It must hash exactly as the equal key does.
    fn key(&self) -> Self::Key<'_>;
    /// Whether the stored value equals `key`.
    fn matches(&self, key: &Self::Key<'_>) -> bool;
}

const INITIAL_SLOTS: usize = 1024;
const MAX_TABLES: usize = 40;

struct Table {
    slots: Box<[AtomicU64]>,
    mask: usize,
    /// Occupied slots; only written under the interner's mutex.
    used: AtomicUsize,
}

impl Table {
    fn new(capacity: usize) -> Table {
        Table {
            slots: (0..capacity).map(|_| AtomicU64::new(0)).collect(),
            mask: capacity - 1,
            used: AtomicUsize::new(0),
        }
    }

    /// Puts `slot` (never 0) in the first free place of its probe sequence. Caller holds the
    /// mutex and knows the value is absent.
    fn insert(&self, hash: u64, slot: u64) {
        let mut i = hash as usize & self.mask;
        while self.slots[i].load(Ordering::Relaxed) != 0 {
            i = (i + 1) & self.mask;
        }
        self.slots[i].store(slot, Ordering::Release);
        self.used.fetch_add(1, Ordering::Relaxed);
    }
}

/// The slot word of `idx`: the hash's upper half, then `idx + 1` (so a slot is never 0).
fn slot_of(hash: u64, idx: u32) -> u64 {
    (hash & 0xffff_ffff_0000_0000) | u64::from(idx + 1)
}

pub(crate) struct Interner<T: Internable> {
    arena: boxcar::Vec<T>,
    /// Table `k` has `INITIAL_SLOTS << k` slots; `current` is the newest.
    tables: [OnceLock<Table>; MAX_TABLES],
    current: AtomicUsize,
    write: Mutex<()>,
    hasher: FxBuildHasher,
}

impl<T: Internable> Interner<T> {
    pub(crate) fn new() -> Self {
        let tables: [OnceLock<Table>; MAX_TABLES] = std::array::from_fn(|_| OnceLock::new());
        let _ = tables[0].set(Table::new(INITIAL_SLOTS));
        Interner {
            arena: boxcar::Vec::new(),
            tables,
            current: AtomicUsize::new(0),
            write: Mutex::new(()),
            hasher: FxBuildHasher,
        }
    }

    #[inline]
    fn table(&self, k: usize) -> &Table {
        // Table `k` is set before `current` is advanced to `k`.
        self.tables[k]
            .get()
            .expect("published tables are initialised")
    }

    #[inline]
    fn find(&self, hash: u64, key: &T::Key<'_>) -> Option<u32> {
        let table = self.table(self.current.load(Ordering::Acquire));
        let tag = hash & 0xffff_ffff_0000_0000;
        let mut i = hash as usize & table.mask;
        loop {
            let s = table.slots[i].load(Ordering::Acquire);
            if s == 0 {
                return None;
            }
            if s & 0xffff_ffff_0000_0000 == tag {
                let idx = (s as u32).wrapping_sub(1);
                if self.arena[idx as usize].matches(key) {
                    return Some(idx);
                }
            }
            i = (i + 1) & table.mask;
        }
    }

    /// The index of the value equal to `key`, storing `make(key)` first if there is none.
    #[inline]
    pub(crate) fn intern<'k>(&self, key: T::Key<'k>, make: impl FnOnce(T::Key<'k>) -> T) -> u32 {
        let hash = self.hasher.hash_one(&key);
        if let Some(idx) = self.find(hash, &key) {
            return idx;
        }
        self.insert_slow(hash, key, make)
    }

    #[cold]
    fn insert_slow<'k>(
        &self,
        hash: u64,
        key: T::Key<'k>,
        make: impl FnOnce(T::Key<'k>) -> T,
    ) -> u32 {
        let _guard = self.write.lock();
        // Another thread may have inserted it, or grown the table, since our lookup.
        if let Some(idx) = self.find(hash, &key) {
            return idx;
        }
        let idx = self.arena.push(make(key));
        let idx = u32::try_from(idx).expect("more than 2^32 interned values");
        let cur = self.current.load(Ordering::Relaxed);
        let mut table = self.table(cur);
        if (table.used.load(Ordering::Relaxed) + 1) * 2 > table.slots.len() {
            // Grow: fill a table twice the size, then publish it.
            let bigger = Table::new(table.slots.len() * 2);
            for s in table.slots.iter() {
                let s = s.load(Ordering::Relaxed);
                if s != 0 {
                    let old = (s as u32) - 1;
                    let h = self.hasher.hash_one(self.arena[old as usize].key());
                    bigger.insert(h, s);
                }
            }
            let next = cur + 1;
            if self.tables[next].set(bigger).is_err() {
                unreachable!("only the writer holding the mutex creates tables");
            }
            self.current.store(next, Ordering::Release);
            table = self.table(next);
        }
        table.insert(hash, slot_of(hash, idx));
        idx
    }

    /// The index of the value equal to `key`, if interned.
    pub(crate) fn lookup(&self, key: &T::Key<'_>) -> Option<u32> {
        self.find(self.hasher.hash_one(key), key)
    }

    /// The value at `idx`. Indices come only from this interner, so the lookup cannot fail
    /// for handles of this context.
    #[inline]
    pub(crate) fn get(&self, idx: u32) -> &T {
        &self.arena[idx as usize]
    }

    /// The value at `idx`, if there is one (for indices that may come from elsewhere).
    #[inline]
    pub(crate) fn try_get(&self, idx: u32) -> Option<&T> {
        self.arena.get(idx as usize)
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
            assert_eq!(i.get(*id).0.as_ref(), n.to_string());
        }
        assert_eq!(i.len(), 10_000);
    }

    #[test]
    fn concurrent_inserts_during_growth_stay_unique() {
        let i = Interner::<Word>::new();
        let results: Vec<Vec<u32>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        (0..5000)
                            .map(|n| i.intern(&n.to_string(), |k| Word(k.into())))
                            .collect()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for r in &results[1..] {
            assert_eq!(r, &results[0]);
        }
        assert_eq!(i.len(), 5000);
    }
}
