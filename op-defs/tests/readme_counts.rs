//! The counts README.md states about `op-defs` are the code's: the classes generated from
//! `ops-yaml/` and the infer-meta functions registered by Paddle's names. A change to either
//! that leaves the README stale fails here, naming the sentence to update.

use op_defs::pd_op::PdOpYamlDialect;
use pir_runtime::Dialect;

fn readme() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// The numbers of the statements `(before, after)`: `before` N `after`, each occurrence.
fn stated(text: &str, before: &str, after: &str) -> Vec<usize> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices(before) {
        let rest = &text[at + before.len()..];
        let len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == ','))
            .unwrap_or(rest.len());
        if len > 0 && rest[len..].starts_with(after) {
            found.push(rest[..len].replace(',', "").parse().expect("digits"));
        }
    }
    found
}

#[test]
fn readme_counts_are_the_codes() {
    let text = readme();
    let classes = PdOpYamlDialect::op_defs().len();
    let functions = op_defs::infer_meta::REGISTRY.len();
    for (before, after, code) in [
        ("(", " classes from `ops-yaml/`", classes),
        ("pd_op dialect + ", " infer-meta functions", functions),
        (
            "yes: ",
            " Rust ports of Paddle's infer-meta functions",
            functions,
        ),
    ] {
        let numbers = stated(&text, before, after);
        assert!(
            !numbers.is_empty(),
            "README.md no longer states `{before}N{after}`"
        );
        for n in numbers {
            assert_eq!(
                n, code,
                "README.md: `{before}{n}{after}`: the code has {code}"
            );
        }
    }
}

#[test]
fn statements_are_read_as_written() {
    let text = "x (1,043 classes from y) (7 classes from z) (classes from w)";
    assert_eq!(stated(text, "(", " classes from"), [1043, 7]);
    assert!(stated(text, "(", " ports").is_empty());
}
