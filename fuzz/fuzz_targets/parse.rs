//! Arbitrary text into the PIR text parser, in a context with the builtin and `pd_op`
//! dialects: it must return a program or an error, never panic. A parsed program is verified
//! (errors are fine: the text need not be a valid program) and printed; that print must parse
//! again and print to the same text (`print(parse(print(parse(x)))) == print(parse(x))`),
//! otherwise the input is reported as a crash.
#![no_main]

use pir_runtime::{parser, IrContext};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // A fresh context per input, so interned attributes do not pile up over the run.
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).expect("pd_op registers");
    let Ok(parsed) = parser::parse_module(&ctx, text) else {
        return;
    };
    let _ = pir_runtime::verify(&parsed.program);
    let printed = parsed.to_string();
    let again = match parser::parse_module(&ctx, &printed) {
        Ok(p) => p,
        Err(e) => panic!("the print of a parsed program does not parse: {e}\n{printed}"),
    };
    assert_eq!(
        again.to_string(),
        printed,
        "a parsed program's print does not print the same after parsing it again"
    );
});
