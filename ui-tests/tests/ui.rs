//! The trybuild suite of `#[pir_op]`: every case in `ui/fail` must fail to compile with the
//! pinned message next to it (`.stderr`), every case in `ui/pass` must compile and run.
//!
//! To re-pin after a deliberate change of a message: `TRYBUILD=overwrite cargo test -p
//! pir-ui-tests --test ui`, then review every changed `.stderr` (they are the product).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
