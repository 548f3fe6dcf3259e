//! The unknown-op report (Paddle's `check_unregistered_ops`): every op of a program that
//! cannot be translated, at once, grouped by op type, with where each occurs and what is
//! missing.

use std::fmt;

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

    pub(crate) fn add(
        &mut self,
        op_type: &str,
        has_handler: bool,
        missing: Vec<String>,
        at: (usize, usize),
    ) {
        match self.ops.iter_mut().find(|o| o.op_type == op_type) {
            Some(entry) => {
                for m in missing {
                    if !entry.missing.contains(&m) {
                        entry.missing.push(m);
                    }
                }
                entry.positions.push(at);
            }
            None => self.ops.push(UnknownOp {
                op_type: op_type.to_string(),
                has_handler,
                missing,
                positions: vec![at],
            }),
        }
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
