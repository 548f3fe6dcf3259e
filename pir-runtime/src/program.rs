//! Programs: arena storage of operations, values, uses, blocks and regions.
//!
//! Everything lives in flat vectors indexed by small `Copy` handles ([`OpId`], [`Value`],
//! [`BlockId`], [`RegionId`], [`OperandId`]). Each operand slot is a *use*: it links into its
//! value's doubly linked use list by index, so adding, removing or redirecting a use is O(1) and
//! `replace_all_uses_with` is O(uses). A block's ops are a doubly linked list by index, so
//! inserting before or after any op is O(1).
//!
//! A handle is 8 bytes: the arena index and its program's identity (the arenas store the
//! 4-byte index alone). A handle of another program — even one whose index is in range here —
//! is never bound to what this program holds at that index: the calls that return a `Result`
//! give [`IrError::Foreign`]; the accessors and the few mutators without one
//! ([`Program::op`], [`Program::value_type`], [`Program::uses`], [`Program::block_ops`],
//! [`Program::add_block`], [`Program::replace_all_uses_with`], ...) panic before changing
//! anything. Types and attributes carry their context's identity the same way, and are
//! checked where they enter a program.
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

mod checks;

/// An arena index as the program stores it (handles add the program's identity).
type Ix = NonZeroU32;

/// The identities given to programs: every handle carries its program's, so a handle of
/// another program is told apart even where its index is in range (issue 18).
static NEXT_PROGRAM_ID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);

/// A fresh program identity; never 0 and never reused.
fn next_program_id() -> u32 {
    use std::sync::atomic::Ordering;
    let id = NEXT_PROGRAM_ID.fetch_add(1, Ordering::Relaxed);
    // Reuse after a wrap would let handles of two programs alias: refuse instead.
    assert!(
        id != 0,
        "more than 2^32 - 1 programs created in this process"
    );
    id
}

macro_rules! handle {
    ($(#[$m:meta])* $name:ident, $prefix:literal, $what:literal) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name {
            ix: Ix,
            prog: u32,
        }

        impl $name {
            #[inline]
            fn new(index: usize, prog: u32) -> Self {
                // Arenas start with a placeholder at index 0, so real indices are never 0.
                let ix = Ix::new(u32::try_from(index).expect("arena overflow")).expect("index 0 is reserved");
                $name { ix, prog }
            }

            #[inline(always)]
            #[allow(dead_code)] // not every kind of handle is stored by index
            fn from_ix(ix: Ix, prog: u32) -> Self {
                $name { ix, prog }
            }

            /// The index as the program stores it.
            #[inline(always)]
            #[allow(dead_code)]
            fn ix(self) -> Ix {
                self.ix
            }

            /// The handle's arena index (stable for the program's lifetime).
            ///
            /// ```
            /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
            /// # let ctx = IrContext::new();
            /// # let mut prog = Program::new(&ctx);
            /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
            /// # let mut b = Builder::at_end(&mut prog);
            /// let x = builtin::parameter(&mut b, "x", t).unwrap();
            /// let y = builtin::parameter(&mut b, "y", t).unwrap();
            /// assert!(x.index() < y.index());
            /// // A side table indexed by value:
            /// let mut seen = vec![false; prog.num_values_allocated()];
            /// seen[y.index()] = true;
            /// ```
            #[inline]
            pub fn index(self) -> usize {
                self.ix.get() as usize
            }
        }

        impl checks::Handle for $name {
            const WHAT: &'static str = $what;
            #[inline(always)]
            fn prog(self) -> u32 {
                self.prog
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.ix)
            }
        }
    };
}

handle!(
    /// An operation in a [`Program`].
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, OpId, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op: OpId = prog.defining_op(x).unwrap();
    /// assert_eq!(std::mem::size_of::<OpId>(), 8); // an index and the program's identity
    /// assert_eq!(prog.op(op).name(), "builtin.parameter");
    /// ```
    OpId, "op", "an op"
);
handle!(
    /// A value: an op result or a block argument.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, ValueDef, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// assert_eq!(prog.value_type(x), Some(t));
    /// assert!(matches!(prog.value_def(x), ValueDef::OpResult { index: 0, .. }));
    /// let block = prog.block();
    /// let arg = prog.add_block_arg(block, Some(t));
    /// assert!(matches!(prog.value_def(arg), ValueDef::BlockArg { index: 0, .. }));
    /// ```
    Value, "v", "a value"
);
handle!(
    /// A block.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let top = prog.block(); // the module's body
    /// builtin::parameter(&mut Builder::at_block_end(&mut prog, top), "w", t).unwrap();
    /// assert_eq!(prog.block_len(top), 1);
    /// let region = prog.block_parent(top).unwrap();
    /// assert_eq!(prog.region_parent(region), Some(prog.module_op()));
    /// ```
    BlockId, "block", "a block"
);
handle!(
    /// A region.
    ///
    /// ```
    /// # use pir_runtime::{Builder, IrContext, OpDef, Program};
    /// static LOOP: OpDef = OpDef::new("toy.loop", "toy");
    /// let ctx = IrContext::new();
    /// let mut prog = Program::new(&ctx);
    /// let mut b = Builder::at_end(&mut prog);
    /// let op = b.create_with(&LOOP, &[], ctx.empty_dict(), &[], 2).unwrap();
    /// let body = prog.op(op).region(1);
    /// let block = prog.add_block(body);
    /// assert_eq!(prog.region_blocks(body), [block]);
    /// assert_eq!(prog.region_parent(body), Some(op));
    /// ```
    RegionId, "region", "a region"
);
handle!(
    /// One operand slot of one operation (a use of a value).
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// builtin::combine(&mut b, &[x, x]).unwrap();
    /// let slots: Vec<_> = prog.uses(x).map(|u| u.id).collect();
    /// assert_eq!(slots.len(), 2);
    /// assert_ne!(slots[0], slots[1]); // one slot per use
    /// ```
    OperandId, "use", "an operand"
);

// A handle is its index and its program's identity; the arenas store the index alone.
static_assertions::assert_eq_size!(Option<Value>, u64);
static_assertions::assert_eq_size!(OpId, u64);

/// A parameter of a program (`Parameter { bytes, type, is_mutable }` of the seeds).
///
/// ```
/// use pir_runtime::{IrContext, Parameter, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let ty = ctx.dense_tensor_type(DataType::UInt8, &[2]);
/// prog.set_parameter("w", Parameter { bytes: vec![1, 2], ty, is_mutable: false });
/// assert_eq!(prog.parameter("w").unwrap().bytes, [1, 2]);
/// ```
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
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, ValueDef, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// # let mut b = Builder::at_end(&mut prog);
/// let x = builtin::parameter(&mut b, "x", t).unwrap();
/// let v = builtin::combine(&mut b, &[x, x]).unwrap();
/// let parts = builtin::split(&mut b, v).unwrap();
/// let split = prog.defining_op(parts[1]).unwrap();
/// assert_eq!(prog.value_def(parts[1]), ValueDef::OpResult { op: split, index: 1 });
/// ```
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
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// # let mut b = Builder::at_end(&mut prog);
/// let x = builtin::parameter(&mut b, "x", t).unwrap();
/// let y = builtin::parameter(&mut b, "y", t).unwrap();
/// let v = builtin::combine(&mut b, &[y, x]).unwrap();
/// let u = prog.uses(x).next().unwrap();
/// assert_eq!((Some(u.op), u.index), (prog.defining_op(v), 1));
/// ```
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
///
/// ```
/// # use pir_runtime::{builtin, Builder, InsertPoint, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// let block = prog.block();
/// let mut b = Builder::new(&mut prog, InsertPoint::BlockStart(block));
/// let a = builtin::parameter(&mut b, "a", t).unwrap();
/// let c = builtin::parameter(&mut b, "c", t).unwrap(); // after `a`: creation order is kept
/// let a_op = b.program().defining_op(a).unwrap();
/// b.set_insertion_point(InsertPoint::After(a_op));
/// let m = builtin::parameter(&mut b, "m", t).unwrap();
/// let order: Vec<_> = prog.block_ops(block).collect();
/// assert_eq!(order, [a, m, c].map(|v| prog.defining_op(v).unwrap()));
/// ```
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
    value: Option<Ix>,
    owner: u32,
    next_use: u32,
    prev_use: u32,
}

/// A value: its type, the head of its use list, and its defining op (or, with
/// `BLOCK_ARG_TAG`, its block). A result's index is its distance from the op's first result; a
/// block argument's is kept in `Program::arg_index`.
#[derive(Clone, Copy)]
struct ValueData {
    /// The type's index word (the context's identity is the program's).
    ty: Option<NonZeroU32>,
    first_use: u32,
    owner: u32,
}

/// `OpData::flags`: the op was not erased.
const ALIVE: u8 = 1;
/// `OpData::flags`: the op has regions, or more operands or results than the `u16` counts
/// hold; its counts are in `Program::extra`.
const EXTRA: u8 = 2;

/// One op, in 32 bytes: the op's definition (an index into `Program::defs`), attributes, place
/// in its block, and where its operands and results start. Ops with regions or huge operand
/// lists keep their counts in `Program::extra`.
#[derive(Clone, Copy)]
struct OpData {
    def: u16,
    flags: u8,
    /// The attribute dictionary's index word (the context's identity is the program's).
    attrs: NonZeroU32,
    parent: Option<Ix>,
    prev: Option<Ix>,
    next: Option<Ix>,
    operands_start: u32,
    results_start: u32,
    num_operands: u16,
    num_results: u16,
}

/// The counts of an op flagged `EXTRA`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct OpExtra {
    num_operands: u32,
    num_results: u32,
    regions_start: u32,
    num_regions: u32,
}

/// An op as the printer reads it ([`Program::op_parts`]).
pub(crate) struct OpParts<'a> {
    pub(crate) def: &'static OpDef,
    pub(crate) attrs: Attribute,
    operands: &'a [OperandData],
    /// The program's values (operand and result types are read here).
    values: &'a [ValueData],
    results_start: u32,
    pub(crate) num_results: u32,
    pub(crate) num_regions: u32,
    pub(crate) next: Option<OpId>,
    prog: u32,
}

impl OpParts<'_> {
    pub(crate) fn num_operands(&self) -> usize {
        self.operands.len()
    }

    /// The index word of operand `i`'s type; 0 for a null value or a null type.
    #[inline]
    pub(crate) fn operand_type_word(&self, i: usize) -> u32 {
        self.operands[i]
            .value
            .and_then(|v| self.values[v.get() as usize].ty)
            .map_or(0, NonZeroU32::get)
    }

    /// The index word of result `i`'s type; 0 for a null type.
    #[inline]
    pub(crate) fn result_type_word(&self, i: u32) -> u32 {
        self.values[(self.results_start + i) as usize]
            .ty
            .map_or(0, NonZeroU32::get)
    }

    #[inline]
    pub(crate) fn operand(&self, i: usize) -> Option<Value> {
        self.operands[i]
            .value
            .map(|ix| Value::from_ix(ix, self.prog))
    }

    #[inline]
    pub(crate) fn result(&self, i: u32) -> Value {
        Value::new((self.results_start + i) as usize, self.prog)
    }
}

