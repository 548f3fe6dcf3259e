//! `pir opt`: run passes by Paddle's names on a program and print the result.

use std::path::PathBuf;

use clap::Args;
use pir_passes::{registry, IrModule, PassManager};

use crate::error::CliError;

/// `pir opt FILE --pass NAME[,NAME...] [--opt-level N] [--print-ir] [--timing]`, `pir opt --list`
#[derive(Args)]
pub struct OptArgs {
    /// The program (Paddle's text form, PIR JSON or a legacy `.pdmodel`, by content).
    #[arg(required_unless_present = "list")]
    pub file: Option<PathBuf>,
    /// Passes to run, in order, by Paddle's names; `name:key=value` gives a pass attribute.
    /// Repeat the option or separate names with commas.
    #[arg(long = "pass", value_delimiter = ',', required_unless_present = "list")]
    pub passes: Vec<String>,
    /// The manager's optimisation level: a pass runs if its own level is at most this
    /// (Paddle's default, 2, skips `inplace_pass`).
    #[arg(long, default_value_t = 2)]
    pub opt_level: u8,
    /// Print the IR before and after each pass (on stderr).
    #[arg(long)]
    pub print_ir: bool,
    /// Print the time each pass took (on stderr).
    #[arg(long)]
    pub timing: bool,
    /// List the registered passes with their levels and attributes.
    #[arg(long)]
    pub list: bool,
}

/// Runs `pir opt`.
pub fn run(args: OptArgs) -> Result<(), CliError> {
    if args.list {
        for p in registry::PASSES {
            println!("{:<42} level {}  {}", p.name, p.opt_level, p.summary);
        }
        return Ok(());
    }
    let file = args
        .file
        .ok_or_else(|| CliError::Usage("a program file is required".into()))?;
    let mut pm = PassManager::new(args.opt_level);
    for spec in &args.passes {
        let (name, attrs) = parse_pass(spec)?;
        pm.add_pass(name, attrs)
            .map_err(|e| CliError::Usage(e.to_string()))?;
    }
    pm.enable_ir_printing(args.print_ir, args.print_ir);
    let mut module = read(&file)?;
    let report = pm.run(&mut module).map_err(|e| CliError::Input {
        path: file.clone(),
        source: Box::new(e),
    })?;
    for (heading, ir) in &report.ir {
        eprintln!(
            "===-------------------------------------------------------------------------==="
        );
        eprintln!("{heading}");
        eprint!("{ir}");
    }
    if args.timing {
        eprint!("{}", report.timing_table());
        for s in &report.skipped {
            eprintln!("{s:<45} skipped (level or not applicable)");
        }
    }
    print!("{module}");
    Ok(())
}

/// `name` or `name:key=value:key=value`.
fn parse_pass(spec: &str) -> Result<(&str, pir_passes::PassAttrs), CliError> {
    let mut parts = spec.split(':');
    let name = parts.next().unwrap_or_default();
    let mut attrs = pir_passes::PassAttrs::new();
    for kv in parts {
        let (k, v) = kv.split_once('=').ok_or_else(|| {
            CliError::Usage(format!(
                "pass `{name}`: attribute `{kv}` is not `key=value`"
            ))
        })?;
        attrs.insert(k.to_string(), pir_passes::PassAttr::parse(v));
    }
    Ok((name, attrs))
}

/// Reads the program; text goes through the parser with the kernel dialect's syntax too, so
/// lowered programs (the input of `inplace_pass`) read as well.
fn read(file: &std::path::Path) -> Result<IrModule, CliError> {
    let bytes = std::fs::read(file).map_err(|e| CliError::io(file, e))?;
    let text = std::str::from_utf8(&bytes).ok().filter(|t| {
        let t = t.trim_start_matches('\u{feff}').trim_start();
        t.strip_prefix('{')
            .is_some_and(|rest| !rest.trim_start().starts_with('"'))
    });
    let Some(text) = text else {
        let loaded = super::program::read_program(file)?;
        return Ok(IrModule {
            program: loaded.program,
            op_ids: loaded.op_ids,
        });
    };
    let ctx = super::catalog::context()?;
    pir_passes::kernel::register(&ctx)?;
    let parsed = pir_runtime::parser::parse_module_with(&ctx, text, &pir_passes::kernel::syntax())
        .map_err(|e| CliError::Located {
            path: file.to_path_buf(),
            line: e.line,
            column: e.column,
            message: e.message(),
        })?;
    Ok(IrModule::from(parsed))
}
