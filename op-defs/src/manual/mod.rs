//! The ops Paddle writes by hand (`paddle/fluid/pir/dialect/operator/ir/manual_op.h` and
//! `control_flow_op.h`), declared with `#[pir_op]`, one module per family. They are part of the
//! [`pd_op`](crate::pd_op) dialect (re-exported there), with GetOpInfo equal to Paddle
//! 3.3.1's, the verifiers Paddle's `VerifySig` implies and infer-meta functions from
//! [`crate::infer_meta::manual`] (registered by Paddle's names).
//!
//! [`OPS`] lists their definitions. A yaml op of the same name would be a different class in
//! Paddle; `ops-yaml/` does not define these names, so nothing shadows them.

pub mod array;
pub mod fused;
pub mod math;
pub mod runtime;
pub mod shape;
mod vjp;

use pir_runtime::{Op, OpDef};

pub use array::*;
pub use fused::*;
pub use math::*;
pub use runtime::*;
pub use shape::*;

/// Every hand-written op, in Paddle's `GET_OP_LIST` order of `manual_op.cc` (then `assert`).
///
/// ```
/// assert_eq!(op_defs::manual::OPS.len(), 25);
/// assert!(op_defs::manual::OPS.iter().any(|d| d.name == "pd_op.array_write_"));
/// ```
pub static OPS: &[&OpDef] = &[
    AddN_Op::DEF,
    AddNArrayOp::DEF,
    FusedGemmEpilogueOp::DEF,
    AssignOut_Op::DEF,
    FusedGemmEpilogueGradOp::DEF,
    SplitGradOp::DEF,
    ExpandOp::DEF,
    CreateArrayOp::DEF,
    CreateArrayLikeOp::DEF,
    ArrayLengthOp::DEF,
    ArrayReadOp::DEF,
    ArrayWrite_Op::DEF,
    FetchOp::DEF,
    SliceArrayOp::DEF,
    SliceArrayDenseOp::DEF,
    AssignArrayOp::DEF,
    AssignArray_Op::DEF,
    ArrayToTensorOp::DEF,
    TensorToArrayOp::DEF,
    IncrementOp::DEF,
    Increment_Op::DEF,
    ShapeBroadcastOp::DEF,
    MemcpyD2hMultiIoOp::DEF,
    ArrayPopOp::DEF,
    AssertOp::DEF,
];
