//! `replace_fetch_with_shadow_output_pass` (level 0): every `pd_op.fetch` becomes a
//! `builtin.shadow_output` of the same value, named by the fetch's `name`, in the fetch's place.

use pir_runtime::InsertPoint;

use crate::error::PassError;
use crate::module::IrModule;
use crate::pass::{Pass, PassStats};

/// The pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplaceFetchWithShadowOutput;

const NAME: &str = "replace_fetch_with_shadow_output_pass";

impl Pass for ReplaceFetchWithShadowOutput {
    fn name(&self) -> &'static str {
        NAME
    }

    fn opt_level(&self) -> u8 {
        0
    }

    fn run(&self, m: &mut IrModule) -> Result<PassStats, PassError> {
        let prog = &mut m.program;
        let mut fetches = Vec::new();
        prog.walk(prog.module_op(), &mut |op| {
            if prog.op(op).name() == "pd_op.fetch" {
                fetches.push(op);
            }
        });
        let ctx = prog.ctx().clone();
        let def = ctx
            .op_def("builtin.shadow_output")
            .expect("the builtin dialect is always registered");
        for &op in &fetches {
            let r = prog.op(op);
            let Some(x) = r.operand(0) else {
                return Err(PassError::op(NAME, prog, op, "operand 0 `x` is null"));
            };
            let Some(name) = r.attr("name") else {
                return Err(PassError::op(NAME, prog, op, "attribute `name` is missing"));
            };
            let out = r.result(0);
            let attrs = ctx.dict_attr(&[("output_name", name)]);
            let args = pir_runtime::OperationArgs {
                def,
                operands: &[Some(x)],
                attributes: attrs,
                result_types: &[],
                num_regions: 0,
            };
            prog.create_op_at(args, InsertPoint::Before(op))
                .map_err(|source| PassError::Ir { pass: NAME, source })?;
            // Users of the fetched value read the fetch's input instead.
            prog.replace_all_uses_with(out, x);
            prog.erase_op(op)
                .map_err(|source| PassError::Ir { pass: NAME, source })?;
        }
        Ok(PassStats::changed(fetches.len()))
    }
}
