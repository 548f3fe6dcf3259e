//! Legacy Paddle `ProgramDesc` (`.pdmodel`) programs to PIR, byte-identical to Paddle 3.3.1's
//! `paddle.pir.translate_to_pir`.
//!
//! Reading the legacy format is the `pir-legacy` crate's ([`LegacyProgram::decode`], the
//! [`proto`] messages, [`DecodeError`]); this crate only translates, and re-exports that
//! crate's items so callers need one dependency.
//!
//! ## Translating
//!
//! * [`Translator`]: holds the [`TargetDialects`] (the IR context, whose registered dialects
//!   are the targets, and their op_compat names, [`OpCompatInfo`]) and the op handlers;
//!   [`Translator::translate`] runs the block-level [`program_translator`] (parameters, data
//!   ops for external inputs, ops, `set_parameter`, `stop_gradient`/`persistable`);
//! * [`OpTranscriber`]: one op's translation in stages (target lookup, slices, operands,
//!   results, attributes, creation, result mapping); the defaults are Paddle's general,
//!   GetOpInfo-driven translation, and the [`handlers`] override only the stages they need;
//!   users register their own with [`Translator::register_handler`]. A handler sees one op
//!   through an [`OpContext`] (the op, the target dialects, the program being built, the
//!   variable map, builder helpers), never the translator or the other handlers;
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

mod attribute_translator;
mod builders;
mod dialects;
pub mod handlers;
mod op_compat;
mod op_context;
pub mod op_translator;
pub mod program_translator;
mod registry;
mod translate_error;
mod translator;
mod type_translator;
mod unknown_ops;
mod var_index;
mod variable_map;

pub use pir_legacy::{
    data_type_to_phi, phi_to_data_type, proto, AttrValue, DecodeError, LegacyBlock, LegacyOp,
    LegacyProgram, LegacyVar, Location, OpAttr, OpSlot, ScalarValue, TensorDesc, VarAttr,
    VarAttrValue, VarDetail, VarKind, WireError, WireProblem,
};

pub use attribute_translator::{
    default_attribute, full_value_of, phi_dtype_of_code, translate_attribute,
    translate_general_attribute, AttributeTranslateError,
};
pub use dialects::TargetDialects;
pub use op_compat::{MutableAttributeInfo, OpCompatInfo, OpNames, LEGACY_ONLY_ENTRIES};
pub use op_context::{OpContext, Param, TargetOp};
pub use op_translator::{
    argument_names, general, is_inplace, sorted_slots, AttrList, OpTranscriber, Operands,
    OutputMapping, Outputs,
};
pub use program_translator::Translation;
pub use translate_error::TranslateError;
pub use translator::{translate_to_pir, TranslateOptions, Translator};
pub use type_translator::{tensor_meta, translate_var_type, TypeTranslateError};
pub use unknown_ops::{UnknownOp, UnknownOpReport};
pub use variable_map::{VariableDefiningInfo, VariableMap};

/// The examples of `docs/translator-handlers.md`, compiled and run as doctests so the guide
/// stays true.
#[cfg(doctest)]
#[doc = include_str!("../../docs/translator-handlers.md")]
pub struct TranslatorHandlersGuide;
