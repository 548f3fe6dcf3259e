pir_macros::drr! {
    schema = ["${PIR_DRR_YAML}/ops.yaml"],
    compat = "${PIR_DRR_YAML}/op_compat.yaml",
    static P: "LiteralKind" {
        source { y = pd_op.scale(x, s); }
        result { z = pd_op.scale(x, s) { bias: 0.0, bias_after_scale: "yes" }; }
        replace { y => z }
    }
}

fn main() {}
