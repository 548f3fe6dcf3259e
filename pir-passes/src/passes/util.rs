//! Facts about ops the passes share.

use rustc_hash::FxHashMap;

use pir_runtime::traits::{Inplace, SideEffect};
use pir_runtime::{OpDef, OpRef};

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
    /// Bit `i`: operand `i` is written in place or viewed by the op (bit 63: some operand at
    /// 63 or above; [`DefCache::writes_operand`] then checks the schema).
    pub(crate) writes: u64,
}

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
            writes,
        }
    }
}

/// [`DefFacts`] by definition, with the last definition asked kept at hand (programs repeat
/// an op many times in a row).
#[derive(Default)]
pub(crate) struct DefCache {
    map: FxHashMap<usize, DefFacts>,
    last: Option<(usize, DefFacts)>,
}

impl DefCache {
    /// The facts of `def`.
    #[inline]
    pub(crate) fn get(&mut self, def: &'static OpDef) -> DefFacts {
        let key = def as *const OpDef as usize;
        if let Some((k, f)) = self.last {
            if k == key {
                return f;
            }
        }
        let f = *self.map.entry(key).or_insert_with(|| DefFacts::of(def));
        self.last = Some((key, f));
        f
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
