//! Legacy Paddle `ProgramDesc` (`.pdmodel`) programs to PIR: the decoder and the translator,
//! whose output is byte-identical to Paddle 3.3.1's `paddle.pir.translate_to_pir`.
//!
//! ## Translating
//!
//! * [`Translator`]: holds the IR context (its registered dialects are the targets), the
//!   op_compat names of those dialects ([`OpCompatInfo`]) and the op handlers;
//!   [`Translator::translate`] runs the block-level [`program_translator`] (parameters, data
//!   ops for external inputs, ops, `set_parameter`, `stop_gradient`/`persistable`);
//! * [`OpTranscriber`]: one op's translation in stages (target lookup, slices, operands,
//!   results, attributes, creation, result mapping); the defaults are Paddle's general,
//!   GetOpInfo-driven translation, and the [`handlers`] override only the stages they need;
//!   users register their own with [`Translator::register_handler`];
//! * [`translate_var_type`] (TypeTranslator), [`translate_attribute`] (AttributeTranslator);
//! * [`TranslateError`]: located errors; [`Translator::unknown_ops`] lists every op that
//!   cannot be translated at once.
//!
//! ```no_run
//! let bytes = std::fs::read("model.pdmodel").unwrap();
//! let translator = pir_translator::Translator::with_pd_op().unwrap();
//! let translation = translator.translate_bytes(&bytes).unwrap();
//! print!("{}", translation.program);
//! ```
//!
//! ## Decoding
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

mod attribute_translator;
mod decode;
mod error;
mod fast_decode;
pub mod handlers;
mod op_compat;
pub mod op_translator;
mod program;
pub mod program_translator;
pub mod proto;
mod translate_error;
mod translator;
mod type_translator;
mod unknown_ops;
mod variable_map;

pub use attribute_translator::{
    default_attribute, full_value_of, phi_dtype_of_code, translate_attribute,
    AttributeTranslateError,
};
pub use error::{DecodeError, Location};
pub use op_compat::{MutableAttributeInfo, OpCompatInfo, OpNames, LEGACY_ONLY_ENTRIES};
pub use op_translator::{
    argument_names, general, is_inplace, sorted_slots, AttrList, OpContext, OpTranscriber,
    Operands, OutputMapping, Outputs, Param, TargetOp,
};
pub use program::{
    data_type_to_phi, phi_to_data_type, AttrValue, LegacyBlock, LegacyOp, LegacyProgram, LegacyVar,
    OpAttr, OpSlot, ScalarValue, TensorDesc, VarAttr, VarAttrValue, VarDetail, VarKind,
};
pub use translate_error::TranslateError;
pub use translator::{translate_to_pir, TranslateOptions, Translation, Translator};
pub use type_translator::{tensor_meta, translate_var_type, TypeTranslateError};
pub use unknown_ops::{UnknownOp, UnknownOpReport};
pub use variable_map::{VariableDefiningInfo, VariableMap};
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

/// The examples of `docs/translator-handlers.md`, compiled and run as doctests so the guide
/// stays true.
#[cfg(doctest)]
#[doc = include_str!("../../docs/translator-handlers.md")]
pub struct TranslatorHandlersGuide;
