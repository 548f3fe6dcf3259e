//! Op definitions (`OpInfo`), traits and interfaces.
//!
//! An [`OpDef`] is a `'static` table: the op's name and dialect, its traits (sorted ids), its
//! interfaces (sorted ids, each with an implementation table), its attribute names, its verifier
//! and, for generated ops, its [`OpSchema`]. Operations point at their `OpDef`, so asking an op
//! for a trait or an interface is a binary search in a handful of `u64`s, with no context lookup.
//!
//! Traits and interfaces are open: any crate can declare new ones with [`declare_trait!`](crate::declare_trait) and
//! [`declare_interface!`](crate::declare_interface).
//!
//! ```
//! use pir_runtime::{declare_trait, op_def::{OpTrait, TraitEntry}};
//! declare_trait!(
//!     /// Ops that commute.
//!     pub Commutative, "CommutativeTrait"
//! );
//! static TRAITS: [TraitEntry; 2] = pir_runtime::op_def::sort_traits([
//!     TraitEntry::of::<Commutative>(),
//!     TraitEntry::of::<pir_runtime::traits::ReadOnly>(),
//! ]);
//! assert!(TRAITS[0].id < TRAITS[1].id);
//! assert_eq!(Commutative::NAME, "CommutativeTrait");
//! ```

use std::any::Any;
use std::fmt;
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};

use pir_spec::OpSchema;

use crate::error::VerifyErrorKind;
use crate::program::OpRef;

/// The identity of a trait: a 64-bit FNV-1a hash of its full Rust path.
///
/// ```
/// use pir_runtime::op_def::{OpTrait, TraitId};
/// use pir_runtime::traits::Inplace;
/// assert_eq!(Inplace::ID, TraitId::from_path("pir_runtime::traits::Inplace"));
/// assert_ne!(Inplace::ID, TraitId::from_path("my_dialect::Inplace"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TraitId(pub u64);

/// The identity of an interface: a 64-bit FNV-1a hash of its full Rust path.
///
/// ```
/// use pir_runtime::op_def::{Interface, InterfaceId};
/// use pir_runtime::interfaces::Vjp;
/// assert_eq!(Vjp::ID, InterfaceId::from_path("pir_runtime::interfaces::Vjp"));
/// assert_eq!(Vjp::NAME, "VjpInterface");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InterfaceId(pub u64);

/// FNV-1a, usable in constants.
///
/// ```
/// use pir_runtime::op_def::fnv1a;
/// const H: u64 = fnv1a("a"); // usable in constants
/// assert_eq!(H, 0xaf63_dc4c_8601_ec8c);
/// assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
/// ```
pub const fn fnv1a(s: &str) -> u64 {
    let bytes = s.as_bytes();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h
}

impl TraitId {
    /// The id of the trait whose full path is `path`.
    ///
    /// ```
    /// use pir_runtime::op_def::{fnv1a, TraitId};
    /// const ID: TraitId = TraitId::from_path("my::Trait");
    /// assert_eq!(ID, TraitId(fnv1a("my::Trait")));
    /// ```
    pub const fn from_path(path: &str) -> TraitId {
        TraitId(fnv1a(path))
    }
}

impl InterfaceId {
    /// The id of the interface whose full path is `path`.
    ///
    /// ```
    /// use pir_runtime::op_def::{fnv1a, InterfaceId};
    /// const ID: InterfaceId = InterfaceId::from_path("my::Iface");
    /// assert_eq!(ID, InterfaceId(fnv1a("my::Iface")));
    /// ```
    pub const fn from_path(path: &str) -> InterfaceId {
        InterfaceId(fnv1a(path))
    }
}

