//! `pir demo`: builds a program with the generated typed builders, verifies and prints it.

use clap::{Args, ValueEnum};

use crate::error::CliError;

/// Which program to build.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Model {
    /// A small CNN training step: forward, backward and SGD.
    SmallCnn,
    /// ResNet-50's forward pass.
    Resnet50,
}

/// `pir demo [--model small-cnn|resnet50]`
#[derive(Args)]
pub struct DemoArgs {
    /// The program to build.
    #[arg(long, value_enum, default_value = "small-cnn")]
    pub model: Model,
}

/// Runs `pir demo`.
pub fn run(args: DemoArgs) -> Result<(), CliError> {
    Err(CliError::Usage(format!(
        "demo {:?} is not available yet",
        args.model
    )))
}
