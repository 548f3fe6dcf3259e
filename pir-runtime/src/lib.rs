//! `pir-runtime`: the thin, fast, thread-safe runtime of pir-rs, with the semantics of
//! PaddlePaddle 3.3.1's PIR.
//!
//! - [`IrContext`]: interned [`Type`]s and [`Attribute`]s (8-byte `Copy` handles: an index and
//!   the context's identity; equality by handle) and the registry of dialects and ops
//!   ([`OpDef`], Paddle's `OpInfo`).
//! - [`Program`]: arena storage of operations, values with index-linked use lists, blocks and
//!   regions; [`Builder`] creates ops at an insertion point.
//! - [`verify()`], the [`printer`] (Paddle's text format, byte for byte) and its inverse, the
//!   [`parser`].
//! - [`traits`], [`interfaces`], [`op_support`]: what the generated ops of `pir-macros` use.
//!
//! ```
//! use pir_runtime::{builtin, verify, Builder, IrContext, Program, phi::DataType};
//! let ctx = IrContext::new();
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let w = builtin::parameter(&mut b, "w", ctx.dense_tensor_type(DataType::Float32, &[2])).unwrap();
//! builtin::shadow_output(&mut b, w, "out").unwrap();
//! verify(&prog).unwrap();
//! assert!(prog.to_string().contains("builtin.shadow_output"));
//! ```

pub use pir_spec;
pub use pir_spec::phi;

mod append_arena;
pub mod attributes;
pub mod builder;
pub mod builtin;
pub mod check_types;
pub mod context;
pub mod error;
pub mod interfaces;
mod intern;
pub mod meta;
pub mod op_def;
pub mod op_support;
pub mod parser;
pub mod printer;
pub mod program;
mod recycle;
pub mod traits;
pub mod types;
pub mod verify;
#[cfg(feature = "yaml")]
pub mod yaml_dialect;

pub use attributes::{AttrData, AttrKey, Attribute};
pub use builder::Builder;
pub use check_types::{check_types, InferRefusal, TypeCheckReport, TypeDifference, UncheckedOps};
pub use context::{Dialect, IrContext, TypePrintFn};
pub use error::{
    BuildError, BuildErrorKind, InferOutputError, IrError, PrintedType, Slot, VerifyError,
    VerifyErrorKind, VerifyErrors,
};
pub use op_def::{Interface, Op, OpDef, OpInterfaceImpl, OpTrait};
pub use program::{
    BlockId, InsertPoint, OpId, OpOperand, OpRef, OperandId, OperationArgs, Parameter, Program,
    RegionId, Value, ValueDef,
};
pub use types::{TensorType, Type, TypeData, TypeKey, TypeKind};
pub use verify::{verify, verify_op};

/// Declares a dialect type listing generated op types. The one dialect generator:
/// `define_ops_from_yaml!` expands to it too.
///
/// ```ignore
/// pir_runtime::dialect!(pub TestDialect = "test" [AbsOp, AddOp]);
/// ctx.register_dialect::<TestDialect>()?;
/// ```
#[macro_export]
macro_rules! dialect {
    ($(#[$m:meta])* $vis:vis $name:ident = $dialect:literal [$($op:ty),* $(,)?]) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default)]
        $vis struct $name;
        impl $crate::Dialect for $name {
            const NAME: &'static str = $dialect;
            fn op_defs() -> &'static [&'static $crate::OpDef] {
                static OPS: &[&$crate::OpDef] = &[$(<$op as $crate::Op>::DEF),*];
                OPS
            }
        }
    };
}

/// Re-exports for generated code; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use static_assertions;
}
