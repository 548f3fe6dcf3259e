//! The `pd_op` dialect defined at run time from `$PIR_PADDLE_YAML` (`pir_runtime::yaml_dialect`)
//! against the one `define_ops_from_yaml!` compiles from the same folder (this crate): every
//! compiled class has a run-time twin with the same name, traits, interfaces, GetOpInfo,
//! infer-meta function, backward op, attribute and infer-meta tables and schema; and every
//! one-op program of Paddle 3.3.1 (`$PIR_PADDLE_REF/ops/programs/*.json`) reads, verifies,
//! type-checks, prints and writes back to JSON identically with either.

#[path = "../../op-defs/tests/common/def_compare.rs"]
mod def_compare;

use std::path::PathBuf;
use std::sync::Arc;

use pir_runtime::yaml_dialect::YamlDialect;
use pir_runtime::IrContext;

fn yaml_dir() -> Option<PathBuf> {
    if !pir_paddle_corpus::GENERATED {
        eprintln!("NOTICE: PIR_PADDLE_YAML was not set at build time; skipping.");
        return None;
    }
    match std::env::var_os("PIR_PADDLE_YAML") {
        Some(d) => Some(PathBuf::from(d)),
        None => {
            eprintln!("NOTICE: PIR_PADDLE_YAML is not set; skipping.");
            None
        }
    }
}

fn runtime(dir: &std::path::Path) -> YamlDialect {
    YamlDialect::load(dir, "pd_op", &op_defs::infer_meta::REGISTRY)
        .and_then(YamlDialect::complete)
        .expect("the folder loads")
}

#[cfg(pir_paddle_yaml)]
fn compiled_defs() -> &'static [&'static pir_runtime::OpDef] {
    use pir_runtime::Dialect;
    pir_paddle_corpus::PdOpDialect::op_defs()
}

#[cfg(not(pir_paddle_yaml))]
fn compiled_defs() -> &'static [&'static pir_runtime::OpDef] {
    &[]
}

#[test]
fn every_compiled_class_has_its_run_time_twin() {
    let Some(dir) = yaml_dir() else { return };
    let rt = runtime(&dir);
    let compiled = compiled_defs();
    assert!(compiled.len() > 1000, "{}", compiled.len());
    let mut problems = Vec::new();
    for c in compiled {
        match rt.op_def(c.name) {
            Some(r) => problems.extend(def_compare::differences(c, r)),
            None => problems.push(format!("{}: no run-time class", c.name)),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    eprintln!("{} classes compared", compiled.len());
}

/// What a program does in one context: read, verify, check types, print, write JSON.
fn outcome(ctx: &Arc<IrContext>, json: &str) -> String {
    let prog = match pir_json::read_program(ctx, json) {
        Ok(p) => p,
        Err(e) => return format!("read error: {e}"),
    };
    let verified = match pir_runtime::verify(&prog) {
        Ok(()) => "verified".to_string(),
        Err(e) => e.to_string(),
    };
    let report = pir_runtime::check_types(&prog).to_string();
    format!(
        "{verified}\n{report}\n{prog}\n{}",
        pir_json::write_program(&prog)
    )
}

#[cfg(pir_paddle_yaml)]
fn compiled_context() -> Arc<IrContext> {
    let ctx = IrContext::new();
    ctx.register_dialect::<pir_paddle_corpus::PdOpDialect>()
        .unwrap();
    ctx
}

#[cfg(not(pir_paddle_yaml))]
fn compiled_context() -> Arc<IrContext> {
    IrContext::new()
}

#[test]
fn paddle_programs_behave_alike_with_compiled_and_run_time_classes() {
    let Some(dir) = yaml_dir() else { return };
    let Some(refdir) = std::env::var_os("PIR_PADDLE_REF").map(PathBuf::from) else {
        eprintln!("NOTICE: PIR_PADDLE_REF is not set; skipping.");
        return;
    };
    let rt = runtime(&dir);
    let programs = refdir.join("ops").join("programs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&programs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 294, "{}", files.len());
    let (mut same, mut verified) = (0, 0);
    let mut problems = Vec::new();
    for f in &files {
        let json = std::fs::read_to_string(f).unwrap();
        let compiled = outcome(&compiled_context(), &json);
        let run_time_ctx = IrContext::new();
        rt.register(&run_time_ctx).unwrap();
        let run_time = outcome(&run_time_ctx, &json);
        if compiled == run_time {
            same += 1;
            verified += usize::from(compiled.starts_with("verified\n"));
        } else {
            problems.push(format!(
                "{}:\ncompiled:\n{}\nrun time:\n{}",
                f.display(),
                compiled.lines().take(3).collect::<Vec<_>>().join("\n"),
                run_time.lines().take(3).collect::<Vec<_>>().join("\n")
            ));
        }
    }
    eprintln!(
        "{same}/{} programs behave alike ({verified} of them read and verify)",
        files.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    // Most programs exercise the classes (the others stop at ops neither defines).
    assert!(verified > 200, "{verified}");
}
