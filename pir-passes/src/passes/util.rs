//! Facts about ops the passes share.

use pir_runtime::traits::Inplace;
use pir_runtime::{OpRef, Program, Value};

/// `paddle::dialect::IsInplaceOp`: an op that writes an input (`relu_`, or a kernel op made
/// from one).
pub(crate) fn is_inplace_op(op: OpRef<'_>) -> bool {
    op.has_trait::<Inplace>() || op.name().ends_with('_') && op.name().starts_with("pd_op.")
}

/// The `(output index, input index)` pairs an op writes in place or views (its schema's
/// `inplace` and `view` entries).
pub(crate) fn inplace_pairs(op: OpRef<'_>) -> Vec<(usize, usize)> {
    let Some(s) = op.def().schema else {
        return Vec::new();
    };
    let rt = &s.runtime;
    rt.inplace
        .iter()
        .chain(rt.view.iter())
        .filter_map(|(out, inp)| {
            let o = s.outputs.iter().position(|x| x.name == *out)?;
            let i = s.inputs.iter().position(|x| x.name == *inp)?;
            Some((o, i))
        })
        .collect()
}

/// Whether a user of `v` writes it in place.
pub(crate) fn written_in_place(prog: &Program, v: Value) -> bool {
    prog.uses(v).any(|u| {
        let user = prog.op(u.op);
        inplace_pairs(user)
            .iter()
            .any(|&(_, i)| user.operand(i) == Some(v))
    })
}
