pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_YAML}/intermediate_names_input.yaml"],
}

fn main() {}
