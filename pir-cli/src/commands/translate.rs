//! `pir translate`: legacy ProgramDesc (`.pdmodel`) to PIR.

use std::path::PathBuf;

use clap::Args;

use crate::error::CliError;

/// `pir translate MODEL.pdmodel [-o OUT] [--check-types]`
#[derive(Args)]
pub struct TranslateArgs {
    /// The legacy program (`.pdmodel`, protobuf).
    pub model: PathBuf,
    /// Write the PIR text here instead of standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Re-run every op's infer-meta and report results whose recorded type differs.
    #[arg(long)]
    pub check_types: bool,
}

/// Runs `pir translate`.
pub fn run(args: TranslateArgs) -> Result<(), CliError> {
    Err(CliError::Usage(format!(
        "{}: translation is not available yet",
        args.model.display()
    )))
}
