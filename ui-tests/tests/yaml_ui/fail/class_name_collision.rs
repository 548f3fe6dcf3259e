pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_YAML}/class_name_collision.yaml"],
}

fn main() {}
