//! Staged protobuf decoding of a `.pdmodel`.
//!
//! A `ProgramDesc` is decoded level by level (program → block → var/op → attribute) through
//! private "envelope" messages whose nested messages are kept as raw bytes. Each level is then
//! decoded on its own, so a wire error is reported with the block, variable, op and attribute
//! it occurred in rather than only prost's field path.

use prost::Message;

use crate::error::{DecodeError, Location};
use crate::proto::{self, op_desc};

/// Envelope messages: same field numbers as [`crate::proto`], nested messages left as bytes.
/// They are named after the real messages because prost reports its error path by type name.
mod envelope {
    /// `ProgramDesc` with undecoded blocks.
    #[derive(Clone, PartialEq, prost::Message)]
    pub(super) struct ProgramDesc {
        #[prost(bytes = "vec", repeated, tag = "1")]
        pub blocks: Vec<Vec<u8>>,
        #[prost(message, optional, tag = "4")]
        pub version: Option<crate::proto::Version>,
        #[prost(message, optional, tag = "5")]
        pub op_version_map: Option<crate::proto::OpVersionMap>,
    }

    /// `BlockDesc` with undecoded vars and ops.
    #[derive(Clone, PartialEq, prost::Message)]
    pub(super) struct BlockDesc {
        #[prost(int32, optional, tag = "1")]
        pub idx: Option<i32>,
        #[prost(int32, optional, tag = "2")]
        pub parent_idx: Option<i32>,
        #[prost(bytes = "vec", repeated, tag = "3")]
        pub vars: Vec<Vec<u8>>,
        #[prost(bytes = "vec", repeated, tag = "4")]
        pub ops: Vec<Vec<u8>>,
        #[prost(int32, optional, tag = "5", default = "-1")]
        pub forward_block_idx: Option<i32>,
    }

    /// `OpDesc` with undecoded attributes.
    #[derive(Clone, PartialEq, prost::Message)]
    pub(super) struct OpDesc {
        #[prost(message, repeated, tag = "1")]
        pub inputs: Vec<crate::proto::op_desc::Var>,
        #[prost(message, repeated, tag = "2")]
        pub outputs: Vec<crate::proto::op_desc::Var>,
        #[prost(string, optional, tag = "3")]
        pub r#type: Option<String>,
        #[prost(bytes = "vec", repeated, tag = "4")]
        pub attrs: Vec<Vec<u8>>,
        #[prost(bool, optional, tag = "5", default = "false")]
        pub is_target: Option<bool>,
    }
}

/// Best-effort read of the first string field `field` of a message, scanning the wire data
/// only as far as needed. Used to name a variable, op or attribute whose bytes are corrupt
/// further on. Returns `None` on any irregularity; never panics.
fn scan_string_field(mut bytes: &[u8], field: u64) -> Option<String> {
    fn varint(bytes: &mut &[u8]) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = bytes.split_first()?;
            *bytes = rest;
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Some(value);
            }
        }
        None
    }
    fn skip(bytes: &mut &[u8], n: usize) -> Option<()> {
        *bytes = bytes.get(n..)?;
        Some(())
    }
    while !bytes.is_empty() {
        let key = varint(&mut bytes)?;
        match key & 7 {
            0 => {
                varint(&mut bytes)?;
            }
            1 => skip(&mut bytes, 8)?,
            2 => {
                let len = usize::try_from(varint(&mut bytes)?).ok()?;
                let payload = bytes.get(..len)?;
                if key >> 3 == field {
                    return String::from_utf8(payload.to_vec()).ok();
                }
                skip(&mut bytes, len)?;
            }
            5 => skip(&mut bytes, 4)?,
            _ => return None,
        }
    }
    None
}

fn wire(at: Location, message: &'static str) -> impl FnOnce(prost::DecodeError) -> DecodeError {
    move |source| DecodeError::Protobuf {
        at: Box::new(at),
        message,
        source,
    }
}

