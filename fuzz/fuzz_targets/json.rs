//! Arbitrary bytes into the PIR JSON reader, in a context with the builtin, `pd_op` and `cf`
//! dialects (so programs with `pd_op.if` / `pd_op.while` / `pd_op.pylayer` regions read): it
//! must return a program or an error, never panic. A program read is verified (errors are
//! fine), type-checked, printed and written; what it writes must read again and write the same
//! bytes, otherwise the input is reported as a crash.
#![no_main]

use pir_runtime::IrContext;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // A fresh context per input, so interned attributes do not pile up over the run.
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).expect("pd_op registers");
    let Ok(prog) = pir_json::read_program(&ctx, text) else {
        return;
    };
    let _ = pir_runtime::verify(&prog);
    let _ = pir_runtime::check_types(&prog);
    let _ = prog.to_string();
    let written = pir_json::write_program(&prog);
    let again = match pir_json::read_program(&ctx, &written) {
        Ok(p) => p,
        Err(e) => panic!("what the writer wrote does not read: {e}\n{written}"),
    };
    assert_eq!(
        pir_json::write_program(&again),
        written,
        "a program read back from its own JSON writes other bytes"
    );
});
