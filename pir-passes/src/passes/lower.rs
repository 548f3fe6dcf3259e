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
    AttrData, Attribute, BlockId, InsertPoint, IrContext, OpId, OpRef, OperationArgs, Program,
    Type, TypeData, Value,
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

/// The state of one lowering: the new program, and what maps the old one onto it.
struct Lowering<'a> {
    pass: &'a PdOpToKernel,
    old: &'a Program,
    ctx: std::sync::Arc<IrContext>,
    prog: Program,
    ids: OpIds,
    old_ids: OpIds,
    /// The next op id (Paddle's process-wide counter).
    next: u64,
    /// Old value index → new value.
    values: Vec<Option<Value>>,
    /// Op definition and key → kernel attributes.
    kernels: FxHashMap<(usize, KeyParts), KernelAttrs>,
    /// Type (and "data's undefined place") → lowered type.
    types: FxHashMap<(Type, bool), Option<Type>>,
    lowered: usize,
}

impl Lowering<'_> {
    fn take_id(&mut self) -> u64 {
        let id = self.next;
        self.next += 1;
        id
    }

    fn lowered_type(&mut self, t: Option<Type>, is_data: bool) -> Option<Type> {
        let t = t?;
        let ctx = &self.ctx;
        *self
            .types
            .entry((t, is_data))
            .or_insert_with(|| lowered_type(ctx, Some(t), is_data))
    }

    /// The new values of `op`'s operands.
    fn operands(&self, op: OpId) -> Result<SmallVec<[Option<Value>; 8]>, PassError> {
        let r = self.old.op(op);
        let mut operands = SmallVec::with_capacity(r.num_operands());
        for v in r.operands() {
            operands.push(match v {
                Some(v) => Some(self.values.get(v.index()).copied().flatten().ok_or_else(
                    || PassError::op(NAME, self.old, op, "an operand is defined after its use"),
                )?),
                None => None,
            });
        }
        Ok(operands)
    }

    fn create(&mut self, args: OperationArgs<'_>, block: BlockId) -> Result<OpId, PassError> {
        self.prog
            .create_op_at(args, InsertPoint::BlockEnd(block))
            .map_err(|source| PassError::Ir { pass: NAME, source })
    }

    /// Maps `old`'s results onto `new`'s.
    fn map_results(&mut self, old: OpId, new: OpId) {
        for (i, v) in self.old.op(old).results().enumerate() {
            self.values[v.index()] = Some(self.prog.op(new).result(i));
        }
    }

    fn block(&mut self, old: BlockId, new: BlockId) -> Result<(), PassError> {
        for op in self.old.block_ops(old) {
            match self.old.op(op).name() {
                "pd_op.if" => self.if_op(op, new)?,
                "pd_op.while" => self.while_op(op, new)?,
                _ if self.old.op(op).num_regions() > 0 => {
                    return Err(PassError::op(
                        NAME,
                        self.old,
                        op,
                        "ops with regions other than pd_op.if and pd_op.while are not lowered yet",
                    ))
                }
                _ => self.plain(op, new)?,
            }
        }
        Ok(())
    }

    /// The first block of region `i` of the old op `op`.
    fn old_block(&self, op: OpId, i: usize) -> Result<BlockId, PassError> {
        let region = self.old.op(op).region(i);
        self.old
            .region_blocks(region)
            .first()
            .copied()
            .ok_or_else(|| PassError::op(NAME, self.old, op, format!("region {i} has no block")))
    }

    /// Paddle's `HandleForIfOp`: a new `pd_op.if` of the lowered condition and result types,
    /// with no attributes (`IfOp::Build` sets none; only a true `fake_false_branch` is
    /// copied), then both blocks lowered into it.
    fn if_op(&mut self, op: OpId, at: BlockId) -> Result<(), PassError> {
        let old = self.old;
        let r = old.op(op);
        if r.num_regions() != 2 {
            return Err(PassError::op(
                NAME,
                self.old,
                op,
                "pd_op.if needs two regions",
            ));
        }
        let operands = self.operands(op)?;
        let types: SmallVec<[Option<Type>; 4]> = r
            .result_types()
            .map(|t| self.lowered_type(t, false))
            .collect();
        let ctx = self.ctx.clone();
        let attrs = match r.attr_data("fake_false_branch") {
            Some(AttrData::Bool(true)) => {
                ctx.dict_attr(&[("fake_false_branch", ctx.bool_attr(true))])
            }
            _ => ctx.empty_dict(),
        };
        let (then_old, else_old) = (self.old_block(op, 0)?, self.old_block(op, 1)?);
        let id = self.take_id();
        let new = self.create(
            OperationArgs {
                def: r.def(),
                operands: &operands,
                attributes: attrs,
                result_types: &types,
                num_regions: 2,
            },
            at,
        )?;
        self.ids.set(new, id);
        for (i, old_block) in [then_old, else_old].into_iter().enumerate() {
            let region = self.prog.op(new).region(i);
            let b = self.prog.add_block(region);
            self.block(old_block, b)?;
        }
        self.map_results(op, new);
        Ok(())
    }

    /// Paddle's `HandleForWhileOp` (`WhileOp::Build(cond, inputs)`): a new `pd_op.while` of
    /// the lowered operands whose result types, and body argument types, are the lowered
    /// inputs' types; each body argument and the op's `stop_gradient` entry take the input's
    /// `stop_gradient` (its producer's entry for that result, or the argument's; false if
    /// none); then the body lowered into it.
    fn while_op(&mut self, op: OpId, at: BlockId) -> Result<(), PassError> {
        let r = self.old.op(op);
        if r.num_regions() != 1 || r.num_operands() == 0 {
            return Err(PassError::op(
                NAME,
                self.old,
                op,
                "pd_op.while needs a condition and one region",
            ));
        }
        let operands = self.operands(op)?;
        let inputs: SmallVec<[Value; 8]> = operands[1..]
            .iter()
            .map(|v| v.ok_or_else(|| PassError::op(NAME, self.old, op, "a null loop input")))
            .collect::<Result<_, _>>()?;
        let types: SmallVec<[Option<Type>; 8]> =
            inputs.iter().map(|&v| self.prog.value_type(v)).collect();
        let stops: SmallVec<[bool; 8]> = inputs.iter().map(|&v| self.stop_gradient(v)).collect();
        let ctx = self.ctx.clone();
        let stop_attrs: Vec<Attribute> = stops.iter().map(|&b| ctx.bool_attr(b)).collect();
        let attrs = ctx.dict_attr(&[("stop_gradient", ctx.array_attr(&stop_attrs))]);
        let body_old = self.old_block(op, 0)?;
        let id = self.take_id();
        let new = self.create(
            OperationArgs {
                def: r.def(),
                operands: &operands,
                attributes: attrs,
                result_types: &types,
                num_regions: 1,
            },
            at,
        )?;
        self.ids.set(new, id);
        let region = self.prog.op(new).region(0);
        let body = self.prog.add_block(region);
        for (i, (&t, &stop)) in types.iter().zip(&stops).enumerate() {
            let arg = self.prog.add_block_arg(body, t);
            let dict = ctx.dict_attr(&[("stop_gradient", ctx.bool_attr(stop))]);
            self.prog.set_block_arg_attrs(body, i, dict);
            if let Some(&old_arg) = self.old.block_args(body_old).get(i) {
                self.values[old_arg.index()] = Some(arg);
            }
        }
        self.block(body_old, body)?;
        self.map_results(op, new);
        Ok(())
    }

    /// `Value::attribute<BoolAttribute>("stop_gradient")` in the new program: entry `i` of
    /// the producer's `stop_gradient` array for its result `i`, or a block argument's own.
    fn stop_gradient(&self, v: Value) -> bool {
        let ctx = &self.ctx;
        let attr = match self.prog.value_def(v) {
            pir_runtime::ValueDef::OpResult { op, index } => {
                match self.prog.op(op).attr_data("stop_gradient") {
                    Some(AttrData::Array(items)) => items.get(index as usize).copied(),
                    _ => None,
                }
            }
            pir_runtime::ValueDef::BlockArg { block, index } => self
                .prog
                .block_arg_attrs(block, index as usize)
                .and_then(|d| ctx.dict_get(d, "stop_gradient")),
        };
        matches!(attr.map(|a| ctx.attr_data(a)), Some(AttrData::Bool(true)))
    }

    /// An op without regions: a builtin op (or `cf.yield`) copied with `origin_id`, any
    /// other op made a kernel op.
    fn plain(&mut self, op: OpId, at: BlockId) -> Result<(), PassError> {
        let old = self.old;
        let r = old.op(op);
        let operands = self.operands(op)?;
        let id = self.take_id();
        let is_data = r.name() == "pd_op.data";
        let result_types: SmallVec<[Option<Type>; 4]> = r
            .result_types()
            .map(|t| self.lowered_type(t, is_data))
            .collect();
        let ctx: &IrContext = &self.ctx;
        let copied = r.def().dialect == "builtin" || r.name() == "cf.yield";
        let (def, attrs) = if copied {
            let origin = self.old_ids.get(op).unwrap_or(id) as i64;
            (
                r.def(),
                dict_merged(
                    ctx,
                    r.attribute_entries(),
                    &[("origin_id", ctx.i64_attr(origin))],
                ),
            )
        } else {
            let key = kernel_key(r);
            let k = match self.kernels.entry((r.def() as *const _ as usize, key)) {
                std::collections::hash_map::Entry::Occupied(e) => *e.get(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    *e.insert(self.pass.kernel_attrs(old, op, key)?)
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
            self.lowered += 1;
            (
                &kernel::PHI_KERNEL_DEF,
                dict_merged(ctx, r.attribute_entries(), added),
            )
        };
        let new = self.create(
            OperationArgs {
                def,
                operands: &operands,
                attributes: attrs,
                result_types: &result_types,
                num_regions: 0,
            },
            at,
        )?;
        if copied {
            self.ids.set(new, id);
        }
        self.map_results(op, new);
        Ok(())
    }
}

impl PdOpToKernel {
    fn lower(&self, m: &IrModule) -> Result<(Program, OpIds, usize), PassError> {
        let old = &m.program;
        let ctx = old.ctx().clone();
        kernel::register(&ctx).map_err(|source| PassError::Ir { pass: NAME, source })?;
        // Ops without an id get one after the largest, in order, so `origin_id` names them.
        let mut next = m.max_id().map_or(0, |x| x + 1);
        let mut old_ids = m.op_ids.clone();
        let mut number = |op: OpId| {
            if old_ids.get(op).is_none() {
                old_ids.set(op, next);
                next += 1;
            }
        };
        for top in old.block_ops(old.block()) {
            // Nested ops too, in program order (walked only under ops with regions).
            if old.op(top).num_regions() > 0 {
                old.walk(top, &mut number);
            } else {
                number(top);
            }
        }
        next += 1; // the new module
        let mut l = Lowering {
            pass: self,
            old,
            prog: Program::with_capacity(&ctx, old.block_len(old.block())),
            ctx,
            ids: OpIds::default(),
            old_ids,
            next,
            values: vec![None; old.num_values_allocated()],
            kernels: FxHashMap::default(),
            types: FxHashMap::default(),
            lowered: 0,
        };
        let top = l.prog.block();
        l.block(old.block(), top)?;
        Ok((l.prog, l.ids, l.lowered))
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
