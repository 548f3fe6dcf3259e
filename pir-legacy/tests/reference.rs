//! The decoder against an independent reader of the wire format: prost's decoding of the whole
//! `ProgramDesc` into the `proto` messages, which `LegacyProgram::from_proto` then validates
//! (it re-encodes them, so what it reads is prost's normal form: merged messages, unpacked
//! repeated fields, no unknown fields). On valid programs and on thousands of corrupted ones
//! the two must agree: the same program when both accept, an error when either rejects.

use std::path::PathBuf;

use pir_legacy::{proto, LegacyProgram};
use prost::Message;

#[path = "../benches/resnet50.rs"]
mod resnet50;

fn reference(bytes: &[u8]) -> Option<LegacyProgram> {
    let desc = proto::ProgramDesc::decode(bytes).ok()?;
    LegacyProgram::from_proto(&desc).ok()
}

/// `$PIR_PADDLE_REF/legacy` or `$PIR_PADDLE_YAML/../paddle-ref/legacy`, when it exists.
fn legacy_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("PIR_PADDLE_REF") {
        Some(r) => Some(PathBuf::from(r).join("legacy")),
        None => std::env::var_os("PIR_PADDLE_YAML")
            .map(|y| PathBuf::from(y).join("../paddle-ref/legacy")),
    }
    .filter(|d| d.is_dir());
    if dir.is_none() {
        eprintln!(
            "notice: PIR_PADDLE_REF / PIR_PADDLE_YAML not set (or no legacy/ fixtures there); \
             the corpus is the generated ResNet-50 alone"
        );
    }
    dir
}

fn check(bytes: &[u8], what: &str) -> bool {
    let ours = LegacyProgram::decode(bytes);
    let theirs = reference(bytes);
    match (&ours, &theirs) {
        (Ok(a), Some(b)) => assert_eq!(a, b, "{what}: decoded programs differ"),
        (Err(_), None) => {}
        (Ok(_), None) => panic!("{what}: accepted, but the reference rejects it"),
        (Err(e), Some(_)) => panic!("{what}: rejected ({e}), but the reference accepts it"),
    }
    ours.is_ok()
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut c = vec![("resnet50".to_string(), resnet50::resnet50_pdmodel())];
    if let Some(dir) = legacy_dir() {
        for name in ["split_slice", "small_cnn_inference", "small_cnn_train"] {
            c.push((
                name.into(),
                std::fs::read(dir.join(format!("{name}.pdmodel"))).unwrap(),
            ));
        }
    }
    c
}

#[test]
fn valid_programs_decode_as_the_reference_does() {
    for (name, bytes) in corpus() {
        assert!(check(&bytes, &name), "{name} must decode");
    }
    // Packed repeated fields (prost accepts both encodings; Paddle writes unpacked).
    let var = proto::VarDesc {
        name: Some("x".into()),
        r#type: Some(proto::VarType {
            r#type: Some(proto::var_type::Type::DenseTensor as i32),
            dense_tensor: Some(proto::var_type::DenseTensorDesc {
                tensor: Some(proto::var_type::TensorDesc {
                    data_type: Some(proto::var_type::Type::Fp32 as i32),
                    dims: vec![-1, 3],
                }),
                legacy_lod_level: None,
            }),
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut bytes = proto::ProgramDesc {
        blocks: vec![proto::BlockDesc {
            idx: Some(0),
            parent_idx: Some(-1),
            vars: vec![var],
            ..Default::default()
        }],
        ..Default::default()
    }
    .encode_to_vec();
    assert!(check(&bytes, "unpacked dims"));
    // Re-encode the dims (field 2 of TensorDesc: two varints 0x10 ..) as one packed run.
    let unpacked = [
        0x10u8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x10, 0x03,
    ];
    if let Some(at) = bytes.windows(unpacked.len()).position(|w| w == unpacked) {
        let mut packed = vec![0x12u8, 11];
        packed.extend_from_slice(&[
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x03,
        ]);
        bytes.splice(at..at + unpacked.len(), packed);
        // The enclosing lengths are unchanged (13 bytes either way).
        assert!(check(&bytes, "packed dims"));
    }
}

#[test]
fn corrupted_programs_are_rejected_or_decoded_as_the_reference_does() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut accepted, mut rejected) = (0, 0);
    for (name, bytes) in corpus() {
        let cases = if bytes.len() > 50_000 { 150 } else { 700 };
        for case in 0..cases {
            let mut b = bytes.clone();
            match case % 4 {
                0 => {
                    let i = rng.below(b.len());
                    b[i] ^= 1 << rng.below(8);
                }
                1 => {
                    let i = rng.below(b.len());
                    b[i] = rng.next() as u8;
                }
                2 => b.truncate(rng.below(b.len())),
                _ => {
                    let i = rng.below(b.len());
                    b.insert(i, rng.next() as u8);
                }
            }
            if check(&b, &format!("{name} case {case}")) {
                accepted += 1;
            } else {
                rejected += 1;
            }
        }
    }
    eprintln!("corrupted inputs: {accepted} decoded, {rejected} rejected");
}

