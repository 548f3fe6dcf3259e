pir_macros::drr! {
    schema = ["${PIR_DRR_YAML}/ops.yaml"],
    compat = "${PIR_DRR_YAML}/op_compat.yaml",
    static P: "ReplaceUnknown" {
        source { y = pd_op.relu(x); }
        result { z = pd_op.relu(x); }
        replace { q => z }
    }
}

fn main() {}
