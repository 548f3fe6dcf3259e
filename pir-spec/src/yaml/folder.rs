//! A folder of Paddle's generator yaml (`paddle/phi/ops/yaml/` in Paddle's tree), read as one
//! op set: the one entry point for every run-time user (the `pir` CLI, the translator, the
//! run-time dialect) and for the corpus crate's build.
//!
//! ```
//! use pir_spec::yaml::folder::YamlFolder;
//! let dir = std::env::temp_dir().join(format!("pir-spec-folder-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! std::fs::write(dir.join("ops.yaml"), "\
//! - op : relu
//!   args : (Tensor x)
//!   output : Tensor(out)
//!   infer_meta :
//!     func : UnchangedInferMeta
//!   kernel :
//!     func : relu
//! ").unwrap();
//! let folder = YamlFolder::read(&dir).unwrap();
//! assert_eq!(folder.files().len(), 1);
//! let set = folder.load("pd_op").unwrap();
//! assert!(set.get("relu").is_some());
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

use std::path::{Path, PathBuf};

use super::{load_op_set, OpSet, SpecErrors, YamlSource};

/// The generator files Paddle reads to make its `pd_op` dialect, relative to the folder, in the
/// order its generator takes them (forward, backward, fused, static, update, sparse).
pub const GENERATOR_FILES: &[&str] = &[
    "ops.yaml",
    "backward.yaml",
    "fused_ops.yaml",
    "fused_backward.yaml",
    "inconsistent/static_ops.yaml",
    "inconsistent/static_backward.yaml",
    "inconsistent/update_ops.yaml",
    "sparse_ops.yaml",
    "sparse_backward.yaml",
];

/// The generator files the front end reads: all of [`GENERATOR_FILES`]. Absent ones are
/// skipped (the shared snapshot has no `fused_ops.yaml`; Paddle's own folder has it).
pub const SUPPORTED_FILES: &[&str] = GENERATOR_FILES;

/// The op_compat file, relative to the folder.
pub const COMPAT_FILE: &str = "op_compat.yaml";

/// Why a folder could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// A file exists but could not be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// None of the generator files is in the folder.
    #[error("{dir}: no Paddle generator yaml here (expected ops.yaml, backward.yaml, ...)")]
    Empty {
        /// The folder.
        dir: PathBuf,
    },
}

/// The texts of a folder's generator files and op_compat, as read.
#[derive(Debug, Clone)]
pub struct YamlFolder {
    files: Vec<(String, String)>,
    compat: Option<(String, String)>,
}

impl YamlFolder {
    /// Reads the supported generator files present in `dir` and its op_compat.yaml.
    pub fn read(dir: &Path) -> Result<YamlFolder, FolderError> {
        let mut files = Vec::new();
        for name in SUPPORTED_FILES {
            if let Some(text) = read_if_present(&dir.join(name))? {
                files.push((dir.join(name).display().to_string(), text));
            }
        }
        if files.is_empty() {
            return Err(FolderError::Empty {
                dir: dir.to_path_buf(),
            });
        }
        let compat_path = dir.join(COMPAT_FILE);
        let compat = read_if_present(&compat_path)?.map(|t| (compat_path.display().to_string(), t));
        Ok(YamlFolder { files, compat })
    }

    /// The generator files read, as (path, text), in generator order.
    pub fn files(&self) -> &[(String, String)] {
        &self.files
    }

    /// op_compat.yaml as (path, text), when present.
    pub fn compat(&self) -> Option<(&str, &str)> {
        self.compat.as_ref().map(|(p, t)| (p.as_str(), t.as_str()))
    }

    /// Lowers the folder into the op classes of `dialect`, as the macro would.
    pub fn load(&self, dialect: &str) -> Result<OpSet, SpecErrors> {
        let sources: Vec<YamlSource<'_>> = self
            .files
            .iter()
            .map(|(path, text)| YamlSource { path, text })
            .collect();
        let compat = self.compat().map(|(path, text)| YamlSource { path, text });
        load_op_set(dialect, &sources, compat)
    }
}

fn read_if_present(path: &Path) -> Result<Option<String>, FolderError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(FolderError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}
