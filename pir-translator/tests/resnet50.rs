//! The benchmark's ResNet-50-shaped program translates, verifies and has the expected shape.

#[path = "../../pir-legacy/benches/resnet50.rs"]
mod resnet50;

#[test]
fn resnet50_translates_and_verifies() {
    let bytes = resnet50::resnet50_pdmodel();
    let legacy = pir_translator::LegacyProgram::decode(&bytes).unwrap();
    let ops = &legacy.global_block().ops;
    let count = |t: &str| ops.iter().filter(|o| o.op_type == t).count();
    assert_eq!(
        [
            count("conv2d"),
            count("batch_norm"),
            count("relu"),
            count("pool2d"),
            count("elementwise_add"),
            count("flatten_contiguous_range"),
            count("mul"),
        ],
        [53, 53, 49, 2, 17, 1, 1]
    );
    assert_eq!(ops.len(), 178); // 176 compute ops + feed + fetch
    let t = pir_translator::Translator::with_pd_op().unwrap();
    let tr = t.translate(&legacy).unwrap();
    pir_runtime::verify(&tr.program).unwrap();
    let p = &tr.program;
    assert_eq!(p.block_len(p.block()), 453);
    let report = pir_runtime::check_types(&tr.program);
    assert!(report.is_clean(), "{report}");
    let text = p.to_string();
    assert_eq!(
        text.matches("\"builtin.parameter\"").count(),
        53 + 4 * 53 + 2
    );
    assert_eq!(text.matches("\"pd_op.batch_norm_\"").count(), 53);
}
