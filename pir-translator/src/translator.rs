//! [`Translator`]: the entry point. It holds the target dialects (the IR context and their
//! op_compat names) and the op handlers by legacy op type, and runs the block-level
//! translation ([`crate::program_translator`]) or the unknown-op report.

use std::sync::Arc;

use pir_legacy::{DecodeError, LegacyProgram, Location};
use pir_runtime::{IrContext, IrError, Program};

use crate::dialects::TargetDialects;
use crate::op_compat::OpCompatInfo;
use crate::op_translator::OpTranscriber;
use crate::program_translator::{ProgramTranslator, Translation};
use crate::registry::Handlers;
use crate::translate_error::TranslateError;
use crate::unknown_ops::{self, UnknownOpReport};

/// Options of [`Translator::translate_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TranslateOptions {
    /// Check every op first and fail with [`TranslateError::UnknownOps`] listing all the ops
    /// that cannot be translated (instead of stopping at the first).
    pub report_unknown: bool,
}

/// Translates legacy programs into the dialects registered in its context.
///
/// ```
/// use pir_translator::{proto, Translator};
/// use prost::Message;
///
/// // relu(x) with x a [-1, 4] float input.
/// let var = |name: &str| proto::VarDesc {
///     name: Some(name.into()),
///     r#type: Some(proto::VarType {
///         r#type: Some(proto::var_type::Type::DenseTensor as i32),
///         dense_tensor: Some(proto::var_type::DenseTensorDesc {
///             tensor: Some(proto::var_type::TensorDesc {
///                 data_type: Some(proto::var_type::Type::Fp32 as i32),
///                 dims: vec![-1, 4],
///             }),
///             legacy_lod_level: None,
///         }),
///         ..Default::default()
///     }),
///     ..Default::default()
/// };
/// let slot = |p: &str, a: &str| proto::op_desc::Var { parameter: Some(p.into()), arguments: vec![a.into()] };
/// let bytes = proto::ProgramDesc {
///     blocks: vec![proto::BlockDesc {
///         idx: Some(0),
///         parent_idx: Some(-1),
///         vars: vec![var("x"), var("y")],
///         ops: vec![proto::OpDesc {
///             r#type: Some("relu".into()),
///             inputs: vec![slot("X", "x")],
///             outputs: vec![slot("Out", "y")],
///             ..Default::default()
///         }],
///         ..Default::default()
///     }],
///     ..Default::default()
/// }
/// .encode_to_vec();
///
/// let translator = Translator::with_pd_op().unwrap();
/// let t = translator.translate_bytes(&bytes).unwrap();
/// pir_runtime::verify(&t.program).unwrap();
/// let text = t.program.to_string();
/// assert!(text.contains(r#""pd_op.data" () {dtype:float32,name:"x""#), "{text}");
/// assert!(text.contains(r#""pd_op.relu" (%0) {persistable:[false],stop_gradient:[false]}"#), "{text}");
/// ```
pub struct Translator {
    dialects: TargetDialects,
    handlers: Handlers,
}

impl std::fmt::Debug for Translator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Translator")
            .field("dialects", &self.dialects.ctx().dialects())
            .field("handlers", &self.handlers.len())
            .finish_non_exhaustive()
    }
}

impl Translator {
    /// A translator into the dialects registered in `ctx` (register them first: the op_compat
    /// names are read from the registered ops now), with the built-in special handlers.
    pub fn new(ctx: Arc<IrContext>) -> Translator {
        Translator {
            dialects: TargetDialects::new(ctx),
            handlers: Handlers::builtin(),
        }
    }

    /// A translator into a new context holding this project's `pd_op` dialect.
    pub fn with_pd_op() -> Result<Translator, IrError> {
        let ctx = IrContext::new();
        op_defs::pd_op::register(&ctx)?;
        Ok(Translator::new(ctx))
    }

    /// The target dialects: the IR context and the op_compat names.
    pub fn dialects(&self) -> &TargetDialects {
        &self.dialects
    }

    /// The context programs are created in.
    pub fn ctx(&self) -> &Arc<IrContext> {
        self.dialects.ctx()
    }

    /// The op_compat names.
    pub fn compat(&self) -> &OpCompatInfo {
        self.dialects.compat()
    }

    /// The op_compat names, mutably (to add names of ops registered after construction).
    pub fn compat_mut(&mut self) -> &mut OpCompatInfo {
        self.dialects.compat_mut()
    }

    /// Registers `handler` for legacy op type `op_type`, replacing (and returning) any
    /// previous one.
    pub fn register_handler(
        &mut self,
        op_type: impl Into<String>,
        handler: impl OpTranscriber + 'static,
    ) -> Option<Arc<dyn OpTranscriber>> {
        self.handlers.register(op_type.into(), Arc::new(handler))
    }

    /// Whether a special handler is registered for `op_type`.
    pub fn has_special_handler(&self, op_type: &str) -> bool {
        self.handlers.is_special(op_type)
    }

    /// The handler of `op_type`: its special handler, or the general one.
    pub fn handler(&self, op_type: &str) -> &dyn OpTranscriber {
        self.handlers.get(op_type)
    }

    /// Decodes `.pdmodel` bytes and translates them.
    pub fn translate_bytes(&self, bytes: &[u8]) -> Result<Translation, TranslateError> {
        let legacy = LegacyProgram::decode(bytes)?;
        self.translate(&legacy)
    }

    /// Translates a legacy program, stopping at the first op that cannot be translated.
    pub fn translate(&self, legacy: &LegacyProgram) -> Result<Translation, TranslateError> {
        if legacy.blocks.is_empty() {
            return Err(TranslateError::Decode(DecodeError::NoBlocks));
        }
        ProgramTranslator::new(&self.dialects, &self.handlers, legacy).run()
    }

    /// Translates with `options`.
    pub fn translate_with(
        &self,
        legacy: &LegacyProgram,
        options: TranslateOptions,
    ) -> Result<Translation, TranslateError> {
        if options.report_unknown {
            let report = self.unknown_ops(legacy);
            if !report.is_empty() {
                return Err(TranslateError::UnknownOps(report));
            }
        }
        self.translate(legacy)
    }

    /// Every op of every block that cannot be translated: its handler's target
    /// ([`OpTranscriber::look_up`], run on a scratch program) or the other ops it needs
    /// ([`OpTranscriber::required_ops`]) are not registered, or it is an op the translator
    /// refuses. Problems other than missing ops (attributes, variables) are not reported here.
    pub fn unknown_ops(&self, legacy: &LegacyProgram) -> UnknownOpReport {
        unknown_ops::report(&self.dialects, &self.handlers, legacy)
    }
}

/// Translates `.pdmodel` bytes into this project's `pd_op` dialect.
///
/// ```
/// let err = pir_translator::translate_to_pir(&[0xff]).unwrap_err();
/// assert!(matches!(err, pir_translator::TranslateError::Decode(_)));
/// ```
pub fn translate_to_pir(bytes: &[u8]) -> Result<Program, TranslateError> {
    let translator = Translator::with_pd_op().map_err(|source| TranslateError::Ir {
        at: Box::new(Location::program()),
        source,
    })?;
    Ok(translator.translate_bytes(bytes)?.program)
}
