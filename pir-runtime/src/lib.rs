//! pir-runtime.
pub use pir_spec::phi;
pub mod meta;
