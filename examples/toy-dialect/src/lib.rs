//! A downstream dialect built on pir-rs: the `toy` dialect (after MLIR's Toy tutorial), declared
//! with `#[pir_op]`, with a trait ([`traits::Commutative`]) and an interface
//! ([`interfaces::FlopCount`]) of its own, registered with `pir_runtime::dialect!`.
//!
//! ```
//! use pir_runtime::{verify, IrContext};
//! use toy_dialect::{example_program, interfaces::total_flops, ToyDialect};
//!
//! let ctx = IrContext::new();
//! ctx.register_dialect::<ToyDialect>()?;
//! let prog = example_program(&ctx)?;
//! verify(&prog)?;
//! println!("{prog}");
//! assert_eq!(total_flops(&prog), 12);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! What a downstream crate writes:
//!
//! 1. its traits with `pir_runtime::declare_trait!` and its interfaces with
//!    `pir_runtime::declare_interface!` plus a blanket `OpInterfaceImpl<O>` impl over the ops that
//!    provide what the interface needs ([`interfaces::CountFlops`]);
//! 2. its ops as `#[pir_op]` structs naming those by path (`traits(crate::traits::Commutative)`,
//!    `interfaces(crate::interfaces::FlopCount)`) next to pir-runtime's by short name;
//! 3. the per-op implementations (`impl InferShapeOp for AddOp`, `impl CountFlops for AddOp`);
//!    an op that declares an interface without implementing it does not compile;
//! 4. the dialect type, `pir_runtime::dialect!(pub ToyDialect = "toy" [ConstantOp, ...])`.

use std::sync::Arc;

use pir_runtime::{builtin, BuildError, Builder, IrContext, Program};

pub mod interfaces;
pub mod ops;
pub mod traits;

pub use ops::{AddOp, ConstantOp, ConstantOpAttrs, MulOp, PrintOp, TransposeOp};

pir_runtime::dialect!(
    /// The `toy` dialect: [`ConstantOp`], [`AddOp`], [`MulOp`], [`TransposeOp`], [`PrintOp`].
    ///
    /// ```
    /// let ctx = pir_runtime::IrContext::new();
    /// ctx.register_dialect::<toy_dialect::ToyDialect>().unwrap();
    /// assert!(ctx.op_def("toy.transpose").is_some());
    /// ```
    pub ToyDialect = "toy" [ConstantOp, AddOp, MulOp, TransposeOp, PrintOp]
);

/// Builds the example program: `a` = a 2×3 constant, `b = transpose(a)`, `c = b * b + b`,
/// printed and returned as a named output.
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// ctx.register_dialect::<toy_dialect::ToyDialect>().unwrap();
/// let prog = toy_dialect::example_program(&ctx).unwrap();
/// assert!(prog.to_string().contains("\"toy.print\""));
/// ```
pub fn example_program(ctx: &Arc<IrContext>) -> Result<Program, BuildError> {
    let mut prog = Program::new(ctx);
    let mut b = Builder::at_end(&mut prog);
    let a = ConstantOp::build(
        &mut b,
        ConstantOpAttrs::new(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]),
    )?;
    let a = a.out(b.program());
    let t = TransposeOp::build(&mut b, a)?.out(b.program());
    let m = MulOp::build(&mut b, t, t)?.out(b.program());
    let c = AddOp::build(&mut b, m, t)?.out(b.program());
    PrintOp::build(&mut b, c)?;
    builtin::shadow_output(&mut b, c, "c")?;
    Ok(prog)
}
