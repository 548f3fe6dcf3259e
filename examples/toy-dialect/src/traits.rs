//! The toy dialect's own op trait.
//!
//! ```
//! use pir_runtime::op_def::OpTrait;
//! use toy_dialect::{traits::Commutative, AddOp, TransposeOp};
//! use pir_runtime::Op;
//!
//! assert_eq!(Commutative::NAME, "CommutativeTrait");
//! assert!(AddOp::DEF.has_trait::<Commutative>());
//! assert!(!TransposeOp::DEF.has_trait::<Commutative>());
//! ```

use pir_runtime::{declare_trait, OpRef, VerifyErrorKind};

declare_trait!(
    /// Ops whose two operands may be swapped without changing the result; the verifier checks
    /// that such an op has two operands of one type.
    pub Commutative, "CommutativeTrait", verify = two_operands_of_one_type
);

fn two_operands_of_one_type(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    if op.num_operands() != 2 {
        return Err(VerifyErrorKind::OperandCount {
            expected: 2,
            found: op.num_operands(),
            names: None,
        });
    }
    match (op.operand_type(0), op.operand_type(1)) {
        (Some(a), Some(b)) if a != b => {
            Err("the operands of a commutative op have one type".into())
        }
        _ => Ok(()),
    }
}