/// A length-delimited field `field` holding `payload`.
fn len_field(field: u8, payload: &[u8]) -> Vec<u8> {
    assert!(payload.len() < 128 && field < 16);
    let mut out = vec![(field << 3) | 2, payload.len() as u8];
    out.extend_from_slice(payload);
    out
}

/// A program of one block holding `var` and `op` (encoded by hand).
fn program_of(var: &[u8], op: &[u8]) -> Vec<u8> {
    // BlockDesc { idx: 0, parent_idx: -1 (ten bytes), vars: [var], ops: [op] }
    let mut block = vec![0x08, 0x00, 0x10];
    block.extend([0xff; 9]);
    block.push(0x01);
    block.extend(len_field(3, var));
    block.extend(len_field(4, op));
    len_field(1, &block)
}

#[test]
fn encodings_protobuf_allows_decode_as_the_reference_does() {
    let var_type = |t: proto::VarType| t.encode_to_vec();
    let dense = |data_type: Option<i32>, dims: Vec<i64>, lod: Option<i32>| proto::VarType {
        r#type: Some(proto::var_type::Type::DenseTensor as i32),
        dense_tensor: Some(proto::var_type::DenseTensorDesc {
            tensor: Some(proto::var_type::TensorDesc { data_type, dims }),
            legacy_lod_level: lod,
        }),
        ..Default::default()
    };
    let fp32 = Some(proto::var_type::Type::Fp32 as i32);
    let name = len_field(1, b"x");
    let op = proto::OpDesc {
        r#type: Some("relu".into()),
        ..Default::default()
    }
    .encode_to_vec();

    // `VarDesc.type` written twice: the two messages merge (dims appended, the rest set by
    // the later one), down to the nested `TensorDesc`.
    let mut var = name.clone();
    var.extend(len_field(2, &var_type(dense(fp32, vec![2], None))));
    var.extend(len_field(2, &var_type(dense(None, vec![3], Some(1)))));
    let bytes = program_of(&var, &op);
    assert!(check(&bytes, "merged VarType"));
    let x = LegacyProgram::decode(&bytes).unwrap().global_block().vars[0].clone();
    assert_eq!((x.shape(), x.lod_level()), (Some(&[2, 3][..]), Some(1)));

    // A singular scalar written twice: the last value counts.
    let mut var = name.clone();
    var.extend(len_field(2, &var_type(dense(fp32, vec![2], None))));
    var.extend([0x30, 0x01, 0x30, 0x00]); // stop_gradient = true, then false
    assert!(check(&program_of(&var, &op), "repeated stop_gradient"));

    // Unknown fields of every wire type, groups (nested) included, are skipped.
    let mut var = name.clone();
    var.extend(len_field(2, &var_type(dense(fp32, vec![2], None))));
    var.extend([0x78, 0x05]); // field 15, varint
    var.extend([0x79, 1, 2, 3, 4, 5, 6, 7, 8]); // field 15, fixed64
    var.extend([0x7d, 1, 2, 3, 4]); // field 15, fixed32
    var.extend(len_field(15, b"??"));
    var.extend([0x7b, 0x08, 0x01, 0x1b, 0x1c, 0x7c]); // group 15 { 1: 1, group 3 {} }
    let mut op_with_unknown = op.clone();
    op_with_unknown.extend([0x7b, 0x7c]);
    assert!(check(&program_of(&var, &op_with_unknown), "unknown fields"));

    // ... and malformed ones are errors for both: an unclosed group, a group closed with
    // another field number, an end-group tag alone.
    for bad in [&[0x7b, 0x08, 0x01][..], &[0x7b, 0x0c], &[0x7c]] {
        let mut var = name.clone();
        var.extend(len_field(2, &var_type(dense(fp32, vec![2], None))));
        var.extend(bad);
        assert!(!check(&program_of(&var, &op), "malformed group"));
    }
}
