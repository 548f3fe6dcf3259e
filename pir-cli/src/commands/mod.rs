//! One module per command group.

pub mod catalog;
pub mod demo;
pub mod grad;
pub mod ops;
pub mod opt;
pub mod program;
pub mod translate;
pub mod yaml;
