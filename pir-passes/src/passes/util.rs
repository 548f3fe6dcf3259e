//! Facts about ops the passes share.

use std::hash::BuildHasher;

use rustc_hash::{FxBuildHasher, FxHashMap};

use pir_runtime::traits::{Inplace, SideEffect};
use smallvec::SmallVec;

use pir_runtime::{Attribute, IrContext, OpDef, OpRef};

/// `paddle::dialect::IsInplaceOp`: an op that writes an input (`relu_`, or a kernel op made
/// from one).
pub(crate) fn is_inplace_op(op: OpRef<'_>) -> bool {
    op.has_trait::<Inplace>() || op.name().ends_with('_') && op.name().starts_with("pd_op.")
}

/// What the passes ask of an op that depends on its definition alone, worked out once per
/// definition ([`DefCache`]): per op, a name comparison or a schema scan costs more than the
/// rest of a pass's work.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DefFacts {
    /// `SideEffect` trait.
    pub(crate) side_effect: bool,
    /// [`is_inplace_op`].
    pub(crate) inplace: bool,
    /// `pd_op.data`, `builtin.parameter`: values compared by identity.
    pub(crate) terminal: bool,
    /// `builtin.constant`: terminal when its result is a dense tensor.
    pub(crate) constant: bool,
    /// DCE keeps it even unused (`pd_op.data`, `pd_op.while`, `builtin.module`, custom ops).
    pub(crate) dce_keeps: bool,
    /// CSE: operands 0 and 1 commute.
    pub(crate) commutative: bool,
    /// CSE: a value this op uses may not be replaced (`builtin.shadow_output`, `cf.yield`,
    /// `pd_op.while`).
    pub(crate) blocks_replacement: bool,
    /// Bit `i`: operand `i` is written in place or viewed by the op (bit 63: some operand at
    /// 63 or above; [`DefCache::writes_operand`] then checks the schema).
    pub(crate) writes: u64,
}

/// Ops whose operands 0 and 1 commute (Paddle's CSE list).
const COMMUTATIVE: &[&str] = &[
    "pd_op.multiply",
    "pd_op.add",
    "pd_op.maximum",
    "pd_op.minimum",
    "pd_op.logical_and",
    "pd_op.logical_or",
    "pd_op.logical_xor",
    "pd_op.equal",
    "pd_op.not_equal",
    "pd_op.bitwise_or",
    "pd_op.bitwise_xor",
    "pd_op.bitwise_and",
];

/// Users that make a value unsafe to replace (Paddle's CSE).
const BLOCKS_REPLACEMENT: &[&str] = &["builtin.shadow_output", "cf.yield", "pd_op.while"];

impl DefFacts {
    fn of(def: &'static OpDef) -> DefFacts {
        let name = def.name;
        let mut writes = 0u64;
        if let Some(s) = def.schema {
            let rt = &s.runtime;
            for (_, inp) in rt.inplace.iter().chain(rt.view.iter()) {
                if let Some(i) = s.inputs.iter().position(|x| x.name == *inp) {
                    writes |= 1 << i.min(63);
                }
            }
        }
        DefFacts {
            side_effect: def.has_trait::<SideEffect>(),
            inplace: def.has_trait::<Inplace>()
                || name.ends_with('_') && name.starts_with("pd_op."),
            terminal: matches!(name, "pd_op.data" | "builtin.parameter"),
            constant: name == "builtin.constant",
            dce_keeps: matches!(name, "pd_op.data" | "pd_op.while" | "builtin.module")
                || def.dialect == "custom_op",
            commutative: COMMUTATIVE.contains(&name),
            blocks_replacement: BLOCKS_REPLACEMENT.contains(&name),
            writes,
        }
    }
}

/// Slots of a [`Memo`].
const MEMO_SLOTS: usize = 64;

/// A map with a small direct-mapped cache in front: a program uses a few dozen definitions
/// (and attribute dictionaries) over and over, so nearly every lookup is a hit in one slot
/// chosen by a multiply, not a probe of a hash table.
pub(crate) struct Memo<K, V> {
    slots: Vec<Option<(K, V)>>,
    map: FxHashMap<K, V>,
}

