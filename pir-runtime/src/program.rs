//! Programs: arena storage of operations, values, uses, blocks and regions.
//!
//! Everything lives in flat vectors indexed by small `Copy` handles ([`OpId`], [`Value`],
//! [`BlockId`], [`RegionId`], [`OperandId`]). Each operand slot is a *use*: it links into its
//! value's doubly linked use list by index, so adding, removing or redirecting a use is O(1) and
//! `replace_all_uses_with` is O(uses). A block's ops are a doubly linked list by index, so
//! inserting before or after any op is O(1).
//!
//! ```
//! use pir_runtime::{IrContext, Program, Builder, phi::DataType};
//! let ctx = IrContext::new();
//! let mut prog = Program::new(&ctx);
//! let t = ctx.dense_tensor_type(DataType::Float32, &[2, 3]);
//! let mut b = Builder::at_end(&mut prog);
//! let a = b.create_by_name("builtin.parameter", &[], &[("parameter_name", b.ctx().str_attr("w"))], &[Some(t)]).unwrap();
//! let w = b.program().op(a).result(0);
//! let c = b.create_by_name("builtin.combine", &[Some(w), Some(w)], &[], &[None]).unwrap();
//! assert_eq!(prog.use_count(w), 2);
//! assert!(prog.erase_op(a).is_err()); // still used by the combine
//! prog.erase_op(c).unwrap();
//! prog.erase_op(a).unwrap();
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::num::NonZeroU32;
use std::sync::Arc;

use crate::attributes::{AttrData, Attribute};
use crate::context::IrContext;
use crate::error::IrError;
use crate::op_def::{Interface, OpDef, OpTrait};
use crate::types::Type;

macro_rules! handle {
    ($(#[$m:meta])* $name:ident, $prefix:literal) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(NonZeroU32);

        impl $name {
            #[inline]
            fn new(index: usize) -> Self {
                // Arenas start with a placeholder at index 0, so real indices are never 0.
                $name(NonZeroU32::new(u32::try_from(index).expect("arena overflow")).expect("index 0 is reserved"))
            }

            /// The handle's arena index (stable for the program's lifetime).
            #[inline]
            pub fn index(self) -> usize {
                self.0.get() as usize
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

handle!(
    /// An operation in a [`Program`].
    OpId, "op"
);
handle!(
    /// A value: an op result or a block argument.
    Value, "v"
);
handle!(
    /// A block.
    BlockId, "block"
);
handle!(
    /// A region.
    RegionId, "region"
);
handle!(
    /// One operand slot of one operation (a use of a value).
    OperandId, "use"
);

static_assertions::assert_eq_size!(Option<Value>, u32);
static_assertions::assert_eq_size!(OpId, u32);

/// A parameter of a program (`Parameter { bytes, type, is_mutable }` of the seeds).
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    /// Raw contents (may be empty when only the declaration is known).
    pub bytes: Vec<u8>,
    /// The parameter's type.
    pub ty: Type,
    /// Whether it may be written.
    pub is_mutable: bool,
}

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// Result `index` of `op`.
    OpResult {
        /// Defining op.
        op: OpId,
        /// Result index.
        index: u32,
    },
    /// Argument `index` of `block`.
    BlockArg {
        /// Owning block.
        block: BlockId,
        /// Argument index.
        index: u32,
    },
}

/// One use of a value: operand `index` of `op`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpOperand {
    /// The using op.
    pub op: OpId,
    /// Operand index.
    pub index: u32,
    /// The operand slot.
    pub id: OperandId,
}

/// Where the builder or [`Program::insert_op`] puts an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InsertPoint {
    /// First in the block.
    BlockStart(BlockId),
    /// Last in the block.
    BlockEnd(BlockId),
    /// Right before an op.
    Before(OpId),
    /// Right after an op.
    After(OpId),
}

const BLOCK_ARG_TAG: u32 = 1 << 31;
const NO_LINK: u32 = 0;

#[derive(Clone, Copy)]
struct OperandData {
    value: Option<Value>,
    owner: u32,
    next_use: u32,
    prev_use: u32,
}

#[derive(Clone, Copy)]
struct ValueData {
    ty: Option<Type>,
    first_use: u32,
    owner: u32,
    // index, with BLOCK_ARG_TAG set for block arguments.
    index: u32,
}

#[derive(Clone, Copy)]
struct OpData {
    def: &'static OpDef,
    attrs: Attribute,
    parent: Option<BlockId>,
    prev: Option<OpId>,
    next: Option<OpId>,
    operands_start: u32,
    num_operands: u32,
    results_start: u32,
    num_results: u32,
    regions_start: u32,
    num_regions: u16,
    alive: bool,
}

static_assertions::const_assert!(std::mem::size_of::<OperandData>() == 16);
static_assertions::const_assert!(std::mem::size_of::<ValueData>() == 16);
static_assertions::const_assert!(std::mem::size_of::<OpData>() <= 48);

#[derive(Clone, Default)]
struct BlockData {
    parent: Option<RegionId>,
    first: Option<OpId>,
    last: Option<OpId>,
    len: u32,
    args: Vec<Value>,
    arg_attrs: Vec<Option<Attribute>>,
}

#[derive(Clone, Default)]
struct RegionData {
    parent: Option<OpId>,
    blocks: Vec<BlockId>,
}

/// What [`Program::create_op`] needs to make an operation.
#[derive(Clone, Copy, Debug)]
pub struct OperationArgs<'a> {
    /// The op's definition.
    pub def: &'static OpDef,
    /// Operands; `None` is Paddle's null value (an absent optional input).
    pub operands: &'a [Option<Value>],
    /// The attribute dictionary (see [`IrContext::dict_attr`]).
    pub attributes: Attribute,
    /// Result types; `None` is a null type.
    pub result_types: &'a [Option<Type>],
    /// Number of (empty) regions to create.
    pub num_regions: usize,
}

