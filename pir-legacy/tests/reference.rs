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
