//! The trybuild suite of `drr!`: every case in `drr_ui/fail` is a rewrite rule that does not fit
//! the ops' schemas (read from the project's `ops-yaml/` through `${PIR_DRR_YAML}`) and must fail
//! to compile with the pinned message, at the offending token.
//!
//! Re-pin after a deliberate change: `TRYBUILD=overwrite cargo test -p pir-ui-tests --test
//! drr_ui`, then review every changed `.stderr`.

#[test]
fn drr_ui() {
    std::env::set_var(
        "PIR_DRR_YAML",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../ops-yaml"),
    );
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/drr_ui/fail/*.rs");
}
