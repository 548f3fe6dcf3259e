pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_YAML}/tensor_after_attribute.yaml"],
}

fn main() {}
