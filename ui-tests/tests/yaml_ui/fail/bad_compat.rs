pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_YAML}/compat_ops.yaml"],
    compat = "${PIR_UI_YAML}/bad_compat.yaml",
}

fn main() {}
