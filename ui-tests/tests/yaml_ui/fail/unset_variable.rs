pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_NO_SUCH_VARIABLE}/ops.yaml"],
}

fn main() {}
