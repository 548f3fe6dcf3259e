//! The decoder: `.pdmodel` bytes → a validated [`LegacyProgram`], in one pass over the wire
//! data with no intermediate message structs.
//!
//! Each level (program → block → variable / op → attribute) first reads its own fields, keeping
//! the bytes of the next level's messages, then checks what the schema requires and prost
//! cannot (required fields, enum values, attribute type tags against the value fields set,
//! block references, data types, dims, duplicate names), then decodes the next level. So every
//! error names where it is: the block, variable, op and attribute (by index and, when it can be
//! read, by name) and the message whose bytes or values are wrong.
//!
//! Time and memory are linear in the input: duplicate names are found with hash sets once
//! lists grow, and parent chains are checked with one walk per block that stops at blocks
//! already known to end.

mod op;
mod var;

use rustc_hash::FxHashSet;

use crate::error::{DecodeError, Location, WireError};
use crate::program::{LegacyBlock, LegacyProgram};
use crate::wire::{self, Msg};

static PROGRAM_DESC: Msg = Msg {
    name: "ProgramDesc",
    fields: &[(1, "blocks"), (4, "version"), (5, "op_version_map")],
};
static VERSION: Msg = Msg {
    name: "Version",
    fields: &[(1, "version")],
};
static OP_VERSION_MAP: Msg = Msg {
    name: "OpVersionMap",
    fields: &[(1, "pair")],
};
static OP_VERSION_PAIR: Msg = Msg {
    name: "OpVersionMap.OpVersionPair",
    fields: &[(1, "op_name"), (2, "op_version")],
};
static OP_VERSION: Msg = Msg {
    name: "OpVersion",
    fields: &[(1, "version")],
};
static BLOCK_DESC: Msg = Msg {
    name: "BlockDesc",
    fields: &[
        (1, "idx"),
        (2, "parent_idx"),
        (3, "vars"),
        (4, "ops"),
        (5, "forward_block_idx"),
    ],
};

/// A [`DecodeError::Protobuf`] at `at` in message `message`.
fn malformed(at: Location, message: &'static str, source: WireError) -> DecodeError {
    DecodeError::Protobuf {
        at: Box::new(at),
        message,
        source,
    }
}

/// A [`DecodeError::MissingField`] (placed by the caller).
fn missing(message: &'static str, field: &'static str) -> DecodeError {
    DecodeError::MissingField {
        at: Box::default(),
        message,
        field,
    }
}

/// `value` or a [`DecodeError::MissingField`] (placed by the caller).
fn required<T>(
    value: Option<T>,
    message: &'static str,
    field: &'static str,
) -> Result<T, DecodeError> {
    value.ok_or_else(|| missing(message, field))
}

/// The enum value `raw` of `E`, or a [`DecodeError::UnknownEnumValue`] (placed by the caller).
fn enum_value<E: TryFrom<i32>>(raw: i32, field: &'static str) -> Result<E, DecodeError> {
    E::try_from(raw).map_err(|_| DecodeError::UnknownEnumValue {
        at: Box::default(),
        field,
        value: raw,
    })
}

/// Block `raw` of a program with `num_blocks` blocks, or a [`DecodeError::BlockRefOutOfRange`]
/// (placed by the caller).
fn block_ref(raw: i64, field: &'static str, num_blocks: usize) -> Result<usize, DecodeError> {
    usize::try_from(raw)
        .ok()
        .filter(|&i| i < num_blocks)
        .ok_or(DecodeError::BlockRefOutOfRange {
            at: Box::default(),
            field,
            index: raw,
            num_blocks,
        })
}

/// The first name of `names` that repeats an earlier one: its position and the name. Short
/// lists are compared pairwise, long ones through a hash set.
fn first_duplicate<'a>(names: &[&'a str]) -> Option<(usize, &'a str)> {
    if names.len() <= 16 {
        return (1..names.len())
            .find(|&i| names[..i].contains(&names[i]))
            .map(|i| (i, names[i]));
    }
    let mut seen = FxHashSet::with_capacity_and_hasher(names.len(), Default::default());
    names
        .iter()
        .position(|n| !seen.insert(n))
        .map(|i| (i, names[i]))
}

