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

/// Runs `pir demo`: builds the program, verifies it, prints it to stdout and a summary to
/// stderr.
pub fn run(args: DemoArgs) -> Result<(), CliError> {
    let ctx = super::catalog::context()?;
    let t = std::time::Instant::now();
    let prog = match args.model {
        Model::SmallCnn => op_defs::models::small_cnn_train(&ctx)?,
        Model::Resnet50 => op_defs::models::resnet50(&ctx, -1)?,
    };
    let built = t.elapsed();
    pir_runtime::verify(&prog)?;
    crate::output::stdout(&prog.to_string())?;
    eprintln!(
        "{:?}: {} ops built with the typed builders in {:.2} ms, verified",
        args.model,
        prog.block_len(prog.block()),
        built.as_secs_f64() * 1e3
    );
    Ok(())
}
