pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_YAML}/inplace_names_missing_input.yaml"],
}

fn main() {}
