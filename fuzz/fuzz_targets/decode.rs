//! Arbitrary bytes into the ProgramDesc decoder: it must return a program or an error, never
//! panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = pir_translator::decode_program(data);
    let _ = pir_translator::LegacyProgram::decode(data);
});
