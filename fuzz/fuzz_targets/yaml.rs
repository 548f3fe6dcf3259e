//! Arbitrary text into the Paddle-schema yaml front end (`pir_spec::yaml`: the reader, entry
//! parsing, op_compat, cross checks, backward-cycle check, lowering), as `pir yaml check` and
//! `define_ops_from_yaml!` run it: errors are fine, a panic or a hang is a crash.
//!
//! The input is split at NUL bytes into up to four files, in this order: `ops.yaml`,
//! `backward.yaml`, `op_compat.yaml`, `sparse_ops.yaml` (a name with `sparse` changes how
//! entries are named). Every op class of a set that loads is then asked for its `GetOpInfo`
//! tuple and its forward/backward partner, as `pir ops dump` does.
#![no_main]

use pir_spec::yaml::{load_op_set, YamlSource};

const FILES: [&str; 4] = [
    "ops.yaml",
    "backward.yaml",
    "op_compat.yaml",
    "sparse_ops.yaml",
];

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parts: Vec<&str> = text.splitn(FILES.len(), '\0').collect();
    let mut ops = Vec::new();
    let mut compat = None;
    for (i, part) in parts.iter().enumerate() {
        let src = YamlSource {
            path: FILES[i],
            text: part,
        };
        if i == 2 {
            compat = Some(src);
        } else {
            ops.push(src);
        }
    }
    let Ok(set) = load_op_set("pd_op", &ops, compat) else {
        return;
    };
    for op in set.iter() {
        let _ = op.op_info_tuple();
        let _ = set.backward_of(op);
        let _ = set.forward_of(op);
        let _ = set.by_class_name(&op.class_name);
    }
});