/// An op trait: a marker with an optional verifier that runs on every op carrying it.
///
/// ```
/// use pir_runtime::{declare_trait, verify, Builder, IrContext, OpDef, Program, program::OpRef};
/// use pir_runtime::{op_def::{sort_traits, TraitEntry}, VerifyErrorKind};
/// fn no_operands(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
///     match op.num_operands() {
///         0 => Ok(()),
///         found => Err(VerifyErrorKind::OperandCount { expected: 0, found, names: None }),
///     }
/// }
/// declare_trait!(pub Source, "SourceTrait", verify = no_operands);
/// static TRAITS: [TraitEntry; 1] = sort_traits([TraitEntry::of::<Source>()]);
/// static SRC: OpDef = OpDef { traits: &TRAITS, ..OpDef::new("toy.src", "toy") };
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let mut b = Builder::at_end(&mut prog);
/// let op = b.create_with(&SRC, &[], ctx.empty_dict(), &[None], 0).unwrap();
/// let v = b.program().op(op).result(0);
/// b.create_with(&SRC, &[Some(v)], ctx.empty_dict(), &[], 0).unwrap();
/// let errs = verify(&prog).unwrap_err();
/// assert_eq!(errs.0[0].to_string(), "toy.src (op 1 of block 0): SourceTrait: expected 0 operand(s), found 1");
/// // The verifier names the trait:
/// assert!(matches!(*errs.0[0].kind, VerifyErrorKind::Trait { name: "SourceTrait", .. }));
/// ```
pub trait OpTrait: 'static {
    /// Identity.
    const ID: TraitId;
    /// Paddle's class name (`InplaceTrait`).
    const NAME: &'static str;
    /// Checks a trait invariant on `op`; the default accepts everything.
    const VERIFY: Option<TraitVerifyFn> = None;
}

/// A trait's verifier: what is wrong, or `Ok`. The verifier wraps the kind in
/// [`VerifyErrorKind::Trait`] (naming the trait) and adds the op and its location.
///
/// ```
/// use pir_runtime::{op_def::TraitVerifyFn, program::OpRef, VerifyErrorKind};
/// fn at_most_two(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
///     (op.num_results() <= 2).then_some(()).ok_or_else(|| "too many results".into())
/// }
/// let f: TraitVerifyFn = at_most_two;
/// # let _ = f;
/// ```
pub type TraitVerifyFn = fn(OpRef<'_>) -> Result<(), VerifyErrorKind>;

/// An op interface: a table of functions (the `Concept` of Paddle's interfaces), one per op.
///
/// ```
/// use pir_runtime::{declare_interface, op_def::{sort_interfaces, Interface, InterfaceEntry}, OpDef};
/// /// How many flops an op costs per element.
/// #[derive(Debug)]
/// pub struct Cost { pub flops: u32 }
/// declare_interface!(Cost, "CostInterface");
/// static EXP_COST: Cost = Cost { flops: 20 };
/// static IFACES: [InterfaceEntry; 1] = sort_interfaces([InterfaceEntry::of(&EXP_COST)]);
/// static EXP: OpDef = OpDef { interfaces: &IFACES, ..OpDef::new("toy.exp", "toy") };
/// assert_eq!(EXP.interface::<Cost>().map(|c| c.flops), Some(20));
/// assert_eq!(Cost::NAME, "CostInterface");
/// ```
pub trait Interface: Any + Send + Sync + 'static {
    /// Identity.
    const ID: InterfaceId;
    /// Paddle's class name (`InferMetaInterface`).
    const NAME: &'static str;
}

/// One trait in an [`OpDef`].
///
/// ```
/// use pir_runtime::op_def::{OpTrait, TraitEntry};
/// use pir_runtime::traits::{OneResult, ReadOnly};
/// let e = TraitEntry::of::<OneResult>();
/// assert_eq!((e.id, e.name), (OneResult::ID, "OneResultTrait"));
/// assert!(e.verify.is_some()); // OneResult checks its op
/// assert!(TraitEntry::of::<ReadOnly>().verify.is_none()); // a pure marker
/// ```
#[derive(Clone, Copy)]
pub struct TraitEntry {
    /// Identity.
    pub id: TraitId,
    /// Paddle's class name.
    pub name: &'static str,
    /// The trait's verifier.
    pub verify: Option<TraitVerifyFn>,
}

