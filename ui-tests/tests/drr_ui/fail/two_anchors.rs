pir_macros::drr! {
    schema = ["${PIR_DRR_YAML}/ops.yaml"],
    compat = "${PIR_DRR_YAML}/op_compat.yaml",
    static P: "TwoAnchors" {
        source { y = pd_op.relu(x); z = pd_op.tanh(x); }
        result {}
        replace { y => x }
    }
}

fn main() {}
