//! A concurrent, append-only interner: the storage behind [`Type`](crate::Type) and
//! [`Attribute`](crate::Attribute) handles.
//!
//! Values live in an [`AppendArena`] (lock-free indexed reads; elements never move).
//! Deduplication uses an insert-only open-addressing table in the SwissTable style: a dense
//! array of control bytes (0 for a free slot, else 7 bits of the hash), probed eight at a time
//! with word operations, beside an array of 4-byte slots holding the value's index, and the
//! keys of the values by index (a short key's word, the hash and the kind). Because nothing is
//! ever removed, a lookup needs no lock and no atomic read-modify-write: it hashes the
//! *borrowed* key ([`Internable::Key`]), probes with plain loads, and compares candidates'
//! keys (or, for keys without a short form, the stored values), so looking up an interned
//! value never allocates and never waits. Inserts (and table growth) are serialised by the
//! arena's lock; a slot and its key are written before the control byte that publishes them, a
//! new table is filled completely before it is published, and a lookup that misses always
//! re-checks under the lock, so a reader that raced with growth can at worst take the slow
//! path.
//!
//! A value's home slot is the top bits of its hash, which the table keeps with its key, so a
//! bigger table is filled without hashing a key again. Hashes are seeded per table (foldhash
//! with a random seed), so which keys collide cannot be known in advance; and should a probe
//! sequence still grow long (a flood of colliding keys), the table is rebuilt with a fresh
//! seed rather than left to degrade.

use std::hash::{BuildHasher, Hash};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;

use foldhash::fast::SeedableRandomState;

use crate::append_arena::{AppendArena, ArenaWriter};

