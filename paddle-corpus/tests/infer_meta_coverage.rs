//! How much of Paddle's full op corpus our infer-meta functions cover: an op counts when its
//! typed build can infer result types (its `InferMetaInterface` resolves to an implemented
//! function). Prints the figures recorded in BENCHMARKS.md; the test guards against regressions
//! (coverage of entries must stay at or above 60%, the target).

#[cfg(pir_paddle_yaml)]
#[test]
fn infer_meta_coverage_of_the_paddle_corpus() {
    use std::collections::BTreeSet;

    use pir_runtime::interfaces::InferMeta;
    use pir_runtime::Dialect;

    let defs = pir_paddle_corpus::PdOpDialect::op_defs();
    let mut with_meta = 0;
    let mut covered = 0;
    let mut entries = BTreeSet::new();
    let mut covered_entries = BTreeSet::new();
    let mut names = BTreeSet::new();
    let mut implemented = BTreeSet::new();
    let mut missing = BTreeSet::new();
    for def in defs {
        let schema = def.schema.expect("schema");
        entries.insert(schema.origin_name.to_string());
        let Some(im) = def.interface::<InferMeta>() else {
            continue;
        };
        with_meta += 1;
        if !im.func_name.is_empty() {
            names.insert(im.func_name);
        }
        if im.func().is_some() {
            covered += 1;
            covered_entries.insert(schema.origin_name.to_string());
            implemented.insert(im.func_name);
        } else {
            missing.insert(im.func_name);
        }
    }
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    println!(
        "op classes: {} generated, {with_meta} with an InferMetaInterface",
        defs.len()
    );
    println!(
        "typed build infers types: {covered}/{} classes ({:.1}%), {}/{} yaml entries ({:.1}%)",
        defs.len(),
        pct(covered, defs.len()),
        covered_entries.len(),
        entries.len(),
        pct(covered_entries.len(), entries.len())
    );
    println!(
        "distinct infer-meta functions named by the corpus: {}/{} implemented ({:.1}%); registry holds {}",
        implemented.len(),
        names.len(),
        pct(implemented.len(), names.len()),
        op_defs::infer_meta::REGISTRY.len()
    );
    println!(
        "not implemented: {}",
        missing.into_iter().collect::<Vec<_>>().join(", ")
    );
    assert!(pct(covered_entries.len(), entries.len()) >= 60.0);
}

#[cfg(not(pir_paddle_yaml))]
#[test]
fn infer_meta_coverage_of_the_paddle_corpus() {
    eprintln!("notice: PIR_PADDLE_YAML was not set at build time; skipping the coverage figures");
}
