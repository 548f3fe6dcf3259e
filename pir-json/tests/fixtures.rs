//! Paddle 3.3.1's own JSON programs (`paddle-ref/pir_json/`): each reads, verifies and prints
//! byte for byte as Paddle printed the program it read back; writing it gives Paddle's file
//! back; and read → write → read is stable (also in the readable, indented form).
//!
//! The fixtures are read in place from `$PIR_PADDLE_REF/pir_json` (fallback
//! `$PIR_PADDLE_YAML/../paddle-ref/pir_json`); without either the tests print a notice and pass.

mod common;

use common::{assert_same_bytes, assert_same_text, ctx, pir_json_dir, read, FIXTURES};
use pir_json::{read_module, read_program, write_program, write_program_with, WriteOptions};

#[test]
fn each_fixture_prints_as_paddle_prints_it_and_verifies() {
    let Some(dir) = pir_json_dir("each_fixture_prints_as_paddle_prints_it_and_verifies") else {
        return;
    };
    for (json, txt) in FIXTURES {
        let ctx = ctx();
        let m = read_module(&ctx, &read(&dir, json)).unwrap_or_else(|e| panic!("{json}: {e}"));
        assert_eq!((m.version, m.trainable), (4, true), "{json}: header");
        if let Err(errs) = pir_runtime::verify(&m.program) {
            panic!("{json}: verification failed:\n{errs}");
        }
        assert_same_text(json, &m.program.to_string(), &read(&dir, txt));
    }
}

#[test]
fn writing_a_fixture_gives_paddles_file_back() {
    let Some(dir) = pir_json_dir("writing_a_fixture_gives_paddles_file_back") else {
        return;
    };
    for (json, _) in FIXTURES {
        let ctx = ctx();
        let text = read(&dir, json);
        let prog = read_program(&ctx, &text).unwrap_or_else(|e| panic!("{json}: {e}"));
        assert_same_bytes(json, &write_program(&prog), &text);
    }
}

#[test]
fn read_write_read_is_stable() {
    let Some(dir) = pir_json_dir("read_write_read_is_stable") else {
        return;
    };
    for (json, txt) in FIXTURES {
        let expected = read(&dir, txt);
        for readable in [false, true] {
            // A fresh context each time: nothing may depend on what was interned before.
            let first = read_program(&ctx(), &read(&dir, json)).unwrap();
            let opts = WriteOptions {
                readable,
                ..WriteOptions::default()
            };
            let written = write_program_with(&first, &opts);
            assert_eq!(
                written.contains('\n'),
                readable,
                "{json}: readable={readable}"
            );
            let second = read_program(&ctx(), &written)
                .unwrap_or_else(|e| panic!("{json} (readable={readable}) written by us: {e}"));
            pir_runtime::verify(&second).unwrap();
            assert_same_text(json, &second.to_string(), &expected);
            assert_same_bytes(json, &write_program_with(&second, &opts), &written);
        }
    }
}

#[test]
fn the_fixtures_hold_what_paddle_wrote() {
    let Some(dir) = pir_json_dir("the_fixtures_hold_what_paddle_wrote") else {
        return;
    };
    let ctx = ctx();
    let prog = read_program(&ctx, &read(&dir, "static_adam.json")).unwrap();
    let block = prog.block();
    let ops: Vec<_> = prog.block_ops(block).map(|o| prog.op(o)).collect();
    assert_eq!(ops.len(), 29);
    // Absent optional operands (`{"%":0}`) are null values; NULL result types are null types.
    let adams: Vec<_> = ops.iter().filter(|o| o.name() == "pd_op.adam_").collect();
    assert_eq!(adams.len(), 2);
    for adam in adams {
        let nulls: Vec<usize> = (0..adam.num_operands())
            .filter(|&i| adam.operand(i).is_none())
            .collect();
        assert_eq!(nulls, [5, 8, 9]);
        let null_results: Vec<usize> = adam
            .result_types()
            .enumerate()
            .filter(|(_, t)| t.is_none())
            .map(|(i, _)| i)
            .collect();
        assert_eq!(null_results, [3, 6]);
    }
    // The scalar `value` of `full` is a double, `momentum` of batch_norm a float.
    let full = ops.iter().find(|o| o.name() == "pd_op.full").unwrap();
    assert!(matches!(
        full.attr_data("value"),
        Some(pir_runtime::AttrData::Double(v)) if *v == 1.0
    ));
    let prog = read_program(&ctx, &read(&dir, "small_cnn.json")).unwrap();
    let bn = prog
        .block_ops(prog.block())
        .map(|o| prog.op(o))
        .find(|o| o.name() == "pd_op.batch_norm_")
        .unwrap();
    assert!(matches!(
        bn.attr_data("momentum"),
        Some(pir_runtime::AttrData::Float(v)) if *v == 0.9
    ));
}
