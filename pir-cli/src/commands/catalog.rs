//! The ops a command looks at: the ones this binary compiles in (builtin and the project's
//! `pd_op`), plus, when a folder of Paddle's generator yaml is given (`--yaml DIR` or
//! `PIR_PADDLE_YAML`), every `pd_op` class of that folder the binary lacks, defined at run time
//! ([`op_defs::yaml_dialect`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use pir_runtime::yaml_dialect::YamlDialect;
use pir_runtime::IrContext;
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

/// The yaml folder of this run (set once by `main`), and its dialect, loaded on first use.
static YAML_DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
static YAML_DIALECT: OnceLock<Result<YamlDialect, String>> = OnceLock::new();

/// Sets the yaml folder every command of this run reads ops from (`None`: compiled ops only).
pub fn set_yaml_dir(dir: Option<PathBuf>) {
    // Set once, before any command runs; a second call keeps the first folder.
    let _ = YAML_DIR.set(dir);
}

/// The yaml folder of this run, if any.
pub fn yaml_dir() -> Option<&'static Path> {
    YAML_DIR.get().and_then(|d| d.as_deref())
}

/// The dialect of the yaml folder, loaded once per run.
fn yaml_dialect(dir: &Path) -> Result<&'static YamlDialect, CliError> {
    YAML_DIALECT
        .get_or_init(|| op_defs::yaml_dialect::load(dir).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| CliError::Yaml {
            dir: dir.to_path_buf(),
            message: e.clone(),
        })
}

/// The context with every dialect of this run: builtin, the project's `pd_op`, and the yaml
/// folder's classes the binary lacks.
pub fn context() -> Result<Arc<IrContext>, CliError> {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx)?;
    if let Some(dir) = yaml_dir() {
        op_defs::yaml_dialect::register(&ctx, yaml_dialect(dir)?)?;
    }
    Ok(ctx)
}

/// The registered ops of [`context`], sorted by name.
pub fn registered() -> Result<Vec<OpEntry>, CliError> {
    let ctx = context()?;
    if let Some(dir) = yaml_dir() {
        let skipped = yaml_dialect(dir)?.skipped();
        if let Some(first) = skipped.first() {
            eprintln!(
                "note: {} op class(es) of the yaml in {} cannot be defined and are left out; \
                 the first: {first}",
                skipped.len(),
                dir.display()
            );
        }
    }
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

/// The hint added to an "unknown op" error about op `name` (when known).
pub fn unknown_op_hint(name: Option<&str>) -> String {
    let skipped = yaml_dir()
        .and_then(|_| YAML_DIALECT.get()?.as_ref().ok())
        .and_then(|d| d.skipped().iter().find(|e| Some(e.op.as_str()) == name));
    if let Some(e) = skipped {
        return format!("hint: the yaml describes the op but it cannot be defined: {e}");
    }
    match yaml_dir() {
        Some(dir) => format!(
            "hint: the op is neither compiled into pir nor defined by the yaml in {}; point \
             --yaml (or PIR_PADDLE_YAML) at Paddle's generator yaml (paddle/phi/ops/yaml)",
            dir.display()
        ),
        None => "hint: this pir has the ops of its own op list only; point --yaml DIR (or \
                 PIR_PADDLE_YAML) at Paddle's generator yaml (paddle/phi/ops/yaml) to load \
                 every pd_op op"
            .to_string(),
    }
}

/// A problem with the content of input `path`; an unknown op (`Some(name)`, or `Some("")`
/// when several or unnamed) adds [`unknown_op_hint`].
pub fn input_error(
    path: &Path,
    e: impl std::error::Error + Send + Sync + 'static,
    unknown_op: Option<&str>,
) -> CliError {
    if let Some(name) = unknown_op {
        CliError::Input {
            path: path.to_path_buf(),
            source: format!("{e}\n{}", unknown_op_hint(Some(name))).into(),
        }
    } else {
        CliError::input(path, e)
    }
}
