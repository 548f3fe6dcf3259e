pir_macros::drr! {
    schema = ["${PIR_DRR_YAML}/ops.yaml"],
    compat = "${PIR_DRR_YAML}/op_compat.yaml",
    static P: "UnknownSourceAttr" {
        source { y = pd_op.conv2d(x, w) { stride: @s }; }
        result {}
        replace { y => x }
    }
}

fn main() {}
