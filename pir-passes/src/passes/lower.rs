//! `pd_op_to_kernel`: lowering to the kernel dialect (Paddle's `PdOpLowerToKernelPass`).
//!
//! A new program is made, op by op in order. Every `pd_op` op becomes a
//! `pd_kernel.phi_kernel` op with the op's attributes plus `kernel_name` (the op's kernel
//! function, `batch_norm` for `batch_norm_`), `kernel_key` (backend, layout, dtype), `op_name`,
//! `origin_id` and, for in-place ops, `is_inplace:true`; builtin ops are copied with an
//! `origin_id` naming the op they came from. Dense tensor types become `cpu_tensor<...>`
//! (`undefined_tensor<...>` for `pd_op.data`, whose place is not known yet).
//!
//! Kernel keys follow Paddle's `GetKernelKey` for a CPU build: the dtype is read from the
//! operand or attribute named by the op's `kernel.data_type`, else from the first tensor
//! operand; the layout is the first tensor operand's (`NCHW`), or `Undefined(AnyLayout)` for
//! ops without tensor operands and for `fetch`; `pd_op.data` has an undefined backend. With a
//! registry (`phi_kernels_cpu.json`, the pass attribute `kernel_registry`), a kernel that is
//! registered but not for the chosen dtype is an error naming the op.
//!
//! Op ids continue Paddle's process-wide counter: the new module takes the next id after the
//! largest in the program, then every new op the next one, in order; a kernel op's `origin_id`
//! is its own new id (that is what Paddle prints), a builtin op's is the id of its original.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use pir_runtime::phi::{DataLayout, DataType};
use pir_runtime::printer::OpIds;
use pir_runtime::{
    AttrData, Attribute, InsertPoint, IrContext, OpId, OpRef, OperationArgs, Program, Type,
    TypeData, Value,
};

use crate::error::PassError;
use crate::kernel::{self, registry::KernelRegistry};
use crate::module::IrModule;
use crate::pass::{Pass, PassStats};
use crate::passes::util::{dict_merged, is_inplace_op};

const NAME: &str = "pd_op_to_kernel";

/// The pass.
#[derive(Clone, Debug, Default)]
pub struct PdOpToKernel {
    /// The kernel registry to check kernels against.
    pub registry: Option<KernelRegistry>,
}

fn tensor_of(ctx: &IrContext, t: Option<Type>) -> Option<(DataType, DataLayout)> {
    let t = t?;
    match ctx.type_data(t) {
        TypeData::DenseTensor(m) => Some((m.dtype, m.layout)),
        TypeData::Vector(ts) => ts.first().and_then(|t| tensor_of(ctx, Some(*t))),
        _ => kernel::dense_of(ctx, t).and_then(|d| tensor_of(ctx, Some(d))),
    }
}

/// The op's kernel function (`batch_norm` for `batch_norm_`).
fn kernel_name(r: OpRef<'_>) -> String {
    r.def()
        .schema
        .map(|s| s.runtime.kernel_func.to_string())
        .filter(|k| !k.is_empty())
        .unwrap_or_else(|| {
            let n = r.name().split_once('.').map_or(r.name(), |(_, n)| n);
            n.trim_end_matches('_').to_string()
        })
}