impl TraitEntry {
    /// The entry of trait `T`.
    ///
    /// ```
    /// use pir_runtime::op_def::TraitEntry;
    /// const E: TraitEntry = TraitEntry::of::<pir_runtime::traits::Inplace>();
    /// assert_eq!(E.name, "InplaceTrait");
    /// ```
    pub const fn of<T: OpTrait>() -> TraitEntry {
        TraitEntry {
            id: T::ID,
            name: T::NAME,
            verify: T::VERIFY,
        }
    }
}

impl fmt::Debug for TraitEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// One interface in an [`OpDef`], with this op's implementation.
///
/// ```
/// use pir_runtime::interfaces::Vjp;
/// use pir_runtime::op_def::{Interface, InterfaceEntry};
/// static VJP: Vjp = Vjp::new("pd_op.relu_grad");
/// let e = InterfaceEntry::of(&VJP);
/// assert_eq!((e.id, e.name), (Vjp::ID, "VjpInterface"));
/// assert_eq!(e.implementation.downcast_ref::<Vjp>().unwrap().backward_op, "pd_op.relu_grad");
/// ```
#[derive(Clone, Copy)]
pub struct InterfaceEntry {
    /// Identity.
    pub id: InterfaceId,
    /// Paddle's class name.
    pub name: &'static str,
    /// The implementation: a `&'static I` for the interface type `I`.
    pub implementation: &'static (dyn Any + Send + Sync),
}

impl InterfaceEntry {
    /// The entry of interface `I` implemented by `imp`.
    ///
    /// ```
    /// use pir_runtime::{interfaces::Vjp, op_def::InterfaceEntry};
    /// static VJP: Vjp = Vjp::new("pd_op.exp_grad");
    /// static ENTRY: InterfaceEntry = InterfaceEntry::of(&VJP);
    /// assert_eq!(ENTRY.name, "VjpInterface");
    /// ```
    pub const fn of<I: Interface>(imp: &'static I) -> InterfaceEntry {
        InterfaceEntry {
            id: I::ID,
            name: I::NAME,
            implementation: imp,
        }
    }
}

impl fmt::Debug for InterfaceEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// Sorts trait entries by id at compile time; a duplicate id is a compile-time error.
///
/// ```
/// use pir_runtime::op_def::{sort_traits, TraitEntry};
/// use pir_runtime::traits::{Inplace, OneResult, ViewLike};
/// static T: [TraitEntry; 3] = sort_traits([
///     TraitEntry::of::<ViewLike>(), TraitEntry::of::<Inplace>(), TraitEntry::of::<OneResult>(),
/// ]);
/// assert!(T.windows(2).all(|w| w[0].id < w[1].id)); // ready for binary search
/// ```
pub const fn sort_traits<const N: usize>(mut entries: [TraitEntry; N]) -> [TraitEntry; N] {
    let mut i = 1;
    while i < N {
        let mut j = i;
        while j > 0 && entries[j - 1].id.0 > entries[j].id.0 {
            let t = entries[j - 1];
            entries[j - 1] = entries[j];
            entries[j] = t;
            j -= 1;
        }
        if j > 0 && entries[j - 1].id.0 == entries[j].id.0 {
            panic!("an op lists the same trait twice (or two traits share an id)");
        }
        i += 1;
    }
    entries
}

/// Sorts interface entries by id at compile time; a duplicate id is a compile-time error.
///
/// ```
/// use pir_runtime::interfaces::{Decomp, Vjp};
/// use pir_runtime::op_def::{sort_interfaces, InterfaceEntry};
/// static VJP: Vjp = Vjp::new("pd_op.tanh_grad");
/// static I: [InterfaceEntry; 2] =
///     sort_interfaces([InterfaceEntry::of(&VJP), InterfaceEntry::of(&Decomp)]);
/// assert!(I[0].id < I[1].id);
/// ```
pub const fn sort_interfaces<const N: usize>(
    mut entries: [InterfaceEntry; N],
) -> [InterfaceEntry; N] {
    let mut i = 1;
    while i < N {
        let mut j = i;
        while j > 0 && entries[j - 1].id.0 > entries[j].id.0 {
            let t = entries[j - 1];
            entries[j - 1] = entries[j];
            entries[j] = t;
            j -= 1;
        }
        if j > 0 && entries[j - 1].id.0 == entries[j].id.0 {
            panic!("an op lists the same interface twice (or two interfaces share an id)");
        }
        i += 1;
    }
    entries
}

