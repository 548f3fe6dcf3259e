//! pir-spec's yaml front end, run at run time on Paddle's full yaml, against the real GetOpInfo
//! tuples, traits and interfaces of Paddle 3.3.1 (`paddle-ref/op_info_dev.json` and
//! `op_info_dev_more.json`), every generator file of the folder read as the CLI reads it.
//!
//! The shared yaml snapshot is not exactly the yaml 3.3.1 was generated from: the entries where
//! they differ are listed, with the difference, in `common::YAML_DRIFT`; every other entry must
//! match field by field, and every listed one must still differ (so the list cannot go stale).
//! Run with `PIR_PADDLE_YAML=../shared/paddle-yaml`; without it the test prints a notice.

mod common;

use pir_spec::yaml::folder::YamlFolder;

#[test]
fn spec_matches_paddle_3_3_1() {
    let Some((dir, reference)) = common::locate() else {
        return;
    };
    let set = YamlFolder::read(&dir)
        .expect("the yaml folder reads")
        .load("pd_op")
        .unwrap_or_else(|e| panic!("Paddle's yaml must load without errors:\n{e}"));
    common::check_against_paddle("pir-spec", &reference, |name| {
        let op = set.get(name)?;
        Some(common::Ours {
            info: common::info_json(op),
            traits: op.traits.iter().map(|t| t.to_string()).collect(),
            interfaces: op.interfaces.iter().map(|t| t.to_string()).collect(),
        })
    });
}
