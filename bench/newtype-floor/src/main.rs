//! How fast can a "new type" be in the side-by-side benchmark's interleaving?
//!
//! The side-by-side benchmark (`../shared/bench/side-by-side`) interns 100,000 new types a
//! repetition, in 10 parts, each pir-rs part right after a pliron part (which leaves pir-rs's
//! tables out of the cache). This runs the same interleaving with several contestants, each
//! part after a pliron part of 10,000 `IntegerType::get` (each contestant with its own pliron
//! context, so pliron's work is the benchmark's), and prints pliron's time over each
//! contestant's:
//!
//! - `pir-rs`: `IrContext::dense_tensor_type(f32, [-1, 3, 224, w])`, as in the benchmark;
//! - `map`: a single-threaded `hashbrown::HashMap<u64, u32>` (foldhash), the key already
//!   encoded as one word, no value stored: the least any interner does;
//! - `spin map`: the same behind a lock taken by one compare-exchange and released by a store
//!   (pir-rs's arena lock), as a thread-safe interner needs;
//! - `spin map + 104 B`: and a 104-byte value (the size of pir-rs's `TypeData`) pushed into a
//!   vector reserved in advance;
//! - `mutex map + 104 B`: the same behind `std::sync::Mutex`, vector growing as it goes.
//!
//! Thread CPU time (`CLOCK_THREAD_CPUTIME_ID`), medians of 5 repetitions; usage:
//! `newtype-floor [NEW_TYPES] [REPS]`.

use std::hint::black_box;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use pir_runtime::phi::DataType;
use pliron::builtin::types::{IntegerType, Signedness};
use pliron::context::Context;

const ROUNDS: usize = 10;
const NAMES: [&str; 5] = [
    "pir-rs",
    "map",
    "spin map",
    "spin map + 104 B",
    "mutex map + 104 B",
];

type Map = hashbrown::HashMap<u64, u32, foldhash::fast::RandomState>;
type Value = [u64; 13];

/// One repetition's state of every contestant.
struct Contestants {
    pir: std::sync::Arc<pir_runtime::IrContext>,
    map: Map,
    spin: AtomicBool,
    spin_map: Map,
    spin_vals: (Map, Vec<Value>),
    mutex: Mutex<(Map, Vec<Value>)>,
}

/// The key of width `w`, one word (the bare maps' key: pir-rs encodes the dims itself).
fn key(w: usize) -> u64 {
    (black_box(w) as u64) << 30 | 224 << 16 | 3 << 8 | 5
}

impl Contestants {
    fn new(n: usize) -> Self {
        Contestants {
            pir: pir_runtime::IrContext::new(),
            map: Map::default(),
            spin: AtomicBool::new(false),
            spin_map: Map::default(),
            spin_vals: (Map::default(), Vec::with_capacity(n)),
            mutex: Mutex::new((Map::default(), Vec::new())),
        }
    }

    fn lock(&self) {
        while self
            .spin
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            std::hint::spin_loop();
        }
    }

    /// Contestant `c`'s part: new types of widths `ws`.
    fn part(&mut self, c: usize, ws: std::ops::Range<usize>) {
        for w in ws {
            match c {
                0 => {
                    let dims = [-1, 3, 224, black_box(w as i64)];
                    black_box(self.pir.dense_tensor_type(DataType::Float32, &dims));
                }
                1 => {
                    let n = self.map.len() as u32;
                    black_box(*self.map.entry(key(w)).or_insert(n));
                }
                2 => {
                    self.lock();
                    let n = self.spin_map.len() as u32;
                    black_box(*self.spin_map.entry(key(w)).or_insert(n));
                    self.spin.store(false, Ordering::Release);
                }
                3 => {
                    self.lock();
                    let k = key(w);
                    let (map, vals) = &mut self.spin_vals;
                    let n = map.len() as u32;
                    black_box(*map.entry(k).or_insert_with(|| {
                        vals.push([k; 13]);
                        n
                    }));
                    self.spin.store(false, Ordering::Release);
                }
                _ => {
                    let k = key(w);
                    let mut guard = self.mutex.lock().unwrap_or_else(|e| e.into_inner());
                    let (map, vals) = &mut *guard;
                    let n = map.len() as u32;
                    black_box(*map.entry(k).or_insert_with(|| {
                        vals.push([k; 13]);
                        n
                    }));
                }
            }
        }
    }
}

fn thread_cpu_ns() -> u128 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant Linux supports.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as u128 * 1_000_000_000 + ts.tv_nsec as u128
}

fn timed(f: impl FnOnce()) -> u128 {
    let start = thread_cpu_ns();
    f();
    thread_cpu_ns() - start
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    let arg = |i: usize, d: usize| {
        std::env::args()
            .nth(i)
            .and_then(|s| s.replace('_', "").parse().ok())
            .unwrap_or(d)
    };
    let (n, reps) = (arg(1, 100_000), arg(2, 5));
    // Per contestant and repetition: (pliron ns, contestant ns) per new type.
    let mut samples = vec![Vec::new(); NAMES.len()];
    for rep in 0..reps {
        let mut all = Contestants::new(n);
        let plirons: Vec<Context> = NAMES.iter().map(|_| Context::new()).collect();
        let mut t = vec![(0u128, 0u128); NAMES.len()];
        for j in 0..ROUNDS {
            let ws = n * j / ROUNDS + 1..n * (j + 1) / ROUNDS + 1;
            // Which contestant goes first rotates from round to round.
            for i in 0..NAMES.len() {
                let c = (i + j + rep) % NAMES.len();
                let ctx = &plirons[c];
                t[c].0 += timed(|| {
                    for w in ws.clone() {
                        let ty = IntegerType::get(ctx, black_box(w as u32), Signedness::Signless);
                        black_box(ty);
                    }
                });
                t[c].1 += timed(|| all.part(c, ws.clone()));
            }
        }
        for (c, (pl, ours)) in t.iter().enumerate() {
            samples[c].push((*pl as f64 / n as f64, *ours as f64 / n as f64));
        }
        drop(all);
        eprintln!("rep {rep} done");
    }
    println!("{n} new types a repetition, {reps} repetitions, medians, thread CPU ns a new type");
    println!("| contestant | pliron ns | contestant ns | pliron / contestant |");
    println!("|---|---|---|---|");
    for (c, name) in NAMES.iter().enumerate() {
        let pl = median(&samples[c].iter().map(|s| s.0).collect::<Vec<_>>());
        let ours = median(&samples[c].iter().map(|s| s.1).collect::<Vec<_>>());
        println!("| {name} | {pl:.0} | {ours:.1} | {:.2} |", pl / ours);
    }
}
