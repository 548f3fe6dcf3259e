//! Paddle's sparse tensor types in its JSON format (`1.t_sparse_coo_tensor`,
//! `1.t_sparse_csr_tensor`, as `serializeTypeToJsonIncludeWriteType` writes them): read, printed
//! and written back byte for byte; malformed ones are located errors.

use pir_json::types::{type_from_json, type_to_json};
use pir_runtime::{IrContext, TypeData, TypeKind};

const COO: &str = r##"{"#":"1.t_sparse_coo_tensor","D":[{"#":"0.t_f32"},[4,5],[3],"NCHW",{"#":"0.t_dtensor","D":[{"#":"0.t_i64"},[2,3],"NCHW",[],0]},{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[3],"NCHW",[],0]}]}"##;

const CSR: &str = r##"{"#":"1.t_sparse_csr_tensor","D":[{"#":"0.t_f64"},[3,3],"NCHW",{"#":"0.t_dtensor","D":[{"#":"0.t_i64"},[4],"NCHW",[],0]},{"#":"0.t_dtensor","D":[{"#":"0.t_i64"},[2],"NCHW",[],0]},{"#":"0.t_dtensor","D":[{"#":"0.t_f64"},[2],"NCHW",[],0]}]}"##;

#[test]
fn coo_reads_prints_and_writes_back() {
    let ctx = IrContext::new();
    let t = type_from_json(&ctx, COO).unwrap().unwrap();
    assert_eq!(t.kind(), TypeKind::SparseCoo);
    assert_eq!(
        t.display(&ctx).to_string(),
        "pd_op.sparsecootensor<4x5xf32>"
    );
    let TypeData::SparseCoo(coo) = t.data(&ctx) else {
        panic!("not a COO type")
    };
    assert_eq!(&*coo.non_zero_dims, &[3]);
    assert_eq!(coo.indices.display(&ctx).to_string(), "tensor<2x3xi64>");
    assert!(!coo.coalesced);
    assert_eq!(type_to_json(&ctx, Some(t)), COO);
    // Interned: reading it again is the same handle.
    assert_eq!(type_from_json(&ctx, COO).unwrap(), Some(t));
}

#[test]
fn csr_reads_prints_and_writes_back() {
    let ctx = IrContext::new();
    let t = type_from_json(&ctx, CSR).unwrap().unwrap();
    assert_eq!(t.kind(), TypeKind::SparseCsr);
    assert_eq!(
        t.display(&ctx).to_string(),
        "pd_op.sparsecsrtensor<3x3xf64>"
    );
    assert_eq!(type_to_json(&ctx, Some(t)), CSR);
    let coo = type_from_json(&ctx, COO).unwrap();
    assert_ne!(Some(t), coo);
}

#[test]
fn malformed_sparse_types_are_located_errors() {
    let ctx = IrContext::new();
    // Five elements (a dense tensor's data under the sparse tag).
    let short = r##"{"#":"1.t_sparse_coo_tensor","D":[{"#":"0.t_f32"},[4],"NCHW",[],0]}"##;
    let e = type_from_json(&ctx, short).unwrap_err().to_string();
    assert!(e.contains("6 elements"), "{e}");
    // A part that is not a dense tensor type.
    let bad_part = CSR.replacen(
        r##"{"#":"0.t_dtensor","D":[{"#":"0.t_i64"},[4],"NCHW",[],0]}"##,
        r##"{"#":"0.t_i64"}"##,
        1,
    );
    let e = type_from_json(&ctx, &bad_part).unwrap_err().to_string();
    assert!(e.contains("dense tensor type"), "{e}");
    let bad_layout = COO.replacen("\"NCHW\"", "\"SIDEWAYS\"", 1);
    assert!(type_from_json(&ctx, &bad_layout).is_err());
}
