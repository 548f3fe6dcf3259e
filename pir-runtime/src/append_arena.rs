//! An append-only arena with lock-free reads: the storage of interned values.
//!
//! Elements live in chunks that double in size and never move, so a reference to an element
//! stays valid for the arena's lifetime. Pushes are serialised by the arena's own lock, which
//! also guards a piece of writer state `W` of the caller's (the interner keeps its hash table's
//! bookkeeping there, so one lock covers both). A push writes the element, then publishes the
//! new length with a release store; a reader loads the length with an acquire load and reads
//! only below it. Neither side does an atomic read-modify-write besides taking the lock.
//!
//! The lock is a flag taken by one compare-exchange and released by a plain release store,
//! waiters spinning briefly and then yielding. A `Mutex` releases with a second locked
//! instruction, and on x86 a locked instruction waits for every store before it to reach the
//! cache: the new element and the interner's table slot, both usually cache misses. With a
//! plain store the misses drain while the caller goes on (see BENCHMARKS.md, "New type, third
//! pass"). Writers hold it briefly (one value made and stored; rarely a table growth), so
//! spinning is short; a waiter whose holder was preempted yields its core.
//!
//! This is the one module of the crate with `unsafe` code: safe Rust can publish a value to
//! lock-free readers only through a primitive that does a read-modify-write per value
//! (`OnceLock::set` does two), and interning a new value must cost a few nanoseconds, not tens
//! (see BENCHMARKS.md). The invariants are small: an element is written once, by the only
//! thread holding the lock, before the length covering it is published; it is read only below
//! a published length; it is dropped once, with the arena; the writer state is reached only by
//! the lock's holder. `cargo +nightly miri test -p pir-runtime append_arena` checks them (CI
//! runs it). The prefetch hint is the other `unsafe` call: it touches no memory.
#![allow(unsafe_code)]

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Chunk `k` holds `FIRST_CHUNK << k` elements.
const FIRST_CHUNK_BITS: u32 = 6;
const FIRST_CHUNK: usize = 1 << FIRST_CHUNK_BITS;
/// Enough chunks for more elements than any index (`u32`) can name.
const CHUNKS: usize = 33 - FIRST_CHUNK_BITS as usize;

type Slot<T> = UnsafeCell<MaybeUninit<T>>;

/// How many elements ahead of a push its slot is prefetched.
const PREFETCH_AHEAD: usize = 8;

/// Asks the CPU to bring the cache line of `p` in, to be written (a hint only).
#[inline(always)]
pub(crate) fn prefetch_for_write(p: *const u8) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: a prefetch accesses no memory as far as the program can tell (it cannot fault,
    // whatever the address, and changes no value); its one requirement, SSE, is part of every
    // x86_64 target. Miri skips it (it has no effect to check).
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_ET0 }>(p.cast());
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = p;
}

/// The chunk and offset of element `i`.
#[inline]
fn locate(i: usize) -> (usize, usize) {
    let x = i + FIRST_CHUNK;
    let k = (usize::BITS - 1 - x.leading_zeros()) - FIRST_CHUNK_BITS;
    (k as usize, x - (FIRST_CHUNK << k))
}

/// An append-only arena of `T` whose writers share state `W` under one lock.
pub(crate) struct AppendArena<T: Send + 'static, W> {
    chunks: [OnceLock<Box<[Slot<T>]>>; CHUNKS],
    /// Published length: every element below it is initialised and never written again.
    len: AtomicUsize,
    /// Taken by the one writer (see the module docs); guards `state` and pushes.
    locked: AtomicBool,
    state: UnsafeCell<W>,
}

// SAFETY: elements are shared between threads as `&T` (so `T: Sync`) and moved in from the
// pushing thread and dropped by whichever thread drops the arena (so `T: Send`). The only
// mutation through `&self` is `push`, serialised by `writer`, to slots no reader can see yet
// (at or above the published length). `W` is only reached by the holder of `locked`, one
// thread at a time (so `W: Send` suffices, as for `Mutex<W>`).
unsafe impl<T: Send + Sync + 'static, W: Send> Sync for AppendArena<T, W> {}
// SAFETY: as above; moving the arena moves its elements and writer state with it.
unsafe impl<T: Send + Sync + 'static, W: Send> Send for AppendArena<T, W> {}

