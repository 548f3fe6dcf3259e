//! `pir verify` and `pir print`: read a program in one of the formats the project reads.

use std::path::PathBuf;

use clap::Args;

use crate::error::CliError;

/// `pir verify FILE` / `pir print FILE`
#[derive(Args)]
pub struct ProgramArgs {
    /// The program: a legacy `.pdmodel`, or a Paddle 3 PIR `.json`.
    pub file: PathBuf,
}

/// Runs `pir verify`.
pub fn verify(args: ProgramArgs) -> Result<(), CliError> {
    Err(CliError::Usage(format!(
        "{}: reading programs is not available yet",
        args.file.display()
    )))
}

/// Runs `pir print`.
pub fn print(args: ProgramArgs) -> Result<(), CliError> {
    Err(CliError::Usage(format!(
        "{}: reading programs is not available yet",
        args.file.display()
    )))
}
