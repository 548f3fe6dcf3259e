pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_YAML}/backward_cycle.yaml"],
}

fn main() {}
