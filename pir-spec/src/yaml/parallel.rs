//! Running independent jobs of a load (one per yaml file, one per run of entries) on a few
//! threads, results in job order, so that what the loader reports does not depend on the
//! schedule.
//!
//! ```
//! use pir_spec::yaml::parallel::map_ordered;
//! let squares = map_ordered(&[1u64, 2, 3, 4], |_| 1, |&x| x * x);
//! assert_eq!(squares, [1, 4, 9, 16]);
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};

/// Jobs lighter than this in total (in the caller's weight unit, bytes of yaml for the
/// loader) run on the calling thread: spawning costs more than it saves.
pub const SEQUENTIAL_BELOW: usize = 64 * 1024;

/// Most threads a load uses (the jobs are a handful of files; more threads add only their
/// start-up cost).
const MAX_THREADS: usize = 4;

/// `f` applied to every job, results in job order. Jobs run on up to
/// `available_parallelism()` threads (at most four), heaviest first by `weight`; all on the
/// calling thread when there is one core or their total weight is under [`SEQUENTIAL_BELOW`].
///
/// ```
/// use pir_spec::yaml::parallel::map_ordered;
/// let texts = ["a".repeat(70_000), "bb".repeat(50_000), "c".to_string()];
/// let lens = map_ordered(&texts, |t| t.len(), |t| t.len());
/// assert_eq!(lens, [70_000, 100_000, 1]);
/// ```
pub fn map_ordered<T, R, W, F>(jobs: &[T], weight: W, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    W: Fn(&T) -> usize,
    F: Fn(&T) -> R + Sync,
{
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_THREADS)
        .min(jobs.len());
    let total: usize = jobs.iter().map(&weight).sum();
    if threads <= 1 || total < SEQUENTIAL_BELOW {
        return jobs.iter().map(f).collect();
    }
    // Heaviest first, taken from a shared counter: the threads finish close together.
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(weight(&jobs[i])));
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            done.push((i, f(&jobs[i])));
        }
        done
    };
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(jobs.len()).collect();
    std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
        let mine = work();
        for (i, r) in helpers
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .chain(mine)
        {
            slots[i] = Some(r);
        }
    });
    slots.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_job_order_whatever_the_weights() {
        let jobs: Vec<usize> = (0..100).collect();
        // Heavy enough to run on threads, weights opposite to the order.
        let out = map_ordered(&jobs, |&j| 10_000 * (100 - j), |&j| j * 2);
        assert_eq!(out, jobs.iter().map(|j| j * 2).collect::<Vec<_>>());
        let light = map_ordered(&jobs, |_| 1, |&j| j + 1);
        assert_eq!(light[99], 100);
        assert!(map_ordered(&[] as &[u8], |_| 1, |_| 0).is_empty());
    }
}
