//! Generic helpers behind generated ops: schema verification ([`verify_schema`]), attribute
//! conversion ([`attribute_from_arg`], [`attr_value_of`]), result-type inference
//! ([`infer_result_types`]) and the build variants ([`build_typed`], [`build_with_values`],
//! [`build_from_dict`], [`build_with_attributes`], [`build_with_types`]). Generated code is a
//! table ([`OpSchema`](pir_spec::OpSchema)) plus calls into these functions, so a thousand ops
//! compile fast.
//!
//! ```
//! use pir_runtime::op_support::{attribute_from_arg, AttrArg};
//! use pir_runtime::{IrContext, pir_spec::AttrKind};
//! let ctx = IrContext::new();
//! let a = attribute_from_arg(&ctx, AttrKind::Int32Array, &AttrArg::I32s(&[1, 1])).unwrap();
//! assert_eq!(a.display(&ctx).to_string(), "[1,1]");
//! assert!(attribute_from_arg(&ctx, AttrKind::Int32, &AttrArg::Str("x")).is_none());
//! ```

mod accessors;
mod attrs;
mod build;
mod infer;
mod memo;
mod signature;

pub use accessors::{attribute_as, FromAttrValue};
pub use attrs::{attr_value_from_arg, attr_value_of, attribute_fits, attribute_from_arg, AttrArg};
pub use build::{
    build_from_dict, build_typed, build_with_attributes, build_with_types, build_with_values,
    schema_of,
};
pub use infer::{infer_result_types, input_meta, reinfer_result_types, InputMeta};
pub(crate) use memo::AttrMemo;
pub use signature::verify_schema;
