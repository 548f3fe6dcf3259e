//! Tests over Paddle's programs need the dialect generated from Paddle's yaml; it exists only
//! when `PIR_PADDLE_YAML` is set at build time (as for `pir-paddle-corpus`).
fn main() {
    println!("cargo::rustc-check-cfg=cfg(pir_paddle_yaml)");
    println!("cargo::rerun-if-env-changed=PIR_PADDLE_YAML");
    if std::env::var_os("PIR_PADDLE_YAML").is_some() {
        println!("cargo::rustc-cfg=pir_paddle_yaml");
    }
}
