//! `pir-passes`: transformations of pir-rs programs, as Paddle 3.3.1 runs them.
//!
//! - [`PassManager`]: passes by Paddle's names with attributes, under an optimisation level
//!   (`paddle.pir.PassManager(opt_level)`), with instrumentation (time per pass, the IR before
//!   and after each pass on request).
//! - [`rewrite`]: the pattern-rewrite API ([`Rewriter`]: create, erase, replace, replace uses,
//!   keeping use lists right) and [`greedy`], the worklist driver running patterns to a fixed
//!   point.
//! - [`passes`]: Paddle's passes (`dead_code_elimination_pass`,
//!   `common_subexpression_elimination_pass`, `identity_op_clean_pass`,
//!   `replace_fetch_with_shadow_output_pass`, ...), each reproducing Paddle's printed output.
//!
//! ```
//! use pir_passes::{IrModule, PassManager};
//! use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
//! let ctx = IrContext::new();
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
//! let w = builtin::parameter(&mut b, "w", t).unwrap();
//! builtin::parameter(&mut b, "unused", t).unwrap();
//! builtin::shadow_output(&mut b, w, "out").unwrap();
//! let mut module = IrModule::from(prog);
//! let mut pm = PassManager::new(2);
//! pm.add_pass("dead_code_elimination_pass", Default::default()).unwrap();
//! pm.run(&mut module).unwrap();
//! assert!(!module.program.to_string().contains("unused"));
//! ```

// `drr!` names this crate by its path, inside it too.
#[allow(unused_extern_crates)]
extern crate self as pir_passes;

pub mod drr;
pub mod error;
pub mod greedy;
pub mod kernel;
pub mod manager;
pub mod module;
pub mod pass;
pub mod passes;
pub mod registry;
pub mod rewrite;

pub use error::PassError;
pub use manager::{PassManager, PassReport, PassTiming};
pub use module::IrModule;
pub use pass::{Pass, PassAttr, PassAttrs, PassStats};
pub use rewrite::{PatternSet, RewritePattern, Rewriter};

/// The guide `docs/writing-a-pass.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/writing-a-pass.md")]
pub struct GuideDoctests;