/// What the verifier reads of an op, in one look ([`Program::op_slots`]): its operand and
/// result slots as stored (4-byte indices), read without re-checking handles, since the
/// program gave them out.
pub(crate) struct OpSlots<'a> {
    operands: &'a [OperandData],
    results: &'a [ValueData],
    values: &'a [ValueData],
    ctx_id: u32,
    prog: u32,
    results_start: u32,
    pub(crate) num_regions: u32,
    next: Option<Ix>,
}

impl<'a> OpSlots<'a> {
    #[inline(always)]
    pub(crate) fn num_operands(&self) -> usize {
        self.operands.len()
    }

    #[inline(always)]
    pub(crate) fn num_results(&self) -> usize {
        self.results.len()
    }

    /// Whether operand `i` (in range) is the null value.
    #[inline(always)]
    pub(crate) fn operand_is_null(&self, i: usize) -> bool {
        self.operands[i].value.is_none()
    }

    /// The operands' value indices (`None`: the null value).
    #[inline(always)]
    pub(crate) fn operand_indices(&self) -> impl ExactSizeIterator<Item = Option<usize>> + 'a {
        self.operands
            .iter()
            .map(|o| o.value.map(|v| v.get() as usize))
    }

    /// Operand `i`'s value (in range).
    #[inline]
    pub(crate) fn operand(&self, i: usize) -> Option<Value> {
        self.operands[i].value.map(|v| Value::from_ix(v, self.prog))
    }

    /// The operands' types (`None`: a null value or a null type).
    #[inline(always)]
    pub(crate) fn operand_types(&self) -> impl ExactSizeIterator<Item = Option<Type>> + 'a {
        let (values, ctx) = (self.values, self.ctx_id);
        self.operands.iter().map(move |o| {
            o.value
                .and_then(|v| values[v.get() as usize].ty)
                .map(|b| Type::from_bits(b, ctx))
        })
    }

    /// The results' types.
    #[inline(always)]
    pub(crate) fn result_types(&self) -> impl ExactSizeIterator<Item = Option<Type>> + 'a {
        let ctx = self.ctx_id;
        self.results
            .iter()
            .map(move |v| v.ty.map(|b| Type::from_bits(b, ctx)))
    }

    /// The results' value indices.
    #[inline(always)]
    pub(crate) fn result_indices(&self) -> std::ops::Range<usize> {
        let s = self.results_start as usize;
        s..s + self.results.len()
    }

    /// The next op in the block.
    #[inline(always)]
    pub(crate) fn next(&self) -> Option<OpId> {
        self.next.map(|ix| OpId::from_ix(ix, self.prog))
    }
}

/// Where an op's operands, results and regions are.
#[derive(Clone, Copy)]
struct OpShape {
    operands_start: u32,
    num_operands: u32,
    results_start: u32,
    num_results: u32,
    regions_start: u32,
    num_regions: u32,
}

static_assertions::const_assert!(std::mem::size_of::<OperandData>() == 16);
static_assertions::const_assert!(std::mem::size_of::<ValueData>() == 12);
static_assertions::const_assert!(std::mem::size_of::<OpData>() == 32);

#[derive(Clone, Default)]
struct BlockData {
    parent: Option<RegionId>,
    first: Option<Ix>,
    last: Option<Ix>,
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
///
/// ```
/// use pir_runtime::{builtin, InsertPoint, IrContext, OperationArgs, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let args = OperationArgs {
///     def: &builtin::PARAMETER_DEF,
///     operands: &[],
///     attributes: ctx.dict_attr(&[("parameter_name", ctx.str_attr("w"))]),
///     result_types: &[Some(ctx.dense_tensor_type(DataType::Float32, &[2]))],
///     num_regions: 0,
/// };
/// let op = prog.create_op_at(args, InsertPoint::BlockEnd(prog.block())).unwrap();
/// assert_eq!(prog.op(op).num_results(), 1);
/// ```
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
///
/// ```
/// use pir_runtime::{builtin, verify, Builder, IrContext, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// let mut b = Builder::at_end(&mut prog);
/// let x = builtin::parameter(&mut b, "x", t).unwrap();
/// builtin::shadow_output(&mut b, x, "out").unwrap();
/// verify(&prog).unwrap();
/// assert_eq!(prog.num_ops(), 3); // the module, the parameter, the shadow_output
/// assert_eq!(prog.use_count(x), 1);
/// assert!(prog.to_string().starts_with("{\n    (%0) = \"builtin.parameter\""));
/// ```
pub struct Program {
    ctx: Arc<IrContext>,
    /// This program's identity, in every handle it gives out.
    id: u32,
    /// The context's identity, in every type and attribute handle.
    ctx_id: u32,
    ops: Vec<OpData>,
    operands: Vec<OperandData>,
    values: Vec<ValueData>,
    blocks: Vec<BlockData>,
    regions: Vec<RegionData>,
    module: OpId,
    parameters: BTreeMap<String, Parameter>,
    /// The definitions of the program's ops (`OpData::def` indexes it), and their indices.
    defs: Vec<&'static OpDef>,
    def_index: rustc_hash::FxHashMap<usize, u16>,
    /// The counts of ops flagged `EXTRA`, by op index.
    extra: rustc_hash::FxHashMap<u32, OpExtra>,
    /// The index of each block argument, by value index.
    arg_index: rustc_hash::FxHashMap<u32, u32>,
    /// Attribute dictionaries of recent typed builds.
    pub(crate) attr_memo: crate::op_support::AttrMemo,
    /// The bitwise OR of every type handle stored (and of attribute dictionaries set with
    /// `set_attributes`), an upper bound of their indices: `verify` checks them one by one
    /// only when it exceeds the context's count. (Dictionaries given at creation are not
    /// included: one more load and store per op costs the creation benchmark over 5%.)
    handle_bits: checks::HandleBits,
}

impl Program {
    /// An empty program (a `builtin.module` with one empty block) in `ctx`.
    ///
    /// ```
    /// use pir_runtime::{IrContext, Program};
    /// let ctx = IrContext::new();
    /// let prog = Program::new(&ctx);
    /// assert_eq!(prog.num_ops(), 1); // just the builtin.module
    /// assert_eq!(prog.block_len(prog.block()), 0);
    /// assert_eq!(prog.to_string(), "{\n}\n");
    /// ```
    pub fn new(ctx: &Arc<IrContext>) -> Program {
        Program::with_capacity(ctx, 0)
    }

