//! `pir verify` and `pir print`: read a program in one of the formats the project reads.

use std::path::{Path, PathBuf};

use clap::Args;
use pir_runtime::Program;
use pir_translator::TranslateOptions;

use crate::error::CliError;

/// `pir verify FILE` / `pir print FILE`
#[derive(Args)]
pub struct ProgramArgs {
    /// The program: a legacy `.pdmodel`, or a Paddle 3 PIR `.json`.
    pub file: PathBuf,
}

/// The program formats `pir verify` / `pir print` read, by file extension.
enum Format {
    /// A legacy `ProgramDesc` (`.pdmodel`): translated to PIR.
    Pdmodel,
    /// A Paddle 3 PIR JSON program (`.json`).
    Json,
}

fn format_of(path: &Path) -> Result<Format, CliError> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("pdmodel") => Ok(Format::Pdmodel),
        Some("json") => Ok(Format::Json),
        _ => Err(CliError::Usage(format!(
            "{}: unknown program format (expected a `.pdmodel` or a `.json` file)",
            path.display()
        ))),
    }
}

/// Reads the program in `path`.
pub fn read_program(path: &Path) -> Result<Program, CliError> {
    match format_of(path)? {
        Format::Pdmodel => super::translate::translate_file(path, TranslateOptions::default()),
        Format::Json => read_json(path),
    }
}

/// Reads a Paddle 3 PIR JSON program (`paddle.jit.save` in PIR mode) with `pir-json`, in a
/// context with the `pd_op` dialect.
fn read_json(path: &Path) -> Result<Program, CliError> {
    let text = crate::error::read_to_string(path)?;
    let ctx = super::catalog::context()?;
    pir_json::read_program(&ctx, &text).map_err(|e| CliError::input(path, e))
}

/// Runs `pir verify`: reads the program, verifies it and reports the result.
pub fn verify(args: ProgramArgs) -> Result<(), CliError> {
    let program = read_program(&args.file)?;
    pir_runtime::verify(&program)?;
    println!(
        "{}: verified ({} ops)",
        args.file.display(),
        program.block_len(program.block())
    );
    Ok(())
}

/// Runs `pir print`: reads the program and prints it in Paddle's text format.
pub fn print(args: ProgramArgs) -> Result<(), CliError> {
    let program = read_program(&args.file)?;
    print!("{program}");
    Ok(())
}
