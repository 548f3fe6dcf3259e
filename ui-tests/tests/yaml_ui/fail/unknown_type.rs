pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_YAML}/unknown_type.yaml"],
}

fn main() {}
