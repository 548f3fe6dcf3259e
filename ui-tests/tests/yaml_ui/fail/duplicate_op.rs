pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_YAML}/duplicate_op.yaml"],
}

fn main() {}
