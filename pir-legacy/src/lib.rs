//! Paddle's legacy program format: the `ProgramDesc` protobuf of a `.pdmodel` file.
//!
//! * [`proto`]: the `framework.proto` messages (`ProgramDesc`, `BlockDesc`, `VarDesc`,
//!   `VarType`, `OpDesc`, `Scalar`, `OpVersionMap`, ...), to write programs with.
//! * [`LegacyProgram::decode`]: bytes → the typed, validated program, in one pass over the wire
//!   data. The model: [`LegacyProgram`] of [`LegacyBlock`]s, holding [`LegacyVar`]s (kind,
//!   element type, dims, flags) and [`LegacyOp`]s (ordered inputs/outputs, typed
//!   [`AttrValue`]s).
//! * [`DecodeError`]: why bytes are not a valid program, with the [`Location`] of the problem
//!   (block, variable, op, attribute, by index and name) and, for malformed wire data, the
//!   field it is in ([`WireError`]).
//!
//! Decoding never panics, and its time and memory are linear in the input.
//!
//! This crate knows nothing of PIR: the translator (`pir-translator`) depends on it, never the
//! reverse.
//!
//! ```
//! use pir_legacy::{proto, AttrValue, LegacyProgram};
//! use prost::Message;
//!
//! // A one-op program, encoded the way Paddle writes it.
//! let scale = proto::OpDesc {
//!     r#type: Some("scale".into()),
//!     inputs: vec![proto::op_desc::Var { parameter: Some("X".into()), arguments: vec!["x".into()] }],
//!     outputs: vec![proto::op_desc::Var { parameter: Some("Out".into()), arguments: vec!["y".into()] }],
//!     attrs: vec![proto::op_desc::Attr {
//!         name: Some("scale".into()),
//!         r#type: Some(proto::AttrType::Float as i32),
//!         f: Some(2.0),
//!         ..Default::default()
//!     }],
//!     is_target: None,
//! };
//! let bytes = proto::ProgramDesc {
//!     blocks: vec![proto::BlockDesc {
//!         idx: Some(0),
//!         parent_idx: Some(-1),
//!         ops: vec![scale],
//!         ..Default::default()
//!     }],
//!     ..Default::default()
//! }
//! .encode_to_vec();
//!
//! let program = LegacyProgram::decode(&bytes).unwrap();
//! let op = &program.global_block().ops[0];
//! assert_eq!(op.op_type, "scale");
//! assert_eq!(op.input("X"), Some(&["x".to_string()][..]));
//! assert_eq!(op.attr("scale"), Some(&AttrValue::Float(2.0)));
//!
//! // Truncated input is a located error, never a panic.
//! let err = LegacyProgram::decode(&bytes[..bytes.len() - 3]).unwrap_err();
//! assert!(err.to_string().starts_with("program: malformed `ProgramDesc`"), "{err}");
//! ```

mod decode;
mod error;
mod program;
pub mod proto;
mod wire;

pub use error::{DecodeError, Location, WireError, WireProblem};
pub use program::{
    data_type_to_phi, phi_to_data_type, AttrValue, LegacyBlock, LegacyOp, LegacyProgram, LegacyVar,
    OpAttr, OpSlot, ScalarValue, TensorDesc, VarAttr, VarAttrValue, VarDetail, VarKind,
};