/// Sorts names (of traits or interfaces) at compile time, byte-wise, so a generated schema can
/// list names that are constants of other crates' types (`<T as OpTrait>::NAME`) in order.
///
/// ```
/// const NAMES: [&str; 3] = pir_runtime::op_def::sort_names(["b", "ab", "a"]);
/// assert_eq!(NAMES, ["a", "ab", "b"]);
/// ```
pub const fn sort_names<const N: usize>(mut names: [&'static str; N]) -> [&'static str; N] {
    const fn less(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        let mut i = 0;
        while i < a.len() && i < b.len() {
            if a[i] != b[i] {
                return a[i] < b[i];
            }
            i += 1;
        }
        a.len() < b.len()
    }
    let mut i = 1;
    while i < N {
        let mut j = i;
        while j > 0 && less(names[j], names[j - 1]) {
            let t = names[j - 1];
            names[j - 1] = names[j];
            names[j] = t;
            j -= 1;
        }
        i += 1;
    }
    names
}

/// An op verifier: `Err` with what is wrong, naming the operand, result or attribute (by name
/// and index) and what was expected versus found; the verifier adds the op and its position.
/// Free text converts into [`VerifyErrorKind::Custom`] (`Err("...".into())`).
///
/// ```
/// use pir_runtime::{verify, Builder, IrContext, OpDef, Program, program::OpRef, VerifyErrorKind};
/// fn needs_name(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
///     match op.attr("name") {
///         Some(_) => Ok(()),
///         None => Err(VerifyErrorKind::MissingAttribute { name: "name", expected: None }),
///     }
/// }
/// static DECL: OpDef = OpDef { verify: Some(needs_name), ..OpDef::new("toy.decl", "toy") };
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// Builder::at_end(&mut prog).create_with(&DECL, &[], ctx.empty_dict(), &[], 0).unwrap();
/// let errs = verify(&prog).unwrap_err();
/// assert_eq!(errs.0[0].to_string(), "toy.decl (op 0 of block 0): attribute `name` is missing");
/// ```
pub type VerifyFn = fn(OpRef<'_>) -> Result<(), VerifyErrorKind>;

/// A custom printer: writes the op's whole line (and regions) instead of the generic form.
///
/// ```
/// use pir_runtime::{printer::Printer, program::OpRef, Builder, IrContext, OpDef, Program};
/// fn print_nop(p: &mut Printer<'_>, op: OpRef<'_>) -> std::fmt::Result {
///     p.write_str(op.name())?;
///     p.write_str(" // custom")
/// }
/// static NOP: OpDef = OpDef { print: Some(print_nop), ..OpDef::new("toy.nop", "toy") };
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// Builder::at_end(&mut prog).create_with(&NOP, &[], ctx.empty_dict(), &[], 0).unwrap();
/// assert_eq!(prog.to_string(), "{\n    toy.nop // custom\n}\n");
/// ```
pub type PrintFn = fn(&mut crate::printer::Printer<'_>, OpRef<'_>) -> std::fmt::Result;

/// Where an infer-meta argument comes from: an operand or an attribute of the op's schema.
/// Generated ops carry a precomputed table of these ([`OpDef::infer_params`]).
///
/// ```
/// use pir_runtime::{op_def::ParamRef, OpDef};
/// // A scale op calling ScaleInferMeta(x, scale, bias): input 0, then attributes 0 and 1.
/// static PARAMS: [ParamRef; 3] = [ParamRef::Input(0), ParamRef::Attr(0), ParamRef::Attr(1)];
/// static SCALE: OpDef = OpDef { infer_params: Some(&PARAMS), ..OpDef::new("toy.scale", "toy") };
/// assert_eq!(SCALE.infer_params.unwrap()[1], ParamRef::Attr(0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamRef {
    /// Schema input `i` (a tensor, a tensor list or a mutable attribute).
    Input(u16),
    /// Schema attribute `i`.
    Attr(u16),
    /// A boolean constant of the `infer_meta.param` list ([`OpSchema::param_constant`]).
    ///
    /// [`OpSchema::param_constant`]: pir_spec::OpSchema::param_constant
    Bool(bool),
}

/// Build state of one op shared by every context: whether its typed builds may take the
/// `UnchangedInferMeta` shortcut (reusing the input's type handle without running infer-meta), a
/// pure function of the static definition worked out on the first build. (Attribute
/// dictionaries of typed builds are remembered per program instead.)
///
/// ```
/// use pir_runtime::op_def::{AttrCache, OpDef};
/// static CACHE: AttrCache = AttrCache::new(); // const: fits in a static OpDef
/// let def = OpDef::new("toy.op", "toy");
/// assert_eq!(format!("{:?}", def.attr_cache), format!("{:?}", AttrCache::default()));
/// # let _ = &CACHE;
/// ```
#[derive(Debug, Default)]
pub struct AttrCache {
    /// 0: not worked out yet; 1: the shortcut applies, dense to dense, no attributes; 2: it
    /// applies; 3: it does not.
    unchanged: AtomicU8,
    /// Where the op's infer-meta function and argument sources are remembered, plus one (0:
    /// not yet; see `op_support::infer`).
    inference: AtomicU32,
}

impl AttrCache {
    /// An empty cache.
    ///
    /// ```
    /// use pir_runtime::op_def::AttrCache;
    /// static CACHE: AttrCache = AttrCache::new();
    /// # let _ = &CACHE;
    /// ```
    pub const fn new() -> AttrCache {
        AttrCache {
            unchanged: AtomicU8::new(0),
            inference: AtomicU32::new(0),
        }
    }

    /// Whether the `UnchangedInferMeta` shortcut applies, computing it with `f` the first time
    /// (`f` returns `None` when it does not, `Some(plain)` when it does, `plain` telling whether
    /// the op takes a dense tensor to a dense tensor and has no attributes).
    #[inline]
    pub(crate) fn unchanged_shortcut(&self, f: impl FnOnce() -> Option<bool>) -> Option<bool> {
        match self.unchanged.load(Ordering::Relaxed) {
            1 => Some(true),
            2 => Some(false),
            3 => None,
            _ => {
                let r = f();
                let code = match r {
                    Some(true) => 1,
                    Some(false) => 2,
                    None => 3,
                };
                self.unchanged.store(code, Ordering::Relaxed);
                r
            }
        }
    }

    /// Where the op's inference is remembered, plus one (0: not yet).
    #[inline]
    pub(crate) fn inference_slot(&self) -> u32 {
        self.inference.load(Ordering::Acquire)
    }

    /// Records where the op's inference is remembered.
    pub(crate) fn set_inference_slot(&self, slot: u32) {
        self.inference.store(slot, Ordering::Release);
    }

    /// Whether the op is known to take the shortcut from a dense tensor to a dense tensor, with
    /// no attributes (one relaxed load).
    #[inline]
    pub(crate) fn plain_unchanged(&self) -> bool {
        self.unchanged.load(Ordering::Relaxed) == 1
    }
}

/// Paddle's `OpInfo`: everything the IR knows about one op, as a `'static` table.
///
/// ```
/// use pir_runtime::{traits::SideEffect, IrContext, OpDef};
/// use pir_runtime::op_def::{sort_traits, TraitEntry};
/// static TRAITS: [TraitEntry; 1] = sort_traits([TraitEntry::of::<SideEffect>()]);
/// static PRINT: OpDef = OpDef {
///     traits: &TRAITS,
///     attribute_names: &["message"],
///     ..OpDef::new("toy.print", "toy")
/// };
/// let ctx = IrContext::new();
/// ctx.register_ops("toy", &[&PRINT]).unwrap();
/// let def = ctx.op_def("toy.print").unwrap();
/// assert!(def.has_trait::<SideEffect>() && def.has_trait_named("SideEffectTrait"));
/// assert_eq!(def, &PRINT); // definitions compare by address
/// ```
pub struct OpDef {
    /// Full name (`pd_op.conv2d`).
    pub name: &'static str,
    /// Dialect name (`pd_op`).
    pub dialect: &'static str,
    /// Traits, sorted by id.
    pub traits: &'static [TraitEntry],
    /// Interfaces, sorted by id.
    pub interfaces: &'static [InterfaceEntry],
    /// Names of the op's (non-mutable) attributes, in order.
    pub attribute_names: &'static [&'static str],
    /// An extra verifier, run after the schema check of generated ops.
    pub verify: Option<VerifyFn>,
    /// The specification of generated ops.
    pub schema: Option<&'static OpSchema>,
    /// A custom printer.
    pub print: Option<PrintFn>,
    /// The schema's attributes sorted by name, as indices, so builds intern their attribute
    /// dictionary without sorting. Precomputed by the code generator; when empty while the
    /// schema has attributes, builds compute it.
    pub attr_order: &'static [u16],
    /// Where each infer-meta argument comes from. Precomputed by the code generator; `None`:
    /// resolved from the schema's parameter names on each build.
    pub infer_params: Option<&'static [ParamRef]>,
    /// Recently built attribute dictionaries.
    pub attr_cache: AttrCache,
}

