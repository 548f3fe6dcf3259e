//! `pir`: the command-line tool of pir-rs.
//!
//! ```text
//! pir demo [--model small-cnn|resnet50]        build, verify and print a program
//! pir ops list [--dialect D] [--trait T] [--interface I]
//! pir ops show NAME
//! pir ops dump --json
//! pir yaml check FILE...
//! pir translate MODEL.pdmodel [-o OUT] [--check-types] [--report-unknown]
//! pir verify PROGRAM [--check-types] / pir print PROGRAM   (text, .json or .pdmodel, by content)
//! pir opt PROGRAM --pass NAME[,NAME...] [--opt-level N] [--print-ir] / pir opt --list
//! pir grad PROGRAM --loss %N [--inputs %a,%b] [--append-backward]
//! ```
//!
//! `--yaml DIR` (before or after the subcommand; default `$PIR_PADDLE_YAML`) adds to every
//! command the `pd_op` classes of Paddle's generator yaml in DIR that pir does not compile in.
//!
//! Errors go to stderr and make the exit status non-zero (1), a closed or full standard output
//! included.

mod commands;
mod error;
mod output;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use error::CliError;

/// mimalloc instead of glibc's malloc: loading Paddle's yaml folder (`--yaml`) makes about a
/// million small allocations, and glibc spent about a fifth of that load in malloc/free
/// (BENCHMARKS.md, "Run-time yaml dialect load").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Inspect ops and yaml, build and translate Paddle programs.
#[derive(Parser)]
#[command(name = "pir", version, about, long_about = None)]
struct Cli {
    /// A folder of Paddle's generator yaml (`paddle/phi/ops/yaml`: ops.yaml, backward.yaml,
    /// op_compat.yaml, ...): its pd_op ops that pir does not compile in are defined at run time
    /// for every command. Default: $PIR_PADDLE_YAML.
    #[arg(long, global = true, value_name = "DIR")]
    yaml: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build a program with the generated typed builders (no input files), verify and print it.
    Demo(commands::demo::DemoArgs),
    /// Inspect registered ops, or the ops of Paddle-schema yaml files.
    #[command(subcommand)]
    Ops(commands::ops::OpsCommand),
    /// Validate Paddle-schema yaml.
    #[command(subcommand)]
    Yaml(commands::yaml::YamlCommand),
    /// Translate a legacy Paddle program (`.pdmodel`) to PIR and print it.
    Translate(commands::translate::TranslateArgs),
    /// Read a program (Paddle's text form, Paddle 3 PIR JSON, or a legacy `.pdmodel`) and
    /// verify it.
    Verify(commands::program::VerifyArgs),
    /// Read a program (Paddle's text form, Paddle 3 PIR JSON, or a legacy `.pdmodel`) and
    /// print it in Paddle's text format.
    Print(commands::program::ProgramArgs),
    /// Run passes by Paddle's names on a program and print the result.
    Opt(commands::opt::OptArgs),
    /// Append the backward of a program (Paddle's `ir_backward.grad` / `append_backward`) and
    /// print it.
    Grad(commands::grad::GradArgs),
}

/// `--yaml DIR`, else a non-empty `PIR_PADDLE_YAML`.
fn yaml_dir(flag: Option<PathBuf>) -> Option<PathBuf> {
    flag.or_else(|| {
        std::env::var_os("PIR_PADDLE_YAML")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    })
}

fn run(cli: Cli) -> Result<(), CliError> {
    commands::catalog::set_yaml_dir(yaml_dir(cli.yaml));
    match cli.command {
        Command::Demo(a) => commands::demo::run(a),
        Command::Ops(c) => commands::ops::run(c),
        Command::Yaml(c) => commands::yaml::run(c),
        Command::Translate(a) => commands::translate::run(a),
        Command::Verify(a) => commands::program::verify(a),
        Command::Print(a) => commands::program::print(a),
        Command::Opt(a) => commands::opt::run(a),
        Command::Grad(a) => commands::grad::run(a),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
