pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_YAML}/default_before_required.yaml"],
}

fn main() {}
