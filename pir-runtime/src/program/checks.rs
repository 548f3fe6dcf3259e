//! Checks of the mutating API: handles of another program are errors (every handle carries
//! its program's identity, so this holds even where its index is in this program's range),
//! and the region tree stays a tree (an op may not be inserted into a block nested in its own
//! regions: its location would loop forever, and erasing it would recurse without end).

use super::{BlockData, BlockId, Ix, OpId, OperationArgs, Program, ALIVE, EXTRA};
use crate::attributes::Attribute;
use crate::error::IrError;
use crate::types::Type;

/// A handle that names the program it belongs to.
pub(crate) trait Handle: Copy + std::fmt::Debug {
    /// What it names, for messages ("a value").
    const WHAT: &'static str;
    /// The identity of the program that gave it out.
    fn prog(self) -> u32;
}

impl Program {
    /// Whether `h` was given out by this program.
    #[inline(always)]
    pub(crate) fn owns<H: Handle>(&self, h: H) -> bool {
        h.prog() == self.id
    }

    /// `Err` if `h` is a handle of another program.
    #[inline(always)]
    pub(crate) fn check_own<H: Handle>(&self, h: H) -> Result<(), IrError> {
        if self.owns(h) {
            Ok(())
        } else {
            Err(foreign(h))
        }
    }

    /// Panics if `h` is a handle of another program (the accessors that promise it).
    #[inline(always)]
    pub(crate) fn expect_own<H: Handle>(&self, h: H) {
        if !self.owns(h) {
            foreign_panic(h);
        }
    }

    /// Undoes op `id`, just pushed (not linked into a block) with something foreign in
    /// `args`, and says what.
    #[cold]
    #[inline(never)]
    pub(super) fn undo_foreign(&mut self, ix: Ix, args: OperationArgs<'_>) -> IrError {
        let id = OpId::from_ix(ix, self.id);
        let d = &mut self.ops[id.index()];
        (d.parent, d.prev, d.next) = (None, None, None);
        self.erase_one(id);
        self.foreign_arg(&args)
    }

    #[cold]
    #[inline(never)]
    fn foreign_arg(&self, args: &OperationArgs<'_>) -> IrError {
        let name = args.def.name;
        let operand = args
            .operands
            .iter()
            .enumerate()
            .find_map(|(i, v)| v.filter(|v| !self.owns(*v)).map(|v| (i, v)));
        if let Some((i, v)) = operand {
            return IrError::Foreign(format!(
                "cannot create {name}: operand {i} ({v:?}) is a value of another program"
            ));
        }
        let result = args
            .result_types
            .iter()
            .enumerate()
            .find_map(|(i, t)| t.filter(|t| t.ctx_id() != self.ctx_id).map(|t| (i, t)));
        if let Some((i, t)) = result {
            return IrError::Foreign(format!(
                "cannot create {name}: the type of result {i} ({t:?}) is a type of another context"
            ));
        }
        IrError::Foreign(format!(
            "cannot create {name}: its attribute dictionary ({:?}) is of another context",
            args.attributes
        ))
    }

    /// `Err` if `a` is an attribute of another context.
    #[inline]
    pub(super) fn check_attr(&self, a: Attribute) -> Result<(), IrError> {
        if a.ctx_id() == self.ctx_id {
            Ok(())
        } else {
            Err(IrError::Foreign(format!(
                "{a:?} is an attribute of another context"
            )))
        }
    }

    /// Panics if `t` is a type of another context (the calls that promise it).
    #[inline]
    #[track_caller]
    pub(super) fn expect_type(&self, t: Option<Type>) {
        if let Some(t) = t.filter(|t| t.ctx_id() != self.ctx_id) {
            panic!("{t:?} is a type of another context");
        }
    }

    /// Panics if `a` is an attribute of another context (the calls that promise it).
    #[inline]
    #[track_caller]
    pub(super) fn expect_attr(&self, a: Attribute) {
        if a.ctx_id() != self.ctx_id {
            panic!("{a:?} is an attribute of another context");
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
            .map(|(&i, _)| OpId::new(i as usize, self.id))
            .collect();
        v.sort_unstable();
        v
    }

    /// The data of `block`, or `Err` for a handle out of this program's range.
    pub(super) fn block_data(&self, block: BlockId) -> Result<&BlockData, IrError> {
        self.check_own(block)?;
        Ok(&self.blocks[block.index()])
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
                .and_then(|b| self.blocks[b.get() as usize].parent);
        }
        Ok(())
    }
}

#[cold]
#[inline(never)]
fn foreign<H: Handle>(h: H) -> IrError {
    IrError::Foreign(format!("{h:?} is {} of another program", H::WHAT))
}

#[cold]
#[inline(never)]
#[track_caller]
fn foreign_panic<H: Handle>(h: H) -> ! {
    panic!("{h:?} is {} of another program", H::WHAT)
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
