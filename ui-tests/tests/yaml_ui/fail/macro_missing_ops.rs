pir_macros::define_ops_from_yaml! {
    dialect = "bad",
}

fn main() {}
