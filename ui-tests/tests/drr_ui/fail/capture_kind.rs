pir_macros::drr! {
    schema = ["${PIR_DRR_YAML}/ops.yaml"],
    compat = "${PIR_DRR_YAML}/op_compat.yaml",
    static P: "CaptureKind" {
        source { y = pd_op.conv2d(x, w) { groups: @groups }; }
        result { z = pd_op.scale(x, y) { bias: @groups, bias_after_scale: true }; }
        replace { y => z }
    }
}

fn main() {}