/// Decodes and validates a whole program.
pub(crate) fn program(bytes: &[u8]) -> Result<LegacyProgram, DecodeError> {
    let mut blocks_raw: Vec<&[u8]> = Vec::new();
    let mut version = None;
    let mut pairs: Vec<PairFields<'_>> = Vec::new();
    wire::fields(bytes, &PROGRAM_DESC, 0, |field, w, r| {
        match field {
            1 => blocks_raw.push(wire::message(r, w)?),
            4 => merge_version(&mut version, wire::message(r, w)?)?,
            5 => merge_op_version_map(&mut pairs, wire::message(r, w)?)?,
            _ => return Ok(false),
        }
        Ok(true)
    })
    .map_err(|e| malformed(Location::program(), "ProgramDesc", e))?;

    let num_blocks = blocks_raw.len();
    if num_blocks == 0 {
        return Err(DecodeError::NoBlocks);
    }
    let mut blocks = Vec::with_capacity(num_blocks);
    for (position, raw) in blocks_raw.iter().enumerate() {
        blocks.push(block(raw, position, num_blocks)?);
    }
    check_parent_chains(&blocks)?;
    let mut op_versions = Vec::with_capacity(pairs.len());
    for (p, pair) in pairs.into_iter().enumerate() {
        let at = || Location::program().detail(format!("op_version_map pair {p}"));
        op_versions.push(pair.validate().map_err(|e| e.located(at()))?);
    }
    Ok(LegacyProgram {
        blocks,
        version,
        op_versions,
    })
}

/// `Version`: the last `version` of every occurrence of the message.
fn merge_version(version: &mut Option<i64>, bytes: &[u8]) -> Result<(), WireError> {
    wire::fields(bytes, &VERSION, 1, |field, w, r| {
        match field {
            1 => *version = Some(wire::int64(r, w)?),
            _ => return Ok(false),
        }
        Ok(true)
    })
}

/// `OpVersionMap.OpVersionPair` as read.
#[derive(Default)]
struct PairFields<'a> {
    op_name: Option<&'a str>,
    /// `Some` when the `op_version` message is present, holding its `version`.
    op_version: Option<Option<i32>>,
}

impl PairFields<'_> {
    fn validate(self) -> Result<(String, i32), DecodeError> {
        let name = required(self.op_name, "OpVersionPair", "op_name")?;
        let op_version = required(self.op_version, "OpVersionPair", "op_version")?;
        let version = required(op_version, "OpVersion", "version")?;
        Ok((name.to_owned(), version))
    }
}

