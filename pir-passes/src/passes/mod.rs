//! Paddle's passes, by Paddle's names.

pub mod cse;
pub mod dce;
pub mod fetch;
mod util;

pub use cse::CommonSubexpressionElimination;
pub use dce::DeadCodeElimination;
pub use fetch::ReplaceFetchWithShadowOutput;