    /// An empty program with room for `ops` single-result, single-operand ops.
    ///
    /// ```
    /// use pir_runtime::{IrContext, Program};
    /// let ctx = IrContext::new();
    /// let small = Program::new(&ctx);
    /// let big = Program::with_capacity(&ctx, 10_000);
    /// assert!(big.storage_bytes() > small.storage_bytes());
    /// assert_eq!(big.num_ops(), 1);
    /// ```
    pub fn with_capacity(ctx: &Arc<IrContext>, ops: usize) -> Program {
        let placeholder_op = OpData {
            def: 0,
            flags: 0,
            attrs: ctx.empty_dict().bits(),
            parent: None,
            prev: None,
            next: None,
            operands_start: 0,
            results_start: 0,
            num_operands: 0,
            num_results: 0,
        };
        let id = next_program_id();
        let mut p = Program {
            ctx: ctx.clone(),
            id,
            ctx_id: ctx.id(),
            ops: Vec::with_capacity(ops + 2),
            operands: Vec::with_capacity(ops + 1),
            values: Vec::with_capacity(ops + 1),
            blocks: vec![BlockData::default()],
            regions: vec![RegionData::default()],
            module: OpId::new(1, id),
            parameters: BTreeMap::new(),
            defs: Vec::new(),
            def_index: Default::default(),
            extra: Default::default(),
            arg_index: Default::default(),
            attr_memo: Default::default(),
            handle_bits: Default::default(),
        };
        p.def_id(&crate::builtin::MODULE_DEF);
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
        });
        let module = p
            .push_op(&OperationArgs {
                def: &crate::builtin::MODULE_DEF,
                operands: &[],
                attributes: ctx.empty_dict(),
                result_types: &[],
                num_regions: 1,
            })
            .expect("the module op has nothing foreign");
        p.module = module;
        let region = p.op(module).region(0);
        p.add_block(region);
        p
    }

    /// The context.
    ///
    /// ```
    /// use pir_runtime::{IrContext, Program};
    /// let ctx = IrContext::new();
    /// let prog = Program::new(&ctx);
    /// assert!(std::sync::Arc::ptr_eq(prog.ctx(), &ctx));
    /// ```
    #[inline]
    pub fn ctx(&self) -> &Arc<IrContext> {
        &self.ctx
    }

    /// The `builtin.module` op.
    ///
    /// ```
    /// use pir_runtime::{IrContext, Program};
    /// let ctx = IrContext::new();
    /// let prog = Program::new(&ctx);
    /// let m = prog.op(prog.module_op());
    /// assert_eq!((m.name(), m.num_regions()), ("builtin.module", 1));
    /// assert_eq!(m.parent_block(), None);
    /// ```
    pub fn module_op(&self) -> OpId {
        self.module
    }

    /// The top-level block (the module's body).
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op = prog.defining_op(x).unwrap();
    /// assert_eq!(prog.op(op).parent_block(), Some(prog.block()));
    /// assert_eq!(prog.first_op(prog.block()), Some(op));
    /// ```
    pub fn block(&self) -> BlockId {
        self.regions[self.shape(self.module).regions_start as usize].blocks[0]
    }

    /// Where `op`'s operands, results and regions are.
    #[inline(always)]
    fn shape(&self, op: OpId) -> OpShape {
        let d = &self.ops[op.index()];
        if d.flags & EXTRA == 0 {
            OpShape {
                operands_start: d.operands_start,
                num_operands: u32::from(d.num_operands),
                results_start: d.results_start,
                num_results: u32::from(d.num_results),
                regions_start: 0,
                num_regions: 0,
            }
        } else {
            self.extra_shape(op)
        }
    }

    #[cold]
    #[inline(never)]
    fn extra_shape(&self, op: OpId) -> OpShape {
        let d = &self.ops[op.index()];
        let e = self.extra[&(op.index() as u32)];
        OpShape {
            operands_start: d.operands_start,
            num_operands: e.num_operands,
            results_start: d.results_start,
            num_results: e.num_results,
            regions_start: e.regions_start,
            num_regions: e.num_regions,
        }
    }

    /// What the verifier reads of `op`, a handle this program gave out, in one look.
    #[inline(always)]
    pub(crate) fn op_slots(&self, op: OpId) -> OpSlots<'_> {
        debug_assert!(self.owns(op));
        let d = &self.ops[op.index()];
        let sh = self.shape(op);
        let (o, r) = (sh.operands_start as usize, sh.results_start as usize);
        OpSlots {
            operands: &self.operands[o..o + sh.num_operands as usize],
            results: &self.values[r..r + sh.num_results as usize],
            values: &self.values,
            ctx_id: self.ctx_id,
            prog: self.id,
            results_start: sh.results_start,
            num_regions: sh.num_regions,
            next: d.next,
        }
    }

    /// What the printer reads of `op`, in one look.
    #[inline]
    pub(crate) fn op_parts(&self, op: OpId) -> OpParts<'_> {
        let d = &self.ops[op.index()];
        let sh = self.shape(op);
        let s = sh.operands_start as usize;
        OpParts {
            def: self.def_of(d),
            attrs: Attribute::from_bits(d.attrs, self.ctx_id),
            operands: &self.operands[s..s + sh.num_operands as usize],
            values: &self.values,
            results_start: sh.results_start,
            num_results: sh.num_results,
            num_regions: sh.num_regions,
            next: self.op_h(d.next),
            prog: self.id,
        }
    }

    /// The definition of op data `d`.
    #[inline]
    fn def_of(&self, d: &OpData) -> &'static OpDef {
        self.defs[usize::from(d.def)]
    }

    /// A view of `op`, a handle this program gave out (its walks, the verifier, the printer):
    /// no identity check.
    #[inline(always)]
    pub(crate) fn op_own(&self, op: OpId) -> OpRef<'_> {
        debug_assert!(self.owns(op));
        OpRef { prog: self, id: op }
    }

    /// The type of `v`, a value this program gave out: no identity check.
    #[inline(always)]
    pub(crate) fn value_type_own(&self, v: Value) -> Option<Type> {
        debug_assert!(self.owns(v));
        self.type_h(self.values[v.index()].ty)
    }

    /// The op handle of a stored index.
    #[inline(always)]
    fn op_h(&self, ix: Option<Ix>) -> Option<OpId> {
        ix.map(|ix| OpId::from_ix(ix, self.id))
    }

    /// The type handle of a stored index word.
    #[inline(always)]
    fn type_h(&self, bits: Option<NonZeroU32>) -> Option<Type> {
        bits.map(|b| Type::from_bits(b, self.ctx_id))
    }

    /// The value handle of a stored index.
    #[inline(always)]
    fn value_h(&self, ix: Option<Ix>) -> Option<Value> {
        ix.map(|ix| Value::from_ix(ix, self.id))
    }

    /// The index of `def` in `defs`, adding it if new.
    #[inline(never)]
    fn def_id(&mut self, def: &'static OpDef) -> u16 {
        let key = def as *const OpDef as usize;
        match self.def_index.get(&key) {
            Some(&i) => i,
            None => {
                let i = u16::try_from(self.defs.len())
                    .expect("more than 65,536 distinct op definitions in one program");
                self.defs.push(def);
                self.def_index.insert(key, i);
                i
            }
        }
    }

    /// A read-only view of `op`.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "w", t).unwrap();
    /// let op = prog.op(prog.defining_op(x).unwrap());
    /// assert_eq!(op.name(), "builtin.parameter");
    /// assert_eq!(op.attr("parameter_name"), Some(ctx.str_attr("w")));
    /// assert_eq!(op.result_type(0), Some(t));
    /// ```
    #[inline]
    pub fn op(&self, op: OpId) -> OpRef<'_> {
        self.expect_own(op);
        OpRef { prog: self, id: op }
    }

    /// Whether `op` exists and was not erased.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op = prog.defining_op(x).unwrap();
    /// assert!(prog.is_alive(op));
    /// prog.erase_op(op).unwrap();
    /// assert!(!prog.is_alive(op));
    /// ```
    pub fn is_alive(&self, op: OpId) -> bool {
        self.owns(op) && self.ops[op.index()].flags & ALIVE != 0
    }

    /// Number of live operations, the module included.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// assert_eq!(prog.num_ops(), 2);
    /// prog.erase_op(prog.defining_op(x).unwrap()).unwrap();
    /// assert_eq!(prog.num_ops(), 1);
    /// ```
    pub fn num_ops(&self) -> usize {
        self.ops.iter().filter(|o| o.flags & ALIVE != 0).count()
    }

    // ----- parameters -------------------------------------------------------------------

    /// Sets (or replaces) parameter `name`.
    ///
    /// ```
    /// use pir_runtime::{IrContext, Parameter, Program, phi::DataType};
    /// let ctx = IrContext::new();
    /// let mut prog = Program::new(&ctx);
    /// let ty = ctx.dense_tensor_type(DataType::Float32, &[1]);
    /// prog.set_parameter("w", Parameter { bytes: vec![], ty, is_mutable: true });
    /// prog.set_parameter("w", Parameter { bytes: vec![0; 4], ty, is_mutable: false }); // replaces
    /// assert_eq!(prog.parameters().len(), 1);
    /// assert!(!prog.parameter("w").unwrap().is_mutable);
    /// ```
    pub fn set_parameter(&mut self, name: impl Into<String>, p: Parameter) {
        self.expect_type(Some(p.ty));
        self.parameters.insert(name.into(), p);
    }

    /// Parameter `name`.
    ///
    /// ```
    /// use pir_runtime::{IrContext, Parameter, Program, phi::DataType};
    /// let ctx = IrContext::new();
    /// let mut prog = Program::new(&ctx);
    /// let ty = ctx.dense_tensor_type(DataType::Float32, &[1]);
    /// prog.set_parameter("w", Parameter { bytes: vec![0; 4], ty, is_mutable: false });
    /// assert_eq!(prog.parameter("w").map(|p| p.ty), Some(ty));
    /// assert!(prog.parameter("b").is_none());
    /// ```
    pub fn parameter(&self, name: &str) -> Option<&Parameter> {
        self.parameters.get(name)
    }

    /// All parameters, by name.
    ///
    /// ```
    /// use pir_runtime::{IrContext, Parameter, Program, phi::DataType};
    /// let ctx = IrContext::new();
    /// let mut prog = Program::new(&ctx);
    /// let ty = ctx.dense_tensor_type(DataType::Float32, &[1]);
    /// for name in ["b", "a"] {
    ///     prog.set_parameter(name, Parameter { bytes: vec![], ty, is_mutable: false });
    /// }
    /// assert_eq!(prog.parameters().keys().collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    pub fn parameters(&self) -> &BTreeMap<String, Parameter> {
        &self.parameters
    }

    // ----- creation ---------------------------------------------------------------------

    /// Creates a detached operation (in no block); insert it with [`Program::insert_op`].
    ///
    /// ```
    /// use pir_runtime::{builtin, InsertPoint, IrContext, OperationArgs, Program};
    /// let ctx = IrContext::new();
    /// let mut prog = Program::new(&ctx);
    /// let attrs = ctx.dict_attr(&[("value", ctx.i64_attr(1))]);
    /// let i64_ = ctx.scalar_type(pir_runtime::phi::DataType::Int64);
    /// let op = prog.create_op(OperationArgs {
    ///     def: &builtin::CONSTANT_DEF, operands: &[], attributes: attrs,
    ///     result_types: &[Some(i64_)], num_regions: 0,
    /// }).unwrap();
    /// assert_eq!(prog.location(op), "detached");
    /// prog.insert_op(op, InsertPoint::BlockEnd(prog.block())).unwrap();
    /// assert_eq!(prog.location(op), "op 0 of block 0");
    /// ```
    ///
    /// # Errors
    ///
    /// [`IrError::Foreign`] if an operand is a value of another program.
    pub fn create_op(&mut self, args: OperationArgs<'_>) -> Result<OpId, IrError> {
        self.push_op(&args)
    }

    /// Creates an operation and inserts it at `at`, in one step.
    ///
    /// ```
    /// use pir_runtime::{builtin, InsertPoint, IrContext, OperationArgs, Program};
    /// let ctx = IrContext::new();
    /// let mut prog = Program::new(&ctx);
    /// let args = OperationArgs {
    ///     def: &builtin::CONSTANT_DEF, operands: &[],
    ///     attributes: ctx.dict_attr(&[("value", ctx.bool_attr(true))]),
    ///     result_types: &[Some(ctx.scalar_type(pir_runtime::phi::DataType::Bool))], num_regions: 0,
    /// };
    /// let a = prog.create_op_at(args, InsertPoint::BlockEnd(prog.block())).unwrap();
    /// let b = prog.create_op_at(args, InsertPoint::Before(a)).unwrap();
    /// assert_eq!(prog.block_ops(prog.block()).collect::<Vec<_>>(), [b, a]);
    /// ```
    ///
    /// # Errors
    ///
    /// [`IrError::Foreign`] if an operand or the insertion point's block or op is of another
    /// program; the errors of [`insert_op`](Self::insert_op).
    // Appending folds with the caller's argument slices (one operand, ...). Forced only in
    // optimised builds: in debug builds it would copy the append path into every caller.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn create_op_at(
        &mut self,
        args: OperationArgs<'_>,
        at: InsertPoint,
    ) -> Result<OpId, IrError> {
        match at {
            InsertPoint::BlockEnd(b) => self.append_op(args, b),
            _ => self.create_op_elsewhere(args, at),
        }
    }

    /// [`create_op_at`](Self::create_op_at) at the end of block `b`: the common case (builders
    /// appending). The block's identity is checked once, then the op is pushed and linked as
    /// its last op by stored indices.
    #[inline(always)]
    fn append_op(&mut self, args: OperationArgs<'_>, b: BlockId) -> Result<OpId, IrError> {
        self.check_own(b)?;
        let bi = b.index();
        let prev = self.blocks[bi].last;
        let (ix, foreign) = self.push_raw(args, Some(b.ix()), prev, None);
        if foreign {
            return Err(self.undo_foreign(ix, args));
        }
        match prev {
            Some(p) => self.ops[p.get() as usize].next = Some(ix),
            None => self.blocks[bi].first = Some(ix),
        }
        let data = &mut self.blocks[bi];
        data.last = Some(ix);
        data.len += 1;
        Ok(OpId::from_ix(ix, self.id))
    }

    /// [`create_op_at`](Self::create_op_at) before or after an op, or at a block's start.
    #[inline(never)]
    fn create_op_elsewhere(
        &mut self,
        args: OperationArgs<'_>,
        at: InsertPoint,
    ) -> Result<OpId, IrError> {
        let op = self.push_op(&args)?;
        if let Err(e) = self.insert_op(op, at) {
            // A refused insertion point creates nothing (the op would stay alive, detached).
            self.erase_one(op);
            return Err(e);
        }
        Ok(op)
    }

    /// Creates a detached op: [`push_raw`](Self::push_raw), undone if something is foreign.
    fn push_op(&mut self, args: &OperationArgs<'_>) -> Result<OpId, IrError> {
        let (ix, foreign) = self.push_raw(*args, None, None, None);
        if foreign {
            return Err(self.undo_foreign(ix, *args));
        }
        Ok(OpId::from_ix(ix, self.id))
    }

    /// Pushes an op whose block links are `parent`, `prev` and `next` (the caller links its
    /// neighbours). Returns its index and whether an operand, result type or the dictionary
    /// is of another program or context: then nothing foreign was linked, and the caller
    /// undoes the op ([`undo_foreign`](Self::undo_foreign)). The checks are a compare where
    /// each handle is read anyway; the work is on stored 4-byte indices.
    #[inline(always)]
    fn push_raw(
        &mut self,
        args: OperationArgs<'_>,
        parent: Option<Ix>,
        prev: Option<Ix>,
        next: Option<Ix>,
    ) -> (Ix, bool) {
        // By value, and its fields read as locals: where this is inlined, the slices' lengths
        // fold with the caller's (one operand, one result, ...) and the loops with them.
        let OperationArgs {
            def: op_def,
            operands,
            attributes,
            result_types,
            num_regions,
        } = args;
        let ix = Ix::new(u32::try_from(self.ops.len()).expect("arena overflow"))
            .expect("index 0 is reserved");
        let mut foreign = attributes.ctx_id() != self.ctx_id;
        let operands_start = self.operands.len() as u32;
        let results_start = self.values.len() as u32;
        let def = match self.defs.last() {
            // Programs are mostly built op after op of one kind at a time.
            Some(&last) if std::ptr::eq(last, op_def) => (self.defs.len() - 1) as u16,
            _ => self.def_id(op_def),
        };
        // Ops with regions or counts past `u16` keep their counts in `extra` (out of line).
        let (flags, num_operands, num_results) = match (
            u16::try_from(operands.len()),
            u16::try_from(result_types.len()),
        ) {
            (Ok(o), Ok(r)) if num_regions == 0 => (ALIVE, o, r),
            _ => (ALIVE | EXTRA, 0, 0),
        };
        self.ops.push(OpData {
            def,
            flags,
            attrs: attributes.bits(),
            parent,
            prev,
            next,
            operands_start,
            results_start,
            num_operands,
            num_results,
        });
        if flags & EXTRA != 0 {
            self.push_extra(ix, args);
        }
        let owner = ix.get();
        let id = self.id;
        for (i, &v) in operands.iter().enumerate() {
            let slot = operands_start + i as u32;
            let mut o = OperandData {
                value: None,
                owner,
                next_use: NO_LINK,
                prev_use: NO_LINK,
            };
            if let Some(v) = v {
                // A value of another program is never linked, whatever its index.
                if v.prog == id {
                    // Link at the head of v's use list.
                    let value = &mut self.values[v.index()];
                    let head = value.first_use;
                    value.first_use = slot;
                    o.value = Some(v.ix());
                    o.next_use = head;
                    if head != NO_LINK {
                        self.operands[head as usize].prev_use = slot;
                    }
                } else {
                    foreign = true;
                }
            }
            self.operands.push(o);
        }
        let mut bits = 0;
        let mut other_ctx = 0;
        for &ty in result_types {
            if let Some(t) = ty {
                bits |= t.raw();
                other_ctx |= t.ctx_id() ^ self.ctx_id;
            }
            self.values.push(ValueData {
                ty: ty.map(Type::bits),
                first_use: NO_LINK,
                owner,
            });
        }
        self.handle_bits.add(bits, 0);
        (ix, foreign | (other_ctx != 0))
    }

    /// Records the counts of op `ix`, just pushed flagged `EXTRA` (regions or counts past
    /// `u16`), and pushes its empty regions.
    #[inline(never)]
    // `args` by value, as everywhere on the append path: a reference would keep the caller's
    // arguments in memory, and their slice lengths would not fold.
    fn push_extra(&mut self, ix: Ix, args: OperationArgs<'_>) {
        let num_regions = u32::try_from(args.num_regions).expect("region count overflow");
        self.extra.insert(
            ix.get(),
            OpExtra {
                num_operands: u32::try_from(args.operands.len()).expect("operand count overflow"),
                num_results: u32::try_from(args.result_types.len()).expect("result count overflow"),
                regions_start: self.regions.len() as u32,
                num_regions,
            },
        );
        let id = OpId::from_ix(ix, self.id);
        for _ in 0..num_regions {
            self.regions.push(RegionData {
                parent: Some(id),
                blocks: Vec::new(),
            });
        }
    }

    /// Adds an empty block at the end of `region`.
    ///
    /// ```
    /// use pir_runtime::{Builder, IrContext, OpDef, Program, phi::DataType};
    /// static WHILE: OpDef = OpDef::new("toy.while", "toy");
    /// let ctx = IrContext::new();
    /// let mut prog = Program::new(&ctx);
    /// let op = Builder::at_end(&mut prog).create_with(&WHILE, &[], ctx.empty_dict(), &[], 1).unwrap();
    /// let region = prog.op(op).region(0);
    /// let body = prog.add_block(region);
    /// let i = prog.add_block_arg(body, Some(ctx.scalar_type(DataType::Int64)));
    /// assert_eq!(prog.block_args(body), [i]);
    /// assert_eq!(prog.block_parent(body), Some(region));
    /// ```
    pub fn add_block(&mut self, region: RegionId) -> BlockId {
        self.expect_own(region);
        let b = BlockId::new(self.blocks.len(), self.id);
        self.blocks.push(BlockData {
            parent: Some(region),
            ..BlockData::default()
        });
        self.regions[region.index()].blocks.push(b);
        b
    }

    /// Adds an argument of type `ty` to `block`.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, OpDef, Program, phi::DataType};
    /// # static FUNC: OpDef = OpDef::new("toy.func", "toy");
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let f = Builder::at_end(&mut prog).create_with(&FUNC, &[], ctx.empty_dict(), &[], 1).unwrap();
    /// let body = prog.add_block(prog.op(f).region(0));
    /// let arg = prog.add_block_arg(body, Some(t));
    /// builtin::shadow_output(&mut Builder::at_block_end(&mut prog, body), arg, "y").unwrap();
    /// assert_eq!(prog.defining_op(arg), None); // a block argument has no defining op
    /// assert_eq!(prog.use_count(arg), 1);
    /// assert!(prog.to_string().contains("(%arg_0 {})"));
    /// ```
    pub fn add_block_arg(&mut self, block: BlockId, ty: Option<Type>) -> Value {
        self.expect_own(block);
        self.expect_type(ty);
        let v = Value::new(self.values.len(), self.id);
        let index = self.blocks[block.index()].args.len() as u32;
        self.values.push(ValueData {
            ty: ty.map(Type::bits),
            first_use: NO_LINK,
            owner: block.ix.get() | BLOCK_ARG_TAG,
        });
        self.handle_bits.add(ty.map_or(0, Type::raw), 0);
        self.arg_index.insert(v.ix.get(), index);
        let data = &mut self.blocks[block.index()];
        data.args.push(v);
        data.arg_attrs.push(None);
        v
    }

    /// Sets the attribute dictionary of block argument `index` of `block`.
    ///
    /// ```
    /// # use pir_runtime::{IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// let block = prog.block();
    /// prog.add_block_arg(block, Some(ctx.scalar_type(DataType::Int32)));
    /// let attrs = ctx.dict_attr(&[("name", ctx.str_attr("n"))]);
    /// prog.set_block_arg_attrs(block, 0, attrs);
    /// assert_eq!(prog.block_arg_attrs(block, 0), Some(attrs));
    /// ```
    pub fn set_block_arg_attrs(&mut self, block: BlockId, index: usize, attrs: Attribute) {
        self.expect_own(block);
        self.expect_attr(attrs);
        if let Some(slot) = self.blocks[block.index()].arg_attrs.get_mut(index) {
            *slot = Some(attrs);
        }
    }

    /// Inserts a detached op at `at`.
    ///
    /// ```
    /// use pir_runtime::{builtin, InsertPoint, IrContext, IrError, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut pir_runtime::Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op = prog.defining_op(x).unwrap();
    /// let err = prog.insert_op(op, InsertPoint::BlockStart(prog.block())).unwrap_err();
    /// assert!(matches!(err, IrError::AlreadyInBlock(_)));
    /// prog.detach_op(op).unwrap();
    /// prog.insert_op(op, InsertPoint::BlockStart(prog.block())).unwrap();
    /// ```
    pub fn insert_op(&mut self, op: OpId, at: InsertPoint) -> Result<(), IrError> {
        self.check_alive(op)?;
        if self.ops[op.index()].parent.is_some() {
            return Err(IrError::AlreadyInBlock(self.describe(op)));
        }
        let (block, prev, next) = match at {
            InsertPoint::BlockStart(b) => (b, None, self.op_h(self.block_data(b)?.first)),
            InsertPoint::BlockEnd(b) => (b, self.op_h(self.block_data(b)?.last), None),
            InsertPoint::Before(o) | InsertPoint::After(o) => {
                if o == op {
                    return Err(IrError::SelfInsert(self.describe(op)));
                }
                self.check_alive(o)?;
                let d = self.ops[o.index()];
                let b = d
                    .parent
                    .ok_or_else(|| IrError::NotInBlock(self.describe(o)))?;
                let b = BlockId::from_ix(b, self.id);
                if matches!(at, InsertPoint::Before(_)) {
                    (b, self.op_h(d.prev), Some(o))
                } else {
                    (b, Some(o), self.op_h(d.next))
                }
            }
        };
        self.check_not_inside(op, block)?;
        let d = &mut self.ops[op.index()];
        d.parent = Some(block.ix());
        d.prev = prev.map(OpId::ix);
        d.next = next.map(OpId::ix);
        match prev {
            Some(p) => self.ops[p.index()].next = Some(op.ix()),
            None => self.blocks[block.index()].first = Some(op.ix()),
        }
        match next {
            Some(n) => self.ops[n.index()].prev = Some(op.ix()),
            None => self.blocks[block.index()].last = Some(op.ix()),
        }
        self.blocks[block.index()].len += 1;
        Ok(())
    }

    /// Removes `op` from its block without erasing it (it can be inserted elsewhere).
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, InsertPoint, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let y = builtin::parameter(&mut b, "y", t).unwrap();
    /// let (xo, yo) = (prog.defining_op(x).unwrap(), prog.defining_op(y).unwrap());
    /// prog.detach_op(yo).unwrap(); // still alive, just in no block
    /// assert_eq!((prog.block_len(prog.block()), prog.is_alive(yo)), (1, true));
    /// prog.insert_op(yo, InsertPoint::Before(xo)).unwrap(); // moved first
    /// assert_eq!(prog.first_op(prog.block()), Some(yo));
    /// ```
    pub fn detach_op(&mut self, op: OpId) -> Result<(), IrError> {
        self.check_alive(op)?;
        let block = self.ops[op.index()]
            .parent
            .ok_or_else(|| IrError::NotInBlock(self.describe(op)))?;
        self.unlink_from_block(op, BlockId::from_ix(block, self.id));
        Ok(())
    }

    /// Takes `op` out of its block's op list (`block` is its parent).
    fn unlink_from_block(&mut self, op: OpId, block: BlockId) {
        self.unlink_ix(op.index(), self.ops[op.index()], block.index());
    }

    /// Unlinks the op at index `i` (data `d`) from block index `b`: stored indices only.
    #[inline(always)]
    fn unlink_ix(&mut self, i: usize, d: OpData, b: usize) {
        let block = b;
        match d.prev {
            Some(p) => self.ops[p.get() as usize].next = d.next,
            None => self.blocks[block].first = d.next,
        }
        match d.next {
            Some(n) => self.ops[n.get() as usize].prev = d.prev,
            None => self.blocks[block].last = d.prev,
        }
        self.blocks[block].len -= 1;
        let d = &mut self.ops[i];
        d.parent = None;
        d.prev = None;
        d.next = None;
    }

    /// Erases `op` (and the ops nested in its regions). Fails, changing nothing, if a result of
    /// `op` or of a nested op is still used outside the erased ops.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, IrError, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// builtin::shadow_output(&mut b, x, "out").unwrap();
    /// let p = prog.defining_op(x).unwrap();
    /// let err = prog.erase_op(p).unwrap_err();
    /// assert!(matches!(err, IrError::ResultInUse { uses: 1, .. }));
    /// assert_eq!(err.to_string(), "cannot erase builtin.parameter (op 0 of block 0): \
    ///     its result 0 still has 1 use(s), the first by builtin.shadow_output (op 1 of block 0)");
    /// let out = prog.last_op(prog.block()).unwrap();
    /// prog.erase_op(out).unwrap();
    /// prog.erase_op(p).unwrap(); // now unused
    /// assert_eq!(prog.num_ops(), 1);
    /// ```
    pub fn erase_op(&mut self, op: OpId) -> Result<(), IrError> {
        self.check_alive(op)?;
        // `op` is this program's (checked once above): the common op (no regions, small
        // counts) is erased by its stored index, reading its data once.
        let data = self.ops[op.index()];
        if data.flags & EXTRA == 0 {
            let rs = data.results_start as usize;
            let results = rs..rs + usize::from(data.num_results);
            if self.values[results].iter().any(|v| v.first_use != NO_LINK) {
                // A use by the op itself goes with it.
                self.check_unused(op, |user| user == op)?;
            }
            self.erase_plain(op.index(), data);
            return Ok(());
        }
        let d = self.shape(op);
        if d.num_regions == 0 {
            let results = d.results_start as usize..(d.results_start + d.num_results) as usize;
            if self.values[results].iter().any(|v| v.first_use != NO_LINK) {
                // A use by the op itself goes with it.
                self.check_unused(op, |user| user == op)?;
            }
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
        let d = self.shape(op);
        for r in 0..d.num_results {
            let v = Value::new((d.results_start + r) as usize, self.id);
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

    /// Erases the op at index `i`, whose data is `d` and whose counts are inline (no `EXTRA`).
    #[inline(always)]
    fn erase_plain(&mut self, i: usize, d: OpData) {
        if let Some(block) = d.parent {
            self.unlink_ix(i, d, block.get() as usize);
        }
        let s = d.operands_start;
        for slot in s..s + u32::from(d.num_operands) {
            self.unlink_use(slot);
        }
        self.ops[i].flags &= !ALIVE;
    }

    fn erase_one(&mut self, op: OpId) {
        if let Some(block) = self.ops[op.index()].parent {
            self.unlink_from_block(op, BlockId::from_ix(block, self.id));
        }
        let d = self.shape(op);
        for slot in d.operands_start..d.operands_start + d.num_operands {
            self.unlink_use(slot);
        }
        self.ops[op.index()].flags &= !ALIVE;
    }

    // ----- operands and uses --------------------------------------------------------------

    fn link_use(&mut self, slot: u32, v: Value) {
        let head = self.values[v.index()].first_use;
        let o = &mut self.operands[slot as usize];
        o.value = Some(v.ix());
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
            self.values[v.get() as usize].first_use = o.next_use;
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
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let y = builtin::parameter(&mut b, "y", t).unwrap();
    /// builtin::shadow_output(&mut b, x, "out").unwrap();
    /// let out = prog.last_op(prog.block()).unwrap();
    /// prog.set_operand(out, 0, Some(y)).unwrap();
    /// assert_eq!((prog.use_count(x), prog.use_count(y)), (0, 1));
    /// assert!(prog.set_operand(out, 1, Some(y)).is_err()); // it has one operand
    /// ```
    pub fn set_operand(
        &mut self,
        op: OpId,
        index: usize,
        value: Option<Value>,
    ) -> Result<(), IrError> {
        self.check_alive(op)?;
        let d = self.shape(op);
        if index >= d.num_operands as usize {
            return Err(IrError::IndexOutOfRange {
                op: self.describe(op),
                what: "operand",
                index,
                count: d.num_operands as usize,
            });
        }
        if let Some(v) = value {
            self.check_own(v)?;
        }
        let slot = d.operands_start + index as u32;
        self.unlink_use(slot);
        if let Some(v) = value {
            self.link_use(slot, v);
        }
        Ok(())
    }

    /// The uses of `value`, most recent first.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// builtin::shadow_output(&mut b, x, "a").unwrap();
    /// builtin::combine(&mut b, &[x, x]).unwrap();
    /// let users: Vec<_> = prog.uses(x).map(|u| (prog.op(u.op).name(), u.index)).collect();
    /// assert_eq!(users.len(), 3);
    /// assert!(users.contains(&("builtin.combine", 1)));
    /// assert!(users.contains(&("builtin.shadow_output", 0)));
    /// ```
    pub fn uses(&self, value: Value) -> Uses<'_> {
        self.expect_own(value);
        Uses {
            prog: self,
            next: self.values[value.index()].first_use,
        }
    }

    /// Number of uses of `value` (walks the use list).
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// assert_eq!(b.program().use_count(x), 0);
    /// builtin::combine(&mut b, &[x, x, x]).unwrap();
    /// assert_eq!(prog.use_count(x), 3);
    /// ```
    pub fn use_count(&self, value: Value) -> usize {
        self.uses(value).count()
    }

    /// Whether `value` has any use.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// assert!(!b.program().has_uses(x));
    /// builtin::shadow_output(&mut b, x, "out").unwrap();
    /// assert!(prog.has_uses(x));
    /// ```
    pub fn has_uses(&self, value: Value) -> bool {
        self.expect_own(value);
        self.values[value.index()].first_use != NO_LINK
    }

    /// Redirects every use of `old` to `new`. O(uses of `old`).
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let y = builtin::parameter(&mut b, "y", t).unwrap();
    /// builtin::combine(&mut b, &[x, y, x]).unwrap();
    /// prog.replace_all_uses_with(x, y);
    /// assert_eq!((prog.use_count(x), prog.use_count(y)), (0, 3));
    /// let combine = prog.last_op(prog.block()).unwrap();
    /// assert!(prog.op(combine).operands().all(|v| v == Some(y)));
    /// prog.erase_op(prog.defining_op(x).unwrap()).unwrap(); // x is dead now
    /// ```
    pub fn replace_all_uses_with(&mut self, old: Value, new: Value) {
        self.expect_own(old);
        self.expect_own(new);
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
            o.value = Some(new.ix());
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
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let y = builtin::parameter(&mut b, "y", t).unwrap();
    /// builtin::combine(&mut b, &[x, x, x]).unwrap();
    /// prog.replace_uses_with_if(x, y, |u| u.index != 1); // keep operand 1
    /// let combine = prog.last_op(prog.block()).unwrap();
    /// let ops: Vec<_> = prog.op(combine).operands().collect();
    /// assert_eq!(ops, [Some(y), Some(x), Some(y)]);
    /// ```
    pub fn replace_uses_with_if(
        &mut self,
        old: Value,
        new: Value,
        mut pred: impl FnMut(OpOperand) -> bool,
    ) {
        self.expect_own(old);
        self.expect_own(new);
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
        let op = OpId::new(o.owner as usize, self.id);
        OpOperand {
            op,
            index: slot - self.ops[op.index()].operands_start,
            id: OperandId::new(slot as usize, self.id),
        }
    }

    // ----- values ---------------------------------------------------------------------------

    /// The type of `value` (`None`: a null type).
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let v = builtin::combine(&mut b, &[x]).unwrap();
    /// assert_eq!(prog.value_type(x), Some(t));
    /// assert_eq!(prog.value_type(v), Some(ctx.vector_type(&[t])));
    /// ```
    #[inline]
    pub fn value_type(&self, value: Value) -> Option<Type> {
        self.expect_own(value);
        self.type_h(self.values[value.index()].ty)
    }

    /// Sets the type of `value`.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let wider = ctx.dense_tensor_type(DataType::Float32, &[-1]);
    /// prog.set_value_type(x, Some(wider));
    /// assert!(prog.to_string().contains("() -> tensor<-1xf32>"));
    /// prog.set_value_type(x, None);
    /// assert!(prog.to_string().contains("() -> <<NULL TYPE>>"));
    /// ```
    pub fn set_value_type(&mut self, value: Value, ty: Option<Type>) {
        self.expect_own(value);
        self.expect_type(ty);
        self.values[value.index()].ty = ty.map(Type::bits);
        self.handle_bits.add(ty.map_or(0, Type::raw), 0);
    }

    /// Where `value` comes from.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, ValueDef, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let block = prog.block();
    /// let a = prog.add_block_arg(block, Some(t));
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// assert_eq!(prog.value_def(a), ValueDef::BlockArg { block, index: 0 });
    /// let op = prog.defining_op(x).unwrap();
    /// assert_eq!(prog.value_def(x), ValueDef::OpResult { op, index: 0 });
    /// ```
    pub fn value_def(&self, value: Value) -> ValueDef {
        self.expect_own(value);
        let d = self.values[value.index()];
        if d.owner & BLOCK_ARG_TAG != 0 {
            ValueDef::BlockArg {
                block: BlockId::new((d.owner & !BLOCK_ARG_TAG) as usize, self.id),
                index: self.arg_index[&value.ix.get()],
            }
        } else {
            ValueDef::OpResult {
                op: OpId::new(d.owner as usize, self.id),
                index: value.ix.get() - self.ops[d.owner as usize].results_start,
            }
        }
    }

    /// Whether `value` is a block argument (not an op result).
    #[inline]
    pub(crate) fn is_block_arg(&self, value: Value) -> bool {
        self.values[value.index()].owner & BLOCK_ARG_TAG != 0
    }

    /// The op defining `value`, if it is an op result.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op = prog.defining_op(x).unwrap();
    /// assert_eq!(prog.op(op).result(0), x);
    /// let arg = prog.add_block_arg(prog.block(), Some(t));
    /// assert_eq!(prog.defining_op(arg), None);
    /// ```
    pub fn defining_op(&self, value: Value) -> Option<OpId> {
        self.expect_own(value);
        let owner = self.values[value.index()].owner;
        (owner & BLOCK_ARG_TAG == 0).then(|| OpId::new(owner as usize, self.id))
    }

    // ----- attributes -----------------------------------------------------------------------

    /// Replaces the whole attribute dictionary of `op`.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op = prog.defining_op(x).unwrap();
    /// let dict = ctx.dict_attr(&[("parameter_name", ctx.str_attr("renamed")), ("stop_gradient", ctx.bool_array_attr(&[true]))]);
    /// prog.set_attributes(op, dict).unwrap();
    /// assert_eq!(prog.op(op).attributes(), dict);
    /// assert!(prog.to_string().contains("{parameter_name:\"renamed\",stop_gradient:[true]}"));
    /// ```
    pub fn set_attributes(&mut self, op: OpId, dict: Attribute) -> Result<(), IrError> {
        self.check_alive(op)?;
        self.check_attr(dict)?;
        self.ops[op.index()].attrs = dict.bits();
        self.handle_bits.add(0, dict.raw());
        Ok(())
    }

    /// Sets one attribute of `op` (re-interning its dictionary).
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op = prog.defining_op(x).unwrap();
    /// prog.set_attribute(op, "persistable", ctx.bool_array_attr(&[true])).unwrap();
    /// let names: Vec<_> = prog.op(op).attribute_entries().iter().map(|(n, _)| &**n).collect();
    /// assert_eq!(names, ["parameter_name", "persistable"]);
    /// ```
    pub fn set_attribute(&mut self, op: OpId, name: &str, value: Attribute) -> Result<(), IrError> {
        self.check_alive(op)?;
        self.check_attr(value)?;
        let dict = Attribute::from_bits(self.ops[op.index()].attrs, self.ctx_id);
        let new = self.ctx.dict_with(dict, name, Some(value));
        self.ops[op.index()].attrs = new.bits();
        Ok(())
    }

    /// Removes one attribute of `op`.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType, verify};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op = prog.defining_op(x).unwrap();
    /// prog.remove_attribute(op, "parameter_name").unwrap();
    /// assert_eq!(prog.op(op).attr("parameter_name"), None);
    /// assert!(verify(&prog).is_err()); // builtin.parameter requires it
    /// ```
    pub fn remove_attribute(&mut self, op: OpId, name: &str) -> Result<(), IrError> {
        self.check_alive(op)?;
        let dict = Attribute::from_bits(self.ops[op.index()].attrs, self.ctx_id);
        let new = self.ctx.dict_with(dict, name, None);
        self.ops[op.index()].attrs = new.bits();
        Ok(())
    }

    // ----- blocks and regions ------------------------------------------------------------------

    /// The ops of `block`, in order.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// builtin::shadow_output(&mut b, x, "out").unwrap();
    /// let names: Vec<_> = prog.block_ops(prog.block()).map(|o| prog.op(o).name()).collect();
    /// assert_eq!(names, ["builtin.parameter", "builtin.shadow_output"]);
    /// ```
    pub fn block_ops(&self, block: BlockId) -> BlockOps<'_> {
        self.expect_own(block);
        BlockOps {
            prog: self,
            next: self.op_h(self.blocks[block.index()].first),
        }
    }

    /// The first op of `block`.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// assert_eq!(prog.first_op(prog.block()), None);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// assert_eq!(prog.first_op(prog.block()), prog.defining_op(x));
    /// ```
    #[inline]
    pub fn first_op(&self, block: BlockId) -> Option<OpId> {
        self.expect_own(block);
        self.op_h(self.blocks[block.index()].first)
    }

    /// The last op of `block`.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let y = builtin::parameter(&mut b, "y", t).unwrap();
    /// assert_eq!(prog.last_op(prog.block()), prog.defining_op(y));
    /// ```
    #[inline]
    pub fn last_op(&self, block: BlockId) -> Option<OpId> {
        self.expect_own(block);
        self.op_h(self.blocks[block.index()].last)
    }

    /// Number of ops in `block`.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// assert_eq!(prog.block_len(prog.block()), 1);
    /// prog.detach_op(prog.defining_op(x).unwrap()).unwrap();
    /// assert_eq!(prog.block_len(prog.block()), 0);
    /// ```
    pub fn block_len(&self, block: BlockId) -> usize {
        self.expect_own(block);
        self.blocks[block.index()].len as usize
    }

    /// The arguments of `block`.
    ///
    /// ```
    /// # use pir_runtime::{IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// let block = prog.block();
    /// assert!(prog.block_args(block).is_empty());
    /// let a = prog.add_block_arg(block, Some(ctx.scalar_type(DataType::Int64)));
    /// let b = prog.add_block_arg(block, None);
    /// assert_eq!(prog.block_args(block), [a, b]);
    /// ```
    pub fn block_args(&self, block: BlockId) -> &[Value] {
        self.expect_own(block);
        &self.blocks[block.index()].args
    }

    /// The attribute dictionary of argument `index` of `block`, if set.
    ///
    /// ```
    /// # use pir_runtime::{IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// let block = prog.block();
    /// prog.add_block_arg(block, Some(ctx.scalar_type(DataType::Int64)));
    /// assert_eq!(prog.block_arg_attrs(block, 0), None); // never set
    /// assert_eq!(prog.block_arg_attrs(block, 5), None); // no such argument
    /// ```
    pub fn block_arg_attrs(&self, block: BlockId, index: usize) -> Option<Attribute> {
        self.expect_own(block);
        self.blocks[block.index()]
            .arg_attrs
            .get(index)
            .copied()
            .flatten()
    }

    /// The region containing `block`.
    ///
    /// ```
    /// # use pir_runtime::{IrContext, Program};
    /// # let ctx = IrContext::new();
    /// # let prog = Program::new(&ctx);
    /// let region = prog.block_parent(prog.block()).unwrap();
    /// assert_eq!(prog.region_parent(region), Some(prog.module_op()));
    /// ```
    pub fn block_parent(&self, block: BlockId) -> Option<RegionId> {
        self.expect_own(block);
        self.blocks[block.index()].parent
    }

    /// The blocks of `region`.
    ///
    /// ```
    /// # use pir_runtime::{IrContext, Program};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// let region = prog.op(prog.module_op()).region(0);
    /// assert_eq!(prog.region_blocks(region), [prog.block()]);
    /// let second = prog.add_block(region);
    /// assert_eq!(prog.region_blocks(region), [prog.block(), second]);
    /// ```
    pub fn region_blocks(&self, region: RegionId) -> &[BlockId] {
        self.expect_own(region);
        &self.regions[region.index()].blocks
    }

    /// The op owning `region`.
    ///
    /// ```
    /// # use pir_runtime::{IrContext, Program};
    /// # let ctx = IrContext::new();
    /// # let prog = Program::new(&ctx);
    /// let module = prog.module_op();
    /// let region = prog.op(module).region(0);
    /// assert_eq!(prog.region_parent(region), Some(module));
    /// ```
    pub fn region_parent(&self, region: RegionId) -> Option<OpId> {
        self.expect_own(region);
        self.regions[region.index()].parent
    }

    /// Position of `op` in its block (O(position)).
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// builtin::parameter(&mut b, "x", t).unwrap();
    /// let y = builtin::parameter(&mut b, "y", t).unwrap();
    /// let yo = prog.defining_op(y).unwrap();
    /// assert_eq!(prog.op_position(yo), Some(1));
    /// assert_eq!(prog.op_position(prog.module_op()), None); // not in a block
    /// ```
    pub fn op_position(&self, op: OpId) -> Option<usize> {
        self.expect_own(op);
        let block = self.ops[op.index()].parent?;
        self.block_ops(BlockId::from_ix(block, self.id))
            .position(|o| o == op)
    }

    /// Calls `f` on `op` and every op nested in its regions, in pre-order.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, OpDef, Program, phi::DataType};
    /// # static IF: OpDef = OpDef::new("toy.if", "toy");
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let if_op = Builder::at_end(&mut prog).create_with(&IF, &[], ctx.empty_dict(), &[], 1).unwrap();
    /// let then = prog.add_block(prog.op(if_op).region(0));
    /// builtin::shadow_output(&mut Builder::at_block_end(&mut prog, then), x, "y").unwrap();
    /// let mut names = Vec::new();
    /// prog.walk(prog.module_op(), &mut |o| names.push(prog.op(o).name()));
    /// assert_eq!(names, ["builtin.module", "builtin.parameter", "toy.if", "builtin.shadow_output"]);
    /// ```
    pub fn walk(&self, op: OpId, f: &mut impl FnMut(OpId)) {
        for o in self.walk_ops(op) {
            f(o);
        }
    }

    /// `op` and every op nested in its regions, in program order (pre-order: an op before the
    /// ops of its regions, regions and blocks in order), as an iterator. Iterative: nesting
    /// depth costs heap, not native stack, so a hundred thousand nested regions walk fine.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, OpDef, Program, phi::DataType};
    /// # static IF: OpDef = OpDef::new("toy.if", "toy");
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let if_op = Builder::at_end(&mut prog).create_with(&IF, &[], ctx.empty_dict(), &[], 2).unwrap();
    /// let (then, else_) = (prog.add_block(prog.op(if_op).region(0)), prog.add_block(prog.op(if_op).region(1)));
    /// builtin::parameter(&mut Builder::at_block_end(&mut prog, else_), "b", t).unwrap();
    /// builtin::parameter(&mut Builder::at_block_end(&mut prog, then), "a", t).unwrap();
    /// let names: Vec<String> = prog
    ///     .walk_ops(if_op)
    ///     .map(|o| prog.op(o).attr("parameter_name").map_or("if".into(), |a| a.display(&ctx).to_string()))
    ///     .collect();
    /// assert_eq!(names, ["if", "\"a\"", "\"b\""]);
    /// ```
    pub fn walk_ops(&self, op: OpId) -> WalkOps<'_> {
        self.expect_own(op);
        WalkOps {
            prog: self,
            root: Some(op),
            cursors: Vec::new(),
        }
    }

    /// The blocks of `op`'s regions, in order.
    fn push_block_cursors(&self, op: OpId, cursors: &mut Vec<Option<OpId>>) {
        let d = self.shape(op);
        // Last block first: the stack hands out the first block's ops next.
        for r in (0..d.num_regions).rev() {
            let region = &self.regions[(d.regions_start + r) as usize];
            for &b in region.blocks.iter().rev() {
                cursors.push(self.op_h(self.blocks[b.index()].first));
            }
        }
    }

    /// `pd_op.relu (op 3 of block 0)` — an op and where it is, for messages.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// builtin::parameter(&mut b, "x", t).unwrap();
    /// let y = builtin::parameter(&mut b, "y", t).unwrap();
    /// let yo = prog.defining_op(y).unwrap();
    /// assert_eq!(prog.describe(yo), "builtin.parameter (op 1 of block 0)");
    /// ```
    pub fn describe(&self, op: OpId) -> String {
        if !self.owns(op) {
            return format!("{op:?} (of another program)");
        }
        let d = &self.ops[op.index()];
        format!("{} ({})", self.def_of(d).name, self.location(op))
    }

    /// Where `op` is: `op 3 of block 0`, with enclosing ops for nested blocks.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, OpDef, Program, phi::DataType};
    /// # static IF: OpDef = OpDef::new("toy.if", "toy");
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let if_op = Builder::at_end(&mut prog).create_with(&IF, &[], ctx.empty_dict(), &[], 2).unwrap();
    /// let else_ = prog.add_block(prog.op(if_op).region(1));
    /// let x = builtin::parameter(&mut Builder::at_block_end(&mut prog, else_), "x", t).unwrap();
    /// let op = prog.defining_op(x).unwrap();
    /// assert_eq!(prog.location(op), "op 0 of block 0 of region 1 of toy.if in op 0 of block 0");
    /// prog.erase_op(op).unwrap();
    /// assert_eq!(prog.location(op), "erased");
    /// ```
    pub fn location(&self, op: OpId) -> String {
        if !self.owns(op) {
            return "of another program".to_owned();
        }
        let mut s = String::new();
        let mut cur = op;
        loop {
            let d = self.ops[cur.index()];
            let Some(block) = d.parent.map(|b| BlockId::from_ix(b, self.id)) else {
                if s.is_empty() {
                    s.push_str(if d.flags & ALIVE != 0 {
                        "detached"
                    } else {
                        "erased"
                    });
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
            let ri = region.index() - self.shape(parent).regions_start as usize;
            s.push_str(&format!(
                "op {pos} of block {bi} of region {ri} of {}",
                self.def_of(&self.ops[parent.index()]).name
            ));
            cur = parent;
        }
    }

    #[inline]
    pub(crate) fn check_alive(&self, op: OpId) -> Result<(), IrError> {
        self.check_own(op)?;
        if self.ops[op.index()].flags & ALIVE != 0 {
            Ok(())
        } else {
            Err(self.erased(op))
        }
    }

    #[cold]
    #[inline(never)]
    fn erased(&self, op: OpId) -> IrError {
        IrError::Erased(format!(
            "{} {op:?}",
            self.def_of(&self.ops[op.index()]).name
        ))
    }

    /// One more than the largest value index (the size of a per-value side table).
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// assert!(x.index() < prog.num_values_allocated());
    /// let mut names: Vec<Option<&str>> = vec![None; prog.num_values_allocated()];
    /// names[x.index()] = Some("x");
    /// ```
    pub fn num_values_allocated(&self) -> usize {
        self.values.len()
    }

    /// Bytes of heap memory used by the IR storage (capacity, not just length).
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let before = prog.storage_bytes();
    /// let mut b = Builder::at_end(&mut prog);
    /// for i in 0..100 {
    ///     builtin::parameter(&mut b, &format!("p{i}"), t).unwrap();
    /// }
    /// assert!(prog.storage_bytes() > before);
    /// ```
    pub fn storage_bytes(&self) -> usize {
        use std::mem::size_of;
        self.ops.capacity() * size_of::<OpData>()
            + self.operands.capacity() * size_of::<OperandData>()
            + self.values.capacity() * size_of::<ValueData>()
            + self.blocks.capacity() * size_of::<BlockData>()
            + self.regions.capacity() * size_of::<RegionData>()
            + self.defs.capacity() * size_of::<&OpDef>()
    }
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Program")
            .field("ops", &self.num_ops())
            .finish_non_exhaustive()
    }
}

impl Program {
    /// Paddle's text format, as `format!("{prog}")` gives it, printed straight into the new
    /// string ([`printer::print_program_to_string`](crate::printer::print_program_to_string)).
    ///
    /// ```
    /// use pir_runtime::{IrContext, Program};
    /// let ctx = IrContext::new();
    /// let prog = Program::new(&ctx);
    /// assert_eq!(prog.to_string(), "{\n}\n");
    /// assert_eq!(prog.to_string(), format!("{prog}"));
    /// ```
    #[allow(clippy::inherent_to_string_shadow_display)] // the same text, without a copy
    pub fn to_string(&self) -> String {
        crate::printer::print_program_to_string(self)
    }
}

impl fmt::Display for Program {
    /// Paddle's text format.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::printer::print_program(f, self)
    }
}

/// Iterator over the uses of a value.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// # let mut b = Builder::at_end(&mut prog);
/// let x = builtin::parameter(&mut b, "x", t).unwrap();
/// builtin::combine(&mut b, &[x, x]).unwrap();
/// let uses: pir_runtime::program::Uses<'_> = prog.uses(x);
/// assert_eq!(uses.map(|u| u.index).max(), Some(1));
/// ```
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
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// # let mut b = Builder::at_end(&mut prog);
/// builtin::parameter(&mut b, "x", t).unwrap();
/// builtin::parameter(&mut b, "y", t).unwrap();
/// let ops: pir_runtime::program::BlockOps<'_> = prog.block_ops(prog.block());
/// assert_eq!(ops.count(), 2);
/// ```
pub struct BlockOps<'a> {
    prog: &'a Program,
    next: Option<OpId>,
}

