//! The trybuild suite of `define_ops_from_yaml!`: every case in `yaml_ui/fail` reads a bad yaml
//! file from `yaml_ui/yaml` (through `${PIR_UI_YAML}`) and must fail to compile with the pinned
//! message, which names the file, the line of the entry, the op and the problem.
//!
//! Re-pin after a deliberate change: `TRYBUILD=overwrite cargo test -p pir-ui-tests --test
//! yaml_ui`, then review every changed `.stderr`.

#[test]
fn yaml_ui() {
    // The cases name their yaml through this variable, so the path does not depend on where
    // trybuild builds them.
    std::env::set_var(
        "PIR_UI_YAML",
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/yaml_ui/yaml"),
    );
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/yaml_ui/fail/*.rs");
}