/// A program: a `builtin.module` op whose one block holds the top-level ops, plus a map of
/// parameters. It owns all IR storage; handles index into it.
pub struct Program {
    ctx: Arc<IrContext>,
    ops: Vec<OpData>,
    operands: Vec<OperandData>,
    values: Vec<ValueData>,
    blocks: Vec<BlockData>,
    regions: Vec<RegionData>,
    module: OpId,
    parameters: BTreeMap<String, Parameter>,
}

impl Program {
    /// An empty program (a `builtin.module` with one empty block) in `ctx`.
    pub fn new(ctx: &Arc<IrContext>) -> Program {
        Program::with_capacity(ctx, 0)
    }

    /// An empty program with room for `ops` single-result, single-operand ops.
    pub fn with_capacity(ctx: &Arc<IrContext>, ops: usize) -> Program {
        let placeholder_op = OpData {
            def: &crate::builtin::MODULE_DEF,
            attrs: ctx.empty_dict(),
            parent: None,
            prev: None,
            next: None,
            operands_start: 0,
            num_operands: 0,
            results_start: 0,
            num_results: 0,
            regions_start: 0,
            num_regions: 0,
            alive: false,
        };
        let mut p = Program {
            ctx: ctx.clone(),
            ops: Vec::with_capacity(ops + 2),
            operands: Vec::with_capacity(ops + 1),
            values: Vec::with_capacity(ops + 1),
            blocks: vec![BlockData::default()],
            regions: vec![RegionData::default()],
            module: OpId::new(1),
            parameters: BTreeMap::new(),
        };
        p.ops.push(placeholder_op);
        p.operands.push(OperandData {
            value: None,
            owner: 0,
            next_use: 0,
            prev_use: 0,
        });
        p.values.push(ValueData {
            ty: None,
            first_use: 0,
            owner: 0,
            index: 0,
        });
        let module = p.create_op(OperationArgs {
            def: &crate::builtin::MODULE_DEF,
            operands: &[],
            attributes: ctx.empty_dict(),
            result_types: &[],
            num_regions: 1,
        });
        p.module = module;
        let region = p.op(module).region(0);
        p.add_block(region);
        p
    }

    /// The context.
    #[inline]
    pub fn ctx(&self) -> &Arc<IrContext> {
        &self.ctx
    }

    /// The `builtin.module` op.
    pub fn module_op(&self) -> OpId {
        self.module
    }

    /// The top-level block (the module's body).
    pub fn block(&self) -> BlockId {
        let region = RegionId::new(self.ops[self.module.index()].regions_start as usize);
        self.regions[region.index()].blocks[0]
    }

