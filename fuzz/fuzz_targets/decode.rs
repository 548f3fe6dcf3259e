//! Arbitrary bytes into the `.pdmodel` decoder: it must return a program or an error, never
//! panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = pir_legacy::LegacyProgram::decode(data);
});