impl<K: Copy + Eq + std::hash::Hash, V: Copy> Default for Memo<K, V> {
    fn default() -> Self {
        Memo {
            slots: vec![None; MEMO_SLOTS],
            map: FxHashMap::default(),
        }
    }
}

impl<K: Copy + Eq + std::hash::Hash, V: Copy> Memo<K, V> {
    /// The value of `key`, made by `make` the first time.
    #[inline]
    pub(crate) fn get_or(&mut self, key: K, make: impl FnOnce() -> V) -> V {
        let h = FxBuildHasher.hash_one(key);
        // The top bits of Fx's product are its best mixed.
        let slot = (h >> (64 - MEMO_SLOTS.trailing_zeros())) as usize;
        if let Some((k, v)) = self.slots[slot] {
            if k == key {
                return v;
            }
        }
        let v = *self.map.entry(key).or_insert_with(make);
        self.slots[slot] = Some((key, v));
        v
    }
}

/// [`DefFacts`] by definition.
#[derive(Default)]
pub(crate) struct DefCache {
    memo: Memo<usize, DefFacts>,
}

impl DefCache {
    /// The facts of `def`.
    #[inline]
    pub(crate) fn get(&mut self, def: &'static OpDef) -> DefFacts {
        self.memo
            .get_or(def as *const OpDef as usize, || DefFacts::of(def))
    }

    /// Whether an op of `def` writes (in place or as a view) its operand `index`.
    pub(crate) fn writes_operand(&mut self, def: &'static OpDef, index: usize) -> bool {
        let w = self.get(def).writes;
        if index < 63 {
            return w & (1 << index) != 0;
        }
        w & (1 << 63) != 0
            && def.schema.is_some_and(|s| {
                let rt = &s.runtime;
                rt.inplace
                    .iter()
                    .chain(rt.view.iter())
                    .any(|(_, inp)| s.inputs.iter().position(|x| x.name == *inp) == Some(index))
            })
    }
}

/// The dictionary of `base` (an interned dictionary's entries, sorted) with `added` set over
/// it (any order; a later entry of one name wins): one merge of two sorted lists and one
/// interning, where setting entries one by one interns a dictionary each time and sorting
/// the union compares every name again.
pub(crate) fn dict_merged(
    ctx: &IrContext,
    base: &[(Box<str>, Attribute)],
    added: &[(&str, Attribute)],
) -> Attribute {
    // Sorted and unique already (the usual case: callers that know their names sort them
    // once): used in place, no copy.
    let mut sorted: SmallVec<[(&str, Attribute); 8]> = SmallVec::new();
    let add: &[(&str, Attribute)] = if added.windows(2).all(|w| cmp_name(w[0].0, w[1].0).is_lt()) {
        added
    } else {
        let mut all: SmallVec<[(&str, Attribute); 8]> = added.iter().copied().collect();
        // Stable: of one name, the last stays last; keep only it.
        all.sort_by(|a, b| cmp_name(a.0, b.0));
        for e in all {
            match sorted.last_mut() {
                Some(last) if last.0 == e.0 => *last = e,
                _ => sorted.push(e),
            }
        }
        &sorted
    };
    let mut out: SmallVec<[(&str, Attribute); 32]> = SmallVec::new();
    out.reserve(base.len() + add.len());
    let (mut i, mut j) = (0, 0);
    while i < base.len() || j < add.len() {
        let take_base = match (base.get(i), add.get(j)) {
            (Some(b), Some(a)) => match cmp_name(&b.0, a.0) {
                std::cmp::Ordering::Less => true,
                std::cmp::Ordering::Equal => {
                    i += 1; // replaced by the added entry
                    false
                }
                std::cmp::Ordering::Greater => false,
            },
            (Some(_), None) => true,
            _ => false,
        };
        if take_base {
            out.push((&*base[i].0, base[i].1));
            i += 1;
        } else {
            out.push(add[j]);
            j += 1;
        }
    }
    ctx.dict_attr_sorted(&out)
}

/// `a.cmp(b)` for attribute names, byte by byte inline: names are short and differ early, so
/// this beats a call to `memcmp` per comparison (the merge's whole cost).
#[inline]
fn cmp_name(a: &str, b: &str) -> std::cmp::Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}
