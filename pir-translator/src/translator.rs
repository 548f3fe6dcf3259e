//! [`Translator`]: the entry point. It holds the IR context (whose registered dialects are the
//! translation targets), the op_compat names of those dialects, and the op handlers by legacy
//! op type.

use std::sync::Arc;

use pir_runtime::{IrContext, IrError, Program};
use rustc_hash::FxHashMap;

use crate::handlers::{builtin_handlers, UNSUPPORTED_OPS};
use crate::op_compat::OpCompatInfo;
use crate::op_translator::{general::GeneralTranscriber, OpContext, OpTranscriber, VarIndex};
use crate::program_translator::ProgramTranslator;
use crate::translate_error::TranslateError;
use crate::unknown_ops::UnknownOpReport;
use crate::variable_map::{VariableDefiningInfo, VariableMap};
use pir_legacy::LegacyProgram;

/// Options of [`Translator::translate_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TranslateOptions {
    /// Check every op first and fail with [`TranslateError::UnknownOps`] listing all the ops
    /// that cannot be translated (instead of stopping at the first).
    pub report_unknown: bool,
}

/// The result of a translation.
#[derive(Debug)]
pub struct Translation {
    /// The PIR program.
    pub program: Program,
    /// The variable map: each legacy variable and the values that defined it, oldest first
    /// (Paddle's `VarDesc2Value`), in first-definition order.
    pub variables: Vec<(String, Vec<VariableDefiningInfo>)>,
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
    ctx: Arc<IrContext>,
    compat: OpCompatInfo,
    handlers: FxHashMap<String, Arc<dyn OpTranscriber>>,
    general: Arc<dyn OpTranscriber>,
}

impl std::fmt::Debug for Translator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Translator")
            .field("dialects", &self.ctx.dialects())
            .field("handlers", &self.handlers.len())
            .finish_non_exhaustive()
    }
}

impl Translator {
    /// A translator into the dialects registered in `ctx` (register them first: the op_compat
    /// names are read from the registered ops now), with the built-in special handlers.
    pub fn new(ctx: Arc<IrContext>) -> Translator {
        let compat = OpCompatInfo::from_context(&ctx);
        let handlers = builtin_handlers()
            .into_iter()
            .map(|(n, h)| (n.to_string(), h))
            .collect();
        Translator {
            ctx,
            compat,
            handlers,
            general: Arc::new(GeneralTranscriber),
        }
    }

    /// A translator into a new context holding this project's `pd_op` dialect.
    pub fn with_pd_op() -> Result<Translator, IrError> {
        let ctx = IrContext::new();
        op_defs::pd_op::register(&ctx)?;
        Ok(Translator::new(ctx))
    }

    /// The context programs are created in.
    pub fn ctx(&self) -> &Arc<IrContext> {
        &self.ctx
    }

    /// The op_compat names.
    pub fn compat(&self) -> &OpCompatInfo {
        &self.compat
    }

    /// The op_compat names, mutably (to add names of ops registered after construction).
    pub fn compat_mut(&mut self) -> &mut OpCompatInfo {
        &mut self.compat
    }

    /// Registers `handler` for legacy op type `op_type`, replacing (and returning) any
    /// previous one.
    pub fn register_handler(
        &mut self,
        op_type: impl Into<String>,
        handler: impl OpTranscriber + 'static,
    ) -> Option<Arc<dyn OpTranscriber>> {
        self.handlers.insert(op_type.into(), Arc::new(handler))
    }

    /// Whether a special handler is registered for `op_type`.
    pub fn has_special_handler(&self, op_type: &str) -> bool {
        self.handlers.contains_key(op_type)
    }

    /// The handler of `op_type`: its special handler, or the general one.
    pub fn handler(&self, op_type: &str) -> &dyn OpTranscriber {
        self.handlers.get(op_type).unwrap_or(&self.general).as_ref()
    }

    /// Decodes `.pdmodel` bytes and translates them.
    pub fn translate_bytes(&self, bytes: &[u8]) -> Result<Translation, TranslateError> {
        let legacy = LegacyProgram::decode(bytes)?;
        self.translate(&legacy)
    }

    /// Translates a legacy program, stopping at the first op that cannot be translated.
    pub fn translate(&self, legacy: &LegacyProgram) -> Result<Translation, TranslateError> {
        if legacy.blocks.is_empty() {
            return Err(TranslateError::Decode(pir_legacy::DecodeError::NoBlocks));
        }
        ProgramTranslator::new(self, legacy).run()
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
        let mut report = UnknownOpReport::default();
        let index = VarIndex::new(legacy);
        let mut scratch = Program::new(&self.ctx);
        let scratch_block = scratch.block();
        let mut vars = VariableMap::new();
        for block in &legacy.blocks {
            for (i, op) in block.ops.iter().enumerate() {
                let at = (block.idx, i);
                if UNSUPPORTED_OPS.contains(&op.op_type.as_str()) {
                    report.add(
                        &op.op_type,
                        false,
                        vec![format!("a translation of `{}` (control flow)", op.op_type)],
                        at,
                    );
                    continue;
                }
                let handler = self.handler(&op.op_type);
                let cx = OpContext {
                    translator: self,
                    legacy,
                    var_index: &index,
                    block_index: block.idx,
                    op_index: i,
                    op,
                    names: self.compat.op_names(&op.op_type),
                    program: &mut scratch,
                    block: scratch_block,
                    vars: &mut vars,
                };
                let mut missing = match handler.look_up(&cx) {
                    Err(TranslateError::UnknownOp { missing, .. })
                    | Err(TranslateError::MissingOps { missing, .. }) => missing,
                    _ => Vec::new(),
                };
                for name in handler.required_ops(op, self) {
                    if self.ctx.op_def(&name).is_none() && !missing.contains(&name) {
                        missing.push(name);
                    }
                }
                if !missing.is_empty() {
                    report.add(
                        &op.op_type,
                        self.has_special_handler(&op.op_type),
                        missing,
                        at,
                    );
                }
            }
        }
        report
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
        at: Box::new(pir_legacy::Location::program()),
        source,
    })?;
    Ok(translator.translate_bytes(bytes)?.program)
}