impl OpDef {
    /// A definition with no traits, interfaces, attributes, verifier or schema.
    ///
    /// ```
    /// use pir_runtime::OpDef;
    /// static NOP: OpDef = OpDef::new("toy.nop", "toy");
    /// assert_eq!((NOP.name, NOP.dialect), ("toy.nop", "toy"));
    /// assert!(NOP.traits.is_empty() && NOP.schema.is_none() && NOP.verify.is_none());
    /// ```
    pub const fn new(name: &'static str, dialect: &'static str) -> OpDef {
        OpDef {
            name,
            dialect,
            traits: &[],
            interfaces: &[],
            attribute_names: &[],
            verify: None,
            schema: None,
            print: None,
            attr_order: &[],
            infer_params: None,
            attr_cache: AttrCache::new(),
        }
    }

    /// Whether the op has trait `T`.
    ///
    /// ```
    /// use pir_runtime::{builtin, traits::SideEffect};
    /// assert!(!builtin::COMBINE_DEF.has_trait::<SideEffect>());
    /// ```
    #[inline]
    pub fn has_trait<T: OpTrait>(&self) -> bool {
        self.has_trait_id(T::ID)
    }

    /// Whether the op has the trait with id `id`.
    ///
    /// ```
    /// use pir_runtime::{op_def::{OpTrait, sort_traits, TraitEntry}, traits::Inplace, OpDef};
    /// static T: [TraitEntry; 1] = sort_traits([TraitEntry::of::<Inplace>()]);
    /// static RELU_: OpDef = OpDef { traits: &T, ..OpDef::new("toy.relu_", "toy") };
    /// assert!(RELU_.has_trait_id(Inplace::ID));
    /// ```
    #[inline]
    pub fn has_trait_id(&self, id: TraitId) -> bool {
        self.traits.binary_search_by(|e| e.id.cmp(&id)).is_ok()
    }

