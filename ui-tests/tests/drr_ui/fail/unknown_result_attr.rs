pir_macros::drr! {
    schema = ["${PIR_DRR_YAML}/ops.yaml"],
    compat = "${PIR_DRR_YAML}/op_compat.yaml",
    static P: "UnknownResultAttr" {
        source { y = pd_op.scale(x, s) { bias: @bias }; }
        result { z = pd_op.scale(x, s) { bias: @bias, bias_after_scale: true, offset: 1.0 }; }
        replace { y => z }
    }
}

fn main() {}