/// What a kernel key is made of: backend, layout and dtype.
type KeyParts = (&'static str, DataLayout, DataType);

/// The kernel key of a `pd_op` op.
fn kernel_key(r: OpRef<'_>) -> KeyParts {
    let ctx = r.ctx();
    let schema = r.def().schema;
    let first_tensor = r.operand_types().find_map(|t| tensor_of(ctx, t));
    let from_param = schema.and_then(|s| {
        let p = s.runtime.kernel_key_dtype.first()?;
        if let Some(i) = s.inputs.iter().position(|x| x.name == *p) {
            return tensor_of(ctx, r.operand_type(i)).map(|(d, _)| d);
        }
        match r.attr_data(p)? {
            AttrData::DataType(d) => Some(*d),
            _ => None,
        }
    });
    let attr_dtype = match r.attr_data("dtype") {
        Some(AttrData::DataType(d)) => Some(*d),
        _ => None,
    };
    let dtype = from_param
        .or(first_tensor.map(|(d, _)| d))
        .or(attr_dtype)
        .unwrap_or(DataType::Undefined);
    let (backend, layout) = match r.name() {
        "pd_op.data" => ("Undefined", DataLayout::Undefined),
        "pd_op.fetch" => ("CPU", DataLayout::Undefined),
        _ => (
            "CPU",
            first_tensor.map_or(DataLayout::Undefined, |(_, l)| l),
        ),
    };
    (backend, layout, dtype)
}

/// The attributes a kernel op gains besides `origin_id`; the same for every op of one
/// definition and key, so they are made once per pair.
#[derive(Clone, Copy)]
struct KernelAttrs {
    kernel_name: Attribute,
    kernel_key: Attribute,
    op_name: Attribute,
    inplace: bool,
}

/// The kernel dialect's type for a result type.
fn lowered_type(ctx: &IrContext, t: Option<Type>, undefined_place: bool) -> Option<Type> {
    let t = t?;
    Some(match ctx.type_data(t) {
        TypeData::DenseTensor(_) if undefined_place => kernel::undefined_tensor(ctx, t),
        TypeData::DenseTensor(_) => kernel::cpu_tensor(ctx, t),
        TypeData::Vector(ts) => {
            let ts: Vec<Type> = ts
                .iter()
                .map(|&e| lowered_type(ctx, Some(e), undefined_place).unwrap_or(e))
                .collect();
            ctx.vector_type(&ts)
        }
        _ => t,
    })
}

impl PdOpToKernel {
    fn lower(&self, m: &IrModule) -> Result<(Program, OpIds, usize), PassError> {
        let old = &m.program;
        let ctx = old.ctx().clone();
        kernel::register(&ctx).map_err(|source| PassError::Ir { pass: NAME, source })?;
        // Ops without an id get one after the largest, in order, so `origin_id` names them.
        let mut next = m.max_id().map_or(0, |x| x + 1);
        let mut old_ids = m.op_ids.clone();
        for op in old.block_ops(old.block()) {
            if old_ids.get(op).is_none() {
                old_ids.set(op, next);
                next += 1;
            }
        }
        next += 1; // the new module
        let mut prog = Program::with_capacity(&ctx, old.block_len(old.block()));
        let mut ids = OpIds::default();
        // Old value index → new value; op definition and key → attributes; type → type.
        let mut values: Vec<Option<Value>> = vec![None; old.num_values_allocated()];
        let mut kernels: FxHashMap<(usize, KeyParts), KernelAttrs> = FxHashMap::default();
        let mut types: FxHashMap<(Type, bool), Option<Type>> = FxHashMap::default();
        let at = InsertPoint::BlockEnd(prog.block());
        let mut lowered = 0;
        for op in old.block_ops(old.block()) {
            let r = old.op(op);
            if r.num_regions() > 0 {
                return Err(PassError::op(
                    NAME,
                    old,
                    op,
                    "ops with regions (control flow) are not lowered yet",
                ));
            }
            let mut operands = Vec::with_capacity(r.num_operands());
            for v in r.operands() {
                operands.push(match v {
                    Some(v) => Some(values.get(v.index()).copied().flatten().ok_or_else(|| {
                        PassError::op(NAME, old, op, "an operand is defined outside the top block")
                    })?),
                    None => None,
                });
            }
            let id = next;
            next += 1;
            let is_data = r.name() == "pd_op.data";
            let result_types: SmallVec<[Option<Type>; 4]> = r
                .result_types()
                .map(|t| match t {
                    Some(t) => *types
                        .entry((t, is_data))
                        .or_insert_with(|| lowered_type(&ctx, Some(t), is_data)),
                    None => None,
                })
                .collect();
            let (def, attrs) = if r.def().dialect == "builtin" {
                let origin = old_ids.get(op).unwrap_or(id) as i64;
                (
                    r.def(),
                    dict_merged(
                        &ctx,
                        r.attribute_entries(),
                        &[("origin_id", ctx.i64_attr(origin))],
                    ),
                )
            } else {
                let key = kernel_key(r);
                let k = match kernels.entry((r.def() as *const _ as usize, key)) {
                    std::collections::hash_map::Entry::Occupied(e) => *e.get(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        *e.insert(self.kernel_attrs(old, op, key)?)
                    }
                };
                // One dictionary per op: the op's entries and the kernel's (theirs win).
                // (Sorted by name, as `dict_merged` wants them.)
                let added = [
                    ("is_inplace", ctx.bool_attr(true)),
                    ("kernel_key", k.kernel_key),
                    ("kernel_name", k.kernel_name),
                    ("op_name", k.op_name),
                    ("origin_id", ctx.i64_attr(id as i64)),
                ];
                let added = if k.inplace { &added[..] } else { &added[1..] };
                lowered += 1;
                (
                    &kernel::PHI_KERNEL_DEF,
                    dict_merged(&ctx, r.attribute_entries(), added),
                )
            };
            let new = prog
                .create_op_at(
                    OperationArgs {
                        def,
                        operands: &operands,
                        attributes: attrs,
                        result_types: &result_types,
                        num_regions: 0,
                    },
                    at,
                )
                .map_err(|source| PassError::Ir { pass: NAME, source })?;
            if def.dialect == "builtin" {
                ids.set(new, id);
            }
            for (i, v) in r.results().enumerate() {
                values[v.index()] = Some(prog.op(new).result(i));
            }
        }
        Ok((prog, ids, lowered))
    }

    /// The kernel attributes of `op` under `key`, its kernel checked against the registry.
    fn kernel_attrs(
        &self,
        prog: &Program,
        op: OpId,
        (backend, layout, dtype): KeyParts,
    ) -> Result<KernelAttrs, PassError> {
        let r = prog.op(op);
        let ctx = prog.ctx();
        let name = kernel_name(r);
        self.check_registry(prog, op, &name, dtype)?;
        let key = format!(
            "<backend:{backend}|layout:{}|dtype:{}>",
            layout.name(),
            dtype.name()
        );
        Ok(KernelAttrs {
            kernel_name: ctx.str_attr(&name),
            kernel_key: ctx.str_attr(&key),
            op_name: ctx.str_attr(r.name()),
            inplace: is_inplace_op(r),
        })
    }

    fn check_registry(
        &self,
        prog: &Program,
        op: OpId,
        kernel: &str,
        dtype: DataType,
    ) -> Result<(), PassError> {
        match self
            .registry
            .as_ref()
            .and_then(|r| r.supports(kernel, dtype))
        {
            Some(false) => Err(PassError::op(
                NAME,
                prog,
                op,
                format!(
                    "no CPU kernel `{kernel}` is registered for {}",
                    dtype.name()
                ),
            )),
            _ => Ok(()),
        }
    }
}

impl Pass for PdOpToKernel {
    fn name(&self) -> &'static str {
        NAME
    }

    fn opt_level(&self) -> u8 {
        0
    }

    fn run(&self, m: &mut IrModule) -> Result<PassStats, PassError> {
        let (prog, ids, lowered) = self.lower(m)?;
        m.program = prog;
        m.op_ids = ids;
        Ok(PassStats::changed(lowered))
    }
}
