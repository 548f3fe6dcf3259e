//! The builtin and `pd_op` dialects.
pub mod infer_meta;