    /// A read-only view of `op`.
    #[inline]
    pub fn op(&self, op: OpId) -> OpRef<'_> {
        OpRef { prog: self, id: op }
    }

    /// Whether `op` exists and was not erased.
    pub fn is_alive(&self, op: OpId) -> bool {
        self.ops.get(op.index()).is_some_and(|o| o.alive)
    }

    /// Number of live operations, the module included.
    pub fn num_ops(&self) -> usize {
        self.ops.iter().filter(|o| o.alive).count()
    }

    // ----- parameters -------------------------------------------------------------------

    /// Sets (or replaces) parameter `name`.
    pub fn set_parameter(&mut self, name: impl Into<String>, p: Parameter) {
        self.parameters.insert(name.into(), p);
    }

    /// Parameter `name`.
    pub fn parameter(&self, name: &str) -> Option<&Parameter> {
        self.parameters.get(name)
    }

    /// All parameters, by name.
    pub fn parameters(&self) -> &BTreeMap<String, Parameter> {
        &self.parameters
    }

    // ----- creation ---------------------------------------------------------------------

    /// Creates a detached operation (in no block); insert it with [`Program::insert_op`].
    pub fn create_op(&mut self, args: OperationArgs<'_>) -> OpId {
        self.push_op(args, None, None, None)
    }

    /// Creates an operation and inserts it at `at`, in one step.
    pub fn create_op_at(
        &mut self,
        args: OperationArgs<'_>,
        at: InsertPoint,
    ) -> Result<OpId, IrError> {
        if let InsertPoint::BlockEnd(b) = at {
            // The common case (builders appending): link as the block's last op directly.
            let data = self
                .blocks
                .get(b.index())
                .ok_or_else(|| IrError::Invalid(format!("{b:?} is not a block of this program")))?;
            let prev = data.last;
            let op = self.push_op(args, Some(b), prev, None);
            match prev {
                Some(p) => self.ops[p.index()].next = Some(op),
                None => self.blocks[b.index()].first = Some(op),
            }
            let data = &mut self.blocks[b.index()];
            data.last = Some(op);
            data.len += 1;
            return Ok(op);
        }
        let op = self.push_op(args, None, None, None);
        self.insert_op(op, at)?;
        Ok(op)
    }

    fn push_op(
        &mut self,
        args: OperationArgs<'_>,
        parent: Option<BlockId>,
        prev: Option<OpId>,
        next: Option<OpId>,
    ) -> OpId {
        let id = OpId::new(self.ops.len());
        let operands_start = self.operands.len() as u32;
        let results_start = self.values.len() as u32;
        let regions_start = self.regions.len() as u32;
        let num_regions = u16::try_from(args.num_regions).unwrap_or(u16::MAX);
        self.ops.push(OpData {
            def: args.def,
            attrs: args.attributes,
            parent,
            prev,
            next,
            operands_start,
            num_operands: args.operands.len() as u32,
            results_start,
            num_results: args.result_types.len() as u32,
            regions_start,
            num_regions,
            alive: true,
        });
        let owner = id.0.get();
        for (i, &v) in args.operands.iter().enumerate() {
            let slot = operands_start + i as u32;
            match v {
                Some(v) => {
                    // Link at the head of v's use list.
                    let head = self.values[v.index()].first_use;
                    self.operands.push(OperandData {
                        value: Some(v),
                        owner,
                        next_use: head,
                        prev_use: NO_LINK,
                    });
                    if head != NO_LINK {
                        self.operands[head as usize].prev_use = slot;
                    }
                    self.values[v.index()].first_use = slot;
                }
                None => self.operands.push(OperandData {
                    value: None,
                    owner,
                    next_use: NO_LINK,
                    prev_use: NO_LINK,
                }),
            }
        }
        for (i, &ty) in args.result_types.iter().enumerate() {
            self.values.push(ValueData {
                ty,
                first_use: NO_LINK,
                owner,
                index: i as u32,
            });
        }
        for _ in 0..num_regions {
            self.regions.push(RegionData {
                parent: Some(id),
                blocks: Vec::new(),
            });
        }
        id
    }

    /// Adds an empty block at the end of `region`.
    pub fn add_block(&mut self, region: RegionId) -> BlockId {
        let b = BlockId::new(self.blocks.len());
        self.blocks.push(BlockData {
            parent: Some(region),
            ..BlockData::default()
        });
        self.regions[region.index()].blocks.push(b);
        b
    }

    /// Adds an argument of type `ty` to `block`.
    pub fn add_block_arg(&mut self, block: BlockId, ty: Option<Type>) -> Value {
        let v = Value::new(self.values.len());
        let index = self.blocks[block.index()].args.len() as u32;
        self.values.push(ValueData {
            ty,
            first_use: NO_LINK,
            owner: block.0.get(),
            index: index | BLOCK_ARG_TAG,
        });
        let data = &mut self.blocks[block.index()];
        data.args.push(v);
        data.arg_attrs.push(None);
        v
    }

    /// Sets the attribute dictionary of block argument `index` of `block`.
    pub fn set_block_arg_attrs(&mut self, block: BlockId, index: usize, attrs: Attribute) {
        if let Some(slot) = self.blocks[block.index()].arg_attrs.get_mut(index) {
            *slot = Some(attrs);
        }
    }

    /// Inserts a detached op at `at`.
    pub fn insert_op(&mut self, op: OpId, at: InsertPoint) -> Result<(), IrError> {
        self.check_alive(op)?;
        if self.ops[op.index()].parent.is_some() {
            return Err(IrError::AlreadyInBlock(self.describe(op)));
        }
        let (block, prev, next) = match at {
            InsertPoint::BlockStart(b) => (b, None, self.blocks[b.index()].first),
            InsertPoint::BlockEnd(b) => (b, self.blocks[b.index()].last, None),
            InsertPoint::Before(o) | InsertPoint::After(o) => {
                if o == op {
                    return Err(IrError::SelfInsert(self.describe(op)));
                }
                self.check_alive(o)?;
                let d = self.ops[o.index()];
                let b = d
                    .parent
                    .ok_or_else(|| IrError::NotInBlock(self.describe(o)))?;
                if matches!(at, InsertPoint::Before(_)) {
                    (b, d.prev, Some(o))
                } else {
                    (b, Some(o), d.next)
                }
            }
        };
        let d = &mut self.ops[op.index()];
        d.parent = Some(block);
        d.prev = prev;
        d.next = next;
        match prev {
            Some(p) => self.ops[p.index()].next = Some(op),
            None => self.blocks[block.index()].first = Some(op),
        }
        match next {
            Some(n) => self.ops[n.index()].prev = Some(op),
            None => self.blocks[block.index()].last = Some(op),
        }
        self.blocks[block.index()].len += 1;
        Ok(())
    }

    /// Removes `op` from its block without erasing it (it can be inserted elsewhere).
    pub fn detach_op(&mut self, op: OpId) -> Result<(), IrError> {
        self.check_alive(op)?;
        let d = self.ops[op.index()];
        let block = d
            .parent
            .ok_or_else(|| IrError::NotInBlock(self.describe(op)))?;
        match d.prev {
            Some(p) => self.ops[p.index()].next = d.next,
            None => self.blocks[block.index()].first = d.next,
        }
        match d.next {
            Some(n) => self.ops[n.index()].prev = d.prev,
            None => self.blocks[block.index()].last = d.prev,
        }
        self.blocks[block.index()].len -= 1;
        let d = &mut self.ops[op.index()];
        d.parent = None;
        d.prev = None;
        d.next = None;
        Ok(())
    }

    /// Erases `op` (and the ops nested in its regions). Fails, changing nothing, if a result of
    /// `op` or of a nested op is still used outside the erased ops.
    pub fn erase_op(&mut self, op: OpId) -> Result<(), IrError> {
        self.check_alive(op)?;
        if self.ops[op.index()].num_regions == 0 {
            self.check_unused(op, |_| false)?;
            self.erase_one(op);
            return Ok(());
        }
        let mut doomed = Vec::new();
        self.walk(op, &mut |o| doomed.push(o));
        let set: rustc_hash::FxHashSet<OpId> = doomed.iter().copied().collect();
        for &o in &doomed {
            self.check_unused(o, |user| set.contains(&user))?;
        }
        // Users come after definitions, so erase in reverse walk order.
        for &o in doomed.iter().rev() {
            self.erase_one(o);
        }
        Ok(())
    }

    fn check_unused(&self, op: OpId, inside: impl Fn(OpId) -> bool) -> Result<(), IrError> {
        let d = self.ops[op.index()];
        for r in 0..d.num_results {
            let v = Value::new((d.results_start + r) as usize);
            if let Some(u) = self.uses(v).find(|u| !inside(u.op)) {
                return Err(IrError::ResultInUse {
                    op: self.describe(op),
                    index: r as usize,
                    uses: self.use_count(v),
                    user: self.describe(u.op),
                });
            }
        }
        Ok(())
    }

    fn erase_one(&mut self, op: OpId) {
        if self.ops[op.index()].parent.is_some() {
            // Cannot fail: the op is alive and in a block.
            let _ = self.detach_op(op);
        }
        let d = self.ops[op.index()];
        for slot in d.operands_start..d.operands_start + d.num_operands {
            self.unlink_use(slot);
        }
        self.ops[op.index()].alive = false;
    }

    // ----- operands and uses --------------------------------------------------------------

    fn link_use(&mut self, slot: u32, v: Value) {
        let head = self.values[v.index()].first_use;
        let o = &mut self.operands[slot as usize];
        o.value = Some(v);
        o.prev_use = NO_LINK;
        o.next_use = head;
        if head != NO_LINK {
            self.operands[head as usize].prev_use = slot;
        }
        self.values[v.index()].first_use = slot;
    }

    fn unlink_use(&mut self, slot: u32) {
        let o = self.operands[slot as usize];
        let Some(v) = o.value else { return };
        if o.prev_use != NO_LINK {
            self.operands[o.prev_use as usize].next_use = o.next_use;
        } else {
            self.values[v.index()].first_use = o.next_use;
        }
        if o.next_use != NO_LINK {
            self.operands[o.next_use as usize].prev_use = o.prev_use;
        }
        let o = &mut self.operands[slot as usize];
        o.value = None;
        o.next_use = NO_LINK;
        o.prev_use = NO_LINK;
    }

    /// Sets operand `index` of `op` to `value` (`None`: the null value).
    pub fn set_operand(
        &mut self,
        op: OpId,
        index: usize,
        value: Option<Value>,
    ) -> Result<(), IrError> {
        self.check_alive(op)?;
        let d = self.ops[op.index()];
        if index >= d.num_operands as usize {
            return Err(IrError::IndexOutOfRange {
                op: self.describe(op),
                what: "operand",
                index,
                count: d.num_operands as usize,
            });
        }
        let slot = d.operands_start + index as u32;
        self.unlink_use(slot);
        if let Some(v) = value {
            self.link_use(slot, v);
        }
        Ok(())
    }

    /// The uses of `value`, most recent first.
    pub fn uses(&self, value: Value) -> Uses<'_> {
        Uses {
            prog: self,
            next: self.values[value.index()].first_use,
        }
    }

    /// Number of uses of `value` (walks the use list).
    pub fn use_count(&self, value: Value) -> usize {
        self.uses(value).count()
    }

    /// Whether `value` has any use.
    pub fn has_uses(&self, value: Value) -> bool {
        self.values[value.index()].first_use != NO_LINK
    }

    /// Redirects every use of `old` to `new`. O(uses of `old`).
    pub fn replace_all_uses_with(&mut self, old: Value, new: Value) {
        if old == new {
            return;
        }
        let mut slot = self.values[old.index()].first_use;
        if slot == NO_LINK {
            return;
        }
        let first = slot;
        let mut last = slot;
        while slot != NO_LINK {
            let o = &mut self.operands[slot as usize];
            o.value = Some(new);
            last = slot;
            slot = o.next_use;
        }
        // Splice the whole list in front of new's uses.
        let head = self.values[new.index()].first_use;
        self.operands[last as usize].next_use = head;
        if head != NO_LINK {
            self.operands[head as usize].prev_use = last;
        }
        self.values[new.index()].first_use = first;
        self.values[old.index()].first_use = NO_LINK;
    }

    /// Redirects to `new` the uses of `old` for which `pred` holds. O(uses of `old`).
    pub fn replace_uses_with_if(
        &mut self,
        old: Value,
        new: Value,
        mut pred: impl FnMut(OpOperand) -> bool,
    ) {
        if old == new {
            return;
        }
        let mut slot = self.values[old.index()].first_use;
        while slot != NO_LINK {
            let next = self.operands[slot as usize].next_use;
            let u = self.operand_use(slot);
            if pred(u) {
                self.unlink_use(slot);
                self.link_use(slot, new);
            }
            slot = next;
        }
    }

    fn operand_use(&self, slot: u32) -> OpOperand {
        let o = self.operands[slot as usize];
        let op = OpId::new(o.owner as usize);
        OpOperand {
            op,
            index: slot - self.ops[op.index()].operands_start,
            id: OperandId::new(slot as usize),
        }
    }

    // ----- values ---------------------------------------------------------------------------

    /// The type of `value` (`None`: a null type).
    #[inline]
    pub fn value_type(&self, value: Value) -> Option<Type> {
        self.values[value.index()].ty
    }

    /// Sets the type of `value`.
    pub fn set_value_type(&mut self, value: Value, ty: Option<Type>) {
        self.values[value.index()].ty = ty;
    }

    /// Where `value` comes from.
    pub fn value_def(&self, value: Value) -> ValueDef {
        let d = self.values[value.index()];
        if d.index & BLOCK_ARG_TAG != 0 {
            ValueDef::BlockArg {
                block: BlockId::new(d.owner as usize),
                index: d.index & !BLOCK_ARG_TAG,
            }
        } else {
            ValueDef::OpResult {
                op: OpId::new(d.owner as usize),
                index: d.index,
            }
        }
    }

    /// The op defining `value`, if it is an op result.
    pub fn defining_op(&self, value: Value) -> Option<OpId> {
        match self.value_def(value) {
            ValueDef::OpResult { op, .. } => Some(op),
            ValueDef::BlockArg { .. } => None,
        }
    }

    // ----- attributes -----------------------------------------------------------------------

    /// Replaces the whole attribute dictionary of `op`.
    pub fn set_attributes(&mut self, op: OpId, dict: Attribute) -> Result<(), IrError> {
        self.check_alive(op)?;
        self.ops[op.index()].attrs = dict;
        Ok(())
    }

    /// Sets one attribute of `op` (re-interning its dictionary).
    pub fn set_attribute(&mut self, op: OpId, name: &str, value: Attribute) -> Result<(), IrError> {
        self.check_alive(op)?;
        let dict = self.ops[op.index()].attrs;
        let new = self.ctx.dict_with(dict, name, Some(value));
        self.ops[op.index()].attrs = new;
        Ok(())
    }

    /// Removes one attribute of `op`.
    pub fn remove_attribute(&mut self, op: OpId, name: &str) -> Result<(), IrError> {
        self.check_alive(op)?;
        let dict = self.ops[op.index()].attrs;
        let new = self.ctx.dict_with(dict, name, None);
        self.ops[op.index()].attrs = new;
        Ok(())
    }

    // ----- blocks and regions ------------------------------------------------------------------

    /// The ops of `block`, in order.
    pub fn block_ops(&self, block: BlockId) -> BlockOps<'_> {
        BlockOps {
            prog: self,
            next: self.blocks[block.index()].first,
        }
    }

    /// The first op of `block`.
    pub fn first_op(&self, block: BlockId) -> Option<OpId> {
        self.blocks[block.index()].first
    }

    /// The last op of `block`.
    pub fn last_op(&self, block: BlockId) -> Option<OpId> {
        self.blocks[block.index()].last
    }

    /// Number of ops in `block`.
    pub fn block_len(&self, block: BlockId) -> usize {
        self.blocks[block.index()].len as usize
    }

    /// The arguments of `block`.
    pub fn block_args(&self, block: BlockId) -> &[Value] {
        &self.blocks[block.index()].args
    }

    /// The attribute dictionary of argument `index` of `block`, if set.
    pub fn block_arg_attrs(&self, block: BlockId, index: usize) -> Option<Attribute> {
        self.blocks[block.index()]
            .arg_attrs
            .get(index)
            .copied()
            .flatten()
    }

    /// The region containing `block`.
    pub fn block_parent(&self, block: BlockId) -> Option<RegionId> {
        self.blocks[block.index()].parent
    }

    /// The blocks of `region`.
    pub fn region_blocks(&self, region: RegionId) -> &[BlockId] {
        &self.regions[region.index()].blocks
    }

    /// The op owning `region`.
    pub fn region_parent(&self, region: RegionId) -> Option<OpId> {
        self.regions[region.index()].parent
    }

    /// Position of `op` in its block (O(position)).
    pub fn op_position(&self, op: OpId) -> Option<usize> {
        let block = self.ops[op.index()].parent?;
        self.block_ops(block).position(|o| o == op)
    }

    /// Calls `f` on `op` and every op nested in its regions, in pre-order.
    pub fn walk(&self, op: OpId, f: &mut impl FnMut(OpId)) {
        f(op);
        let d = self.ops[op.index()];
        for r in 0..d.num_regions as u32 {
            let region = RegionId::new((d.regions_start + r) as usize);
            for &b in &self.regions[region.index()].blocks {
                for o in self.block_ops(b) {
                    self.walk(o, f);
                }
            }
        }
    }

    /// `pd_op.relu (op 3 of block 0)` — an op and where it is, for messages.
    pub fn describe(&self, op: OpId) -> String {
        match self.ops.get(op.index()) {
            Some(d) => format!("{} ({})", d.def.name, self.location(op)),
            None => format!("{op:?}"),
        }
    }

    /// Where `op` is: `op 3 of block 0`, with enclosing ops for nested blocks.
    pub fn location(&self, op: OpId) -> String {
        let mut s = String::new();
        let mut cur = op;
        loop {
            let d = self.ops[cur.index()];
            let Some(block) = d.parent else {
                if s.is_empty() {
                    s.push_str(if d.alive { "detached" } else { "erased" });
                }
                return s;
            };
            let pos = self.op_position(cur).unwrap_or(0);
            if !s.is_empty() {
                s.push_str(" in ");
            }
            let Some(region) = self.block_parent(block) else {
                return s;
            };
            let Some(parent) = self.region_parent(region) else {
                return s;
            };
            let bi = self
                .region_blocks(region)
                .iter()
                .position(|&b| b == block)
                .unwrap_or(0);
            if parent == self.module {
                s.push_str(&format!("op {pos} of block {bi}"));
                return s;
            }
            let pd = self.ops[parent.index()];
            let ri = region.index() - pd.regions_start as usize;
            s.push_str(&format!(
                "op {pos} of block {bi} of region {ri} of {}",
                pd.def.name
            ));
            cur = parent;
        }
    }

    pub(crate) fn check_alive(&self, op: OpId) -> Result<(), IrError> {
        match self.ops.get(op.index()) {
            Some(d) if d.alive => Ok(()),
            Some(d) => Err(IrError::Erased(format!("{} {op:?}", d.def.name))),
            None => Err(IrError::Erased(format!("{op:?} (not of this program)"))),
        }
    }

    /// One more than the largest value index (the size of a per-value side table).
    pub fn num_values_allocated(&self) -> usize {
        self.values.len()
    }

    /// Bytes of heap memory used by the IR storage (capacity, not just length).
    pub fn storage_bytes(&self) -> usize {
        use std::mem::size_of;
        self.ops.capacity() * size_of::<OpData>()
            + self.operands.capacity() * size_of::<OperandData>()
            + self.values.capacity() * size_of::<ValueData>()
            + self.blocks.capacity() * size_of::<BlockData>()
            + self.regions.capacity() * size_of::<RegionData>()
    }
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Program")
            .field("ops", &self.num_ops())
            .finish_non_exhaustive()
    }
}

