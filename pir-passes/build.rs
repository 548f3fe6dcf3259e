//! Tests use the full `pd_op` dialect of `pir-paddle-corpus` only when Paddle's yaml is available.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(pir_paddle_yaml)");
    println!("cargo::rerun-if-env-changed=PIR_PADDLE_YAML");
    if std::env::var_os("PIR_PADDLE_YAML").is_some() {
        println!("cargo::rustc-cfg=pir_paddle_yaml");
    }
}
