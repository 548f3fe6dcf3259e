pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_YAML}/no_such_file.yaml"],
}

fn main() {}
