//! One module per command group.

pub mod catalog;
pub mod ops;
pub mod yaml;
