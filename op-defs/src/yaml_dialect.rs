//! The `pd_op` dialect read from a folder of Paddle's generator yaml at run time (feature
//! `yaml`), with this crate's infer-meta functions ([`crate::infer_meta::REGISTRY`]), found by
//! Paddle's function name as compiled ops find them.
//!
//! [`register`] adds the compiled `pd_op` dialect first, so the ops this crate defines (and
//! the builtin ones) win over yaml classes of the same name.
//!
//! ```
//! let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../ops-yaml"));
//! let dialect = op_defs::yaml_dialect::load(dir).unwrap();
//! let ctx = pir_runtime::IrContext::new();
//! // Every class of ops-yaml/ is compiled into this crate already: the yaml adds nothing.
//! assert_eq!(op_defs::yaml_dialect::register(&ctx, &dialect).unwrap(), 0);
//! assert!(std::ptr::eq(
//!     ctx.op_def("pd_op.relu").unwrap(),
//!     <op_defs::pd_op::ReluOp as pir_runtime::Op>::DEF,
//! ));
//! ```

use std::path::Path;

use pir_runtime::yaml_dialect::{YamlDialect, YamlDialectError};
use pir_runtime::{IrContext, IrError};

/// Reads `dir` (Paddle's `paddle/phi/ops/yaml/` layout) into the `pd_op` dialect.
///
/// # Errors
///
/// The folder's read error, every yaml problem (file:line), or every class that cannot be
/// defined.
pub fn load(dir: &Path) -> Result<YamlDialect, YamlDialectError> {
    YamlDialect::load(dir, "pd_op", &crate::infer_meta::REGISTRY)
}

/// Registers the compiled `pd_op` dialect, then the classes of `dialect` it lacks; returns how
/// many yaml classes were added.
///
/// # Errors
///
/// [`IrError`] if a name belongs to another dialect.
pub fn register(ctx: &IrContext, dialect: &YamlDialect) -> Result<usize, IrError> {
    crate::pd_op::register(ctx)?;
    dialect.register(ctx)
}
