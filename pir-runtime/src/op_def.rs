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
use std::sync::atomic::{AtomicU32, Ordering};

use pir_spec::OpSchema;

use crate::program::OpRef;

/// The identity of a trait: a 64-bit FNV-1a hash of its full Rust path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TraitId(pub u64);

/// The identity of an interface: a 64-bit FNV-1a hash of its full Rust path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InterfaceId(pub u64);

/// FNV-1a, usable in constants.
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
    pub const fn from_path(path: &str) -> TraitId {
        TraitId(fnv1a(path))
    }
}

impl InterfaceId {
    /// The id of the interface whose full path is `path`.
    pub const fn from_path(path: &str) -> InterfaceId {
        InterfaceId(fnv1a(path))
    }
}

/// An op trait: a marker with an optional verifier that runs on every op carrying it.
pub trait OpTrait: 'static {
    /// Identity.
    const ID: TraitId;
    /// Paddle's class name (`InplaceTrait`).
    const NAME: &'static str;
    /// Checks a trait invariant on `op`; the default accepts everything.
    const VERIFY: Option<TraitVerifyFn> = None;
}

/// A trait's verifier: an error message, or `Ok`.
pub type TraitVerifyFn = fn(OpRef<'_>) -> Result<(), String>;

/// An op interface: a table of functions (the `Concept` of Paddle's interfaces), one per op.
pub trait Interface: Any + Send + Sync + 'static {
    /// Identity.
    const ID: InterfaceId;
    /// Paddle's class name (`InferMetaInterface`).
    const NAME: &'static str;
}

/// One trait in an [`OpDef`].
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

/// An op verifier: `Err` with a message naming the operand, result or attribute (by name and
/// index) and what was expected versus found; the verifier adds the op and its position.
pub type VerifyFn = fn(OpRef<'_>) -> Result<(), String>;

/// A custom printer: writes the op's whole line (and regions) instead of the generic form.
pub type PrintFn = fn(&mut crate::printer::Printer<'_>, OpRef<'_>) -> std::fmt::Result;

/// Where an infer-meta argument comes from: an operand or an attribute of the op's schema.
/// Generated ops carry a precomputed table of these ([`OpDef::infer_params`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamRef {
    /// Schema input `i` (a tensor, a tensor list or a mutable attribute).
    Input(u16),
    /// Schema attribute `i`.
    Attr(u16),
}

/// A few attribute dictionaries an op was recently built with, so typed builds with the same
/// attribute values (the common case: a network of identical convolutions) reuse the interned
/// dictionary instead of interning every attribute again. Entries are raw handles written
/// without synchronisation; a build uses one only after checking, in its own context, that the
/// dictionary holds exactly its attribute values — so a stale entry, another thread's entry or
/// another context's is harmless.
#[derive(Debug, Default)]
pub struct AttrCache {
    slots: [AtomicU32; 4],
    next: AtomicU32,
}

impl AttrCache {
    /// An empty cache.
    pub const fn new() -> AttrCache {
        AttrCache {
            slots: [
                AtomicU32::new(0),
                AtomicU32::new(0),
                AtomicU32::new(0),
                AtomicU32::new(0),
            ],
            next: AtomicU32::new(0),
        }
    }

    /// The cached dictionaries (raw handles; 0 is empty).
    pub(crate) fn entries(&self) -> [u32; 4] {
        std::array::from_fn(|i| self.slots[i].load(Ordering::Relaxed))
    }

    /// Remembers dictionary `raw`, replacing the oldest entry.
    pub(crate) fn remember(&self, raw: u32) {
        let i = self.next.fetch_add(1, Ordering::Relaxed) as usize % self.slots.len();
        self.slots[i].store(raw, Ordering::Relaxed);
    }
}

/// Paddle's `OpInfo`: everything the IR knows about one op, as a `'static` table.
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
    #[inline]
    pub fn has_trait<T: OpTrait>(&self) -> bool {
        self.has_trait_id(T::ID)
    }

    /// Whether the op has the trait with id `id`.
    #[inline]
    pub fn has_trait_id(&self, id: TraitId) -> bool {
        self.traits.binary_search_by(|e| e.id.cmp(&id)).is_ok()
    }

    /// Whether the op has interface `I`.
    #[inline]
    pub fn has_interface<I: Interface>(&self) -> bool {
        self.interface_entry(I::ID).is_some()
    }

    /// The op's implementation of interface `I` (Paddle's `dyn_cast<I>`).
    #[inline]
    pub fn interface<I: Interface>(&self) -> Option<&'static I> {
        self.interface_entry(I::ID)?
            .implementation
            .downcast_ref::<I>()
    }

    /// The entry of interface `id`.
    pub fn interface_entry(&self, id: InterfaceId) -> Option<&'static InterfaceEntry> {
        let interfaces: &'static [InterfaceEntry] = self.interfaces;
        interfaces
            .binary_search_by(|e| e.id.cmp(&id))
            .ok()
            .map(|i| &interfaces[i])
    }

    /// Whether the trait named `name` (Paddle's class name) is present.
    pub fn has_trait_named(&self, name: &str) -> bool {
        self.traits.iter().any(|t| t.name == name)
    }

    /// Whether the interface named `name` (Paddle's class name) is present.
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

/// A typed op handle generated by `#[pir_op]` or `define_ops_from_yaml!`: a 4-byte `Copy`
/// view of an operation of one definition.
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
/// where the function is a [`TraitVerifyFn`].
#[macro_export]
macro_rules! declare_trait {
    ($(#[$m:meta])* $vis:vis $name:ident, $paddle:literal $(, verify = $verify:path)?) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        $vis struct $name;
        impl $crate::op_def::OpTrait for $name {
            const ID: $crate::op_def::TraitId =
                $crate::op_def::TraitId::from_path(concat!(module_path!(), "::", stringify!($name)));
            const NAME: &'static str = $paddle;
            $(const VERIFY: Option<$crate::op_def::TraitVerifyFn> = Some($verify);)?
        }
    };
}

/// Declares that a struct is an op interface (implements [`Interface`]).
///
/// `declare_interface!(TypeName, "PaddleName")`: the struct holds the interface's function
/// table; an op's implementation is a `static` of that struct.
#[macro_export]
macro_rules! declare_interface {
    ($name:ident, $paddle:literal) => {
        impl $crate::op_def::Interface for $name {
            const ID: $crate::op_def::InterfaceId = $crate::op_def::InterfaceId::from_path(
                concat!(module_path!(), "::", stringify!($name)),
            );
            const NAME: &'static str = $paddle;
        }
    };
}
