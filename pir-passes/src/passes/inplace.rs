//! `inplace_pass` (level 3): on a kernel program, a kernel op whose `pd_op` has an in-place
//! twin (`relu` → `relu_`) is switched to it when the value it would overwrite is free: the op
//! is that value's last reader (every use is in this op), the value is made by another kernel
//! op (not a feed, parameter or constant), and the output fits in it (same dtype, same number
//! of elements as far as the shapes say). The op keeps its kernel, prints as
//! `relu_(phi_kernel)` and gains `is_inplace:true`.

use pir_runtime::traits::Inplace;
use pir_runtime::{AttrData, OpId, Program, Type, Value};

use crate::error::PassError;
use crate::kernel;
use crate::module::IrModule;
use crate::pass::{Pass, PassStats};

const NAME: &str = "inplace_pass";

/// The pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct InplacePass;

/// `(output, input)` index pairs the twin `def` writes in place.
fn twin_pairs(def: &pir_runtime::OpDef) -> Vec<(usize, usize)> {
    let Some(s) = def.schema else {
        return Vec::new();
    };
    s.runtime
        .inplace
        .iter()
        .filter_map(|(o, i)| {
            Some((
                s.outputs.iter().position(|x| x.name == *o)?,
                s.inputs.iter().position(|x| x.name == *i)?,
            ))
        })
        .collect()
}

/// Known-extent product and count of dynamic dims.
fn extent(prog: &Program, t: Option<Type>) -> Option<(pir_runtime::phi::DataType, i64, usize)> {
    let ctx = prog.ctx();
    let d = kernel::dense_of(ctx, t?)?;
    let m = d.as_dense_tensor(ctx)?;
    let known = m.dims.iter().filter(|&&x| x >= 0).product();
    let dynamic = m.dims.iter().filter(|&&x| x < 0).count();
    Some((m.dtype, known, dynamic))
}

fn made_by_kernel(prog: &Program, v: Value) -> bool {
    prog.defining_op(v).is_some_and(|d| {
        let r = prog.op(d);
        r.def().name == kernel::PHI_KERNEL_DEF.name
            && !matches!(r.attr_data("op_name"), Some(AttrData::Str(s)) if &**s == "pd_op.data")
    })
}

fn try_inplace(prog: &mut Program, op: OpId) -> Result<bool, PassError> {
    let r = prog.op(op);
    if r.def().name != kernel::PHI_KERNEL_DEF.name
        || matches!(r.attr_data("is_inplace"), Some(AttrData::Bool(true)))
    {
        return Ok(false);
    }
    let Some(AttrData::Str(op_name)) = r.attr_data("op_name") else {
        return Ok(false);
    };
    let twin_name = format!("{op_name}_");
    let ctx = prog.ctx().clone();
    let Some(twin) = ctx.op_def(&twin_name) else {
        return Ok(false);
    };
    if !twin.has_trait::<Inplace>() {
        return Ok(false);
    }
    let pairs = twin_pairs(twin);
    if pairs.is_empty() {
        return Ok(false);
    }
    for &(o, i) in &pairs {
        let (Some(input), Some(out)) = (r.operand(i), r.get_result(o)) else {
            return Ok(false);
        };
        let last_reader = prog.uses(input).all(|u| u.op == op);
        let fits = match (
            extent(prog, prog.value_type(input)),
            extent(prog, prog.value_type(out)),
        ) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        };
        if !last_reader || !made_by_kernel(prog, input) || !fits {
            return Ok(false);
        }
    }
    let mut a = r.attributes();
    a = ctx.dict_with(a, "op_name", Some(ctx.str_attr(&twin_name)));
    a = ctx.dict_with(a, "is_inplace", Some(ctx.bool_attr(true)));
    prog.set_attributes(op, a)
        .map_err(|source| PassError::Ir { pass: NAME, source })?;
    Ok(true)
}

impl Pass for InplacePass {
    fn name(&self) -> &'static str {
        NAME
    }

    fn opt_level(&self) -> u8 {
        3
    }

    fn run(&self, m: &mut IrModule) -> Result<PassStats, PassError> {
        let ops: Vec<OpId> = m.program.block_ops(m.program.block()).collect();
        let mut n = 0;
        for op in ops {
            if try_inplace(&mut m.program, op)? {
                n += 1;
            }
        }
        Ok(PassStats::changed(n))
    }
}
