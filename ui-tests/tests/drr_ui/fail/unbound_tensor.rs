pir_macros::drr! {
    schema = ["${PIR_DRR_YAML}/ops.yaml"],
    compat = "${PIR_DRR_YAML}/op_compat.yaml",
    static P: "UnboundTensor" {
        source { y = pd_op.relu(x); }
        result { z = pd_op.relu(w); }
        replace { y => z }
    }
}

fn main() {}
