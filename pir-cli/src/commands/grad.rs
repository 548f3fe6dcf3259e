//! `pir grad FILE --loss %N [--inputs %a,%b] [--no-grad %c] [--grad-output %d]
//! [--append-backward]`: appends the backward of a program (Paddle's `ir_backward.grad` /
//! `append_backward`) and prints it.

use std::path::PathBuf;

use clap::Args;
use pir_runtime::{BlockId, OpId, Program, Value};

use crate::error::CliError;

/// `pir grad FILE --loss %N [--inputs %a,%b] [--no-grad %c] [--append-backward]`
#[derive(Args)]
pub struct GradArgs {
    /// The program: Paddle's text form, a Paddle 3 PIR JSON program, or a legacy `.pdmodel`.
    pub file: PathBuf,
    /// The value to differentiate, as printed (`%N`: the N-th value of the printed program).
    #[arg(long)]
    pub loss: String,
    /// The values to differentiate with respect to (`%a,%b`); default: the `pd_op.data` values
    /// that do not stop gradients.
    #[arg(long, value_delimiter = ',')]
    pub inputs: Vec<String>,
    /// Values whose gradients are not wanted (Paddle's `no_grad_vars`).
    #[arg(long, value_delimiter = ',')]
    pub no_grad: Vec<String>,
    /// The loss's initial gradient (Paddle's `grad_outputs`), a value of the loss's shape;
    /// default: `full_like(loss, 1.0)`.
    #[arg(long, conflicts_with = "append_backward")]
    pub grad_output: Option<String>,
    /// Use `append_backward(loss)` (gradients of every persistable parameter) instead of
    /// `grad(loss, inputs)`.
    #[arg(long, conflicts_with = "inputs")]
    pub append_backward: bool,
}

/// The program's values in print order: `%N` is `values[N]`.
fn printed_values(prog: &Program) -> Vec<Value> {
    fn block(prog: &Program, b: BlockId, out: &mut Vec<Value>) {
        let ops: Vec<OpId> = prog.block_ops(b).collect();
        for op in ops {
            let r = prog.op(op);
            out.extend(r.results());
            for region in r.regions() {
                for &inner in prog.region_blocks(region) {
                    block(prog, inner, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    block(prog, prog.block(), &mut out);
    out
}

/// `%N` as a value of `prog`.
fn value_named(values: &[Value], name: &str, what: &str) -> Result<Value, CliError> {
    let n: usize = name
        .trim()
        .strip_prefix('%')
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| {
            CliError::Usage(format!("{what} `{name}`: expected a value name like %3"))
        })?;
    values.get(n).copied().ok_or_else(|| {
        CliError::Usage(format!(
            "{what} `{name}`: the program has {} values (%0 to %{})",
            values.len(),
            values.len().saturating_sub(1)
        ))
    })
}

/// The `pd_op.data` values that do not stop gradients (Paddle's inputs of a grad test).
fn default_inputs(prog: &Program) -> Vec<Value> {
    prog.block_ops(prog.block())
        .filter(|&op| prog.op(op).name() == "pd_op.data")
        .map(|op| prog.op(op).result(0))
        .filter(|&v| !pir_autodiff::stop_gradient::value_stop_gradient(prog, v))
        .collect()
}

/// Runs `pir grad`.
pub fn run(args: GradArgs) -> Result<(), CliError> {
    let mut prog = super::program::read_program(&args.file)?.program;
    let values = printed_values(&prog);
    let loss = value_named(&values, &args.loss, "--loss")?;
    let no_grad = args
        .no_grad
        .iter()
        .map(|n| value_named(&values, n, "--no-grad"))
        .collect::<Result<Vec<_>, _>>()?;
    let input_err = |e| CliError::Input {
        path: args.file.clone(),
        source: Box::new(e),
    };
    if args.append_backward {
        pir_autodiff::append_backward(&mut prog, loss).map_err(input_err)?;
    } else {
        let inputs = if args.inputs.is_empty() {
            default_inputs(&prog)
        } else {
            args.inputs
                .iter()
                .map(|n| value_named(&values, n, "--inputs"))
                .collect::<Result<Vec<_>, _>>()?
        };
        let seed = args
            .grad_output
            .as_deref()
            .map(|n| value_named(&values, n, "--grad-output"))
            .transpose()?;
        pir_autodiff::grad_with_grad_outputs(&mut prog, &[loss], &inputs, &[seed], &no_grad)
            .map_err(input_err)?;
    }
    // What the backward built must verify (regions, cf pipes, dominance).
    pir_runtime::verify(&prog)?;
    print!("{prog}");
    Ok(())
}
