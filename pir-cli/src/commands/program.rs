//! `pir verify` and `pir print`: read a program in any of the formats the project reads,
//! recognised by content whatever the file's extension.

use std::path::{Path, PathBuf};

use clap::Args;
use pir_runtime::parser::ParseErrorKind;
use pir_runtime::printer::OpIds;
use pir_runtime::Program;
use pir_translator::TranslateOptions;

use crate::error::CliError;

/// `pir print FILE`
#[derive(Args)]
pub struct ProgramArgs {
    /// The program: Paddle's text form (as `print(program)` writes it), a Paddle 3 PIR JSON
    /// program, or a legacy `.pdmodel`; recognised by content.
    pub file: PathBuf,
}

/// `pir verify FILE [--check-types]`
#[derive(Args)]
pub struct VerifyArgs {
    /// The program: Paddle's text form, a Paddle 3 PIR JSON program, or a legacy `.pdmodel`;
    /// recognised by content.
    pub file: PathBuf,
    /// Also re-run every op's infer-meta and compare with the recorded result types; every
    /// difference is listed (on stderr) and makes the command fail.
    #[arg(long)]
    pub check_types: bool,
}

/// The program formats `pir verify` / `pir print` read.
#[derive(Debug, PartialEq, Eq)]
enum Format {
    /// Paddle's text form: `{`, then an op line or `}`.
    Text,
    /// A Paddle 3 PIR JSON program: `{"base_code":...}`.
    Json,
    /// Anything else is tried as a legacy `ProgramDesc` (protobuf), translated to PIR.
    Pdmodel,
}

/// The format of a file from its first bytes (after a byte-order mark and whitespace): a
/// JSON object starts with `{` and a key, Paddle's text with `{` and an op line.
fn format_of(bytes: &[u8]) -> Format {
    let skip_ws = |b: &[u8]| -> usize { b.iter().take_while(|c| c.is_ascii_whitespace()).count() };
    let b = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let b = &b[skip_ws(b)..];
    let Some(rest) = b.strip_prefix(b"{") else {
        return Format::Pdmodel;
    };
    match rest.get(skip_ws(rest)) {
        Some(b'"') => Format::Json,
        _ => Format::Text,
    }
}

/// A program read from a file, with the op ids its text printed (if it is text).
pub struct Loaded {
    /// The program.
    pub program: Program,
    /// `[id:N]` of a text program's ops, so that it prints back as read.
    pub op_ids: OpIds,
}

/// Reads the program in `path`, whatever its format.
pub fn read_program(path: &Path) -> Result<Loaded, CliError> {
    let bytes = std::fs::read(path).map_err(|e| CliError::io(path, e))?;
    let program = match format_of(&bytes) {
        Format::Text => return read_text(path, &bytes),
        Format::Json => {
            let ctx = super::catalog::context()?;
            pir_json::read_program(&ctx, utf8(path, &bytes)?).map_err(|e| {
                let unknown = match &e {
                    pir_json::JsonError::UnknownOp { name, .. } => Some(name.clone()),
                    _ => None,
                };
                super::catalog::input_error(path, e, unknown.as_deref())
            })?
        }
        Format::Pdmodel => {
            super::translate::translate_bytes(path, &bytes, TranslateOptions::default()).map_err(
                |e| match e {
                    CliError::Input { path, source } => CliError::Input {
                        source: format!(
                    "not Paddle's text form, a PIR JSON program or a legacy ProgramDesc: {source}"
                )
                        .into(),
                        path,
                    },
                    other => other,
                },
            )?
        }
    };
    Ok(Loaded {
        program,
        op_ids: OpIds::default(),
    })
}

fn utf8<'b>(path: &Path, bytes: &'b [u8]) -> Result<&'b str, CliError> {
    std::str::from_utf8(bytes).map_err(|e| CliError::input(path, e))
}

/// Parses Paddle's text form in a context with the `pd_op` dialect.
fn read_text(path: &Path, bytes: &[u8]) -> Result<Loaded, CliError> {
    let text = utf8(path, bytes)?;
    let ctx = super::catalog::context()?;
    let parsed = pir_runtime::parser::parse_module(&ctx, text).map_err(|e| {
        let mut message = e.message();
        if let ParseErrorKind::UnknownOp { name } = &e.kind {
            let hint = super::catalog::unknown_op_hint(Some(name));
            message = format!("{message}\n{hint}");
        }
        CliError::Located {
            path: path.to_path_buf(),
            line: e.line,
            column: e.column,
            message,
        }
    })?;
    Ok(Loaded {
        program: parsed.program,
        op_ids: parsed.op_ids,
    })
}

/// Runs `pir verify`: reads the program, verifies it (and with `--check-types` re-infers its
/// result types) and reports the result.
pub fn verify(args: VerifyArgs) -> Result<(), CliError> {
    let program = read_program(&args.file)?.program;
    pir_runtime::verify(&program)?;
    if args.check_types {
        super::translate::check_types(&args.file, &program)?;
    }
    crate::output::stdout(&format!(
        "{}: verified ({} ops)\n",
        args.file.display(),
        program.block_len(program.block())
    ))
}

/// Runs `pir print`: reads the program and prints it in Paddle's text format (a text
/// program's op ids included).
pub fn print(args: ProgramArgs) -> Result<(), CliError> {
    let loaded = read_program(&args.file)?;
    let mut out = String::new();
    pir_runtime::printer::print_program_with_ids(&mut out, &loaded.program, &loaded.op_ids)
        .map_err(|_| CliError::Usage("formatting the program failed".into()))?;
    crate::output::stdout(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_recognised_by_content() {
        assert_eq!(format_of(b"{\n    (%0) = \"pd_op.data\" ..."), Format::Text);
        assert_eq!(format_of(b"{\n}\n"), Format::Text);
        assert_eq!(format_of(b"\xef\xbb\xbf  {\"base_code\":{}}"), Format::Json);
        assert_eq!(format_of(b"{\n  \"base_code\": {}}"), Format::Json);
        assert_eq!(format_of(b"\x0a\x8c\x01\x08\x00"), Format::Pdmodel);
        assert_eq!(format_of(b""), Format::Pdmodel);
    }
}
