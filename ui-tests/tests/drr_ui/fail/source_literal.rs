pir_macros::drr! {
    schema = ["${PIR_DRR_YAML}/ops.yaml"],
    compat = "${PIR_DRR_YAML}/op_compat.yaml",
    static P: "SourceLiteral" {
        source { y = pd_op.scale(x, s) { bias: 0.0 }; }
        result {}
        replace { y => x }
    }
}

fn main() {}