impl fmt::Display for Program {
    /// Paddle's text format.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::printer::print_program(f, self)
    }
}

/// Iterator over the uses of a value.
pub struct Uses<'a> {
    prog: &'a Program,
    next: u32,
}

impl Iterator for Uses<'_> {
    type Item = OpOperand;

    fn next(&mut self) -> Option<OpOperand> {
        if self.next == NO_LINK {
            return None;
        }
        let u = self.prog.operand_use(self.next);
        self.next = self.prog.operands[self.next as usize].next_use;
        Some(u)
    }
}

/// Iterator over the ops of a block.
pub struct BlockOps<'a> {
    prog: &'a Program,
    next: Option<OpId>,
}

impl Iterator for BlockOps<'_> {
    type Item = OpId;

    fn next(&mut self) -> Option<OpId> {
        let cur = self.next?;
        self.next = self.prog.ops[cur.index()].next;
        Some(cur)
    }
}

/// A read-only view of one operation.
#[derive(Clone, Copy)]
pub struct OpRef<'a> {
    prog: &'a Program,
    id: OpId,
}

impl<'a> OpRef<'a> {
    #[inline]
    fn data(&self) -> &'a OpData {
        &self.prog.ops[self.id.index()]
    }

    /// The op's handle.
    #[inline]
    pub fn id(&self) -> OpId {
        self.id
    }

    /// The program.
    #[inline]
    pub fn program(&self) -> &'a Program {
        self.prog
    }

    /// The context.
    #[inline]
    pub fn ctx(&self) -> &'a IrContext {
        &self.prog.ctx
    }

    /// The op's definition (`OpInfo`).
    #[inline]
    pub fn def(&self) -> &'static OpDef {
        self.data().def
    }

    /// Full name (`pd_op.relu`).
    #[inline]
    pub fn name(&self) -> &'static str {
        self.data().def.name
    }

    /// Whether the op was not erased.
    pub fn is_alive(&self) -> bool {
        self.data().alive
    }

    /// Number of operands.
    #[inline]
    pub fn num_operands(&self) -> usize {
        self.data().num_operands as usize
    }

    /// Operand `i` (`None`: null value, or out of range).
    #[inline]
    pub fn operand(&self, i: usize) -> Option<Value> {
        let d = self.data();
        if i >= d.num_operands as usize {
            return None;
        }
        self.prog.operands[d.operands_start as usize + i].value
    }

    /// All operands.
    pub fn operands(&self) -> impl ExactSizeIterator<Item = Option<Value>> + 'a {
        let d = self.data();
        let s = d.operands_start as usize;
        self.prog.operands[s..s + d.num_operands as usize]
            .iter()
            .map(|o| o.value)
    }

    /// The type of operand `i` (`None` when null).
    pub fn operand_type(&self, i: usize) -> Option<Type> {
        self.operand(i).and_then(|v| self.prog.value_type(v))
    }

    /// Number of results.
    #[inline]
    pub fn num_results(&self) -> usize {
        self.data().num_results as usize
    }

    /// Result `i`. Panics if out of range (a programming error, like slice indexing); use
    /// [`OpRef::get_result`] for a checked access.
    #[inline]
    pub fn result(&self, i: usize) -> Value {
        self.get_result(i).unwrap_or_else(|| {
            panic!(
                "{} has {} results, asked for result {i}",
                self.name(),
                self.num_results()
            )
        })
    }

    /// Result `i`, if in range.
    #[inline]
    pub fn get_result(&self, i: usize) -> Option<Value> {
        let d = self.data();
        (i < d.num_results as usize).then(|| Value::new(d.results_start as usize + i))
    }

    /// All results.
    pub fn results(&self) -> impl ExactSizeIterator<Item = Value> + 'a {
        let d = self.data();
        (0..d.num_results as usize).map(move |i| Value::new(d.results_start as usize + i))
    }

    /// The types of all results (`None`: a null type).
    pub fn result_types(&self) -> impl ExactSizeIterator<Item = Option<Type>> + 'a {
        let d = self.data();
        let s = d.results_start as usize;
        self.prog.values[s..s + d.num_results as usize]
            .iter()
            .map(|v| v.ty)
    }

    /// The types of all operands (`None`: a null value or a null type).
    pub fn operand_types(&self) -> impl ExactSizeIterator<Item = Option<Type>> + 'a {
        let prog = self.prog;
        self.operands()
            .map(move |v| v.and_then(|v| prog.values[v.index()].ty))
    }

    /// Arena indices of the results (for side tables indexed by value).
    pub(crate) fn result_indices(&self) -> std::ops::Range<usize> {
        let d = self.data();
        d.results_start as usize..(d.results_start + d.num_results) as usize
    }

    /// The type of result `i`.
    pub fn result_type(&self, i: usize) -> Option<Type> {
        self.get_result(i).and_then(|v| self.prog.value_type(v))
    }

    /// The attribute dictionary.
    #[inline]
    pub fn attributes(&self) -> Attribute {
        self.data().attrs
    }

    /// The entries of the attribute dictionary, sorted by name.
    pub fn attribute_entries(&self) -> &'a [(Box<str>, Attribute)] {
        match self.prog.ctx.attr_data(self.data().attrs) {
            AttrData::Dict(e) => e,
            _ => &[],
        }
    }

    /// Attribute `name`.
    pub fn attr(&self, name: &str) -> Option<Attribute> {
        let e = self.attribute_entries();
        e.binary_search_by(|(n, _)| (**n).cmp(name))
            .ok()
            .map(|i| e[i].1)
    }

    /// The data of attribute `name`.
    pub fn attr_data(&self, name: &str) -> Option<&'a AttrData> {
        let ctx: &'a IrContext = &self.prog.ctx;
        self.attr(name).map(|a| ctx.attr_data(a))
    }

    /// Number of regions.
    pub fn num_regions(&self) -> usize {
        self.data().num_regions as usize
    }

    /// Region `i`. Panics if out of range.
    pub fn region(&self, i: usize) -> RegionId {
        assert!(
            i < self.num_regions(),
            "{} has {} regions, asked for {i}",
            self.name(),
            self.num_regions()
        );
        RegionId::new(self.data().regions_start as usize + i)
    }

    /// All regions.
    pub fn regions(&self) -> impl ExactSizeIterator<Item = RegionId> + 'a {
        let d = self.data();
        (0..d.num_regions as usize).map(move |i| RegionId::new(d.regions_start as usize + i))
    }

    /// The block containing the op.
    pub fn parent_block(&self) -> Option<BlockId> {
        self.data().parent
    }

    /// The next op in the block.
    pub fn next_op(&self) -> Option<OpId> {
        self.data().next
    }

    /// The previous op in the block.
    pub fn prev_op(&self) -> Option<OpId> {
        self.data().prev
    }

    /// Whether the op has trait `T`.
    #[inline]
    pub fn has_trait<T: OpTrait>(&self) -> bool {
        self.def().has_trait::<T>()
    }

    /// Whether the op has interface `I`.
    #[inline]
    pub fn has_interface<I: Interface>(&self) -> bool {
        self.def().has_interface::<I>()
    }

    /// The op's implementation of interface `I` (`dyn_cast<I>`).
    #[inline]
    pub fn interface<I: Interface>(&self) -> Option<&'static I> {
        self.def().interface::<I>()
    }

    /// `pd_op.relu (op 3 of block 0)`.
    pub fn describe(&self) -> String {
        self.prog.describe(self.id)
    }
}

impl fmt::Debug for OpRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.describe())
    }
}
