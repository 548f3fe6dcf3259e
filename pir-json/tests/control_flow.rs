//! Paddle 3.3.1's control-flow programs in JSON (`paddle-ref/programs/control_flow/*.json`:
//! `pd_op.if`, nested ifs, `pd_op.while`, `pd_op.pylayer`, `cf.yield`): each reads, verifies
//! and prints byte for byte as Paddle printed the program it read back (`*_roundtrip.txt`,
//! where a `while` loses its block arguments' attributes); writing it gives Paddle's file
//! back; the printed text parses back to the same program.
//!
//! Read in place from `$PIR_PADDLE_REF/programs/control_flow` (fallback
//! `$PIR_PADDLE_YAML/../paddle-ref/...`); without either the tests print a notice and pass.

mod common;

use std::path::PathBuf;

use common::{assert_same_bytes, assert_same_text, ctx, read};
use pir_json::{read_program, write_program};
use pir_runtime::parser;

const PROGRAMS: [&str; 4] = [
    "cond_simple",
    "cond_nested_multi",
    "while_simple",
    "pylayer",
];

fn dir(test: &str) -> Option<PathBuf> {
    let base = match std::env::var_os("PIR_PADDLE_REF") {
        Some(d) => PathBuf::from(d),
        None => {
            match std::env::var_os("PIR_PADDLE_YAML") {
                Some(d) => PathBuf::from(d).join("..").join("paddle-ref"),
                None => {
                    eprintln!("NOTICE: {test}: neither PIR_PADDLE_REF nor PIR_PADDLE_YAML is set; skipping");
                    return None;
                }
            }
        }
    };
    Some(base.join("programs").join("control_flow"))
}

#[test]
fn each_program_reads_verifies_and_prints_as_paddle_read_it_back() {
    let Some(dir) = dir("each_program_reads_verifies_and_prints_as_paddle_read_it_back") else {
        return;
    };
    for name in PROGRAMS {
        let ctx = ctx();
        let prog = read_program(&ctx, &read(&dir, &format!("{name}.json")))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Err(errs) = pir_runtime::verify(&prog) {
            panic!("{name}: verification failed:\n{errs}");
        }
        let report = pir_runtime::check_types(&prog);
        assert!(report.is_clean(), "{name}: {report}");
        assert!(report.checked > 0, "{name}: nothing type-checked");
        assert_same_text(
            name,
            &prog.to_string(),
            &read(&dir, &format!("{name}_roundtrip.txt")),
        );
    }
}

#[test]
fn writing_each_program_gives_paddles_file_back() {
    let Some(dir) = dir("writing_each_program_gives_paddles_file_back") else {
        return;
    };
    for name in PROGRAMS {
        let ctx = ctx();
        let text = read(&dir, &format!("{name}.json"));
        let prog = read_program(&ctx, &text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_same_bytes(name, &write_program(&prog), &text);
    }
}

#[test]
fn the_printed_programs_parse_back() {
    let Some(dir) = dir("the_printed_programs_parse_back") else {
        return;
    };
    for name in PROGRAMS {
        for file in [format!("{name}.txt"), format!("{name}_roundtrip.txt")] {
            let ctx = ctx();
            let text = read(&dir, &file);
            let prog = parser::parse_program(&ctx, &text).unwrap_or_else(|e| panic!("{file}: {e}"));
            if let Err(errs) = pir_runtime::verify(&prog) {
                panic!("{file}: verification failed:\n{errs}");
            }
            assert_same_text(&file, &prog.to_string(), &text);
            let json = pir_json::read_program(&ctx, &read(&dir, &format!("{name}.json"))).unwrap();
            if file.ends_with("_roundtrip.txt") {
                assert_eq!(parser::first_difference(&prog, &json), None, "{file}");
            }
        }
    }
}
