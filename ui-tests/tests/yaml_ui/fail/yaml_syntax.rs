pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_YAML}/yaml_syntax.yaml"],
}

fn main() {}
