//! The builtin and `pd_op` dialects.
pub mod infer_meta;
pub mod models;
pub mod pd_op;
