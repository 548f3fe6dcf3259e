//! The toy dialect's own op interface: [`FlopCount`].
//!
//! An interface is a struct of functions declared with `declare_interface!`; ops get it through
//! a blanket `OpInterfaceImpl<O>` impl over the op types implementing [`CountFlops`]. An op
//! declaring `interfaces(crate::interfaces::FlopCount)` without implementing [`CountFlops`] is a
//! compile error naming the trait to implement.
//!
//! ```
//! use pir_runtime::{IrContext, Program, Builder, Op};
//! use toy_dialect::{interfaces::FlopCount, ConstantOp, ConstantOpAttrs, TransposeOp, ToyDialect};
//!
//! let ctx = IrContext::new();
//! ctx.register_dialect::<ToyDialect>().unwrap();
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let a = ConstantOp::build(&mut b, ConstantOpAttrs::new(&[1.0, 2.0], &[2])).unwrap();
//! let a = a.out(b.program());
//! let t = TransposeOp::build(&mut b, a).unwrap();
//! let flops = TransposeOp::DEF.interface::<FlopCount>().unwrap().flops;
//! assert_eq!(flops(prog.op(t.op())), Some(0));
//! assert!(ConstantOp::DEF.interface::<FlopCount>().is_none());
//! ```

use pir_runtime::types::TypeData;
use pir_runtime::{declare_interface, OpInterfaceImpl, OpRef, Program};

/// `FlopCountInterface`: the floating-point operations an op performs, when its shapes are
/// known.
#[derive(Debug)]
pub struct FlopCount {
    /// The count for one op; `None` when a shape is dynamic.
    pub flops: fn(OpRef<'_>) -> Option<u64>,
}
declare_interface!(FlopCount, "FlopCountInterface");

/// What an op type implements to provide [`FlopCount`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` declares the interface `FlopCount` but does not implement it",
    label = "`FlopCount` needs `impl CountFlops for {Self}`",
    note = "write `impl toy_dialect::interfaces::CountFlops for {Self} {{ fn flops(op: OpRef<'_>) -> Option<u64> {{ ... }} }}`"
)]
pub trait CountFlops {
    /// The count for `op`.
    fn flops(op: OpRef<'_>) -> Option<u64>;
}

impl<O: CountFlops> OpInterfaceImpl<O> for FlopCount {
    const IMPL: FlopCount = FlopCount { flops: O::flops };
}

/// The number of elements of result `i` of `op`, if its shape is static.
///
/// ```
/// # use pir_runtime::{IrContext, Program, Builder};
/// # use toy_dialect::{ConstantOp, ConstantOpAttrs, ToyDialect};
/// # let ctx = IrContext::new();
/// # ctx.register_dialect::<ToyDialect>().unwrap();
/// # let mut prog = Program::new(&ctx);
/// let c = ConstantOp::build(&mut Builder::at_end(&mut prog), ConstantOpAttrs::new(&[0.0; 6], &[2, 3])).unwrap();
/// assert_eq!(toy_dialect::interfaces::result_elements(prog.op(c.op()), 0), Some(6));
/// ```
pub fn result_elements(op: OpRef<'_>, i: usize) -> Option<u64> {
    let t = op.result_type(i)?;
    match op.ctx().type_data(t) {
        TypeData::DenseTensor(tt) => tt
            .dims
            .iter()
            .try_fold(1u64, |n, &d| u64::try_from(d).ok().map(|d| n * d)),
        _ => None,
    }
}

/// The flops of every op of `prog` that has [`FlopCount`] (ops with unknown counts add 0).
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// ctx.register_dialect::<toy_dialect::ToyDialect>().unwrap();
/// let prog = toy_dialect::example_program(&ctx).unwrap();
/// assert_eq!(toy_dialect::interfaces::total_flops(&prog), 12);
/// ```
pub fn total_flops(prog: &Program) -> u64 {
    prog.block_ops(prog.block())
        .filter_map(|id| {
            let op = prog.op(id);
            let f = op.def().interface::<FlopCount>()?;
            (f.flops)(op)
        })
        .sum()
}
