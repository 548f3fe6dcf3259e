//! Recycling of the interners' big buffers between contexts.
//!
//! A context that interns many values owns megabytes of arena chunks and hash tables. Programs
//! often make and drop contexts in a loop (tests, tools, benchmarks), and the memory a dropped
//! context frees is usually handed back to the operating system, so the next context pays a page
//! fault for every 4 KiB it touches again: on this project's VM that cost more than the
//! interning itself (about 2 µs a fault, one fault per 20 new types). Buffers of dropped
//! interners are therefore kept, up to [`POOL_BYTES`] in all, and handed to the next interner
//! that needs a buffer of the same type and length. Small buffers are left to the allocator.

use std::any::{Any, TypeId};
use std::sync::Mutex;

/// The most memory kept for reuse.
pub(crate) const POOL_BYTES: usize = 64 << 20;
/// Buffers smaller than this are not kept (the allocator recycles them well).
const MIN_BYTES: usize = 64 << 10;

struct Kept {
    ty: TypeId,
    len: usize,
    bytes: usize,
    buffer: Box<dyn Any + Send>,
}

struct Pool {
    bytes: usize,
    kept: Vec<Kept>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    bytes: 0,
    kept: Vec::new(),
});

/// A kept buffer of type `B` and length `len`, if there is one.
pub(crate) fn take<B: Any + Send>(len: usize) -> Option<B> {
    let mut pool = POOL.lock().ok()?;
    let i = pool
        .kept
        .iter()
        .position(|k| k.ty == TypeId::of::<B>() && k.len == len)?;
    let kept = pool.kept.swap_remove(i);
    pool.bytes -= kept.bytes;
    kept.buffer.downcast::<B>().ok().map(|b| *b)
}

/// Keeps `buffer` (of length `len`, `bytes` in size) for a later [`take`], if it is big enough
/// and the pool has room; else drops it.
pub(crate) fn give<B: Any + Send>(len: usize, bytes: usize, buffer: B) {
    if bytes < MIN_BYTES {
        return;
    }
    let Ok(mut pool) = POOL.lock() else { return };
    if pool.bytes + bytes > POOL_BYTES {
        return;
    }
    pool.bytes += bytes;
    pool.kept.push(Kept {
        ty: TypeId::of::<B>(),
        len,
        bytes,
        buffer: Box::new(buffer),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_buffer_is_taken_back_once_by_type_and_length() {
        // A type of this test's own, so that other tests' buffers never interfere.
        struct Mine(Vec<u8>);
        let len = 100_000;
        give(len, len, Mine(vec![7; len]));
        assert!(take::<Mine>(len + 1).is_none());
        let back = take::<Mine>(len).expect("kept");
        assert_eq!(back.0.len(), len);
        assert!(take::<Mine>(len).is_none());
        give(10, 10, Mine(vec![1; 10])); // too small to keep
        assert!(take::<Mine>(10).is_none());
    }
}