    /// Whether the op has interface `I`.
    ///
    /// ```
    /// use pir_runtime::{builtin, interfaces::InferMeta};
    /// assert!(!builtin::PARAMETER_DEF.has_interface::<InferMeta>());
    /// ```
    #[inline]
    pub fn has_interface<I: Interface>(&self) -> bool {
        self.interface_entry(I::ID).is_some()
    }

    /// The op's implementation of interface `I` (Paddle's `dyn_cast<I>`).
    ///
    /// ```
    /// use pir_runtime::{interfaces::Vjp, op_def::{sort_interfaces, InterfaceEntry}, OpDef};
    /// static VJP: Vjp = Vjp::new("toy.exp_grad");
    /// static I: [InterfaceEntry; 1] = sort_interfaces([InterfaceEntry::of(&VJP)]);
    /// static EXP: OpDef = OpDef { interfaces: &I, ..OpDef::new("toy.exp", "toy") };
    /// assert_eq!(EXP.interface::<Vjp>().unwrap().backward_op, "toy.exp_grad");
    /// assert!(OpDef::new("toy.x", "toy").interface::<Vjp>().is_none());
    /// ```
    #[inline]
    pub fn interface<I: Interface>(&self) -> Option<&'static I> {
        self.interface_entry(I::ID)?
            .implementation
            .downcast_ref::<I>()
    }

    /// The entry of interface `id`.
    ///
    /// ```
    /// use pir_runtime::{interfaces::Vjp, op_def::{sort_interfaces, Interface, InterfaceEntry}, OpDef};
    /// static VJP: Vjp = Vjp::new("toy.exp_grad");
    /// static I: [InterfaceEntry; 1] = sort_interfaces([InterfaceEntry::of(&VJP)]);
    /// static EXP: OpDef = OpDef { interfaces: &I, ..OpDef::new("toy.exp", "toy") };
    /// assert_eq!(EXP.interface_entry(Vjp::ID).unwrap().name, "VjpInterface");
    /// ```
    pub fn interface_entry(&self, id: InterfaceId) -> Option<&'static InterfaceEntry> {
        let interfaces: &'static [InterfaceEntry] = self.interfaces;
        interfaces
            .binary_search_by(|e| e.id.cmp(&id))
            .ok()
            .map(|i| &interfaces[i])
    }

    /// Whether the trait named `name` (Paddle's class name) is present.
    ///
    /// ```
    /// use pir_runtime::{op_def::{sort_traits, TraitEntry}, traits::Inplace, OpDef};
    /// static T: [TraitEntry; 1] = sort_traits([TraitEntry::of::<Inplace>()]);
    /// static RELU_: OpDef = OpDef { traits: &T, ..OpDef::new("toy.relu_", "toy") };
    /// assert!(RELU_.has_trait_named("InplaceTrait"));
    /// assert!(!RELU_.has_trait_named("Inplace")); // Paddle's class name, not the Rust one
    /// ```
    pub fn has_trait_named(&self, name: &str) -> bool {
        self.traits.iter().any(|t| t.name == name)
    }

    /// Whether the interface named `name` (Paddle's class name) is present.
    ///
    /// ```
    /// use pir_runtime::{interfaces::Decomp, op_def::{sort_interfaces, InterfaceEntry}, OpDef};
    /// static I: [InterfaceEntry; 1] = sort_interfaces([InterfaceEntry::of(&Decomp)]);
    /// static GELU: OpDef = OpDef { interfaces: &I, ..OpDef::new("toy.gelu", "toy") };
    /// assert!(GELU.has_interface_named("DecompInterface"));
    /// ```
    pub fn has_interface_named(&self, name: &str) -> bool {
        self.interfaces.iter().any(|t| t.name == name)
    }
}

