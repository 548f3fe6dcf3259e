pir_macros::drr! {
    schema = ["${PIR_DRR_YAML}/ops.yaml"],
    compat = "${PIR_DRR_YAML}/op_compat.yaml",
    static P: "ResultCount" {
        source { (y, extra) = pd_op.relu(x); }
        result {}
        replace { y => x }
    }
}

fn main() {}
