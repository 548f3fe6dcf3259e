//! JSON output byte for byte as Paddle writes it (nlohmann::json's `dump()`): object keys in
//! byte order, no spaces (or `dump(4)`'s four-space indentation), doubles in nlohmann's
//! shortest round-trip notation (`1.0`, `0.8999999761581421`, `9.99999993922529e-09`), strings
//! with only `"`, `\` and control characters escaped.

use std::fmt::Write;

/// A JSON value to write. Object keys are the format's fixed key names.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum J {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(&'static str, J)>),
}

impl J {
    pub(crate) fn str(s: &str) -> J {
        J::Str(s.to_string())
    }

    pub(crate) fn obj(mut entries: Vec<(&'static str, J)>) -> J {
        // nlohmann::json objects are std::maps: keys in byte order.
        entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        J::Obj(entries)
    }
}

/// Writes `j`; `indent`: `None` for one line (`dump()`), `Some(4)` for `dump(4)`.
pub(crate) fn dump(j: &J, indent: Option<usize>) -> String {
    let mut out = String::new();
    write_value(&mut out, j, indent, 0);
    out
}

fn newline_indent(out: &mut String, n: usize) {
    out.push('\n');
    out.extend(std::iter::repeat_n(' ', n));
}

fn write_value(out: &mut String, j: &J, indent: Option<usize>, depth: usize) {
    match j {
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Int(i) => {
            let _ = write!(out, "{i}");
        }
        J::UInt(u) => {
            let _ = write!(out, "{u}");
        }
        J::Float(f) => write_double(out, *f),
        J::Str(s) => write_string(out, s),
        J::Arr(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if let Some(step) = indent {
                    newline_indent(out, step * (depth + 1));
                }
                write_value(out, item, indent, depth + 1);
            }
            if let Some(step) = indent {
                newline_indent(out, step * depth);
            }
            out.push(']');
        }
        J::Obj(entries) => {
            if entries.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if let Some(step) = indent {
                    newline_indent(out, step * (depth + 1));
                }
                write_string(out, k);
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_value(out, v, indent, depth + 1);
            }
            if let Some(step) = indent {
                newline_indent(out, step * depth);
            }
            out.push('}');
        }
    }
}

/// A JSON string as nlohmann escapes it with `ensure_ascii = false`.
pub(crate) fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A double as nlohmann's `dump()` writes it: the shortest digits that read back to the same
/// double, then `format_buffer` with exponents `-4 < n <= 15` in positional notation. Non-finite
/// values are `null` (the format writes them as `"VD"` strings before getting here).
pub(crate) fn write_double(out: &mut String, v: f64) {
    if !v.is_finite() {
        out.push_str("null");
        return;
    }
    if v.is_sign_negative() {
        out.push('-');
    }
    let v = v.abs();
    if v == 0.0 {
        out.push_str("0.0");
        return;
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `8.999999761581421e-1`.
    let sci = format!("{v:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let k = digits.len() as i32;
    // The value is 0.d1d2...dk * 10^n: n is the position of the decimal point.
    let n = exp + 1;
    const MIN_EXP: i32 = -4;
    const MAX_EXP: i32 = 15;
    if k <= n && n <= MAX_EXP {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
        out.push_str(".0");
    } else if 0 < n && n <= MAX_EXP {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if MIN_EXP < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = n - 1;
        out.push('e');
        out.push(if e < 0 { '-' } else { '+' });
        let _ = write!(out, "{:02}", e.abs());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(v: f64) -> String {
        let mut s = String::new();
        write_double(&mut s, v);
        s
    }

    #[test]
    fn doubles_as_nlohmann_writes_them() {
        // Values and spellings from Paddle 3.3.1's files.
        assert_eq!(d(1.0), "1.0");
        assert_eq!(d(f64::from(0.9_f32)), "0.8999999761581421");
        assert_eq!(d(f64::from(1e-5_f32)), "9.999999747378752e-06");
        assert_eq!(d(f64::from(1e-8_f32)), "9.99999993922529e-09");
        assert_eq!(d(f64::from(0.999_f32)), "0.9990000128746033");
        // format_buffer's branches.
        assert_eq!(d(0.0), "0.0");
        assert_eq!(d(-0.0), "-0.0");
        assert_eq!(d(1000.0), "1000.0");
        assert_eq!(d(-2.5), "-2.5");
        assert_eq!(d(0.0001), "0.0001");
        assert_eq!(d(0.00001), "1e-05");
        assert_eq!(d(1e14), "100000000000000.0");
        assert_eq!(d(123456789012345.0), "123456789012345.0");
        assert_eq!(d(1e15), "1e+15");
        assert_eq!(d(1.5e15), "1.5e+15");
        assert_eq!(d(1.5e300), "1.5e+300");
        assert_eq!(d(5e-324), "5e-324");
        assert_eq!(d(f64::NAN), "null");
    }

    #[test]
    fn strings_escape_like_nlohmann() {
        let mut s = String::new();
        write_string(&mut s, "a\"b\\c\n\u{1}\u{7f}é");
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\u0001\u{7f}é\"");
    }

    #[test]
    fn pretty_output_matches_dump_4() {
        let j = J::obj(vec![
            ("b", J::Arr(vec![J::Int(1), J::Arr(vec![])])),
            ("a", J::obj(vec![])),
        ]);
        assert_eq!(dump(&j, None), r##"{"a":{},"b":[1,[]]}"##);
        assert_eq!(
            dump(&j, Some(4)),
            "{\n    \"a\": {},\n    \"b\": [\n        1,\n        []\n    ]\n}"
        );
    }
}