/// The right to push: the arena's lock, held, with the writer state. Dropping it releases
/// the lock (also on unwinding: a push publishes only what it has written).
pub(crate) struct ArenaWriter<'a, T: Send + 'static, W> {
    arena: &'a AppendArena<T, W>,
}

impl<T: Send + 'static, W> Drop for ArenaWriter<'_, T, W> {
    #[inline]
    fn drop(&mut self) {
        self.arena.locked.store(false, Ordering::Release);
    }
}

impl<T: Send + 'static, W> AppendArena<T, W> {
    pub(crate) fn new(state: W) -> Self {
        AppendArena {
            chunks: std::array::from_fn(|_| OnceLock::new()),
            len: AtomicUsize::new(0),
            locked: AtomicBool::new(false),
            state: UnsafeCell::new(state),
        }
    }

    /// Number of published elements.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    /// Element `i`, if it has been published.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        if i >= self.len.load(Ordering::Acquire) {
            return None;
        }
        let (k, off) = locate(i);
        // Chunk `k` was set before the length covering `i` was published.
        let slot = &self.chunks[k].get()?[off];
        // SAFETY: `i` is below the published length, so the slot was initialised by a push
        // that happened before our acquire load of `len`, and no push writes it again.
        Some(unsafe { (*slot.get()).assume_init_ref() })
    }

    /// Locks the arena for pushing.
    #[inline]
    pub(crate) fn writer(&self) -> ArenaWriter<'_, T, W> {
        if self
            .locked
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            self.wait_for_lock();
        }
        ArenaWriter { arena: self }
    }

    /// Takes the lock held by another writer: spins a little, then yields the core.
    #[cold]
    #[inline(never)]
    fn wait_for_lock(&self) {
        let mut spins = 0u32;
        loop {
            if !self.locked.load(Ordering::Relaxed)
                && self
                    .locked
                    .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                return;
            }
            if spins < 100 {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

impl<T: Send + 'static, W> ArenaWriter<'_, T, W> {
    /// The writer state.
    #[inline]
    pub(crate) fn state(&mut self) -> &mut W {
        // SAFETY: this writer holds the lock, so no other thread reaches `state` until it is
        // dropped, and `&mut self` keeps this thread to one reference at a time.
        unsafe { &mut *self.arena.state.get() }
    }

    /// Appends `value`; returns its index. Readers see it once this returns.
    #[inline]
    pub(crate) fn push(&mut self, value: T) -> usize {
        self.push_with(|| value)
    }

    /// Appends `make()`; returns its index. Readers see it once this returns. The value is
    /// made where it is stored: a big value is not built elsewhere and copied.
    #[inline]
    pub(crate) fn push_with(&mut self, make: impl FnOnce() -> T) -> usize {
        let arena = self.arena;
        // Only the lock holder changes `len`, so a relaxed load reads our own last store.
        let i = arena.len.load(Ordering::Relaxed);
        let (k, off) = locate(i);
        let chunk = arena.chunks[k].get_or_init(|| {
            let len = FIRST_CHUNK << k;
            crate::recycle::take::<Box<[Slot<T>]>>(len).unwrap_or_else(|| {
                (0..len)
                    .map(|_| UnsafeCell::new(MaybeUninit::uninit()))
                    .collect()
            })
        });
        // The slot first, then the value: with nothing between them that can panic, the value
        // is built in place (else on the stack, then copied).
        let slot = chunk[off].get();
        let value = make();
        // SAFETY: slot `i` is at the published length, so no reader reads it (they stop below
        // `len`), and we hold the lock, so no other push writes it.
        unsafe { (*slot).write(value) };
        arena.len.store(i + 1, Ordering::Release);
        // The slots a few pushes ahead are usually not cached (a new arena, or memory another
        // context left): ask for them now, so that those pushes' stores do not hold up the
        // next lock, which waits for every earlier store.
        if let Some(ahead) = chunk.get(off + PREFETCH_AHEAD) {
            let first = ahead.get().cast::<u8>();
            prefetch_for_write(first);
            prefetch_for_write(first.wrapping_add(std::mem::size_of::<T>().saturating_sub(1)));
        }
        i
    }
}

impl<T: Send + 'static, W> Drop for AppendArena<T, W> {
    fn drop(&mut self) {
        // Chunk by chunk: the elements below `len` fill the first chunks in order.
        let mut left = *self.len.get_mut();
        for chunk in self.chunks.iter_mut().map_while(OnceLock::get_mut) {
            let n = left.min(chunk.len());
            for slot in &mut chunk[..n] {
                // SAFETY: elements below `len` are initialised, and each is dropped once here;
                // `&mut self` means no reference to them is left.
                unsafe { slot.get_mut().assume_init_drop() };
            }
            left -= n;
        }
        // Every slot is uninitialised again: the chunks can serve another arena.
        for chunk in self.chunks.iter_mut().filter_map(OnceLock::take) {
            let bytes = chunk.len() * std::mem::size_of::<Slot<T>>();
            crate::recycle::give(chunk.len(), bytes, chunk);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn locate_covers_every_index_once() {
        let mut expected = (0, 0);
        for i in 0..10_000 {
            assert_eq!(locate(i), expected, "index {i}");
            expected.1 += 1;
            if expected.1 == FIRST_CHUNK << expected.0 {
                expected = (expected.0 + 1, 0);
            }
        }
        let (k, off) = locate(u32::MAX as usize);
        assert!(k < CHUNKS && off < FIRST_CHUNK << k);
    }

    #[test]
    fn push_then_get_across_chunks() {
        let a: AppendArena<String, usize> = AppendArena::new(0);
        let n = if cfg!(miri) { 300 } else { 5_000 };
        for i in 0..n {
            let mut w = a.writer();
            assert_eq!(w.push(i.to_string()), i);
            *w.state() += 1;
        }
        assert_eq!(a.len(), n);
        assert_eq!(*a.writer().state(), n);
        for i in 0..n {
            assert_eq!(a.get(i).map(String::as_str), Some(i.to_string().as_str()));
        }
        assert_eq!(a.get(n), None);
        assert_eq!(a.get(usize::MAX / 2), None);
    }

    #[test]
    fn readers_see_only_whole_elements_while_writers_push() {
        // Values own heap memory, so Miri sees any read of a half-written element.
        let a: Arc<AppendArena<Box<[u64]>, ()>> = Arc::new(AppendArena::new(()));
        let n = if cfg!(miri) { 200 } else { 20_000 };
        std::thread::scope(|s| {
            for t in 0..2u64 {
                let a = &a;
                s.spawn(move || {
                    for i in 0..n as u64 / 2 {
                        a.writer().push(vec![t, i, t ^ i].into());
                    }
                });
            }
            for _ in 0..2 {
                let a = &a;
                s.spawn(move || {
                    let mut seen = 0;
                    while seen < n {
                        let len = a.len();
                        for i in seen..len {
                            let v = a.get(i).expect("published");
                            assert_eq!(v[0] ^ v[1], v[2]);
                        }
                        seen = len;
                        std::thread::yield_now();
                    }
                });
            }
        });
        assert_eq!(a.len(), n);
    }

    /// The lock keeps writers apart: state updated by read-then-write from several threads
    /// loses no update, and pushes get distinct indices (Miri checks the accesses to the state
    /// for data races).
    #[test]
    fn the_lock_serialises_writers() {
        let a: AppendArena<u32, (u64, Vec<usize>)> = AppendArena::new((0, Vec::new()));
        let per_thread = if cfg!(miri) { 30 } else { 20_000 };
        std::thread::scope(|s| {
            for t in 0..4u32 {
                let a = &a;
                s.spawn(move || {
                    for _ in 0..per_thread {
                        let mut w = a.writer();
                        let i = w.push(t);
                        let st = w.state();
                        let n = st.0;
                        std::hint::spin_loop();
                        st.0 = n + 1;
                        st.1.push(i);
                    }
                });
            }
        });
        let mut w = a.writer();
        let (n, mut pushed) = std::mem::take(w.state());
        assert_eq!(n, 4 * per_thread as u64);
        pushed.sort_unstable();
        assert_eq!(pushed, (0..4 * per_thread).collect::<Vec<_>>());
    }

    #[test]
    fn drop_frees_every_element_once() {
        let counter = Arc::new(());
        {
            let a: AppendArena<Arc<()>, ()> = AppendArena::new(());
            for _ in 0..100 {
                a.writer().push(counter.clone());
            }
            assert_eq!(Arc::strong_count(&counter), 101);
        }
        assert_eq!(Arc::strong_count(&counter), 1);
    }
}
