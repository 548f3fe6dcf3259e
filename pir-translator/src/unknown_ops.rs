//! The unknown-op report (Paddle's `check_unregistered_ops`): every op of a program that
//! cannot be translated, at once, grouped by op type, with where each occurs and what is
//! missing.

use std::fmt;

use pir_legacy::LegacyProgram;
use pir_runtime::Program;
use rustc_hash::FxHashMap;

use crate::dialects::TargetDialects;
use crate::handlers::UNSUPPORTED_OPS;
use crate::op_context::OpContext;
use crate::registry::Handlers;
use crate::translate_error::TranslateError;
use crate::var_index::VarIndex;
use crate::variable_map::VariableMap;

/// One legacy op type that cannot be translated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownOp {
    /// The legacy op type.
    pub op_type: String,
    /// Whether a special handler is registered for it (then `missing` are ops the handler
    /// needs; else `missing` is the general target op).
    pub has_handler: bool,
    /// What is missing: registered ops (`pd_op.rnn`), or a description for ops no handler can
    /// translate.
    pub missing: Vec<String>,
    /// Where it occurs: `(block, op index)`.
    pub positions: Vec<(usize, usize)>,
}

/// Every op type of a program that cannot be translated, in order of first occurrence.
///
/// ```
/// use pir_translator::{UnknownOp, UnknownOpReport};
/// let report = UnknownOpReport {
///     ops: vec![UnknownOp {
///         op_type: "foo".into(),
///         has_handler: false,
///         missing: vec!["pd_op.foo".into()],
///         positions: vec![(0, 3), (0, 7)],
///     }],
/// };
/// assert_eq!(
///     report.to_string(),
///     "1 op type(s) of the program cannot be translated:\n  `foo` (block 0 op 3, block 0 op 7): \
///      no special handler is registered and no registered dialect defines `pd_op.foo`"
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnknownOpReport {
    /// The op types.
    pub ops: Vec<UnknownOp>,
}

impl UnknownOpReport {
    /// Whether every op can be translated.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

impl fmt::Display for UnknownOpReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} op type(s) of the program cannot be translated:",
            self.ops.len()
        )?;
        for op in &self.ops {
            let at: Vec<String> = op
                .positions
                .iter()
                .map(|(b, i)| format!("block {b} op {i}"))
                .collect();
            let missing: Vec<String> = op.missing.iter().map(|m| format!("`{m}`")).collect();
            write!(f, "\n  `{}` ({}): ", op.op_type, at.join(", "))?;
            if op.has_handler {
                write!(
                    f,
                    "its handler needs {}, which this dialect does not define",
                    missing.join(", ")
                )?;
            } else {
                write!(
                    f,
                    "no special handler is registered and no registered dialect defines {}",
                    missing.join(", ")
                )?;
            }
        }
        Ok(())
    }
}

/// Every op of every block that cannot be translated: its handler's target
/// ([`OpTranscriber::look_up`](crate::OpTranscriber::look_up), run on a scratch program) or the
/// other ops it needs ([`OpTranscriber::required_ops`](crate::OpTranscriber::required_ops)) are
/// not registered, or the translator refuses the op.
pub(crate) fn report<'l>(
    dialects: &TargetDialects,
    handlers: &Handlers,
    legacy: &'l LegacyProgram,
) -> UnknownOpReport {
    let mut report = UnknownOpReport::default();
    // Op type → its entry in `report.ops`.
    let mut entries: FxHashMap<&'l str, usize> = FxHashMap::default();
    let mut add =
        |op_type: &'l str, has_handler: bool, missing: Vec<String>, at: (usize, usize)| {
            let i = *entries.entry(op_type).or_insert_with(|| {
                report.ops.push(UnknownOp {
                    op_type: op_type.to_string(),
                    has_handler,
                    missing: Vec::new(),
                    positions: Vec::new(),
                });
                report.ops.len() - 1
            });
            let entry = &mut report.ops[i];
            for m in missing {
                if !entry.missing.contains(&m) {
                    entry.missing.push(m);
                }
            }
            entry.positions.push(at);
        };
    let index = VarIndex::new(legacy);
    let mut scratch = Program::new(dialects.ctx());
    let scratch_block = scratch.block();
    let mut vars = VariableMap::new();
    for block in &legacy.blocks {
        for (i, op) in block.ops.iter().enumerate() {
            let at = (block.idx, i);
            if UNSUPPORTED_OPS.contains(&op.op_type.as_str()) {
                let what = format!("a translation of `{}` (control flow)", op.op_type);
                add(&op.op_type, false, vec![what], at);
                continue;
            }
            let special_handler = handlers.is_special(&op.op_type);
            let handler = handlers.get(&op.op_type);
            let cx = OpContext {
                dialects,
                special_handler,
                legacy,
                var_index: &index,
                block_index: block.idx,
                op_index: i,
                op,
                names: dialects.compat().op_names(&op.op_type),
                program: &mut scratch,
                block: scratch_block,
                vars: &mut vars,
            };
            let mut missing = match handler.look_up(&cx) {
                Err(TranslateError::UnknownOp { missing, .. })
                | Err(TranslateError::MissingOps { missing, .. }) => missing,
                _ => Vec::new(),
            };
            for name in handler.required_ops(&cx) {
                if dialects.op_def(&name).is_none() && !missing.contains(&name) {
                    missing.push(name);
                }
            }
            if !missing.is_empty() {
                add(&op.op_type, special_handler, missing, at);
            }
        }
    }
    report
}
