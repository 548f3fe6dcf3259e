//! Fixtures shared by op-defs' program-building tests (`#[path]`): a context with the `pd_op`
//! dialect (and so the control-flow ops) and `paddle.static.data`.
// Each test binary uses its own subset.
#![allow(dead_code)]

use op_defs::pd_op::{DataOp, DataOpAttrs};
use pir_runtime::phi::{DataType, Place};
use pir_runtime::{Builder, Value};

/// A fresh context with the `pd_op` dialect registered.
pub use op_defs::pd_op::context;

/// `paddle.static.data(name, dims, dtype)` at `b`'s insertion point: its value.
pub fn data(b: &mut Builder<'_>, name: &str, dtype: DataType, dims: &[i64]) -> Value {
    let attrs = DataOpAttrs {
        name,
        shape: dims,
        dtype,
        place: Place::default(),
    };
    DataOp::build(b, attrs).unwrap().out(b.program())
}
