//! The CLI's error type.

use std::path::PathBuf;

/// Anything that makes a `pir` command fail.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// An input file's content is invalid: a corrupt `.pdmodel`, a program the translator or
    /// the JSON reader rejects (the message locates the problem inside the file).
    #[error("{}: {source}", path.display())]
    Input {
        /// The file.
        path: PathBuf,
        /// What is wrong, located.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A problem at a line and column of an input file (a text program that does not parse).
    #[error("{}:{line}:{column}: {message}", path.display())]
    Located {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong (the op being read, expected versus found).
        message: String,
    },
    /// Yaml problems, one per line with file:line.
    #[error("{} problem(s) in the yaml:\n{}", .0.len(), .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))]
    Spec(pir_spec::yaml::SpecErrors),
    /// The yaml folder given with `--yaml` (or `PIR_PADDLE_YAML`) cannot be loaded.
    #[error("--yaml {}: {message}", dir.display())]
    Yaml {
        /// The folder.
        dir: PathBuf,
        /// What is wrong (every problem, located).
        message: String,
    },
    /// Standard output cannot be written (closed pipe, full disk).
    #[error("cannot write to standard output: {0}")]
    Stdout(std::io::Error),
    /// Something asked for does not exist.
    #[error("{0}")]
    NotFound(String),
    /// Invalid command-line input.
    #[error("{0}")]
    Usage(String),
    /// A check the command was asked to run found problems (reported above on stderr).
    #[error("{0}")]
    Check(String),
    /// Program verification failed.
    #[error("{0}")]
    Verify(#[from] pir_runtime::VerifyErrors),
    /// Building a program failed.
    #[error("{0}")]
    Build(#[from] pir_runtime::BuildError),
    /// An IR error.
    #[error("{0}")]
    Ir(#[from] pir_runtime::IrError),
}

impl CliError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> CliError {
        CliError::Io {
            path: path.into(),
            source,
        }
    }
}

impl CliError {
    /// A problem with the content of input `path`.
    pub fn input(
        path: &std::path::Path,
        e: impl std::error::Error + Send + Sync + 'static,
    ) -> CliError {
        CliError::Input {
            path: path.to_path_buf(),
            source: Box::new(e),
        }
    }
}

/// Reads a file to a string with a located error.
pub fn read_to_string(path: &std::path::Path) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|e| CliError::io(path, e))
}
