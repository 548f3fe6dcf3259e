//! The text parser on `pd_op` programs: every kind of error it reports, with line:column, the
//! op being read and what was expected versus found; and no panic on any prefix or mutation
//! of a real program (a small CNN training step with its backward, as printed).

use std::sync::Arc;

use pir_runtime::parser::{self, ParseErrorKind};
use pir_runtime::IrContext;

#[path = "common/fixtures.rs"]
mod fixtures;
use fixtures::context;

const GOOD: &str = r#"{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[2,3],stop_gradient:[true]} : () -> tensor<2x3xf32>
    (%1) = "pd_op.relu" (%0) {stop_gradient:[true]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
}
"#;

/// `GOOD` with `from` replaced by `to` (which must occur).
fn with(from: &str, to: &str) -> String {
    assert!(GOOD.contains(from), "{from}");
    GOOD.replacen(from, to, 1)
}

fn error(text: &str) -> parser::ParseError {
    parser::parse_program(&context(), text).expect_err("the text must not parse")
}

#[test]
fn the_good_program_parses_and_prints_back() {
    let prog = parser::parse_program(&context(), GOOD).unwrap();
    pir_runtime::verify(&prog).unwrap();
    assert_eq!(prog.to_string(), GOOD);
}

/// The text, the error kind it must give, and the whole message.
type Case = (String, fn(&ParseErrorKind) -> bool, &'static str);

/// Each case: the text, the error kind it must give, and the whole message.
#[test]
fn every_error_kind_names_the_place_the_op_and_what_was_expected() {
    let deep_attr = format!("shape:{}{}", "[".repeat(70), "]".repeat(70));
    let cases: Vec<Case> = vec![
        (
            with("(%1) = \"pd_op.relu\"", "(%1) \"pd_op.relu\""),
            |k| matches!(k, ParseErrorKind::Expected { .. }),
            "3:10: op starting at 3:5: expected `=` after the results, found `\"`",
        ),
        (
            with("pd_op.relu", "pd_op.relux"),
            |k| matches!(k, ParseErrorKind::UnknownOp { .. }),
            "3:13: op `pd_op.relux`: unknown op `pd_op.relux` (is its dialect registered?)",
        ),
        (
            with("(%0) {stop", "(%9) {stop"),
            |k| matches!(k, ParseErrorKind::UndefinedValue { .. }),
            "3:26: op `pd_op.relu`: value `%9` is not defined by an earlier op result or block argument in scope",
        ),
        (
            with("(%1) = \"pd_op.relu\"", "(%0) = \"pd_op.relu\""),
            |k| matches!(k, ParseErrorKind::RedefinedValue { .. }),
            "3:6: op `pd_op.relu`: value `%0` is already defined (at 2:6)",
        ),
        (
            with("(%0) {stop", "(%0, %0) {stop"),
            |k| matches!(k, ParseErrorKind::OperandCount { .. }),
            "3:25: op `pd_op.relu`: expected 1 operand(s) (x), found 2",
        ),
        (
            with("(%1) = \"pd_op.relu\"", "(%1, %2) = \"pd_op.relu\""),
            |k| matches!(k, ParseErrorKind::ResultCount { .. }),
            "3:5: op `pd_op.relu`: expected 1 result(s) (out), found 2",
        ),
        (
            with(": (tensor<2x3xf32>) ->", ": (tensor<2x3xf32>, tensor<2x3xf32>) ->"),
            |k| matches!(k, ParseErrorKind::OperandTypeCount { .. }),
            "3:55: op `pd_op.relu`: 1 operand(s) but 2 operand type(s)",
        ),
        (
            with(") -> tensor<2x3xf32>\n}", ") -> tensor<2x3xf32>, tensor<2x3xf32>\n}"),
            |k| matches!(k, ParseErrorKind::ResultTypeCount { .. }),
            "3:91: op `pd_op.relu`: 1 result(s) but 2 result type(s)",
        ),
        (
            with(") -> tensor<2x3xf32>\n}", ") -> \n}"),
            |k| matches!(k, ParseErrorKind::ResultTypeCount { .. }),
            "3:75: op `pd_op.relu`: 1 result(s) but 0 result type(s)",
        ),
        (
            with(": (tensor<2x3xf32>) ->", ": (tensor<3x2xf32>) ->"),
            |k| matches!(k, ParseErrorKind::OperandTypeMismatch { .. }),
            "3:56: op `pd_op.relu`: operand 0 (`%0`) has type tensor<2x3xf32>, but the op's type list says tensor<3x2xf32>",
        ),
        (
            with("() -> tensor<2x3xf32>", "() -> tensr<2x3xf32>"),
            |k| matches!(k, ParseErrorKind::UnknownType { .. }),
            "2:119: op `pd_op.data`: unknown type `tensr`",
        ),
        (
            with("() -> tensor<2x3xf32>", "() -> tensor<2x3xf33>"),
            |k| matches!(k, ParseErrorKind::UnknownDataType { .. }),
            "2:130: op `pd_op.data`: unknown element type `f33` (expected f32, i64, b, bf16, ...)",
        ),
        (
            with("dtype:float32", "dtype:floot32"),
            |k| matches!(k, ParseErrorKind::BadAttribute { .. }),
            "2:35: op `pd_op.data`: attribute `dtype`: expected an attribute value (a number, string, bool, array, data type, layout, place or type), found `floot32`",
        ),
        (
            with("stop_gradient:[true]} : (", "stop_gradient:[true],stop_gradient:[true]} : ("),
            |k| matches!(k, ParseErrorKind::DuplicateAttribute { .. }),
            "2:110: op `pd_op.data`: attribute `stop_gradient` is given twice",
        ),
        (
            with("shape:[2,3]", "shape:[2,30000000000000000000]"),
            |k| matches!(k, ParseErrorKind::OutOfRange { .. }),
            "2:86: op `pd_op.data`: `30000000000000000000` does not fit in a 64-bit integer",
        ),
        (
            // Strings may span lines, so only the end of the text ends an unclosed one.
            GOOD[..GOOD.find("name:\"x").unwrap() + 7].to_string(),
            |k| matches!(k, ParseErrorKind::UnterminatedString),
            "2:48: op `pd_op.data`: unterminated string (no closing `\"`)",
        ),
        (
            GOOD.trim_end().trim_end_matches('}').to_string(),
            |k| matches!(k, ParseErrorKind::UnclosedBrace),
            "1:1: `{` opened here is never closed",
        ),
        (
            with("shape:[2,3]", &deep_attr),
            |k| matches!(k, ParseErrorKind::TooDeep { .. }),
            "2:147: op `pd_op.data`: nested deeper than 64 levels",
        ),
        (
            with("    (%1)", "    ^%a {}\n    (%1)"),
            |k| matches!(k, ParseErrorKind::MisplacedBlockArgs),
            "3:5: block arguments (`^...`) must come first in a block",
        ),
        (
            format!("{GOOD}}}\n"),
            |k| matches!(k, ParseErrorKind::TrailingInput { .. }),
            "5:1: unexpected `}` after the end of the program",
        ),
        (
            with("place:Place(undefined:0)", "place:Place(tpu:0)"),
            |k| matches!(k, ParseErrorKind::BadAttribute { .. }),
            "2:64: op `pd_op.data`: attribute `place`: expected a device kind (undefined, cpu, gpu, gpu_pinned, xpu, ipu, custom_device), found `tpu`",
        ),
        (
            String::new(),
            |k| matches!(k, ParseErrorKind::Expected { .. }),
            "1:1: expected `{` (the program's block), found the end of the input",
        ),
    ];
    let mut kinds = std::collections::HashSet::new();
    let mut wrong = Vec::new();
    for (text, is_kind, message) in &cases {
        let e = error(text);
        if !is_kind(&e.kind) || e.to_string() != *message {
            wrong.push(format!("expected {message}\n   found {e} ({:?})", e.kind));
        }
        kinds.insert(std::mem::discriminant(&e.kind));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(kinds.len(), 19, "the cases cover 19 distinct kinds");
}

/// A small CNN training step with backward and SGD, built by the typed builders and printed.
fn train_text(ctx: &Arc<IrContext>) -> String {
    op_defs::models::small_cnn_train(ctx).unwrap().to_string()
}

#[test]
fn every_prefix_of_a_program_parses_or_errors() {
    let ctx = context();
    let text = train_text(&ctx);
    assert_eq!(
        parser::parse_program(&ctx, &text).unwrap().to_string(),
        text
    );
    // Every cut at a character boundary (step through to keep the test fast).
    let mut cuts = 0;
    for end in (0..text.len()).step_by(7) {
        if !text.is_char_boundary(end) {
            continue;
        }
        cuts += 1;
        if let Ok(p) = parser::parse_program(&ctx, &text[..end]) {
            panic!("a cut program parsed: {} ops", p.num_ops());
        }
    }
    assert!(cuts > 1000);
}

#[test]
fn mutated_programs_parse_or_error_without_panicking() {
    let ctx = context();
    let text = train_text(&ctx);
    let bytes = text.as_bytes();
    let alphabet = b"{}()[]<>%\",:=x-0123456789^ \n";
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut parsed = 0;
    for _ in 0..2000 {
        let mut m = bytes.to_vec();
        for _ in 0..(next() % 4 + 1) {
            let at = (next() as usize) % m.len();
            match next() % 3 {
                0 => m[at] = alphabet[(next() as usize) % alphabet.len()],
                1 => {
                    m.remove(at);
                }
                _ => m.insert(at, alphabet[(next() as usize) % alphabet.len()]),
            }
        }
        let Ok(s) = String::from_utf8(m) else {
            continue;
        };
        if let Ok(p) = parser::parse_module(&ctx, &s) {
            parsed += 1;
            // Whatever parsed prints to text that parses to the same print.
            let printed = p.to_string();
            let again = parser::parse_module(&ctx, &printed).unwrap();
            assert_eq!(again.to_string(), printed);
        }
    }
    assert!(
        parsed > 0,
        "no mutation parsed: the test exercises nothing but errors"
    );
}
