//! The builtin, `pd_op` and `cf` dialects.
pub mod control_flow;
pub mod infer_meta;
pub mod manual;
pub mod models;
pub mod pd_op;
#[cfg(feature = "yaml")]
pub mod yaml_dialect;

/// The Rust examples of `README.md`, compiled and run as doctests so the front page stays true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
