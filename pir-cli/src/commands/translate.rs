//! `pir translate`: legacy ProgramDesc (`.pdmodel`) to PIR.

use std::path::{Path, PathBuf};

use clap::Args;
use pir_runtime::Program;
use pir_translator::{LegacyProgram, TranslateError, TranslateOptions, Translator};

use crate::error::CliError;

/// `pir translate MODEL.pdmodel [-o OUT] [--check-types] [--report-unknown]`
#[derive(Args)]
pub struct TranslateArgs {
    /// The legacy program (`.pdmodel`, protobuf).
    pub model: PathBuf,
    /// Write the PIR text here instead of standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Re-run every op's infer-meta and report results whose recorded type differs (to
    /// stderr); differences make the command fail.
    #[arg(long)]
    pub check_types: bool,
    /// Before translating, list every op of the program that cannot be translated (all of
    /// them at once, with their positions and the missing ops) and fail if there is any.
    #[arg(long)]
    pub report_unknown: bool,
}

/// A decoding or translation problem of `path`: the message carries the location in the
/// program and what is wrong.
fn file_error(path: &Path, e: impl std::error::Error + Send + Sync + 'static) -> CliError {
    CliError::input(path, e)
}

/// Decodes and translates `path` into the `pd_op` dialect of this binary.
pub fn translate_file(path: &Path, options: TranslateOptions) -> Result<Program, CliError> {
    let bytes = std::fs::read(path).map_err(|e| CliError::io(path, e))?;
    translate_bytes(path, &bytes, options)
}

/// Decodes and translates the content `bytes` of file `path`.
pub fn translate_bytes(
    path: &Path,
    bytes: &[u8],
    options: TranslateOptions,
) -> Result<Program, CliError> {
    let legacy = LegacyProgram::decode(bytes).map_err(|e| file_error(path, e))?;
    let translator = Translator::new(super::catalog::context()?);
    let translation = translator.translate_with(&legacy, options).map_err(|e| {
        let unknown = match &e {
            TranslateError::UnknownOp { missing, .. }
            | TranslateError::MissingOps { missing, .. } => {
                Some(missing.first().cloned().unwrap_or_default())
            }
            TranslateError::UnknownOps(_) => Some(String::new()),
            _ => None,
        };
        super::catalog::input_error(path, e, unknown.as_deref())
    })?;
    Ok(translation.program)
}

/// Runs `pir translate`.
pub fn run(args: TranslateArgs) -> Result<(), CliError> {
    let options = TranslateOptions {
        report_unknown: args.report_unknown,
    };
    let program = translate_file(&args.model, options)?;
    let text = program.to_string();
    match &args.output {
        Some(out) => std::fs::write(out, &text).map_err(|e| CliError::io(out, e))?,
        None => crate::output::stdout(&text)?,
    }
    if args.check_types {
        check_types(&args.model, &program)?;
    }
    Ok(())
}

/// `--check-types`: re-runs every op's infer-meta, prints the report (every difference) on
/// stderr, and fails if a recorded result type differs.
pub fn check_types(path: &Path, program: &Program) -> Result<(), CliError> {
    let report = pir_runtime::check_types(program);
    eprint!("{report}");
    if report.is_clean() {
        return Ok(());
    }
    let mut msg = format!(
        "{}: check-types found {} result type(s) that differ from their infer-meta",
        path.display(),
        report.differences.len()
    );
    if !report.refused.is_empty() {
        msg += &format!(
            " and {} op(s) whose infer-meta refuses them",
            report.refused.len()
        );
    }
    Err(CliError::Check(msg))
}
