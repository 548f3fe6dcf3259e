//! Legacy Paddle `ProgramDesc` (`.pdmodel`) decoding, the front end of the legacy → PIR
//! translator.
//!
//! * [`proto`]: hand-written `prost` messages for `framework.proto` (`ProgramDesc`, `BlockDesc`,
//!   `VarDesc`, `VarType`, `OpDesc`, `Scalar`, `OpVersionMap`, ...).
//! * [`decode_program`]: bytes → validated [`proto::ProgramDesc`].
//! * [`LegacyProgram`]: the typed view the translator works on: blocks, variables (kind,
//!   `phi::DataType`, dims, flags), ops (ordered inputs/outputs, typed [`AttrValue`]s).
//!
//! Decoding never panics. Truncated or corrupt input yields a [`DecodeError`] naming what was
//! being read (message and field, block/variable/op/attribute index) and what was wrong.
//!
//! ```
//! use pir_translator::{proto, AttrValue, LegacyProgram};
//! use prost::Message;
//!
//! // A one-op program, encoded the way Paddle writes it.
//! let relu = proto::OpDesc {
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
//!         ops: vec![relu],
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
//! // Truncated input is an error, never a panic.
//! assert!(LegacyProgram::decode(&bytes[..bytes.len() - 3]).is_err());
//! ```

mod decode;
mod error;
mod program;
pub mod proto;

pub use error::{DecodeError, Location};
pub use program::{
    data_type_to_phi, phi_to_data_type, AttrValue, LegacyBlock, LegacyOp, LegacyProgram, LegacyVar,
    OpAttr, OpSlot, ScalarValue, TensorDesc, VarAttr, VarAttrValue, VarDetail, VarKind,
};

/// Decodes `.pdmodel` bytes into a [`proto::ProgramDesc`] and validates it (everything
/// [`LegacyProgram::from_proto`] checks).
///
/// ```
/// let err = pir_translator::decode_program(&[]).unwrap_err();
/// assert!(matches!(err, pir_translator::DecodeError::NoBlocks));
/// ```
pub fn decode_program(bytes: &[u8]) -> Result<proto::ProgramDesc, DecodeError> {
    let desc = decode::decode_unvalidated(bytes)?;
    LegacyProgram::from_proto(&desc)?;
    Ok(desc)
}
