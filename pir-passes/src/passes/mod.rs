//! Paddle's passes, by Paddle's names.

pub mod conv_bn;
pub mod cse;
pub mod dce;
pub mod fetch;
pub mod identity;
pub mod inplace;
pub mod inplace_convert;
pub mod lower;
pub(crate) mod util;

pub use conv_bn::Conv2dBnFuse;
pub use cse::CommonSubexpressionElimination;
pub use dce::DeadCodeElimination;
pub use fetch::ReplaceFetchWithShadowOutput;
pub use identity::IdentityOpClean;
pub use inplace::InplacePass;
pub use inplace_convert::{InplaceToOutOfPlace, OutOfPlaceToInplace};
pub use lower::PdOpToKernel;
