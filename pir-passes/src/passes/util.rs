//! Facts about ops the passes share.

use pir_runtime::traits::Inplace;
use pir_runtime::{OpRef, Program, Value};

/// `paddle::dialect::IsInplaceOp`: an op that writes an input (`relu_`, or a kernel op made
/// from one).
pub(crate) fn is_inplace_op(op: OpRef<'_>) -> bool {
    op.has_trait::<Inplace>() || op.name().ends_with('_') && op.name().starts_with("pd_op.")
}

/// Whether a user of `v` writes it in place (no allocation: this runs for every use).
pub(crate) fn written_in_place(prog: &Program, v: Value) -> bool {
    prog.uses(v).any(|u| {
        let user = prog.op(u.op);
        let Some(s) = user.def().schema else {
            return false;
        };
        let rt = &s.runtime;
        if rt.inplace.is_empty() && rt.view.is_empty() {
            return false;
        }
        rt.inplace.iter().chain(rt.view.iter()).any(|(_, inp)| {
            s.inputs
                .iter()
                .position(|x| x.name == *inp)
                .is_some_and(|i| i == u.index as usize)
        })
    })
}
