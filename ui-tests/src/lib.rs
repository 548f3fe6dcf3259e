//! Tests of `#[pir_op]`: the trybuild suite (`tests/ui.rs`, cases in `tests/ui/`) and runtime
//! tests of ops declared with it (`tests/*.rs`).
//!
//! This library plays a downstream crate: it declares an op trait and an op interface outside
//! pir-runtime, which the tests attach to `#[pir_op]` ops by path.
//!
//! ```
//! use pir_ui_tests::ext::{Commutative, Cost};
//! use pir_runtime::op_def::{Interface, OpTrait};
//! assert_eq!(Commutative::NAME, "CommutativeTrait");
//! assert_eq!(Cost::NAME, "CostInterface");
//! ```

/// A trait and an interface of "another crate".
pub mod ext {
    use pir_runtime::{declare_interface, declare_trait, OpInterfaceImpl, OpRef};

    declare_trait!(
        /// Ops whose two operands may be swapped.
        pub Commutative, "CommutativeTrait"
    );

    declare_trait!(
        /// Ops with exactly two operands; checked by the verifier.
        pub TwoOperands, "TwoOperandsTrait", verify = two_operands
    );

    fn two_operands(op: OpRef<'_>) -> Result<(), String> {
        match op.num_operands() {
            2 => Ok(()),
            n => Err(format!("expected 2 operands, found {n}")),
        }
    }

    /// `CostInterface`: an estimate of an op's cost, in abstract units.
    #[derive(Debug)]
    pub struct Cost {
        /// The estimate for one op.
        pub cost: fn(OpRef<'_>) -> u64,
    }
    declare_interface!(Cost, "CostInterface");

    /// What an op type implements to get [`Cost`] when it declares
    /// `interfaces(pir_ui_tests::ext::Cost)`.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` declares the interface `Cost` but does not implement it",
        label = "`Cost` needs `impl HasCost for {Self}`",
        note = "write `impl pir_ui_tests::ext::HasCost for {Self} {{ fn cost(op: OpRef<'_>) -> u64 {{ ... }} }}`"
    )]
    pub trait HasCost {
        /// The estimate for `op`.
        fn cost(op: OpRef<'_>) -> u64;
    }

    impl<O: HasCost> OpInterfaceImpl<O> for Cost {
        const IMPL: Cost = Cost { cost: O::cost };
    }
}