/// Decodes the protobuf wire format into [`proto::ProgramDesc`] without semantic validation.
pub(crate) fn decode_unvalidated(bytes: &[u8]) -> Result<proto::ProgramDesc, DecodeError> {
    let program =
        envelope::ProgramDesc::decode(bytes).map_err(wire(Location::program(), "ProgramDesc"))?;
    let mut blocks = Vec::with_capacity(program.blocks.len());
    for (b, raw_block) in program.blocks.iter().enumerate() {
        let at_block = Location::program().block(b);
        let block = envelope::BlockDesc::decode(raw_block.as_slice())
            .map_err(wire(at_block.clone(), "BlockDesc"))?;

        let mut vars = Vec::with_capacity(block.vars.len());
        for (v, raw_var) in block.vars.iter().enumerate() {
            let var = proto::VarDesc::decode(raw_var.as_slice()).map_err(wire(
                at_block
                    .clone()
                    .var(v, scan_string_field(raw_var, 1).as_deref()),
                "VarDesc",
            ))?;
            vars.push(var);
        }

        let mut ops = Vec::with_capacity(block.ops.len());
        for (o, raw_op) in block.ops.iter().enumerate() {
            let op = envelope::OpDesc::decode(raw_op.as_slice()).map_err(wire(
                at_block
                    .clone()
                    .op(o, scan_string_field(raw_op, 3).as_deref()),
                "OpDesc",
            ))?;
            let at_op = at_block.clone().op(o, op.r#type.as_deref());
            let mut attrs = Vec::with_capacity(op.attrs.len());
            for (a, raw_attr) in op.attrs.iter().enumerate() {
                let attr = op_desc::Attr::decode(raw_attr.as_slice()).map_err(wire(
                    at_op
                        .clone()
                        .attr(a, scan_string_field(raw_attr, 1).as_deref()),
                    "OpDesc.Attr",
                ))?;
                attrs.push(attr);
            }
            ops.push(proto::OpDesc {
                inputs: op.inputs,
                outputs: op.outputs,
                r#type: op.r#type,
                attrs,
                is_target: op.is_target,
            });
        }

        blocks.push(proto::BlockDesc {
            idx: block.idx,
            parent_idx: block.parent_idx,
            vars,
            ops,
            forward_block_idx: block.forward_block_idx,
        });
    }
    Ok(proto::ProgramDesc {
        blocks,
        version: program.version,
        op_version_map: program.op_version_map,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staged_decode_equals_direct_decode() {
        let program = proto::ProgramDesc {
            blocks: vec![proto::BlockDesc {
                idx: Some(0),
                parent_idx: Some(-1),
                vars: vec![proto::VarDesc {
                    name: Some("x".into()),
                    ..Default::default()
                }],
                ops: vec![proto::OpDesc {
                    r#type: Some("relu".into()),
                    attrs: vec![op_desc::Attr {
                        name: Some("a".into()),
                        r#type: Some(proto::AttrType::Ints as i32),
                        ints: vec![1, -2],
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                forward_block_idx: None,
            }],
            version: Some(proto::Version { version: Some(7) }),
            op_version_map: None,
        };
        let bytes = program.encode_to_vec();
        assert_eq!(decode_unvalidated(&bytes).unwrap(), program);
        assert_eq!(
            proto::ProgramDesc::decode(bytes.as_slice()).unwrap(),
            program
        );
    }

    #[test]
    fn scan_finds_leading_name_and_survives_garbage() {
        let attr = op_desc::Attr {
            name: Some("axis".into()),
            r#type: Some(0),
            i: Some(-1),
            ..Default::default()
        }
        .encode_to_vec();
        assert_eq!(scan_string_field(&attr, 1).as_deref(), Some("axis"));
        assert_eq!(scan_string_field(&attr, 5), None);
        for cut in 0..attr.len() {
            let _ = scan_string_field(&attr[..cut], 1);
        }
        assert_eq!(scan_string_field(&[0xff; 12], 1), None);
        assert_eq!(scan_string_field(&[0x0a, 0x05, b'a'], 1), None);
    }

    #[test]
    fn corrupt_attribute_is_located() {
        let attr_bytes = op_desc::Attr {
            name: Some("epsilon".into()),
            r#type: Some(proto::AttrType::Float as i32),
            f: Some(1e-5),
            ..Default::default()
        }
        .encode_to_vec();
        // Cut the float in half: the name survives, the value does not.
        let cut = &attr_bytes[..attr_bytes.len() - 2];
        let op = envelope::OpDesc {
            r#type: Some("batch_norm".into()),
            attrs: vec![cut.to_vec()],
            ..Default::default()
        };
        let block = envelope::BlockDesc {
            idx: Some(0),
            parent_idx: Some(-1),
            ops: vec![op.encode_to_vec()],
            ..Default::default()
        };
        let program = envelope::ProgramDesc {
            blocks: vec![block.encode_to_vec()],
            ..Default::default()
        };
        let err = decode_unvalidated(&program.encode_to_vec()).unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with(
                "block 0, op 0 (`batch_norm`), attribute 0 (`epsilon`): malformed `OpDesc.Attr`"
            ),
            "{text}"
        );
    }
}
