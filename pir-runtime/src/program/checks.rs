//! Checks of the mutating API: handles out of this program's range are errors, and the region
//! tree stays a tree (an op may not be inserted into a block nested in its own regions: its
//! location would loop forever, and erasing it would recurse without end).

use super::{BlockData, BlockId, OpId, Program, Value, EXTRA};
use crate::error::IrError;

impl Program {
    /// `Err` if a value is out of this program's range (a value of another, bigger program).
    /// One comparison per value.
    #[inline]
    pub(super) fn check_values(&self, values: &[Option<Value>]) -> Result<(), IrError> {
        let n = self.values.len();
        match values.iter().flatten().find(|v| v.index() >= n) {
            None => Ok(()),
            Some(v) => Err(foreign_value(*v)),
        }
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
