//! The builtin and `pd_op` dialects.
