//! The ops a command looks at: the ones registered in this binary's context, or the ones of a
//! directory of Paddle-schema yaml read at run time through `pir_spec::yaml` (exactly what the
//! macro would generate from it).

use std::path::Path;
use std::sync::Arc;

use pir_runtime::IrContext;
use pir_spec::yaml::folder::YamlFolder;
use pir_spec::OpSchema;

use crate::error::CliError;

/// One op as the CLI shows it.
pub struct OpEntry {
    /// Full name.
    pub name: String,
    /// Dialect.
    pub dialect: String,
    /// The specification (absent for hand-written ops such as the builtin ones).
    pub schema: Option<OpSchema>,
    /// Trait names, sorted.
    pub traits: Vec<String>,
    /// Interface names, sorted.
    pub interfaces: Vec<String>,
}

/// The context with every dialect this binary knows: builtin and the project's `pd_op`.
pub fn context() -> Result<Arc<IrContext>, CliError> {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx)?;
    Ok(ctx)
}

/// The registered ops, sorted by name.
pub fn registered() -> Result<Vec<OpEntry>, CliError> {
    let ctx = context()?;
    Ok(ctx
        .registered_ops()
        .into_iter()
        .map(|d| {
            let mut traits: Vec<String> = d.traits.iter().map(|t| t.name.to_string()).collect();
            traits.sort();
            let mut interfaces: Vec<String> =
                d.interfaces.iter().map(|t| t.name.to_string()).collect();
            interfaces.sort();
            OpEntry {
                name: d.name.to_string(),
                dialect: d.dialect.to_string(),
                schema: d.schema.cloned(),
                traits,
                interfaces,
            }
        })
        .collect())
}

/// The ops of the generator yaml in `dir` ([`pir_spec::yaml::folder`]),
/// in file order.
pub fn from_yaml_dir(dir: &Path, dialect: &str) -> Result<Vec<OpEntry>, CliError> {
    let folder = YamlFolder::read(dir).map_err(|e| CliError::NotFound(e.to_string()))?;
    let set = folder.load(dialect).map_err(CliError::Spec)?;
    Ok(set
        .ops
        .into_iter()
        .map(|s| OpEntry {
            name: s.name.to_string(),
            dialect: s.dialect.to_string(),
            traits: s.traits.iter().map(|t| t.to_string()).collect(),
            interfaces: s.interfaces.iter().map(|t| t.to_string()).collect(),
            schema: Some(s),
        })
        .collect())
}

/// Registered ops, or the ops of `yaml_dir` when given.
pub fn load(yaml_dir: Option<&Path>, dialect: &str) -> Result<Vec<OpEntry>, CliError> {
    match yaml_dir {
        Some(d) => from_yaml_dir(d, dialect),
        None => registered(),
    }
}
