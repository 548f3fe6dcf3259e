//! Paddle 3.3.1's per-op programs of the hand-written ops (`paddle-ref/ops/programs/`: `expand`,
//! `fused_gemm_epilogue` with its null `reserve_space`, `assign_out_`) read, verified, printed
//! byte-identical to Paddle's print, written back byte-identical, and type-checked: every
//! result type Paddle's build recorded is the one our build infers.
//!
//! Reads `$PIR_PADDLE_REF/ops/programs` (or `$PIR_PADDLE_YAML/../paddle-ref/...`); without
//! either it prints a notice and passes.

mod common;

use std::path::PathBuf;

use common::{assert_same_bytes, assert_same_text, ctx};

fn programs_dir() -> Option<PathBuf> {
    let base = match (
        std::env::var_os("PIR_PADDLE_REF"),
        std::env::var_os("PIR_PADDLE_YAML"),
    ) {
        (Some(r), _) => PathBuf::from(r),
        (None, Some(y)) => PathBuf::from(y).join("..").join("paddle-ref"),
        (None, None) => {
            eprintln!(
                "NOTICE: neither PIR_PADDLE_REF nor PIR_PADDLE_YAML is set; skipping Paddle's \
                 programs of the hand-written ops"
            );
            return None;
        }
    };
    let dir = base.join("ops").join("programs");
    if !dir.is_dir() {
        eprintln!("NOTICE: {} does not exist; skipping", dir.display());
        return None;
    }
    Some(dir)
}

#[test]
fn paddles_programs_of_hand_written_ops_read_print_and_type_check() {
    let Some(dir) = programs_dir() else { return };
    for op in ["expand", "fused_gemm_epilogue", "assign_out_"] {
        let json = common::read(&dir, &format!("{op}.json"));
        let text = common::read(&dir, &format!("{op}.txt"));
        let ctx = ctx();
        let prog = pir_json::read_program(&ctx, &json).unwrap_or_else(|e| panic!("{op}: {e}"));
        pir_runtime::verify(&prog).unwrap_or_else(|e| panic!("{op}: {e}"));
        assert_same_text(op, &prog.to_string(), &text);
        assert_same_bytes(op, &pir_json::write_program(&prog), &json);
        let report = pir_runtime::check_types(&prog);
        assert!(
            report.differences.is_empty() && report.unchecked.is_empty(),
            "{op}: {:?} {:?}",
            report.differences,
            report.unchecked
        );
        let name = format!("pd_op.{op}");
        let count = prog
            .block_ops(prog.block())
            .filter(|&o| prog.op(o).name() == name)
            .count();
        assert!(
            count > 0 && report.checked >= count,
            "{op}: {count} ops, {} checked",
            report.checked
        );
    }
}
