//! No input panics: thousands of corruptions of Paddle's files (and of a program using every
//! type and attribute kind) — truncations, byte edits, and structural edits of the JSON tree
//! (every node replaced by values of other shapes, keys removed, elements removed or
//! duplicated). Whatever reads must also print, verify, write, and read back to the same bytes.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, OnceLock};

use pir_runtime::IrContext;

use pir_json::{read_program, write_program};
use serde_json::Value;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The documents to corrupt: Paddle's fixtures when available, and always our own.
fn corpus() -> Vec<(String, String)> {
    let ctx = common::ctx_with_test_dialect();
    let mut docs = vec![(
        "everything".to_string(),
        write_program(&common::everything_program(&ctx)),
    )];
    if let Some(dir) = common::pir_json_dir("robustness corpus") {
        for (json, _) in common::FIXTURES {
            docs.push((json.to_string(), common::read(&dir, json)));
        }
    }
    docs
}

/// One context for all runs (creating one per run would dominate the test's time).
fn shared_ctx() -> &'static Arc<IrContext> {
    static CTX: OnceLock<Arc<IrContext>> = OnceLock::new();
    CTX.get_or_init(common::ctx_with_test_dialect)
}

/// Reads `json`; if it reads, prints, verifies, writes and reads back. Returns whether it read.
fn exercise(json: &str) -> bool {
    let ctx = shared_ctx();
    let Ok(prog) = read_program(ctx, json) else {
        return false;
    };
    let _ = prog.to_string();
    let _ = pir_runtime::verify(&prog);
    let written = write_program(&prog);
    let back = read_program(ctx, &written)
        .unwrap_or_else(|e| panic!("our own output does not read back: {e}\n{written}"));
    let again = write_program(&back);
    assert_eq!(again, written, "writing is not stable after one round trip");
    true
}

fn run(label: &str, json: &str) -> bool {
    match catch_unwind(AssertUnwindSafe(|| exercise(json))) {
        Ok(read) => read,
        Err(_) => panic!("{label}: panicked on input:\n{json}"),
    }
}

#[test]
fn truncated_documents_never_panic() {
    for (name, doc) in corpus() {
        let step = (doc.len() / 1200).max(1);
        let mut cut = 0;
        while cut < doc.len() {
            if doc.is_char_boundary(cut) {
                assert!(!run(&format!("{name} cut at {cut}"), &doc[..cut]));
            }
            cut += step;
        }
    }
}

#[test]
fn byte_edits_never_panic() {
    const ALPHABET: &[u8] = b"{}[]\":,0123456789-.e#%ApDtNUL \\tx";
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut read_ok = 0;
    for (name, doc) in corpus() {
        for i in 0..1200 {
            let mut bytes = doc.clone().into_bytes();
            let at = rng.below(bytes.len());
            match rng.below(4) {
                0 => bytes[at] = ALPHABET[rng.below(ALPHABET.len())],
                1 => {
                    bytes.remove(at);
                }
                2 => bytes.insert(at, ALPHABET[rng.below(ALPHABET.len())]),
                _ => {
                    let len = rng.below(40).min(bytes.len() - at);
                    let piece: Vec<u8> = bytes[at..at + len].to_vec();
                    let to = rng.below(bytes.len());
                    bytes.splice(to..to, piece);
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            if run(&format!("{name} edit {i}"), &text) {
                read_ok += 1;
            }
        }
    }
    // Some edits keep the document valid (a digit for a digit): those must have gone the
    // whole way (print, verify, write, read back).
    assert!(read_ok > 0);
}

/// Every node of the tree by its path (keys and indices).
fn paths(v: &Value, prefix: &mut Vec<PathSeg>, out: &mut Vec<Vec<PathSeg>>) {
    out.push(prefix.clone());
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                prefix.push(PathSeg::Index(i));
                paths(item, prefix, out);
                prefix.pop();
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                prefix.push(PathSeg::Key(k.clone()));
                paths(item, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum PathSeg {
    Key(String),
    Index(usize),
}

fn node_mut<'a>(v: &'a mut Value, path: &[PathSeg]) -> &'a mut Value {
    path.iter().fold(v, |v, seg| match seg {
        PathSeg::Key(k) => &mut v[k.as_str()],
        PathSeg::Index(i) => &mut v[*i],
    })
}

#[test]
fn structural_edits_never_panic() {
    let replacements: Vec<Value> = [
        "null",
        "true",
        "0",
        "-1",
        "1.5",
        "18446744073709551615",
        "3.5e38",
        "\"\"",
        "\"NULL\"",
        "\"1.relu\"",
        "[]",
        "{}",
        r##"{"#":"NULL"}"##,
        r##"{"#":"0.t_f32"}"##,
        r##"{"#":"0.a_i32","D":1}"##,
        r##"{"%":0}"##,
    ]
    .iter()
    .map(|s| serde_json::from_str(s).unwrap())
    .collect();
    let mut tried = 0;
    // static_adam.json has no shape of path the other documents lack; leaving it out keeps the
    // test's time reasonable in debug builds.
    for (name, doc) in corpus()
        .into_iter()
        .filter(|(n, _)| n != "static_adam.json")
    {
        let tree: Value = serde_json::from_str(&doc).unwrap();
        let mut all = Vec::new();
        paths(&tree, &mut Vec::new(), &mut all);
        // The first node of each distinct shape of path (array indices ignored): every kind of
        // place in the format, at a fraction of the cost of all nodes.
        let shape = |p: &[PathSeg]| -> String {
            p.iter()
                .map(|s| match s {
                    PathSeg::Key(k) => k.clone(),
                    PathSeg::Index(_) => "[]".into(),
                })
                .collect::<Vec<_>>()
                .join("/")
        };
        let mut picked: Vec<&Vec<PathSeg>> = Vec::new();
        let mut seen = std::collections::HashMap::new();
        for p in &all {
            seen.entry(shape(p)).or_insert_with(Vec::new).push(p);
        }
        for group in seen.values() {
            picked.push(group[0]);
        }
        for path in picked {
            let label = format!("{name} at {path:?}");
            for r in &replacements {
                let mut t = tree.clone();
                *node_mut(&mut t, path) = r.clone();
                run(&label, &t.to_string());
                tried += 1;
            }
            // Remove the node, or duplicate it in its array.
            if let Some((last, parent)) = path.split_last() {
                let mut t = tree.clone();
                match (node_mut(&mut t, parent), last) {
                    (Value::Object(m), PathSeg::Key(k)) => {
                        m.remove(k);
                    }
                    (Value::Array(a), PathSeg::Index(i)) => {
                        a.remove(*i);
                    }
                    _ => {}
                }
                run(&label, &t.to_string());
                let mut t = tree.clone();
                if let (Value::Array(a), PathSeg::Index(i)) = (node_mut(&mut t, parent), last) {
                    let dup = a[*i].clone();
                    a.insert(*i, dup);
                }
                run(&label, &t.to_string());
                tried += 2;
            }
        }
    }
    assert!(tried > 1_000, "{tried}");
}
