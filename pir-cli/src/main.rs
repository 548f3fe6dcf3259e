//! `pir`: the command-line tool of pir-rs.
//!
//! ```text
//! pir demo [--model small-cnn|resnet50]        build, verify and print a program
//! pir ops list [--dialect D] [--trait T] [--interface I] [--yaml DIR]
//! pir ops show NAME [--yaml DIR]
//! pir ops dump --json [--yaml DIR]
//! pir yaml check FILE...
//! pir translate MODEL.pdmodel [-o OUT] [--check-types] [--report-unknown]
//! pir verify PROGRAM [--check-types] / pir print PROGRAM   (text, .json or .pdmodel, by content)
//! pir grad PROGRAM --loss %N [--inputs %a,%b] [--append-backward]
//! ```
//!
//! Errors go to stderr and make the exit status non-zero.

mod commands;
mod error;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use error::CliError;

/// Inspect ops and yaml, build and translate Paddle programs.
#[derive(Parser)]
#[command(name = "pir", version, about, long_about = None)]
struct Cli {
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
    /// Append the backward of a program (Paddle's `ir_backward.grad` / `append_backward`) and
    /// print it.
    Grad(commands::grad::GradArgs),
}

fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Demo(a) => commands::demo::run(a),
        Command::Ops(c) => commands::ops::run(c),
        Command::Yaml(c) => commands::yaml::run(c),
        Command::Translate(a) => commands::translate::run(a),
        Command::Verify(a) => commands::program::verify(a),
        Command::Print(a) => commands::program::print(a),
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
