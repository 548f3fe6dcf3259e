//! The pass interface and pass attributes.

use std::collections::BTreeMap;

use crate::error::PassError;
use crate::module::IrModule;

/// A value given to a pass (`pm.add_pass(name, {attr: value})`): Paddle accepts `str`,
/// `bool`, `int` and `float`.
#[derive(Clone, Debug, PartialEq)]
pub enum PassAttr {
    /// A string.
    Str(String),
    /// A flag.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A number.
    Float(f64),
}

impl PassAttr {
    /// Reads `key=value` text: `true`/`false`, an integer, a number, else a string.
    ///
    /// ```
    /// use pir_passes::PassAttr;
    /// assert_eq!(PassAttr::parse("3"), PassAttr::Int(3));
    /// assert_eq!(PassAttr::parse("true"), PassAttr::Bool(true));
    /// assert_eq!(PassAttr::parse("0.5"), PassAttr::Float(0.5));
    /// assert_eq!(PassAttr::parse("cpu"), PassAttr::Str("cpu".into()));
    /// ```
    pub fn parse(text: &str) -> PassAttr {
        match text {
            "true" => PassAttr::Bool(true),
            "false" => PassAttr::Bool(false),
            _ => text
                .parse::<i64>()
                .map(PassAttr::Int)
                .or_else(|_| text.parse::<f64>().map(PassAttr::Float))
                .unwrap_or_else(|_| PassAttr::Str(text.to_string())),
        }
    }
}

/// The attributes of one pass, by name.
pub type PassAttrs = BTreeMap<String, PassAttr>;

/// What a pass reports (Paddle's `AddStatistics`): how many ops it changed or removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassStats {
    /// Rewrites applied (ops erased, replaced or created, as the pass counts them).
    pub changes: usize,
}

impl PassStats {
    /// `changes` rewrites.
    pub fn changed(changes: usize) -> PassStats {
        PassStats { changes }
    }
}

/// A transformation of a module. Passes are stateless values; their attributes are given when
/// they are made ([`crate::registry::PassInfo::create`]).
///
/// ```
/// use pir_passes::{IrModule, Pass, PassError, PassManager, PassStats};
/// struct CountOps;
/// impl Pass for CountOps {
///     fn name(&self) -> &'static str { "count_ops" }
///     fn opt_level(&self) -> u8 { 0 }
///     fn run(&self, m: &mut IrModule) -> Result<PassStats, PassError> {
///         Ok(PassStats::changed(m.program.block_len(m.program.block())))
///     }
/// }
/// let ctx = pir_runtime::IrContext::new();
/// let mut m = IrModule::from(pir_runtime::Program::new(&ctx));
/// let mut pm = PassManager::new(0);
/// pm.add(Box::new(CountOps));
/// let report = pm.run(&mut m).unwrap();
/// assert_eq!(report.timings[0].stats.changes, 0);
/// ```
pub trait Pass: Send + Sync {
    /// Paddle's registry name (`dead_code_elimination_pass`).
    fn name(&self) -> &'static str;
    /// The pass runs only when the manager's level is at least this (Paddle's `opt_level`).
    fn opt_level(&self) -> u8;
    /// Transforms `module` in place.
    ///
    /// # Errors
    ///
    /// A [`PassError`] naming the op it could not handle.
    fn run(&self, module: &mut IrModule) -> Result<PassStats, PassError>;
    /// Whether the pass applies to this module (Paddle's `CanApplyOn`).
    fn can_apply_on(&self, _module: &IrModule) -> bool {
        true
    }
}
