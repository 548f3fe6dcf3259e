pir_macros::drr! {
    schema = ["${PIR_DRR_YAML}/ops.yaml"],
    compat = "${PIR_DRR_YAML}/op_compat.yaml",
    static P: "OperandCount" {
        source { y = pd_op.relu(x, w); }
        result {}
        replace { y => x }
    }
}

fn main() {}
