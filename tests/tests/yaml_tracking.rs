//! Cargo rebuilds a crate when a yaml file given to `define_ops_from_yaml!` changes: the macro
//! makes rustc record the files in the crate's dep-info, which cargo reads to decide what is
//! stale. (`scripts/yaml-edit-rebuild.sh` shows the whole edit-rebuild cycle and times it.)

#[test]
fn generated_crate_lists_its_yaml_files_as_build_dependencies() {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("deps directory");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(deps)
        .expect("read deps directory")
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.starts_with("pir_tests-") && name.ends_with(".d") {
            found.push(std::fs::read_to_string(entry.path()).unwrap_or_default());
        }
    }
    assert!(
        !found.is_empty(),
        "no dep-info file for the pir-tests library in {}",
        deps.display()
    );
    for file in ["tests/yaml/mini_ops.yaml", "tests/yaml/mini_compat.yaml"] {
        assert!(
            found.iter().any(|d| d.contains(file)),
            "{file} is not a recorded build dependency of the crate that generates from it"
        );
    }
}
