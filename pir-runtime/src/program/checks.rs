//! Checks of the mutating API: handles out of this program's range are errors, and the region
//! tree stays a tree (an op may not be inserted into a block nested in its own regions: its
//! location would loop forever, and erasing it would recurse without end).

use super::{BlockData, BlockId, OpId, Program, Value, ALIVE, EXTRA};
use crate::error::IrError;

impl Program {
    /// `Err` if `v` is out of this program's range (a value of another, bigger program).
    #[inline]
    pub(super) fn check_value(&self, v: Value) -> Result<(), IrError> {
        if v.index() < self.values.len() {
            Ok(())
        } else {
            Err(foreign_value(v))
        }
    }

    /// Whether every type and attribute handle ever stored is in the context's range (then
    /// `verify` need not look at them one by one).
    pub(crate) fn handles_in_range(&self) -> bool {
        let b = self.handle_bits;
        crate::types::Type::index_bound(b.types) as usize <= self.ctx.num_types()
            && b.attrs as usize <= self.ctx.num_attrs()
    }

    /// The ops that have regions, alive, by index.
    pub(crate) fn ops_with_regions(&self) -> Vec<OpId> {
        let mut v: Vec<OpId> = self
            .extra
            .iter()
            .filter(|(&i, e)| e.num_regions > 0 && self.ops[i as usize].flags & ALIVE != 0)
            .map(|(&i, _)| OpId::new(i as usize))
            .collect();
        v.sort_unstable();
        v
    }

    /// The data of `block`, or `Err` for a handle out of this program's range.
    pub(super) fn block_data(&self, block: BlockId) -> Result<&BlockData, IrError> {
        self.blocks
            .get(block.index())
            .ok_or_else(|| IrError::Invalid(format!("{block:?} is not a block of this program")))
    }

    /// `Err` if `block` is in a region of `op` or of an op nested in it. Costs nothing for ops
    /// without regions, and the nesting depth of `block` otherwise.
    pub(super) fn check_not_inside(&self, op: OpId, block: BlockId) -> Result<(), IrError> {
        let data = self.block_data(block)?;
        if self.ops[op.index()].flags & EXTRA == 0 {
            return Ok(()); // no regions: no block can be inside it
        }
        let mut region = data.parent;
        while let Some(r) = region {
            let Some(parent) = self.regions[r.index()].parent else {
                break;
            };
            if parent == op {
                return Err(IrError::Invalid(format!(
                    "cannot insert {} into {block:?}, a block nested in its own regions",
                    self.describe(op)
                )));
            }
            region = self.ops[parent.index()]
                .parent
                .and_then(|b| self.blocks[b.index()].parent);
        }
        Ok(())
    }
}

#[cold]
fn foreign_value(v: Value) -> IrError {
    IrError::Invalid(format!("{v:?} is not a value of this program"))
}

/// The bitwise OR of the raw type and attribute handles a program stored.
#[derive(Clone, Copy, Default)]
pub(super) struct HandleBits {
    types: u32,
    attrs: u32,
}

impl HandleBits {
    #[inline(always)]
    pub(super) fn add(&mut self, types: u32, attrs: u32) {
        self.types |= types;
        self.attrs |= attrs;
    }
}
