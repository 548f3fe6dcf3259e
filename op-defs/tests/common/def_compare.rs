//! Compares two definitions of one op class field by field: a compiled one
//! (`define_ops_from_yaml!`) and one defined at run time (`pir_runtime::yaml_dialect`). Shared
//! by op-defs' and paddle-corpus's tests (`#[path]`).

use pir_runtime::interfaces::{InferMeta, OpYamlInfo, Vjp};
use pir_runtime::OpDef;

/// Every difference between `compiled` and `runtime`, as readable lines (empty: the same).
/// The schemas' `source` may name the yaml file differently (as written in the macro versus
/// the folder's path): only its line is compared.
pub fn differences(compiled: &OpDef, runtime: &OpDef) -> Vec<String> {
    let mut out = Vec::new();
    let mut diff = |what: &str, a: String, b: String| {
        if a != b {
            out.push(format!(
                "{}: {what}: compiled {a} vs run time {b}",
                compiled.name
            ));
        }
    };
    diff("name", compiled.name.into(), runtime.name.into());
    diff("dialect", compiled.dialect.into(), runtime.dialect.into());
    let traits = |d: &OpDef| {
        format!(
            "{:?}",
            d.traits
                .iter()
                .map(|t| (t.id, t.name, t.verify.is_some()))
                .collect::<Vec<_>>()
        )
    };
    diff("traits", traits(compiled), traits(runtime));
    let ifaces = |d: &OpDef| {
        format!(
            "{:?}",
            d.interfaces
                .iter()
                .map(|i| (i.id, i.name))
                .collect::<Vec<_>>()
        )
    };
    diff("interfaces", ifaces(compiled), ifaces(runtime));
    let infer = |d: &OpDef| {
        d.interface::<InferMeta>()
            .map(|i| format!("{} implemented={}", i.func_name, i.func().is_some()))
            .unwrap_or_default()
    };
    diff("InferMeta", infer(compiled), infer(runtime));
    let vjp = |d: &OpDef| {
        d.interface::<Vjp>()
            .map(|v| v.backward_op.to_string())
            .unwrap_or_default()
    };
    diff("Vjp", vjp(compiled), vjp(runtime));
    let info = |d: &OpDef| format!("{:?}", d.interface::<OpYamlInfo>().map(|i| i.get_op_info()));
    diff("GetOpInfo", info(compiled), info(runtime));
    diff(
        "attribute_names",
        format!("{:?}", compiled.attribute_names),
        format!("{:?}", runtime.attribute_names),
    );
    diff(
        "attr_order",
        format!("{:?}", compiled.attr_order),
        format!("{:?}", runtime.attr_order),
    );
    diff(
        "infer_params",
        format!("{:?}", compiled.infer_params),
        format!("{:?}", runtime.infer_params),
    );
    diff(
        "verify",
        compiled.verify.is_some().to_string(),
        runtime.verify.is_some().to_string(),
    );
    diff(
        "print",
        compiled.print.is_some().to_string(),
        runtime.print.is_some().to_string(),
    );
    let schema = |d: &OpDef| {
        d.schema.map(|s| {
            let mut s = s.clone();
            let line = s.source.take().map(|l| l.line);
            format!("{s:?} line {line:?}")
        })
    };
    diff(
        "schema",
        format!("{:?}", schema(compiled)),
        format!("{:?}", schema(runtime)),
    );
    out
}
