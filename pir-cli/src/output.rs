//! Writing to standard output without panicking: a closed pipe (`pir demo | head -1`) or a
//! full disk (`> /dev/full`) is an error the command reports (exit status 1), not a panic.

use std::io::Write;

use crate::error::CliError;

/// Writes `text` to standard output and flushes it.
pub fn stdout(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(CliError::Stdout)
}