impl fmt::Debug for OpDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpDef")
            .field("name", &self.name)
            .field("traits", &self.traits)
            .field("interfaces", &self.interfaces)
            .finish_non_exhaustive()
    }
}

impl PartialEq for OpDef {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for OpDef {}

/// A typed op handle generated by `#[pir_op]` or `define_ops_from_yaml!`: an 8-byte `Copy`
/// view of an operation of one definition.
///
/// ```
/// use pir_runtime::{Builder, IrContext, Op, OpDef, OpId, Program};
/// static NOP: OpDef = OpDef::new("toy.nop", "toy");
/// #[derive(Clone, Copy)]
/// struct NopOp(OpId);
/// impl Op for NopOp {
///     const DEF: &'static OpDef = &NOP;
///     fn from_id_unchecked(id: OpId) -> Self { NopOp(id) }
///     fn id(self) -> OpId { self.0 }
/// }
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let id = Builder::at_end(&mut prog).create_with(&NOP, &[], ctx.empty_dict(), &[], 0).unwrap();
/// assert_eq!(NopOp::cast(prog.op(id)).map(Op::id), Some(id));
/// assert!(NopOp::cast(prog.op(prog.module_op())).is_none());
/// ```
pub trait Op: Copy + 'static {
    /// The op's definition.
    const DEF: &'static OpDef;
    /// Wraps an op id; callers must have checked the op's definition (see [`Op::cast`]).
    fn from_id_unchecked(id: crate::program::OpId) -> Self;
    /// The op id.
    fn id(self) -> crate::program::OpId;
    /// The typed handle of `op`, if it is of this definition (Paddle's `dyn_cast`).
    fn cast(op: OpRef<'_>) -> Option<Self> {
        std::ptr::eq(op.def(), Self::DEF).then(|| Self::from_id_unchecked(op.id()))
    }
}