/// A value that can be interned, looked up by a borrowed key of its own shape.
pub(crate) trait Internable: Send + Sync + 'static {
    /// The borrowed form used for lookups (e.g. dims as `&[i64]` rather than `Box<[i64]>`).
    type Key<'a>: Copy;
    /// The borrowed form of a stored value.
    fn key(&self) -> Self::Key<'_>;
    /// Whether the stored value equals `key` (a key without a [`ShortKey`]).
    fn matches(&self, key: &Self::Key<'_>) -> bool;
    /// The exact short form of `key`, if it has one (see [`ShortKey`]).
    fn short_key(key: &Self::Key<'_>) -> Option<ShortKey>;
    /// The hash of a key without a short form; equal keys hash equal.
    fn long_hash(key: &Self::Key<'_>, seeds: &Seeds) -> u64;
}

/// An exact encoding of a small key (a number, a rank-4 tensor shape) in a kind and a word.
/// Keys that have one are equal exactly when their short keys are, and never equal a key that
/// has none. The table keeps the short key beside the value's index, so looking up such a key
/// never reads the stored value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ShortKey {
    /// 1 to 31, distinct for each way of encoding.
    pub(crate) kind: u8,
    pub(crate) value: u64,
}

/// The 64×64→128-bit product, folded: every output bit depends on every input bit.
#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// A bijective mix of all 64 bits into all 64 bits (splitmix64's finaliser): keys that differ in
/// a few structured bits (a shape's last dim, a string's last digit) land far apart.
#[inline(always)]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The random seeds of one table's hash function. Keys of a few words (numbers, dims, handles)
/// are hashed here by folded multiplies of the seeded words, two words a multiply; the rest
/// (strings, dictionaries) by seeded foldhash.
#[derive(Clone)]
pub(crate) struct Seeds {
    k: [u64; 4],
    any: SeedableRandomState,
}

impl Seeds {
    fn random() -> Seeds {
        let any = SeedableRandomState::random();
        Seeds {
            k: std::array::from_fn(|i| any.hash_one(i) | 1),
            any,
        }
    }

    /// The hash of one word of kind `tag`.
    #[inline(always)]
    pub(crate) fn word(&self, tag: u64, v: u64) -> u64 {
        mix(v ^ self.k[0]).wrapping_add(tag.wrapping_mul(self.k[1]))
    }

    /// The hash of `len` words of kind `head`.
    #[inline(always)]
    pub(crate) fn words(&self, head: u64, len: usize, mut ws: impl Iterator<Item = u64>) -> u64 {
        let mut h = fold(head ^ self.k[0], len as u64 ^ self.k[1]);
        while let Some(a) = ws.next() {
            let b = ws.next().unwrap_or(0);
            h = fold(h ^ a ^ self.k[2], b ^ self.k[3]);
        }
        mix(h)
    }

    /// The hash of a byte string of kind `tag`, eight bytes a word.
    #[inline]
    pub(crate) fn bytes(&self, tag: u64, b: &[u8]) -> u64 {
        let mut chunks = b.chunks_exact(8);
        let words = chunks
            .by_ref()
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        let h = self.words(tag, b.len(), words);
        let rest = chunks.remainder();
        if rest.is_empty() {
            return h;
        }
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        mix(h ^ u64::from_le_bytes(last) ^ self.k[2])
    }

    /// The hash of anything hashable, with kind `tag`.
    pub(crate) fn any<K: Hash + ?Sized>(&self, tag: u64, key: &K) -> u64 {
        self.any.hash_one((tag, key))
    }

    /// The hash of a short key. (One folded multiply of the seeded word would take half the
    /// time, but it clusters keys that differ in a few bits, for some seeds:
    /// `structured_short_keys_spread_over_the_table` caught it.)
    #[inline(always)]
    pub(crate) fn short(&self, k: ShortKey) -> u64 {
        self.word(u64::from(k.kind), k.value)
    }
}

const INITIAL_SLOTS_BITS: u32 = 10;
/// A full table grows to four times its size: a new table is zeroed and filled from the
/// stored hashes, and growing four-fold moves a third as many values as doubling.
/// Tables stay at most half full, at least an eighth.
const GROW_BITS: u32 = 2;
/// Tables ever made: one per doubling (up to 2^32 slots) and a few re-seeds.
const MAX_TABLES: usize = 64;
/// A probe this long (in slots from the first of the home group), in a table of `2^bits`
/// slots, means the hash is being flooded: the table is rebuilt with other seeds. At most half
/// the slots are used, and a random hash then leaves a value at most a group or two past its
/// home group (under 24 slots at 2^20 slots), while a flood makes probes as long as the number
/// of colliding keys.
pub(crate) fn flood_probe(bits: u32) -> usize {
    4 * bits as usize + 8
}

/// Slots are probed in groups of `GROUP`, one control byte each, read as one word.
const GROUP: usize = 8;
/// Every byte of a control word set to 1, and to 0x80.
const LOW_BITS: u64 = 0x0101_0101_0101_0101;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
/// The bits of key entry's meta holding the short-key kind (the hash's own are unused).
const KIND_BITS: u64 = 0x1f;

/// The control byte of a value of hash `hash`: 0x80 and 7 bits of the hash that neither the
/// home slot (the top bits) nor the kind (the low 5) use, so they split the values of a group.
/// A free slot's control byte is 0.
#[inline(always)]
fn control_of(hash: u64) -> u8 {
    0x80 | (hash >> 5) as u8 & 0x7f
}

/// The bytes of control word `c` equal to `byte` (not 0), as the top bit of each byte: exact,
/// with no false positives.
#[inline(always)]
fn bytes_equal(c: u64, byte: u8) -> u64 {
    let x = c ^ (u64::from(byte) * LOW_BITS);
    !(((x & !HIGH_BITS) + !HIGH_BITS) | x) & HIGH_BITS
}

/// The free slots of control word `c`, as the top bit of each byte.
#[inline(always)]
fn free_bytes(c: u64) -> u64 {
    !c & HIGH_BITS
}

/// The first slot a set of [`bytes_equal`] or [`free_bytes`] names, within its group.
#[inline(always)]
fn first_byte(m: u64) -> usize {
    (m.trailing_zeros() / 8) as usize & (GROUP - 1)
}

/// The key of one value, as its table keeps it by arena index: the short key's word (0 for a
/// key without one), and its "meta": the key's hash under the table's seeds, its low 5 bits
/// replaced by the short key's kind (0: none).
type KeyEntry = [AtomicU64; 2];

/// Whether key entry `e` holds short key `k`.
#[inline(always)]
fn holds_short(e: &KeyEntry, k: ShortKey) -> bool {
    e[0].load(Ordering::Relaxed) == k.value
        && (e[1].load(Ordering::Relaxed) & KIND_BITS) as u8 == k.kind
}

/// The key entry's meta of a value of hash `hash` and short-key kind `kind`.
#[inline(always)]
fn meta_of(hash: u64, kind: u8) -> u64 {
    (hash & !KIND_BITS) | u64::from(kind)
}

/// A hash table of `2^bits` slots in two arrays: the control bytes, dense, probed a group (a
/// word) at a time, and the slots, each the arena index of its value; and the keys of the
/// values, by index. A lookup that misses, as the one before every new value does, reads only
/// control words, and an insert writes a control byte and a 4-byte slot at random (for
/// 100,000 values, in 256 KiB and 1 MiB) and a key entry in order. With the key's hash and
/// word in 16-byte slots the table took 4 MiB, and on this project's VM a random access to
/// 4 MiB costs about 140 ns, to 1 MiB about 16 (BENCHMARKS.md, "New type, third pass"). A key
/// entry is read when a control byte matches (a false match has odds of 1 in 128 a used slot).
struct Table {
    /// A control byte per slot, [`GROUP`] to a word (little-endian: slot `8g + j` is byte `j`
    /// of word `g`). Written only by the writer holding the lock, after the slot.
    control: Box<[AtomicU64]>,
    /// The arena index of each used slot's value.
    slots: Box<[AtomicU32]>,
    /// The keys of values `0..` (room for half as many as slots: the most a table holds).
    /// Written in order by the lock holder, before the slot naming the value is published.
    keys: Box<[KeyEntry]>,
    /// `64 - log2(slots)`: a hash's home slot is `hash >> shift`.
    shift: u32,
    seeds: Seeds,
}

impl Table {
    fn new(bits: u32, seeds: Seeds) -> Table {
        let len = 1usize << bits;
        // Slots and keys are read only where a control byte says so: a kept buffer needs no
        // clearing. A new one is zeroed by `memset` (safe Rust has no atomics over `calloc`'s
        // memory without a pass that reads it, which faults every page in twice: BENCHMARKS.md,
        // "New type, fourth pass").
        let slots = crate::recycle::take::<Box<[AtomicU32]>>(len)
            .unwrap_or_else(|| (0..len).map(|_| AtomicU32::new(0)).collect());
        let words = len / GROUP;
        let control = match crate::recycle::take::<Box<[AtomicU64]>>(words) {
            Some(mut control) => {
                control.fill_with(Default::default);
                control
            }
            None => (0..words).map(|_| AtomicU64::new(0)).collect(),
        };
        let keys = crate::recycle::take::<Box<[KeyEntry]>>(len / 2)
            .unwrap_or_else(|| (0..len / 2).map(|_| Default::default()).collect());
        Table {
            control,
            slots,
            keys,
            shift: 64 - bits,
            seeds,
        }
    }

    fn bits(&self) -> u32 {
        64 - self.shift
    }

    /// The home slot of hash `hash`.
    #[inline(always)]
    fn home(&self, hash: u64) -> usize {
        (hash >> self.shift) as usize
    }

    /// The first free slot from `home`'s group on.
    fn free_from(&self, home: usize) -> usize {
        let groups = self.control.len() - 1;
        let mut g = home / GROUP;
        loop {
            let free = free_bytes(self.control[g].load(Ordering::Relaxed));
            if free != 0 {
                return g * GROUP + first_byte(free);
            }
            g = (g + 1) & groups;
        }
    }

    /// Puts arena index `idx` of hash `hash` in free slot `i`, the first from the home
    /// group's (a lookup's probe ended there); returns the probe length: the distance from the
    /// home group's first slot. The caller holds the writer lock.
    #[inline]
    fn put(&self, i: usize, hash: u64, idx: u32) -> usize {
        self.slots[i].store(idx, Ordering::Relaxed);
        // Only the lock holder writes control words: no read-modify-write needed. The release
        // store publishes the slot (and the entry, pushed before).
        let c = &self.control[i / GROUP];
        let old = c.load(Ordering::Relaxed);
        let shift = 8 * (i % GROUP);
        debug_assert_eq!(old >> shift & 0xff, 0, "a free slot");
        c.store(
            old | u64::from(control_of(hash)) << shift,
            Ordering::Release,
        );
        i.wrapping_sub(self.home(hash) & !(GROUP - 1)) & (self.slots.len() - 1)
    }

    /// Puts arena index `idx` of hash `hash` in the first free slot from its home group.
    fn insert(&self, hash: u64, idx: u32) -> usize {
        self.put(self.free_from(self.home(hash)), hash, idx)
    }

    /// The key of value `idx`, which a published slot of this table names.
    #[inline(always)]
    fn key(&self, idx: u32) -> &KeyEntry {
        match self.keys.get(idx as usize) {
            Some(e) => e,
            None => out_of_range(idx),
        }
    }

    /// Stores the key of value `idx` (by the lock holder, before a slot names it).
    #[inline]
    fn set_key(&self, idx: u32, word: u64, meta: u64) {
        let e = self.key(idx);
        e[0].store(word, Ordering::Relaxed);
        e[1].store(meta, Ordering::Relaxed);
    }

    /// The used slots: place and arena index.
    fn occupied(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.control.iter().enumerate().flat_map(move |(g, c)| {
            let c = c.load(Ordering::Relaxed);
            (0..GROUP).filter_map(move |j| {
                let i = g * GROUP + j;
                (c >> (8 * j) & 0xff != 0).then(|| (i, self.slots[i].load(Ordering::Relaxed)))
            })
        })
    }
}

/// A lookup that missed: `inserted` when it began, the table it probed, the key's hash there,
/// and where the probe ended.
#[derive(Clone, Copy)]
pub(crate) struct Miss<'t> {
    seen: usize,
    table: &'t Table,
    hash: u64,
    /// The free slot that ended the probe.
    free: usize,
}

