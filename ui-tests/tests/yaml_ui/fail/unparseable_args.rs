pir_macros::define_ops_from_yaml! {
    dialect = "bad",
    ops = ["${PIR_UI_YAML}/unparseable_args.yaml"],
}

fn main() {}
