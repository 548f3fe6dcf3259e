//! Paddle's passes, by Paddle's names.

pub mod conv_bn;
pub mod cse;
pub mod dce;
pub mod fetch;
pub mod identity;
mod util;

pub use conv_bn::Conv2dBnFuse;
pub use cse::CommonSubexpressionElimination;
pub use dce::DeadCodeElimination;
pub use fetch::ReplaceFetchWithShadowOutput;
pub use identity::IdentityOpClean;