/// What the writer keeps: occupied slots of the current table, and re-seeds so far.
#[derive(Default)]
struct WriterState {
    used: usize,
    reseeds: usize,
}

/// Probe statistics of an interner's current table.
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// let (types, attrs) = ctx.interner_stats();
/// assert!(types.values > 0 && attrs.values > 0); // builtin types, small integers
/// assert_eq!(types.reseeds, 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProbeStats {
    /// Interned values.
    pub values: usize,
    /// Slots of the current table.
    pub slots: usize,
    /// The longest distance of a value from its home group of eight slots, in groups (0: in
    /// the home group).
    pub longest_probe: usize,
    /// The mean distance of a value from its home group, in groups, times 100.
    pub mean_probe_x100: usize,
    /// Times the table was rebuilt with a fresh seed because a probe grew too long.
    pub reseeds: usize,
}

pub(crate) struct Interner<T: Internable> {
    arena: AppendArena<T, WriterState>,
    /// Published tables; `current` is the newest. Older ones stay for readers still probing.
    tables: [OnceLock<Table>; MAX_TABLES],
    current: AtomicUsize,
    /// Values whose table slot is stored: a lookup that began when this was `n` and missed
    /// need not look again under the lock if it is still `n` there.
    inserted: AtomicUsize,
}

