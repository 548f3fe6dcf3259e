//! Loads a folder of Paddle's yaml (`$PIR_PADDLE_YAML`, or the directory given as the first
//! argument) the way every user does (`YamlFolder`: every generator file present and
//! op_compat.yaml), reports errors or a summary, and times reading, parsing and lowering.
//!
//! ```text
//! cargo run --release -p pir-spec --example load_paddle_yaml -- /path/to/paddle-yaml
//! ```

use std::path::Path;
use std::time::Instant;

use pir_spec::yaml::folder::YamlFolder;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .or_else(|| std::env::var("PIR_PADDLE_YAML").ok());
    let Some(dir) = dir else {
        eprintln!("usage: load_paddle_yaml DIR (or set PIR_PADDLE_YAML)");
        std::process::exit(2);
    };
    let runs = 20;
    let start = Instant::now();
    let mut result = None;
    let mut files = 0;
    for _ in 0..runs {
        let folder = match YamlFolder::read(Path::new(&dir)) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        };
        files = folder.files().len();
        result = Some(folder.load("pd_op"));
    }
    let per_run = start.elapsed() / runs;
    match result {
        Some(Ok(set)) => {
            let forward = set
                .iter()
                .filter(|o| o.kind == pir_spec::OpKind::Forward)
                .count();
            println!(
                "{} classes ({} forward, {} backward) from {files} generator file(s), {} compat entries",
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
    println!("read + parse + lower: {per_run:?} per run (mean of {runs})");
}
