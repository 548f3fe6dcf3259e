//! Control flow: `pd_op.if`, `pd_op.while`, `pd_op.pylayer`, `pd_op.select_input`,
//! `pd_op.select_output` and the `cf` dialect's `cf.yield` and stack ops ([`stack`]), with Paddle 3.3.1's names,
//! attributes, printing and verification.
//!
//! Paddle writes these ops by hand in C++ (`control_flow_op.h`, `manual_pylayer_op.h`,
//! `cf_op.h`), not from yaml: their operand and result counts vary and they own regions, which
//! neither `define_ops_from_yaml!` nor `#[pir_op]` describe. They are [`OpDef`]s with their own
//! verifiers ([`verify`]), custom printers (`IfOp::Print`, `WhileOp::Print`, `PyLayerOp::Print`,
//! which print nested blocks from the printer's work stack, without recursion) and typed
//! builders that take closures for the regions ([`IfOp::build`], [`WhileOp::build`],
//! [`PyLayerOp::build`]).
//!
//! ```
//! use op_defs::control_flow::IfOp;
//! use op_defs::pd_op::{DataOp, DataOpAttrs, ReluOp, TanhOp};
//! use pir_runtime::{phi::{DataType, Place}, Builder, IrContext, Program};
//!
//! let ctx = IrContext::new();
//! op_defs::pd_op::register(&ctx).unwrap(); // registers the control-flow ops too
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let data = |b: &mut Builder<'_>, name, dtype| {
//!     let attrs = DataOpAttrs { name, shape: &[4], dtype, place: Place::default() };
//!     DataOp::build(b, attrs).unwrap().out(b.program())
//! };
//! let x = data(&mut b, "x", DataType::Float32);
//! let c = data(&mut b, "c", DataType::Bool);
//! let op = IfOp::build(
//!     &mut b,
//!     c,
//!     |b| Ok(vec![ReluOp::build(b, x)?.out(b.program())]),
//!     |b| Ok(vec![TanhOp::build(b, x)?.out(b.program())]),
//! )
//! .unwrap();
//! pir_runtime::verify(&prog).unwrap();
//! let text = prog.to_string();
//! assert!(text.contains("\"pd_op.if\" (%1) {stop_gradient:[false]} -> tensor<4xf32> {\n"));
//! assert!(text.contains("    } else {\n"));
//! let last = prog.last_op(op.then_block(&prog)).unwrap();
//! assert_eq!(prog.op(last).name(), "cf.yield");
//! ```

/// Declares a typed handle of a control-flow op: a `Copy` wrapper of its `OpId` whose
/// `pir_runtime::Op` impl names the op's definition (`ops.rs` and `stack.rs` declare theirs
/// with it; the macro comes before their `mod` lines so that they see it).
macro_rules! handle {
    ($(#[$m:meta])* $name:ident, $def:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name(::pir_runtime::OpId);

        impl ::pir_runtime::Op for $name {
            const DEF: &'static ::pir_runtime::OpDef = &$def;
            fn from_id_unchecked(id: ::pir_runtime::OpId) -> Self {
                $name(id)
            }
            fn id(self) -> ::pir_runtime::OpId {
                self.0
            }
        }
    };
}

mod build;
mod ops;
mod print;
pub mod stack;
pub mod verify;

pub use build::{set_stop_gradient, stop_gradient, ControlFlowError, Yields};
pub use ops::{
    IfOp, PyLayerOp, SelectInputOp, SelectOutputOp, WhileOp, YieldOp, IF_DEF, PYLAYER_DEF,
    SELECT_INPUT_DEF, SELECT_OUTPUT_DEF, WHILE_DEF, YIELD_DEF,
};
pub use stack::{
    CfType, HasElementsOp, StackCreateOp, TuplePopOp, TuplePushOp, HAS_ELEMENTS_DEF,
    STACK_CREATE_DEF, TUPLE_POP_DEF, TUPLE_PUSH_DEF,
};

use pir_runtime::{Dialect, IrContext, IrError, OpDef};

/// The `cf` dialect (Paddle's `pir::ControlFlowDialect`): `cf.yield`, `cf.stack_create`,
/// `cf.tuple_push`, `cf.tuple_pop`, and `cf.has_elements` (which Paddle registers in `pd_op`;
/// see [`stack`]).
#[derive(Debug)]
pub struct CfDialect;

impl Dialect for CfDialect {
    const NAME: &'static str = "cf";
    fn op_defs() -> &'static [&'static OpDef] {
        &CF_OPS
    }
}

/// The ops of the `cf` dialect.
pub static CF_OPS: [&OpDef; 5] = [
    &YIELD_DEF,
    &STACK_CREATE_DEF,
    &TUPLE_PUSH_DEF,
    &TUPLE_POP_DEF,
    &HAS_ELEMENTS_DEF,
];

/// The control-flow ops of the `pd_op` dialect.
pub static PD_OP_CONTROL_FLOW: [&OpDef; 5] = [
    &IF_DEF,
    &WHILE_DEF,
    &PYLAYER_DEF,
    &SELECT_INPUT_DEF,
    &SELECT_OUTPUT_DEF,
];

/// Registers the `cf` dialect and the control-flow ops of `pd_op` in `ctx`
/// ([`crate::pd_op::register`] calls it). Registering twice is a no-op.
///
/// # Errors
///
/// [`IrError`] if `ctx` already holds an op of the same name from another definition.
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// op_defs::control_flow::register(&ctx).unwrap();
/// assert!(ctx.op_def("pd_op.while").is_some() && ctx.op_def("cf.yield").is_some());
/// ```
pub fn register(ctx: &IrContext) -> Result<(), IrError> {
    ctx.register_dialect::<CfDialect>()?;
    ctx.register_ops("pd_op", &PD_OP_CONTROL_FLOW)
}