impl<T: Internable> Interner<T> {
    pub(crate) fn new() -> Self {
        let tables: [OnceLock<Table>; MAX_TABLES] = std::array::from_fn(|_| OnceLock::new());
        let _ = tables[0].set(Table::new(INITIAL_SLOTS_BITS, Seeds::random()));
        Interner {
            arena: AppendArena::new(WriterState::default()),
            tables,
            current: AtomicUsize::new(0),
            inserted: AtomicUsize::new(0),
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
    fn current_table(&self) -> &Table {
        self.table(self.current.load(Ordering::Acquire))
    }

    /// The hash of a key under `seeds`.
    #[inline(always)]
    fn hash_of(key: &T::Key<'_>, short: Option<ShortKey>, seeds: &Seeds) -> u64 {
        match short {
            Some(k) => seeds.short(k),
            None => T::long_hash(key, seeds),
        }
    }

    /// The index of the value that `hit` accepts (given its index), among those
    /// of hash `hash` in table `t`; else the free slot that ended the probe. The home group
    /// is looked at here (almost every lookup ends there), the groups after it out of line:
    /// the caller's hit path stays short.
    #[inline(always)]
    fn find_in(&self, t: &Table, hash: u64, hit: impl Fn(u32) -> bool) -> Result<u32, usize> {
        match Self::find_home(t, hash, &hit) {
            Ok(idx) => Ok(idx),
            Err(Ok(free)) => Err(free),
            Err(Err(g)) => self.find_after(t, hash, g, &hit),
        }
    }

    /// The home group's part of [`Interner::find_in`]: the index `hit` accepts, or
    /// `Err(Ok(free))`, the free slot ending the probe, or `Err(Err(g))`: group `g` is full
    /// and the probe goes on after it.
    #[inline(always)]
    fn find_home(
        t: &Table,
        hash: u64,
        hit: impl Fn(u32) -> bool,
    ) -> Result<u32, Result<usize, usize>> {
        let g = t.home(hash) / GROUP;
        // The group's slots are read on a hit and written by an insert: ask for their cache
        // line now, so that a miss on it overlaps the one on the control word.
        if let Some(slot) = t.slots.get(g * GROUP) {
            crate::append_arena::prefetch_for_write(std::ptr::from_ref(slot).cast());
        }
        // Acquire: the slots of the bytes seen, and their keys, were written before them.
        let c = t.control[g].load(Ordering::Acquire);
        let mut m = bytes_equal(c, control_of(hash));
        while m != 0 {
            let idx = t.slots[g * GROUP + first_byte(m)].load(Ordering::Relaxed);
            if hit(idx) {
                return Ok(idx);
            }
            m &= m - 1;
        }
        let free = free_bytes(c);
        if free != 0 {
            return Err(Ok(g * GROUP + first_byte(free)));
        }
        Err(Err(g))
    }

    /// [`Interner::find_in`] from the group after `g` on.
    #[inline(never)]
    fn find_after(
        &self,
        t: &Table,
        hash: u64,
        mut g: usize,
        hit: &dyn Fn(u32) -> bool,
    ) -> Result<u32, usize> {
        let byte = control_of(hash);
        let groups = t.control.len() - 1;
        loop {
            g = (g + 1) & groups;
            let c = t.control[g].load(Ordering::Acquire);
            let mut m = bytes_equal(c, byte);
            while m != 0 {
                let idx = t.slots[g * GROUP + first_byte(m)].load(Ordering::Relaxed);
                if hit(idx) {
                    return Ok(idx);
                }
                m &= m - 1;
            }
            let free = free_bytes(c);
            if free != 0 {
                return Err(g * GROUP + first_byte(free));
            }
        }
    }

    /// [`Interner::find_in`] for a key of short key `short`, or without one, of hash `hash`
    /// and accepted by `eq`.
    #[inline(always)]
    fn find_key(
        &self,
        t: &Table,
        short: Option<ShortKey>,
        hash: u64,
        eq: impl Fn(&T) -> bool,
    ) -> Result<u32, usize> {
        match short {
            Some(k) => self.find_in(t, hash, |idx| holds_short(t.key(idx), k)),
            // A value with a short key never equals a key without one: `eq` says so, and
            // reading the value alone saves a load on the way.
            None => self.find_in(t, hash, |idx| eq(self.get(idx))),
        }
    }

    /// The index of the value equal to `key`, storing `make(key)` first if there is none.
    ///
    /// Only a short key's hit path is inline here; a miss and keys without a short form are
    /// out of line. With the insert inlined, every call paid for the insert's registers and
    /// stack frame, a hit included (`interned_attribute_lookup` 20.5 → 28 ns).
    #[inline]
    pub(crate) fn intern<'k>(&self, key: T::Key<'k>, make: impl FnOnce(T::Key<'k>) -> T) -> u32 {
        match T::short_key(&key) {
            Some(k) => match self.find_short(k) {
                Ok(idx) => idx,
                Err(miss) => self.insert_short(k, miss, || make(key)),
            },
            None => self.intern_key_long(key, make),
        }
    }

    /// [`Interner::intern`] of a key without a short form.
    #[inline(never)]
    fn intern_key_long<'k>(&self, key: T::Key<'k>, make: impl FnOnce(T::Key<'k>) -> T) -> u32 {
        self.intern_long(|s| T::long_hash(&key, s), |v| v.matches(&key), || make(key))
    }

    /// The index of the value of short key `short`, or what [`Interner::insert_short`] needs
    /// to store it. Split from the insert so that a caller's hit path stays short: no
    /// closure to build.
    #[inline(always)]
    pub(crate) fn find_short(&self, short: ShortKey) -> Result<u32, Miss<'_>> {
        let seen = self.inserted.load(Ordering::Acquire);
        let t = self.current_table();
        let h = t.seeds.short(short);
        // The groups after the home group out of line, with their closure: the hit path
        // then builds nothing on the stack and saves fewer registers.
        let found = match Self::find_home(t, h, |idx| holds_short(t.key(idx), short)) {
            Ok(idx) => Ok(idx),
            Err(Ok(free)) => Err(free),
            Err(Err(g)) => self.find_short_after(t, h, g, short),
        };
        found.map_err(|free| Miss {
            seen,
            table: t,
            hash: h,
            free,
        })
    }

    /// [`Interner::find_short`] from the group after `g` on.
    #[inline(never)]
    fn find_short_after(
        &self,
        t: &Table,
        hash: u64,
        g: usize,
        short: ShortKey,
    ) -> Result<u32, usize> {
        self.find_after(t, hash, g, &|idx| holds_short(t.key(idx), short))
    }

    /// Stores `make()` for short key `short`, which [`Interner::find_short`] missed (unless
    /// another thread stored it since: then its index).
    #[inline(never)]
    pub(crate) fn insert_short(
        &self,
        short: ShortKey,
        miss: Miss<'_>,
        make: impl FnOnce() -> T,
    ) -> u32 {
        self.insert_short_inline(short, miss, make)
    }

    /// [`Interner::insert_short`] inline, for a caller that is itself the out-of-line path of
    /// a miss (`IrContext::dense_tensor_type`'s second encoding).
    #[inline(always)]
    pub(crate) fn insert_short_inline(
        &self,
        short: ShortKey,
        miss: Miss<'_>,
        make: impl FnOnce() -> T,
    ) -> u32 {
        self.insert_slow(miss, Some(short), &|s| s.short(short), &|_| false, make)
    }

    /// The index of the value `eq` accepts, of a key without a short form whose hash is
    /// `hash` (as [`Internable::long_hash`] computes it), storing `make()` first if there is
    /// none.
    #[inline(always)]
    pub(crate) fn intern_long(
        &self,
        hash: impl Fn(&Seeds) -> u64,
        eq: impl Fn(&T) -> bool,
        make: impl FnOnce() -> T,
    ) -> u32 {
        let seen = self.inserted.load(Ordering::Acquire);
        let t = self.current_table();
        let h = hash(&t.seeds);
        match self.find_in(t, h, |idx| eq(self.get(idx))) {
            Ok(idx) => idx,
            Err(free) => self.insert_slow(
                Miss {
                    seen,
                    table: t,
                    hash: h,
                    free,
                },
                None,
                &hash,
                &eq,
                make,
            ),
        }
    }

    /// Stores `make()` for a key that the lookup `miss` missed, unless another thread stored
    /// it since (then its index).
    #[inline(always)]
    fn insert_slow(
        &self,
        miss: Miss<'_>,
        short: Option<ShortKey>,
        hash: &dyn Fn(&Seeds) -> u64,
        eq: &dyn Fn(&T) -> bool,
        make: impl FnOnce() -> T,
    ) -> u32 {
        let mut w = self.arena.writer();
        // Another thread may have inserted it, or replaced the table, since our lookup (tables
        // change only with an insert, before `inserted` moves); only the lock holder inserts,
        // so both are stable from here on. When nothing was inserted, the table is the one
        // probed, the hash stands and so does the free slot that ended the probe.
        let (mut t, mut h, mut free) = (miss.table, miss.hash, Some(miss.free));
        if self.inserted.load(Ordering::Relaxed) != miss.seen {
            t = self.current_table();
            h = hash(&t.seeds);
            match self.find_key(t, short, h, eq) {
                Ok(idx) => return idx,
                Err(slot) => free = Some(slot),
            }
        }
        let (kind, word) = short.map_or((0, 0), |k| (k.kind, k.value));
        let idx = w.push_with(make);
        let idx = u32::try_from(idx).expect("more than 2^32 interned values");
        if (w.state().used + 1) * 2 > t.slots.len() {
            t = self.grow(idx, &mut w); // same seeds: `h` stands, but not the free slot
            free = None;
        }
        t.set_key(idx, word, meta_of(h, kind));
        // Keys are written in order, four to a cache line: ask for the line two ahead, so
        // that those writes do not wait for it (nor the lock, which waits for every store).
        if let Some(ahead) = t.keys.get(idx as usize + 8) {
            crate::append_arena::prefetch_for_write(std::ptr::from_ref(ahead).cast());
        }
        let free = free.unwrap_or_else(|| t.free_from(t.home(h)));
        let probes = t.put(free, h, idx);
        w.state().used += 1;
        if probes >= flood_probe(t.bits()) {
            self.reseed(&mut w);
        }
        self.inserted.store(idx as usize + 1, Ordering::Release);
        idx
    }

    /// Publishes table `next` (filled) as the current one.
    fn publish(&self, next: usize, table: Table) -> &Table {
        if self.tables[next].set(table).is_err() {
            unreachable!("only the writer holding the lock creates tables");
        }
        self.current.store(next, Ordering::Release);
        self.table(next)
    }

    /// Grows the table [`GROW_BITS`] bits, keeping its seeds, with the values below `n` (those
    /// of the old table): their keys keep their hashes, so no key is hashed again.
    fn grow(&self, n: u32, w: &mut ArenaWriter<'_, T, WriterState>) -> &Table {
        let cur = self.current.load(Ordering::Relaxed);
        let old = self.table(cur);
        assert!(old.bits() < 32, "interner table beyond 2^32 slots");
        let bits = (old.bits() + GROW_BITS).min(32);
        let bigger = Table::new(bits, old.seeds.clone());
        for (to, from) in bigger.keys.iter().zip(&old.keys[..n as usize]) {
            for (to, from) in to.iter().zip(from) {
                to.store(from.load(Ordering::Relaxed), Ordering::Relaxed);
            }
        }
        // In the old table's order: home slots only grow, so the new table is written in
        // order too (by index, its writes would land at random, each a cache miss).
        for (g, c) in old.control.iter().enumerate() {
            let mut used = !free_bytes(c.load(Ordering::Relaxed)) & HIGH_BITS;
            while used != 0 {
                let idx = old.slots[g * GROUP + first_byte(used)].load(Ordering::Relaxed);
                bigger.insert(bigger.key(idx)[1].load(Ordering::Relaxed), idx);
                used &= used - 1;
            }
        }
        w.state().used = n as usize;
        self.publish(cur + 1, bigger)
    }

    /// Rebuilds the table at its size with fresh seeds, hashing every key again: the answer
    /// to a flood of keys colliding under the old seeds.
    #[cold]
    fn reseed(&self, w: &mut ArenaWriter<'_, T, WriterState>) {
        let cur = self.current.load(Ordering::Relaxed);
        let bits = self.table(cur).bits();
        // Keep a generation for every doubling still possible.
        if cur + 1 + (32 - bits as usize) >= MAX_TABLES {
            return;
        }
        let table = Table::new(bits, Seeds::random());
        let n = self.arena.len();
        for idx in 0..n as u32 {
            let [word, meta] = self
                .table(cur)
                .key(idx)
                .each_ref()
                .map(|w| w.load(Ordering::Relaxed));
            let kind = (meta & KIND_BITS) as u8;
            let h = match kind {
                0 => T::long_hash(&self.get(idx).key(), &table.seeds),
                _ => table.seeds.short(ShortKey { kind, value: word }),
            };
            table.set_key(idx, word, meta_of(h, kind));
            table.insert(h, idx);
        }
        w.state().used = n;
        w.state().reseeds += 1;
        self.publish(cur + 1, table);
    }

    /// The index of the value equal to `key`, if interned.
    pub(crate) fn lookup(&self, key: &T::Key<'_>) -> Option<u32> {
        let t = self.current_table();
        let short = T::short_key(key);
        self.find_key(t, short, Self::hash_of(key, short, &t.seeds), |v| {
            v.matches(key)
        })
        .ok()
    }

    /// The value at `idx`. Indices come only from this interner, so the lookup cannot fail
    /// for handles of this context.
    #[inline]
    pub(crate) fn get(&self, idx: u32) -> &T {
        match self.arena.get(idx as usize) {
            Some(v) => v,
            None => out_of_range(idx),
        }
    }

    /// The value at `idx`, if there is one (for indices that may come from elsewhere).
    #[inline]
    pub(crate) fn try_get(&self, idx: u32) -> Option<&T> {
        self.arena.get(idx as usize)
    }

    pub(crate) fn len(&self) -> usize {
        self.arena.len()
    }

    /// Probe statistics of the current table (walks every slot).
    pub(crate) fn probe_stats(&self) -> ProbeStats {
        let mut w = self.arena.writer();
        let t = self.current_table();
        let (mut longest, mut total, mut values) = (0, 0, 0);
        let groups = t.control.len() - 1;
        for (i, idx) in t.occupied() {
            let home = t.home(t.key(idx)[1].load(Ordering::Relaxed));
            let d = (i / GROUP).wrapping_sub(home / GROUP) & groups;
            longest = longest.max(d);
            total += d;
            values += 1;
        }
        let reseeds = w.state().reseeds;
        ProbeStats {
            values,
            slots: t.slots.len(),
            longest_probe: longest,
            mean_probe_x100: (total * 100).checked_div(values).unwrap_or(0),
            reseeds,
        }
    }
}

impl<T: Internable> Drop for Interner<T> {
    fn drop(&mut self) {
        for table in self.tables.iter_mut().filter_map(OnceLock::take) {
            let len = table.slots.len();
            crate::recycle::give(len, len * 4, table.slots);
            let words = table.control.len();
            crate::recycle::give(words, words * 8, table.control);
            let keys = table.keys.len();
            crate::recycle::give(keys, keys * 16, table.keys);
        }
    }
}

#[cold]
#[inline(never)]
fn out_of_range(idx: u32) -> ! {
    panic!("interned value #{idx} does not exist in this context (a handle of another context?)")
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
        fn short_key(key: &&str) -> Option<ShortKey> {
            // Words of up to 8 bytes are short: their bytes, zero-padded.
            (key.len() <= 7 && !key.contains('\0')).then(|| {
                let mut b = [0u8; 8];
                b[..key.len()].copy_from_slice(key.as_bytes());
                ShortKey {
                    kind: 1,
                    value: u64::from_le_bytes(b),
                }
            })
        }
        fn long_hash(key: &&str, seeds: &Seeds) -> u64 {
            seeds.any(0, key)
        }
    }

