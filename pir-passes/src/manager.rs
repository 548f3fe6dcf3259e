//! The pass manager: passes by name, an optimisation level, instrumentation.

use std::time::{Duration, Instant};

use crate::error::PassError;
use crate::module::IrModule;
use crate::pass::{Pass, PassAttrs, PassStats};
use crate::registry;

/// Runs passes in order, like Paddle's `PassManager(opt_level)`: a pass runs only if its own
/// level is at most the manager's.
///
/// ```
/// use pir_passes::PassManager;
/// let mut pm = PassManager::new(2);
/// pm.add_pass("dead_code_elimination_pass", Default::default()).unwrap();
/// pm.add_pass("inplace_pass", Default::default()).unwrap(); // level 3: skipped at level 2
/// assert_eq!(pm.passes(), ["dead_code_elimination_pass", "inplace_pass"]);
/// let ctx = pir_runtime::IrContext::new();
/// let mut m = pir_passes::IrModule::from(pir_runtime::Program::new(&ctx));
/// let report = pm.run(&mut m).unwrap();
/// assert_eq!(report.skipped, ["inplace_pass"]);
/// ```
pub struct PassManager {
    opt_level: u8,
    passes: Vec<Box<dyn Pass>>,
    print_before: bool,
    print_after: bool,
}

/// The time one pass took and what it reported.
#[derive(Clone, Debug)]
pub struct PassTiming {
    /// The pass.
    pub pass: &'static str,
    /// Wall time.
    pub elapsed: Duration,
    /// Its statistics.
    pub stats: PassStats,
}

/// What a run of the manager observed.
#[derive(Clone, Debug, Default)]
pub struct PassReport {
    /// Each pass that ran, in order.
    pub timings: Vec<PassTiming>,
    /// Passes skipped by the optimisation level or `can_apply_on`.
    pub skipped: Vec<&'static str>,
    /// `(heading, IR)` printed around passes when IR printing is enabled; headings are
    /// Paddle's: `IR before <pass>` / `IR after <pass>`.
    pub ir: Vec<(String, String)>,
}

impl PassReport {
    /// One line per pass: name, time in milliseconds, changes.
    ///
    /// ```
    /// let report = pir_passes::PassReport::default();
    /// assert_eq!(report.timing_table(), "");
    /// ```
    pub fn timing_table(&self) -> String {
        self.timings
            .iter()
            .map(|t| {
                format!(
                    "{:<45} {:>10.3} ms  {} changes\n",
                    t.pass,
                    t.elapsed.as_secs_f64() * 1e3,
                    t.stats.changes
                )
            })
            .collect()
    }
}

impl PassManager {
    /// A manager at optimisation level `opt_level` (Paddle's default is 2).
    pub fn new(opt_level: u8) -> PassManager {
        PassManager {
            opt_level,
            passes: Vec::new(),
            print_before: false,
            print_after: false,
        }
    }

    /// The optimisation level.
    pub fn opt_level(&self) -> u8 {
        self.opt_level
    }

    /// Adds the registered pass `name` made with `attrs` (Paddle's `add_pass(name, attrs)`).
    ///
    /// # Errors
    ///
    /// [`PassError::UnknownPass`], or [`PassError::Attribute`] for an attribute the pass does
    /// not take.
    pub fn add_pass(&mut self, name: &str, attrs: PassAttrs) -> Result<(), PassError> {
        let info = registry::lookup(name).ok_or_else(|| PassError::UnknownPass(name.into()))?;
        self.passes.push(info.create(&attrs)?);
        Ok(())
    }

    /// Adds a pass value.
    pub fn add(&mut self, pass: Box<dyn Pass>) {
        self.passes.push(pass);
    }

    /// The passes' names, in order (Paddle's `passes()`).
    pub fn passes(&self) -> Vec<&'static str> {
        self.passes.iter().map(|p| p.name()).collect()
    }

    /// Whether no pass was added.
    pub fn is_empty(&self) -> bool {
        self.passes.is_empty()
    }

    /// Removes every pass.
    pub fn clear(&mut self) {
        self.passes.clear();
    }

    /// Records the IR before and after every pass that runs (Paddle's
    /// `enable_ir_printing()`), into [`PassReport::ir`].
    pub fn enable_ir_printing(&mut self, before: bool, after: bool) {
        self.print_before = before;
        self.print_after = after;
    }

    /// Runs the passes in order on `module`.
    ///
    /// # Errors
    ///
    /// The first pass error; the module keeps the changes of the passes before it.
    pub fn run(&self, module: &mut IrModule) -> Result<PassReport, PassError> {
        let mut report = PassReport::default();
        for pass in &self.passes {
            if pass.opt_level() > self.opt_level || !pass.can_apply_on(module) {
                report.skipped.push(pass.name());
                continue;
            }
            if self.print_before {
                report
                    .ir
                    .push((format!("IR before {}", pass.name()), module.to_string()));
            }
            let start = Instant::now();
            let stats = pass.run(module)?;
            report.timings.push(PassTiming {
                pass: pass.name(),
                elapsed: start.elapsed(),
                stats,
            });
            if self.print_after {
                report
                    .ir
                    .push((format!("IR after {}", pass.name()), module.to_string()));
            }
        }
        Ok(report)
    }
}

impl Default for PassManager {
    fn default() -> Self {
        PassManager::new(2)
    }
}
