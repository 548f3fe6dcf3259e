pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_YAML}/optional_names_nothing.yaml"],
}

fn main() {}