    /// A value whose key is a number with a short form (as tensor shapes have).
    #[derive(Debug, PartialEq)]
    struct Num(u64);
    impl Internable for Num {
        type Key<'a> = u64;
        fn key(&self) -> u64 {
            self.0
        }
        fn matches(&self, key: &u64) -> bool {
            self.0 == *key
        }
        fn short_key(key: &u64) -> Option<ShortKey> {
            Some(ShortKey {
                kind: 1,
                value: *key,
            })
        }
        fn long_hash(key: &u64, seeds: &Seeds) -> u64 {
            seeds.word(0, *key)
        }
    }

    /// Short keys that differ only in a few high bits, or only in low bits (a shape's last
    /// dim, a counter), spread like random ones: the one-multiply short hash leaves no
    /// clusters for structured keys.
    #[test]
    fn structured_short_keys_spread_over_the_table() {
        for (name, key) in [
            ("high bits", (|n: u64| n << 45 | 0x840) as fn(u64) -> u64),
            ("low bits", |n| n),
            ("stride 4096", |n| n << 12),
        ] {
            let i = Interner::<Num>::new();
            let n = 100_000;
            let ids: Vec<u32> = (0..n).map(|k| i.intern(key(k), Num)).collect();
            let stats = i.probe_stats();
            assert_eq!(
                (stats.values, stats.reseeds),
                (n as usize, 0),
                "{name}: {stats:?}"
            );
            // Groups of eight at load 0.38 with a random hash: fewer than one value in a
            // hundred outside its home group (measured: 0), none more than two groups past it.
            // A hash that clusters such keys fills whole groups and pushes values far on.
            assert!(stats.mean_probe_x100 < 5, "{name}: {stats:?}");
            assert!(stats.longest_probe <= 4, "{name}: {stats:?}");
            for (k, id) in (0..n).zip(ids) {
                assert_eq!(
                    i.find_short(ShortKey {
                        kind: 1,
                        value: key(k)
                    })
                    .ok(),
                    Some(id)
                );
            }
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
        assert_eq!(i.try_get(99), None);
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
        let stats = i.probe_stats();
        assert_eq!(stats.values, 10_000);
        assert!(
            stats.slots >= 20_000,
            "load factor stays at most 1/2: {stats:?}"
        );
        assert!(stats.longest_probe < flood_probe(15), "{stats:?}");
    }

    /// An attacker who knows the seeds crafts keys that all land in one slot: the table is
    /// rebuilt with fresh seeds instead of degrading into a linear scan.
    #[test]
    fn a_flood_crafted_for_the_seeds_triggers_a_reseed() {
        let i = Interner::<Word>::new();
        let (home, bits) = {
            let t = i.current_table();
            (t.seeds.any(0, "seed probe") >> t.shift, t.bits())
        };
        // Words longer than 7 bytes (no short key) whose hash under the current seeds has the
        // same home slot.
        let crafted: Vec<String> = (0u64..)
            .map(|n| format!("flood-{n:012}"))
            .filter(|w| {
                let t = i.current_table();
                Word::long_hash(&w.as_str(), &t.seeds) >> t.shift == home
            })
            .take(flood_probe(bits) + 8)
            .collect();
        let ids: Vec<u32> = crafted
            .iter()
            .map(|w| i.intern(w.as_str(), |k| Word(k.into())))
            .collect();
        let stats = i.probe_stats();
        assert!(stats.reseeds >= 1, "{stats:?}");
        assert!(stats.longest_probe < 16, "{stats:?}");
        for (w, id) in crafted.iter().zip(ids) {
            assert_eq!(i.lookup(&w.as_str()), Some(id));
        }
    }

    #[test]
    fn reseeding_keeps_every_value_findable() {
        let i = Interner::<Word>::new();
        let ids: Vec<u32> = (0..3000)
            .map(|n| i.intern(&format!("w{n}"), |k| Word(k.into())))
            .collect();
        let before = i.current.load(Ordering::Relaxed);
        i.reseed(&mut i.arena.writer());
        assert_eq!(i.current.load(Ordering::Relaxed), before + 1);
        assert_eq!(i.probe_stats().reseeds, 1);
        for (n, id) in ids.iter().enumerate() {
            assert_eq!(i.lookup(&format!("w{n}").as_str()), Some(*id));
        }
        // New values go into the re-seeded table and grow it.
        for n in 3000..6000 {
            i.intern(&format!("w{n}"), |k| Word(k.into()));
        }
        assert_eq!(i.probe_stats().values, 6000);
    }

    /// Eight threads intern the same keys in different orders, racing on inserts and on table
    /// growth: equal keys must give equal handles, and every handle its own key.
    #[test]
    fn eight_threads_equal_keys_equal_handles() {
        let i = Interner::<Word>::new();
        const N: usize = 1 << 14; // odd strides walk every key
        let results: Vec<Vec<u32>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..8)
                .map(|t| {
                    let i = &i;
                    s.spawn(move || {
                        let mut out = vec![0; N];
                        // Each thread walks the keys in its own order.
                        for j in 0..N {
                            let n = (j * (2 * t + 1) + t * 997) % N;
                            out[n] = i.intern(&n.to_string(), |k| Word(k.into()));
                        }
                        out
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for r in &results[1..] {
            assert_eq!(r, &results[0]);
        }
        assert_eq!(i.len(), N);
        for (n, &id) in results[0].iter().enumerate() {
            assert_eq!(i.get(id).0.as_ref(), n.to_string());
        }
    }
}
