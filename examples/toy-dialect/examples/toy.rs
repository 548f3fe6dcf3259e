//! Builds the toy example program, verifies it and prints it with its flop count.
//!
//! `cargo run -p toy-dialect --example toy`

use pir_runtime::{verify, IrContext};
use toy_dialect::{example_program, interfaces::total_flops, ToyDialect};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = IrContext::new();
    ctx.register_dialect::<ToyDialect>()?;
    let prog = example_program(&ctx)?;
    verify(&prog)?;
    println!("{prog}");
    println!("flops: {}", total_flops(&prog));
    Ok(())
}
