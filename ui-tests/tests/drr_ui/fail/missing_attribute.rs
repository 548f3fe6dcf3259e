pir_macros::drr! {
    schema = ["${PIR_DRR_YAML}/ops.yaml"],
    compat = "${PIR_DRR_YAML}/op_compat.yaml",
    static P: "MissingAttribute" {
        source { y = pd_op.relu(x); }
        result { f = pd_op.full_int_array(); z = pd_op.reshape(x, f); }
        replace { y => z }
    }
}

fn main() {}