/// The implementation of interface `Self` for op type `O`, for interfaces an op declares by
/// name (`interfaces(MyInterface)`). Implement it for your interface with a blanket impl over
/// the op types that provide what it needs.
///
/// ```
/// use pir_runtime::{declare_interface, op_def::OpInterfaceImpl};
/// /// Flops per element.
/// pub struct Cost { pub flops: u32 }
/// declare_interface!(Cost, "CostInterface");
/// /// What an op provides to get `Cost`.
/// pub trait HasFlops { const FLOPS: u32; }
/// impl<O: HasFlops> OpInterfaceImpl<O> for Cost {
///     const IMPL: Cost = Cost { flops: O::FLOPS };
/// }
/// struct Exp;
/// impl HasFlops for Exp { const FLOPS: u32 = 20; }
/// assert_eq!(<Cost as OpInterfaceImpl<Exp>>::IMPL.flops, 20);
/// ```
#[diagnostic::on_unimplemented(
    message = "op `{O}` declares interface `{Self}` but does not implement it",
    label = "declared here",
    note = "implement what `{Self}` requires for `{O}` (see the interface's documentation)"
)]
pub trait OpInterfaceImpl<O>: Interface + Sized {
    /// This op's implementation.
    const IMPL: Self;
}

/// Declares a new op trait: a unit struct implementing [`OpTrait`].
///
/// `declare_trait!(pub Name, "PaddleName")`, optionally followed by `, verify = path::to::fn`
/// where the function is `fn(OpRef<'_>) -> Result<(), E>` for an `E` that converts into
/// [`VerifyErrorKind`] (the kind itself, or a `String` of free text). The name may be any
/// `&'static str` constant expression (pir-runtime's own traits take theirs from
/// `pir_spec::known::TRAITS`).
///
/// ```
/// use pir_runtime::{declare_trait, op_def::OpTrait, program::OpRef};
/// fn no_regions(op: OpRef<'_>) -> Result<(), String> { // free text works too
///     (op.num_regions() == 0).then_some(()).ok_or_else(|| "expected no regions".to_string())
/// }
/// declare_trait!(pub Flat, "FlatTrait", verify = no_regions);
/// assert!(Flat::VERIFY.is_some());
/// ```
#[macro_export]
macro_rules! declare_trait {
    ($(#[$m:meta])* $vis:vis $name:ident, $paddle:expr $(, verify = $verify:path)?) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        $vis struct $name;
        impl $crate::op_def::OpTrait for $name {
            const ID: $crate::op_def::TraitId =
                $crate::op_def::TraitId::from_path(concat!(module_path!(), "::", stringify!($name)));
            const NAME: &'static str = $paddle;
            $(const VERIFY: Option<$crate::op_def::TraitVerifyFn> = Some({
                // A shim, so that verifiers returning free text (`String`) fit too.
                fn __pir_trait_verify(
                    op: $crate::program::OpRef<'_>,
                ) -> ::core::result::Result<(), $crate::VerifyErrorKind> {
                    ::core::result::Result::map_err($verify(op), ::core::convert::Into::into)
                }
                __pir_trait_verify
            });)?
        }
    };
}

/// Declares that a struct is an op interface (implements [`Interface`]).
///
/// `declare_interface!(TypeName, "PaddleName")`: the struct holds the interface's function
/// table; an op's implementation is a `static` of that struct. The name may be any
/// `&'static str` constant expression.
#[macro_export]
macro_rules! declare_interface {
    ($name:ident, $paddle:expr) => {
        impl $crate::op_def::Interface for $name {
            const ID: $crate::op_def::InterfaceId = $crate::op_def::InterfaceId::from_path(
                concat!(module_path!(), "::", stringify!($name)),
            );
            const NAME: &'static str = $paddle;
        }
    };
}