impl Iterator for BlockOps<'_> {
    type Item = OpId;

    fn next(&mut self) -> Option<OpId> {
        let cur = self.next?;
        self.next = self.prog.op_h(self.prog.ops[cur.index()].next);
        Some(cur)
    }
}

/// The ops under an op, in program order ([`Program::walk_ops`]).
pub struct WalkOps<'a> {
    prog: &'a Program,
    root: Option<OpId>,
    /// The next op of each block being walked, innermost last.
    cursors: Vec<Option<OpId>>,
}

impl Iterator for WalkOps<'_> {
    type Item = OpId;

    fn next(&mut self) -> Option<OpId> {
        let op = match self.root.take() {
            Some(root) => root,
            None => loop {
                let top = self.cursors.last_mut()?;
                match *top {
                    Some(op) => {
                        *top = self.prog.op_h(self.prog.ops[op.index()].next);
                        break op;
                    }
                    None => {
                        self.cursors.pop();
                    }
                }
            },
        };
        if self.prog.shape(op).num_regions > 0 {
            self.prog.push_block_cursors(op, &mut self.cursors);
        }
        Some(op)
    }
}

/// A read-only view of one operation.
///
/// ```
/// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// # let ctx = IrContext::new();
/// # let mut prog = Program::new(&ctx);
/// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// # let mut b = Builder::at_end(&mut prog);
/// let x = builtin::parameter(&mut b, "x", t).unwrap();
/// let v = builtin::combine(&mut b, &[x, x]).unwrap();
/// let op = prog.op(prog.defining_op(v).unwrap());
/// assert_eq!(op.name(), "builtin.combine");
/// assert_eq!((op.num_operands(), op.num_results()), (2, 1));
/// assert_eq!(op.operand_types().collect::<Vec<_>>(), [Some(t), Some(t)]);
/// assert_eq!(format!("{op:?}"), "builtin.combine (op 1 of block 0)");
/// ```
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

    #[inline]
    fn shape(&self) -> OpShape {
        self.prog.shape(self.id)
    }

    /// The op's handle.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op = prog.defining_op(x).unwrap();
    /// assert_eq!(prog.op(op).id(), op);
    /// ```
    #[inline]
    pub fn id(&self) -> OpId {
        self.id
    }

    /// Its operand and result slots in one look (an `OpRef` holds a checked handle).
    #[inline(always)]
    pub(crate) fn slots(&self) -> OpSlots<'a> {
        self.prog.op_slots(self.id)
    }

    /// The program.
    ///
    /// ```
    /// # use pir_runtime::{IrContext, Program};
    /// # let ctx = IrContext::new();
    /// # let prog = Program::new(&ctx);
    /// let module = prog.op(prog.module_op());
    /// assert!(std::ptr::eq(module.program(), &prog));
    /// ```
    #[inline]
    pub fn program(&self) -> &'a Program {
        self.prog
    }

    /// The context.
    ///
    /// ```
    /// # use pir_runtime::{IrContext, Program};
    /// # let ctx = IrContext::new();
    /// # let prog = Program::new(&ctx);
    /// let module = prog.op(prog.module_op());
    /// assert_eq!(module.attributes(), module.ctx().empty_dict());
    /// ```
    #[inline]
    pub fn ctx(&self) -> &'a IrContext {
        &self.prog.ctx
    }

    /// The op's definition (`OpInfo`).
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op = prog.op(prog.defining_op(x).unwrap());
    /// assert_eq!(op.def(), &builtin::PARAMETER_DEF);
    /// assert_eq!(op.def().attribute_names, ["parameter_name"]);
    /// ```
    #[inline]
    pub fn def(&self) -> &'static OpDef {
        self.prog.def_of(self.data())
    }

    /// Full name (`pd_op.relu`).
    ///
    /// ```
    /// # use pir_runtime::{IrContext, Program};
    /// # let ctx = IrContext::new();
    /// # let prog = Program::new(&ctx);
    /// assert_eq!(prog.op(prog.module_op()).name(), "builtin.module");
    /// ```
    #[inline]
    pub fn name(&self) -> &'static str {
        self.def().name
    }

    /// Whether the op was not erased.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op = prog.defining_op(x).unwrap();
    /// prog.erase_op(op).unwrap();
    /// assert!(!prog.op(op).is_alive()); // the handle stays readable, marked erased
    /// ```
    pub fn is_alive(&self) -> bool {
        self.data().flags & ALIVE != 0
    }

    /// Number of operands.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let v = builtin::combine(&mut b, &[x, x, x]).unwrap();
    /// assert_eq!(prog.op(prog.defining_op(v).unwrap()).num_operands(), 3);
    /// ```
    #[inline]
    pub fn num_operands(&self) -> usize {
        self.shape().num_operands as usize
    }

    /// Operand `i` (`None`: null value, or out of range).
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// builtin::shadow_output(&mut b, x, "out").unwrap();
    /// let out = prog.op(prog.last_op(prog.block()).unwrap());
    /// assert_eq!(out.operand(0), Some(x));
    /// assert_eq!(out.operand(1), None); // out of range
    /// ```
    #[inline]
    pub fn operand(&self, i: usize) -> Option<Value> {
        let d = self.shape();
        if i >= d.num_operands as usize {
            return None;
        }
        let ix = self.prog.operands[d.operands_start as usize + i].value;
        self.prog.value_h(ix)
    }

    /// All operands.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let y = builtin::parameter(&mut b, "y", t).unwrap();
    /// let v = builtin::combine(&mut b, &[y, x]).unwrap();
    /// let op = prog.op(prog.defining_op(v).unwrap());
    /// assert_eq!(op.operands().collect::<Vec<_>>(), [Some(y), Some(x)]);
    /// ```
    pub fn operands(&self) -> impl ExactSizeIterator<Item = Option<Value>> + 'a {
        let d = self.shape();
        let s = d.operands_start as usize;
        let prog = self.prog;
        prog.operands[s..s + d.num_operands as usize]
            .iter()
            .map(move |o| prog.value_h(o.value))
    }

    /// The type of operand `i` (`None` when null).
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// builtin::shadow_output(&mut b, x, "out").unwrap();
    /// let out = prog.op(prog.last_op(prog.block()).unwrap());
    /// assert_eq!(out.operand_type(0), Some(t));
    /// ```
    pub fn operand_type(&self, i: usize) -> Option<Type> {
        self.operand(i).and_then(|v| self.prog.value_type_own(v))
    }

    /// Number of results.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let v = builtin::combine(&mut b, &[x, x]).unwrap();
    /// let parts = builtin::split(&mut b, v).unwrap();
    /// assert_eq!(prog.op(prog.defining_op(parts[0]).unwrap()).num_results(), 2);
    /// ```
    #[inline]
    pub fn num_results(&self) -> usize {
        self.shape().num_results as usize
    }

    /// Result `i`. Panics if out of range (a programming error, like slice indexing); use
    /// [`OpRef::get_result`] for a checked access.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op = prog.op(prog.defining_op(x).unwrap());
    /// assert_eq!(op.result(0), x);
    /// let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| op.result(1)));
    /// assert!(r.is_err()); // "builtin.parameter has 1 results, asked for result 1"
    /// ```
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
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op = prog.op(prog.defining_op(x).unwrap());
    /// assert_eq!(op.get_result(0), Some(x));
    /// assert_eq!(op.get_result(1), None);
    /// ```
    #[inline]
    pub fn get_result(&self, i: usize) -> Option<Value> {
        let d = self.shape();
        (i < d.num_results as usize).then(|| Value::new(d.results_start as usize + i, self.prog.id))
    }

    /// All results.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let v = builtin::combine(&mut b, &[x, x]).unwrap();
    /// let parts = builtin::split(&mut b, v).unwrap();
    /// let split = prog.op(prog.defining_op(parts[0]).unwrap());
    /// assert_eq!(split.results().collect::<Vec<_>>(), parts);
    /// ```
    pub fn results(&self) -> impl ExactSizeIterator<Item = Value> + 'a {
        let (d, prog) = (self.shape(), self.prog.id);
        (0..d.num_results as usize).map(move |i| Value::new(d.results_start as usize + i, prog))
    }

    /// The types of all results (`None`: a null type).
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let i = builtin::constant(&mut b, ctx.i64_attr(1), ctx.scalar_type(DataType::Int64)).unwrap();
    /// let v = builtin::combine(&mut b, &[x, i]).unwrap();
    /// let parts = builtin::split(&mut b, v).unwrap();
    /// let split = prog.op(prog.defining_op(parts[0]).unwrap());
    /// assert_eq!(split.result_types().collect::<Vec<_>>(), [Some(t), Some(ctx.scalar_type(DataType::Int64))]);
    /// ```
    pub fn result_types(&self) -> impl ExactSizeIterator<Item = Option<Type>> + 'a {
        let d = self.shape();
        let s = d.results_start as usize;
        self.prog.values[s..s + d.num_results as usize]
            .iter()
            .map(|v| self.prog.type_h(v.ty))
    }

    /// The types of all operands (`None`: a null value or a null type).
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let v = builtin::combine(&mut b, &[x]).unwrap();
    /// let op = prog.op(prog.defining_op(v).unwrap());
    /// assert_eq!(op.operand_types().collect::<Vec<_>>(), [Some(t)]);
    /// ```
    pub fn operand_types(&self) -> impl ExactSizeIterator<Item = Option<Type>> + 'a {
        let prog = self.prog;
        self.operands()
            .map(move |v| v.and_then(|v| prog.type_h(prog.values[v.index()].ty)))
    }

    /// Arena indices of the results (for side tables indexed by value).
    pub(crate) fn result_indices(&self) -> std::ops::Range<usize> {
        let d = self.shape();
        d.results_start as usize..(d.results_start + d.num_results) as usize
    }

    /// The type of result `i`.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op = prog.op(prog.defining_op(x).unwrap());
    /// assert_eq!(op.result_type(0), Some(t));
    /// assert_eq!(op.result_type(1), None); // out of range
    /// ```
    pub fn result_type(&self, i: usize) -> Option<Type> {
        self.get_result(i).and_then(|v| self.prog.value_type_own(v))
    }

    /// The attribute dictionary.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "w", t).unwrap();
    /// let op = prog.op(prog.defining_op(x).unwrap());
    /// assert_eq!(op.attributes(), ctx.dict_attr(&[("parameter_name", ctx.str_attr("w"))]));
    /// assert_eq!(op.attributes().display(&ctx).to_string(), "{parameter_name:\"w\"}");
    /// ```
    #[inline]
    pub fn attributes(&self) -> Attribute {
        Attribute::from_bits(self.data().attrs, self.prog.ctx_id)
    }

    /// The entries of the attribute dictionary, sorted by name.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "w", t).unwrap();
    /// let op = prog.op(prog.defining_op(x).unwrap());
    /// let entries = op.attribute_entries();
    /// assert_eq!((&*entries[0].0, entries[0].1), ("parameter_name", ctx.str_attr("w")));
    /// ```
    pub fn attribute_entries(&self) -> &'a [(Box<str>, Attribute)] {
        match self.prog.ctx.attr_data(self.attributes()) {
            AttrData::Dict(e) => e,
            _ => &[],
        }
    }

    /// Attribute `name`.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "w", t).unwrap();
    /// let op = prog.op(prog.defining_op(x).unwrap());
    /// assert_eq!(op.attr("parameter_name"), Some(ctx.str_attr("w")));
    /// assert_eq!(op.attr("output_name"), None);
    /// ```
    pub fn attr(&self, name: &str) -> Option<Attribute> {
        let e = self.attribute_entries();
        e.binary_search_by(|(n, _)| (**n).cmp(name))
            .ok()
            .map(|i| e[i].1)
    }

    /// The data of attribute `name`.
    ///
    /// ```
    /// # use pir_runtime::{builtin, AttrData, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "w", t).unwrap();
    /// let op = prog.op(prog.defining_op(x).unwrap());
    /// assert!(matches!(op.attr_data("parameter_name"), Some(AttrData::Str(s)) if &**s == "w"));
    /// ```
    pub fn attr_data(&self, name: &str) -> Option<&'a AttrData> {
        let ctx: &'a IrContext = &self.prog.ctx;
        self.attr(name).map(|a| ctx.attr_data(a))
    }

    /// Number of regions.
    ///
    /// ```
    /// # use pir_runtime::{IrContext, Program};
    /// # let ctx = IrContext::new();
    /// # let prog = Program::new(&ctx);
    /// assert_eq!(prog.op(prog.module_op()).num_regions(), 1);
    /// ```
    pub fn num_regions(&self) -> usize {
        self.shape().num_regions as usize
    }

    /// Region `i`. Panics if out of range.
    ///
    /// ```
    /// # use pir_runtime::{IrContext, Program};
    /// # let ctx = IrContext::new();
    /// # let prog = Program::new(&ctx);
    /// let module = prog.op(prog.module_op());
    /// let body = module.region(0);
    /// assert_eq!(prog.region_blocks(body), [prog.block()]);
    /// ```
    pub fn region(&self, i: usize) -> RegionId {
        assert!(
            i < self.num_regions(),
            "{} has {} regions, asked for {i}",
            self.name(),
            self.num_regions()
        );
        RegionId::new(self.shape().regions_start as usize + i, self.prog.id)
    }

    /// All regions.
    ///
    /// ```
    /// # use pir_runtime::{Builder, IrContext, OpDef, Program};
    /// # static IF: OpDef = OpDef::new("toy.if", "toy");
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// let op = Builder::at_end(&mut prog).create_with(&IF, &[], ctx.empty_dict(), &[], 2).unwrap();
    /// let regions: Vec<_> = prog.op(op).regions().collect();
    /// assert_eq!(regions, [prog.op(op).region(0), prog.op(op).region(1)]);
    /// ```
    pub fn regions(&self) -> impl ExactSizeIterator<Item = RegionId> + 'a {
        let (d, prog) = (self.shape(), self.prog.id);
        (0..d.num_regions as usize).map(move |i| RegionId::new(d.regions_start as usize + i, prog))
    }

    /// The block containing the op.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op = prog.defining_op(x).unwrap();
    /// assert_eq!(prog.op(op).parent_block(), Some(prog.block()));
    /// prog.detach_op(op).unwrap();
    /// assert_eq!(prog.op(op).parent_block(), None);
    /// ```
    pub fn parent_block(&self) -> Option<BlockId> {
        self.data()
            .parent
            .map(|b| BlockId::from_ix(b, self.prog.id))
    }

    /// The next op in the block.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let y = builtin::parameter(&mut b, "y", t).unwrap();
    /// let (xo, yo) = (prog.defining_op(x).unwrap(), prog.defining_op(y).unwrap());
    /// assert_eq!(prog.op(xo).next_op(), Some(yo));
    /// assert_eq!(prog.op(yo).next_op(), None);
    /// ```
    pub fn next_op(&self) -> Option<OpId> {
        self.prog.op_h(self.data().next)
    }

    /// The previous op in the block.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// # let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let y = builtin::parameter(&mut b, "y", t).unwrap();
    /// let (xo, yo) = (prog.defining_op(x).unwrap(), prog.defining_op(y).unwrap());
    /// assert_eq!(prog.op(yo).prev_op(), Some(xo));
    /// assert_eq!(prog.op(xo).prev_op(), None);
    /// ```
    pub fn prev_op(&self) -> Option<OpId> {
        self.prog.op_h(self.data().prev)
    }

    /// Whether the op has trait `T`.
    ///
    /// ```
    /// # use pir_runtime::{Builder, IrContext, OpDef, Program, op_def::{sort_traits, TraitEntry}};
    /// use pir_runtime::traits::{ReadOnly, SideEffect};
    /// static TRAITS: [TraitEntry; 1] = sort_traits([TraitEntry::of::<SideEffect>()]);
    /// static PRINT: OpDef = OpDef { traits: &TRAITS, ..OpDef::new("toy.print", "toy") };
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// let op = Builder::at_end(&mut prog).create_with(&PRINT, &[], ctx.empty_dict(), &[], 0).unwrap();
    /// assert!(prog.op(op).has_trait::<SideEffect>());
    /// assert!(!prog.op(op).has_trait::<ReadOnly>());
    /// ```
    #[inline]
    pub fn has_trait<T: OpTrait>(&self) -> bool {
        self.def().has_trait::<T>()
    }

    /// Whether the op has interface `I`.
    ///
    /// ```
    /// # use pir_runtime::{Builder, IrContext, OpDef, Program, op_def::{sort_interfaces, InterfaceEntry}};
    /// use pir_runtime::interfaces::{Decomp, Vjp};
    /// static VJP: Vjp = Vjp::new("toy.sin_grad");
    /// static IFACES: [InterfaceEntry; 1] = sort_interfaces([InterfaceEntry::of(&VJP)]);
    /// static SIN: OpDef = OpDef { interfaces: &IFACES, ..OpDef::new("toy.sin", "toy") };
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// let op = Builder::at_end(&mut prog).create_with(&SIN, &[], ctx.empty_dict(), &[], 0).unwrap();
    /// assert!(prog.op(op).has_interface::<Vjp>());
    /// assert!(!prog.op(op).has_interface::<Decomp>());
    /// ```
    #[inline]
    pub fn has_interface<I: Interface>(&self) -> bool {
        self.def().has_interface::<I>()
    }

    /// The op's implementation of interface `I` (`dyn_cast<I>`).
    ///
    /// ```
    /// # use pir_runtime::{Builder, IrContext, OpDef, Program, op_def::{sort_interfaces, InterfaceEntry}};
    /// use pir_runtime::interfaces::Vjp;
    /// static VJP: Vjp = Vjp::new("toy.sin_grad");
    /// static IFACES: [InterfaceEntry; 1] = sort_interfaces([InterfaceEntry::of(&VJP)]);
    /// static SIN: OpDef = OpDef { interfaces: &IFACES, ..OpDef::new("toy.sin", "toy") };
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// let op = Builder::at_end(&mut prog).create_with(&SIN, &[], ctx.empty_dict(), &[], 0).unwrap();
    /// let vjp: &Vjp = prog.op(op).interface::<Vjp>().unwrap();
    /// assert_eq!(vjp.backward_op, "toy.sin_grad");
    /// ```
    #[inline]
    pub fn interface<I: Interface>(&self) -> Option<&'static I> {
        self.def().interface::<I>()
    }

    /// `pd_op.relu (op 3 of block 0)`.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let op = prog.op(prog.defining_op(x).unwrap());
    /// assert_eq!(op.describe(), "builtin.parameter (op 0 of block 0)");
    /// ```
    pub fn describe(&self) -> String {
        self.prog.describe(self.id)
    }
}

impl fmt::Debug for OpRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.describe())
    }
}