fn merge_op_version_map<'a>(
    pairs: &mut Vec<PairFields<'a>>,
    bytes: &'a [u8],
) -> Result<(), WireError> {
    wire::fields(bytes, &OP_VERSION_MAP, 1, |field, w, r| {
        match field {
            1 => {
                let mut pair = PairFields::default();
                wire::fields(wire::message(r, w)?, &OP_VERSION_PAIR, 2, |field, w, r| {
                    match field {
                        1 => pair.op_name = Some(wire::string(r, w)?),
                        2 => {
                            let version = pair.op_version.get_or_insert(None);
                            wire::fields(wire::message(r, w)?, &OP_VERSION, 3, |field, w, r| {
                                match field {
                                    1 => *version = Some(wire::int32(r, w)?),
                                    _ => return Ok(false),
                                }
                                Ok(true)
                            })?;
                        }
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                pairs.push(pair);
            }
            _ => return Ok(false),
        }
        Ok(true)
    })
}

/// Block `position` of a program with `num_blocks` blocks.
fn block(bytes: &[u8], position: usize, num_blocks: usize) -> Result<LegacyBlock, DecodeError> {
    let at = || Location::program().block(position);
    let (mut idx, mut parent_idx, mut forward) = (None, None, None);
    let mut vars_raw: Vec<&[u8]> = Vec::new();
    let mut ops_raw: Vec<&[u8]> = Vec::new();
    wire::fields(bytes, &BLOCK_DESC, 1, |field, w, r| {
        match field {
            1 => idx = Some(wire::int32(r, w)?),
            2 => parent_idx = Some(wire::int32(r, w)?),
            3 => vars_raw.push(wire::message(r, w)?),
            4 => ops_raw.push(wire::message(r, w)?),
            5 => forward = Some(wire::int32(r, w)?),
            _ => return Ok(false),
        }
        Ok(true)
    })
    .map_err(|e| malformed(at(), "BlockDesc", e))?;

    let (parent, forward_block) =
        block_links(position, idx, parent_idx, forward, num_blocks).map_err(|e| e.located(at()))?;
    let mut vars = Vec::with_capacity(vars_raw.len());
    let mut names = FxHashSet::with_capacity_and_hasher(vars_raw.len(), Default::default());
    for (v, raw) in vars_raw.iter().enumerate() {
        let (name, var) = var::var(raw, position, v)?;
        if !names.insert(name) {
            return Err(DecodeError::Duplicate {
                at: Box::new(at().var(v, Some(name))),
                what: "variable",
                name: name.to_owned(),
            });
        }
        vars.push(var);
    }
    let mut ops = Vec::with_capacity(ops_raw.len());
    for (o, raw) in ops_raw.iter().enumerate() {
        ops.push(op::op(raw, position, o, num_blocks)?);
    }
    Ok(LegacyBlock {
        idx: position,
        parent,
        forward_block,
        vars,
        ops,
    })
}

/// A block's `idx` (must be its position), parent and forward block.
fn block_links(
    position: usize,
    idx: Option<i32>,
    parent_idx: Option<i32>,
    forward: Option<i32>,
    num_blocks: usize,
) -> Result<(Option<usize>, Option<usize>), DecodeError> {
    let idx = required(idx, "BlockDesc", "idx")?;
    if usize::try_from(idx).ok() != Some(position) {
        return Err(DecodeError::BlockIndexMismatch {
            at: Box::default(),
            position,
            idx,
        });
    }
    let parent = match required(parent_idx, "BlockDesc", "parent_idx")? {
        -1 => None,
        p => match block_ref(p.into(), "parent_idx", num_blocks)? {
            p if p == position => return Err(DecodeError::CyclicParents { at: Box::default() }),
            p => Some(p),
        },
    };
    let forward_block = match forward.unwrap_or(-1) {
        -1 => None,
        f => Some(block_ref(f.into(), "forward_block_idx", num_blocks)?),
    };
    Ok((parent, forward_block))
}

/// Every parent chain ends at a root; the error names the first block (by index) whose chain
/// does not. Each block is walked over once: a walk stops at a block whose chain is known to
/// end.
fn check_parent_chains(blocks: &[LegacyBlock]) -> Result<(), DecodeError> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Unknown,
        OnThisWalk,
        Ends,
    }
    let mut state = vec![State::Unknown; blocks.len()];
    let mut walk = Vec::new();
    for start in 0..blocks.len() {
        let mut current = Some(start);
        while let Some(b) = current {
            match state[b] {
                State::Ends => break,
                State::OnThisWalk => {
                    return Err(DecodeError::CyclicParents {
                        at: Box::new(Location::program().block(start)),
                    })
                }
                State::Unknown => {}
            }
            state[b] = State::OnThisWalk;
            walk.push(b);
            current = blocks[b].parent;
        }
        for b in walk.drain(..) {
            state[b] = State::Ends;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_found_in_short_and_long_lists() {
        assert_eq!(first_duplicate(&["a", "b", "a"]), Some((2, "a")));
        assert_eq!(first_duplicate(&["a", "b"]), None);
        let long: Vec<String> = (0..100).map(|i| format!("v{}", i % 60)).collect();
        let long: Vec<&str> = long.iter().map(String::as_str).collect();
        assert_eq!(first_duplicate(&long), Some((60, "v0")));
        assert_eq!(first_duplicate(&long[..60]), None);
    }

    fn chain(parents: &[Option<usize>]) -> Vec<LegacyBlock> {
        parents
            .iter()
            .enumerate()
            .map(|(idx, &parent)| LegacyBlock {
                idx,
                parent,
                forward_block: None,
                vars: vec![],
                ops: vec![],
            })
            .collect()
    }

    #[test]
    fn parent_chains_end_or_the_first_looping_block_is_named() {
        assert!(check_parent_chains(&chain(&[None, Some(0), Some(1), Some(0)])).is_ok());
        // Parents may come after their children.
        assert!(check_parent_chains(&chain(&[None, Some(2), Some(0)])).is_ok());
        // Block 0 leads into the loop 1 → 2 → 1.
        let err = check_parent_chains(&chain(&[Some(1), Some(2), Some(1)])).unwrap_err();
        assert_eq!(err.to_string(), "block 0: parent chain is cyclic");
        let err = check_parent_chains(&chain(&[None, Some(0), Some(3), Some(2)])).unwrap_err();
        assert_eq!(err.to_string(), "block 2: parent chain is cyclic");
    }
}
