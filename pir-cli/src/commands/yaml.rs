//! `pir yaml check`: validates Paddle-schema yaml with the parser the macro uses.

use std::path::PathBuf;

use clap::Subcommand;
use pir_spec::yaml::folder::YamlFolder;
use pir_spec::yaml::{load_op_set, YamlSource};

use crate::error::{read_to_string, CliError};

/// `pir yaml ...`
#[derive(Subcommand)]
pub enum YamlCommand {
    /// Check op yaml files (ops.yaml / backward.yaml style) and op_compat files, or a folder in
    /// Paddle's layout; prints every problem as `file:line: op: message` and exits with status
    /// 1 if there is any.
    Check {
        /// Op yaml files; a file whose name contains `compat` is read as op_compat.yaml. A
        /// directory is read as Paddle's yaml folder: every generator file present and its
        /// op_compat.yaml.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// An op_compat.yaml to use (instead of detecting it by name).
        #[arg(long)]
        compat: Option<PathBuf>,
        /// Dialect of the generated ops.
        #[arg(long, default_value = "pd_op")]
        dialect: String,
    },
}

/// Runs a `pir yaml` command.
pub fn run(cmd: YamlCommand) -> Result<(), CliError> {
    match cmd {
        YamlCommand::Check {
            files,
            compat,
            dialect,
        } => check(files, compat, &dialect),
    }
}

fn check(files: Vec<PathBuf>, compat: Option<PathBuf>, dialect: &str) -> Result<(), CliError> {
    if let [dir] = &files[..] {
        if dir.is_dir() && compat.is_none() {
            return check_folder(dir, dialect);
        }
    }
    let mut ops = Vec::new();
    let mut compat_file = compat
        .map(|p| read_to_string(&p).map(|t| (p, t)))
        .transpose()?;
    for f in files {
        let text = read_to_string(&f)?;
        let is_compat = f
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.contains("compat"));
        if is_compat {
            if compat_file.is_some() {
                return Err(CliError::Usage(format!(
                    "{}: only one op_compat file can be checked at a time",
                    f.display()
                )));
            }
            compat_file = Some((f, text));
        } else {
            ops.push((f, text));
        }
    }
    let labels: Vec<String> = ops.iter().map(|(p, _)| p.display().to_string()).collect();
    let sources: Vec<YamlSource<'_>> = ops
        .iter()
        .zip(&labels)
        .map(|((_, t), l)| YamlSource { path: l, text: t })
        .collect();
    let compat_label = compat_file.as_ref().map(|(p, _)| p.display().to_string());
    let compat_src = compat_file
        .as_ref()
        .zip(compat_label.as_ref())
        .map(|((_, t), l)| YamlSource { path: l, text: t });
    let set = load_op_set(dialect, &sources, compat_src).map_err(CliError::Spec)?;
    crate::output::stdout(&format!(
        "ok: {} op class(es) from {} file(s){}\n",
        set.ops.len(),
        sources.len(),
        if compat_src.is_some() {
            " and op_compat"
        } else {
            ""
        }
    ))
}

/// `pir yaml check DIR`: the folder read as every user reads it ([`YamlFolder`]).
fn check_folder(dir: &std::path::Path, dialect: &str) -> Result<(), CliError> {
    let folder = YamlFolder::read(dir).map_err(|e| CliError::NotFound(e.to_string()))?;
    let set = folder.load(dialect).map_err(CliError::Spec)?;
    println!(
        "ok: {} op class(es) from {} file(s){}",
        set.ops.len(),
        folder.files().len(),
        if folder.compat().is_some() {
            " and op_compat"
        } else {
            ""
        }
    );
    Ok(())
}
