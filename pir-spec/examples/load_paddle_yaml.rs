//! Loads Paddle's yaml (`$PIR_PADDLE_YAML/{ops,backward,op_compat}.yaml`, or the directory given
//! as the first argument), reports errors or a summary, and times parsing + lowering.
//!
//! ```text
//! cargo run --release -p pir-spec --example load_paddle_yaml -- /path/to/paddle-yaml
//! ```

use std::time::Instant;

use pir_spec::yaml::{load_op_set, YamlSource};

fn main() {
    let dir = std::env::args()
        .nth(1)
        .or_else(|| std::env::var("PIR_PADDLE_YAML").ok());
    let Some(dir) = dir else {
        eprintln!("usage: load_paddle_yaml DIR (or set PIR_PADDLE_YAML)");
        std::process::exit(2);
    };
    let read = |name: &str| {
        let path = format!("{dir}/{name}");
        std::fs::read_to_string(&path).unwrap_or_else(|e| {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(2);
        })
    };
    let ops = read("ops.yaml");
    let backward = read("backward.yaml");
    let compat = read("op_compat.yaml");
    let sources = [
        YamlSource {
            path: "ops.yaml",
            text: &ops,
        },
        YamlSource {
            path: "backward.yaml",
            text: &backward,
        },
    ];
    let compat = YamlSource {
        path: "op_compat.yaml",
        text: &compat,
    };

    let runs = 20;
    let start = Instant::now();
    let mut result = None;
    for _ in 0..runs {
        result = Some(load_op_set("pd_op", &sources, Some(compat)));
    }
    let per_run = start.elapsed() / runs;
    match result {
        Some(Ok(set)) => {
            let forward = set
                .iter()
                .filter(|o| o.kind == pir_spec::OpKind::Forward)
                .count();
            println!(
                "{} classes ({} forward, {} backward), {} compat entries",
                set.len(),
                forward,
                set.len() - forward,
                set.compat_entries().len()
            );
        }
        Some(Err(errors)) => {
            println!("{} errors:\n{errors}", errors.len());
        }
        None => {}
    }
    println!("parse + lower: {per_run:?} per run (mean of {runs})");
}
