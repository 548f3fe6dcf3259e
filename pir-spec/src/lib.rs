//! `pir-spec`: the plain-Rust op specification of pir-rs.
//!
//! Both front ends — the `#[pir_op]` attribute macro and `define_ops_from_yaml!` — lower into
//! [`schema::OpSchema`]; the code generator emits from it; the runtime's generic verify and build
//! helpers, the `pir` CLI and the translator read it. This crate has no proc-macro dependency, so
//! tools can parse Paddle's yaml at run time with exactly the parser the macro uses.
//!
//! ```
//! use pir_spec::schema::AttrKind;
//! assert_eq!(AttrKind::Int32Array.type_name(), "pir::ArrayAttribute<pir::Int32Attribute>");
//! ```

pub mod kinds;
pub mod known;
pub mod phi;
pub mod schema;
pub mod vjp;
#[cfg(feature = "yaml")]
pub mod yaml;

pub use schema::{
    AttrKind, AttributeSpec, CompatMutable, CompatSpec, DefaultValue, InputKind, InputSpec, List,
    MutableAttr, OpInfoTuple, OpKind, OpSchema, OutputSpec, RuntimeInfo, SourceLoc, Str,
    TensorKind, ValueKind,
};
