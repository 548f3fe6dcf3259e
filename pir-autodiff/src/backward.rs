//! Paddle's `ir_backward` algorithm (`calc_gradient_helper`) on the top-level block of a
//! [`Program`]: seed gradients with `full` + `full_like`, prune the forward ops to those on a
//! path from the inputs to the outputs, walk them in inverse topological order (Kahn's
//! algorithm from the sinks, FIFO), call each op's Vjp, sum the gradients of a value used more
//! than once with `builtin.combine` + `pd_op.add_n`, then prune backward ops that do not lead
//! to a wanted gradient and unused `full_like` seeds.

use pir_runtime::op_support::{build_typed, build_with_attributes, build_with_values, AttrArg};
use pir_runtime::phi::Place;
use pir_runtime::{builtin, BlockId, Builder, OpId, Program, TypeKind, Value, ValueDef};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::{smallvec, SmallVec};

use crate::control_flow as cf;
use crate::error::AutodiffError;
use crate::rules::RuleCache;
use crate::stop_gradient::{set_default_after, value_stop_gradient};
use crate::vjp::VjpArgs;

/// Ops Paddle lets stand on the path without a Vjp (`ALLOW_NO_GRAD_OPS` of Paddle's
/// `backward_utils.py`): comparisons, logical and bitwise ops, array ops, random and shape ops.
const ALLOW_NO_GRAD_OPS: &[&str] = &[
    "pd_op.equal",
    "pd_op.equal_",
    "pd_op.greater_than",
    "pd_op.greater_than_",
    "pd_op.greater_equal",
    "pd_op.greater_equal_",
    "pd_op.less_than",
    "pd_op.less_than_",
    "pd_op.less_equal",
    "pd_op.less_equal_",
    "pd_op.not_equal",
    "pd_op.not_equal_",
    "pd_op.logical_and",
    "pd_op.logical_and_",
    "pd_op.logical_not",
    "pd_op.logical_not_",
    "pd_op.logical_or",
    "pd_op.logical_or_",
    "pd_op.logical_xor",
    "pd_op.logical_xor_",
    "pd_op.bitwise_and",
    "pd_op.bitwise_and_",
    "pd_op.bitwise_left_shift",
    "pd_op.bitwise_left_shift_",
    "pd_op.bitwise_not",
    "pd_op.bitwise_not_",
    "pd_op.bitwise_or",
    "pd_op.bitwise_or_",
    "pd_op.bitwise_right_shift",
    "pd_op.bitwise_right_shift_",
    "pd_op.bitwise_xor",
    "pd_op.bitwise_xor_",
    "pd_op.assign_array",
    "pd_op.assign_array_",
    "pd_op.array_length",
    "pd_op.array_pop",
    "pd_op.array_read",
    "pd_op.array_write_",
    "pd_op.create_array",
    "pd_op.create_array_like",
    "pd_op.slice_array",
    "pd_op.slice_array_dense",
    "pd_op.accuracy",
    "pd_op.all",
    "pd_op.any",
    "pd_op.argmax",
    "pd_op.assign_value_",
    "pd_op.bernoulli",
    "pd_op.distribute_fpn_proposals",
    "pd_op.floor_divide",
    "pd_op.full_like",
    "pd_op.full_with_tensor",
    "pd_op.gaussian",
    "pd_op.isnan",
    "pd_op.isinf",
    "pd_op.nextafter",
    "pd_op.nonzero",
    "pd_op.one_hot",
    "pd_op.print",
    "pd_op.prior_box",
    "pd_op.randint",
    "pd_op.remainder",
    "pd_op.shape",
    "pd_op.share_data_",
    "pd_op.uniform",
];

/// `pd_op.increment_`, which Paddle's walk treats specially.
const INCREMENT_: &str = "pd_op.increment_";
/// `pd_op.array_read`: its Vjp also gets the gradient of the array it reads.
const ARRAY_READ: &str = "pd_op.array_read";
/// `pd_op.array_write_`: its output gradient is the gradient of the array it writes into.
const ARRAY_WRITE_: &str = "pd_op.array_write_";
/// `pd_op.create_array_like`, an array's zero gradient.
const CREATE_ARRAY_LIKE: &str = "pd_op.create_array_like";

/// The gradient value(s) recorded for one use of a value (several for a vector value).
type Grads = SmallVec<[Option<Value>; 1]>;

/// The state of one backward pass (Paddle's `State`); a control-flow branch works on a copy.
#[derive(Default, Clone)]
struct State {
    /// Value → the gradients its users produced, in the order they were produced.
    value_to_valuegrad: FxHashMap<Value, Vec<Grads>>,
    /// Value → the gradients that were summed into its one gradient.
    value_to_sumvaluegrad: FxHashMap<Value, Vec<Grads>>,
    /// A value a control-flow block yields → the op result it becomes outside.
    inside_to_outside: FxHashMap<Value, Value>,
}

impl State {
    fn grads(&self, v: Value) -> &[Grads] {
        self.value_to_valuegrad
            .get(&v)
            .map_or(&[], |g| g.as_slice())
    }
}

struct Pass<'p> {
    prog: &'p mut Program,
    /// The block backward ops go to: the top-level block, or a branch of a control-flow
    /// grad op.
    block: BlockId,
    state: State,
    backward_ops: Vec<OpId>,
    no_grad: FxHashSet<Value>,
    rules: RuleCache,
    /// The caller's initial gradients, one per output (`None`: the seed 1.0); empty for all
    /// seeds.
    grad_outputs: Vec<Option<Value>>,
    /// Paddle's `control_flow_value_to_copyvalue_map`: a value of a forward branch → the
    /// copy the backward branch reads.
    copy_map: FxHashMap<Value, Value>,
    /// Paddle's `bwd_value_to_block_argument_map`: a loop variable of a backward `while` →
    /// the argument of its body that stands for it inside.
    arg_map: FxHashMap<Value, Value>,
}

/// The control-flow op whose branch a nested pass differentiates (Paddle's `base_op`,
/// `base_inputs`, `base_input_grads`).
struct Base {
    /// The forward op.
    op: OpId,
    /// Its real inputs but the condition.
    inputs: Vec<Option<Value>>,
    /// Their gradients (the grad op's results), `None` where not wanted.
    grads: Vec<Option<Value>>,
}

/// Follows `v` through `map` (Paddle's `return_map_value`).
fn map_value(map: &FxHashMap<Value, Value>, mut v: Value) -> Value {
    let mut steps = 0;
    while let Some(&next) = map.get(&v) {
        v = next;
        steps += 1;
        if steps > map.len() {
            break;
        }
    }
    v
}

/// Computes the gradients of `outputs` with respect to `inputs` (Paddle's
/// `paddle.autograd.ir_backward.grad(outputs, inputs, no_grad_vars=no_grad)`), appending the
/// backward ops to the program's top-level block. Returns one gradient per input (`None`
/// when the input does not affect the outputs).
///
/// # Errors
///
/// [`AutodiffError`] when a value is not in the top-level block, an op on the path has no
/// Vjp, or a backward op cannot be built.
pub fn grad(
    prog: &mut Program,
    outputs: &[Value],
    inputs: &[Value],
    no_grad: &[Value],
) -> Result<Vec<Option<Value>>, AutodiffError> {
    grad_with_grad_outputs(prog, outputs, inputs, &[], no_grad)
}

/// [`grad`] with initial gradients (Paddle's `grad(outputs, inputs, grad_outputs=...)`):
/// `grad_outputs[i]` is the gradient of `outputs[i]`, `None` for the usual seed
/// `full_like(outputs[i], 1.0)`; an empty slice means all `None`. A given gradient must have
/// its output's shape (Paddle accepts another dtype with a warning) and be a value of the
/// top-level block; its defining op counts among the backward ops (Paddle's `feedop`) and it
/// is never pruned.
///
/// # Errors
///
/// As [`grad`]; [`AutodiffError::GradOutput`] when `grad_outputs` does not have one entry per
/// output or a gradient's shape differs from its output's.
pub fn grad_with_grad_outputs(
    prog: &mut Program,
    outputs: &[Value],
    inputs: &[Value],
    grad_outputs: &[Option<Value>],
    no_grad: &[Value],
) -> Result<Vec<Option<Value>>, AutodiffError> {
    let block = prog.block();
    check_in_block(prog, block, outputs, "output")?;
    check_in_block(prog, block, inputs, "input")?;
    let given: Vec<Value> = grad_outputs.iter().flatten().copied().collect();
    check_in_block(prog, block, &given, "grad_output")?;
    check_grad_outputs(prog, outputs, grad_outputs)?;
    let mut pass = Pass::new(prog, block, no_grad);
    pass.grad_outputs = grad_outputs.to_vec();
    pass.calc_gradient(outputs, inputs)?;
    Ok(inputs
        .iter()
        .map(|v| pass.state.grads(*v).first().and_then(|g| g[0]))
        .collect())
}

/// Appends the backward of `loss` to the program (Paddle's `paddle.static.append_backward`):
/// every persistable value (a parameter) gets its gradient. Returns `(parameter, gradient)`
/// pairs in program order.
///
/// # Errors
///
/// As [`grad`].
pub fn append_backward(
    prog: &mut Program,
    loss: Value,
) -> Result<Vec<(Value, Option<Value>)>, AutodiffError> {
    let block = prog.block();
    check_in_block(prog, block, &[loss], "output")?;
    let params = persistable_values(prog, block);
    let mut pass = Pass::new(prog, block, &[]);
    pass.calc_gradient(&[loss], &[])?;
    Ok(params
        .into_iter()
        .map(|p| (p, pass.state.grads(p).first().and_then(|g| g[0])))
        .collect())
}

/// Paddle's checks in `prepare_grad_outputs`: one entry per output, each given gradient with
/// its output's shape.
fn check_grad_outputs(
    prog: &Program,
    outputs: &[Value],
    grad_outputs: &[Option<Value>],
) -> Result<(), AutodiffError> {
    if grad_outputs.is_empty() {
        return Ok(());
    }
    if grad_outputs.len() != outputs.len() {
        return Err(AutodiffError::GradOutput {
            index: grad_outputs.len().min(outputs.len()),
            message: format!(
                "grad_outputs has {} entries, outputs {}: they must have the same length",
                grad_outputs.len(),
                outputs.len()
            ),
        });
    }
    let ctx = prog.ctx();
    let dims = |v: Value| {
        prog.value_type(v)
            .and_then(|t| t.as_dense_tensor(ctx).map(|t| t.dims.to_vec()))
    };
    let show = |v: Value| {
        prog.value_type(v)
            .map_or("<<NULL TYPE>>".to_string(), |t| t.display(ctx).to_string())
    };
    for (i, (&out, g)) in outputs.iter().zip(grad_outputs).enumerate() {
        let Some(g) = *g else { continue };
        if dims(out) != dims(g) {
            return Err(AutodiffError::GradOutput {
                index: i,
                message: format!(
                    "the shape of grad_outputs[{i}] ({}) should be the same as the shape of \
                     outputs[{i}] ({})",
                    show(g),
                    show(out)
                ),
            });
        }
    }
    Ok(())
}

fn check_in_block(
    prog: &Program,
    block: BlockId,
    values: &[Value],
    what: &'static str,
) -> Result<(), AutodiffError> {
    for (i, v) in values.iter().enumerate() {
        let ok = prog
            .defining_op(*v)
            .is_some_and(|op| prog.op(op).parent_block() == Some(block));
        if !ok {
            return Err(AutodiffError::NotInBlock {
                what,
                value: format!("#{i}"),
            });
        }
    }
    Ok(())
}

/// Results whose `persistable` flag is set, in program order (Paddle's default parameter list).
fn persistable_values(prog: &Program, block: BlockId) -> Vec<Value> {
    let ctx = prog.ctx();
    let mut out = Vec::new();
    for op in prog.block_ops(block) {
        let r = prog.op(op);
        let Some(pir_runtime::AttrData::Array(flags)) = r.attr_data("persistable") else {
            continue;
        };
        for (i, a) in flags.iter().enumerate() {
            if matches!(ctx.attr_data(*a), pir_runtime::AttrData::Bool(true)) && i < r.num_results()
            {
                out.push(r.result(i));
            }
        }
    }
    out
}

/// Whether `v` is a tensor array (Paddle's `is_dense_tensor_array_type`).
fn is_array(prog: &Program, v: Value) -> bool {
    prog.value_type(v)
        .is_some_and(|t| t.kind() == TypeKind::DenseTensorArray)
}

fn is_builtin(prog: &Program, op: OpId) -> bool {
    prog.op(op).name().starts_with("builtin.")
}

fn defining_combine(prog: &Program, v: Value) -> Option<OpId> {
    prog.defining_op(v)
        .filter(|&op| prog.op(op).name() == "builtin.combine")
}

impl<'p> Pass<'p> {
    fn new(prog: &'p mut Program, block: BlockId, no_grad: &[Value]) -> Pass<'p> {
        Pass {
            prog,
            block,
            state: State::default(),
            backward_ops: Vec::new(),
            no_grad: no_grad.iter().copied().collect(),
            rules: RuleCache::default(),
            grad_outputs: Vec::new(),
            copy_map: FxHashMap::default(),
            arg_map: FxHashMap::default(),
        }
    }

    /// Runs `f` with a builder at the block's end; sets `stop_gradient` on the ops it created
    /// and returns them in creation order.
    fn emit<R>(
        &mut self,
        f: impl FnOnce(&mut Builder<'_>) -> Result<R, AutodiffError>,
    ) -> Result<(R, Vec<OpId>), AutodiffError> {
        let before = self.prog.last_op(self.block);
        let r = f(&mut Builder::at_block_end(self.prog, self.block))?;
        let created = set_default_after(self.prog, self.block, before)?;
        Ok((r, created))
    }

    fn calc_gradient(&mut self, outputs: &[Value], inputs: &[Value]) -> Result<(), AutodiffError> {
        let total_ops: Vec<OpId> = self.prog.block_ops(self.block).collect();
        if self.all_stop_gradient_true(&total_ops) {
            return Ok(());
        }
        // Every value that stops gradients joins the no-grad set, in control-flow branches
        // too.
        self.add_stopped_to_no_grad(self.block);
        let (seeds, complete_outputs) = self.prepare_grad_outputs(outputs)?;
        let mut inputs_set: FxHashSet<Value> = inputs.iter().copied().collect();
        let mut outputs_set: FxHashSet<Value> = complete_outputs
            .iter()
            .copied()
            .filter(|v| !self.no_grad.contains(v))
            .collect();
        let effective = if self.is_inplace_net(&total_ops) {
            total_ops.clone()
        } else {
            let no_grad = self.no_grad.clone();
            prune_ops(
                self.prog,
                &total_ops,
                &mut inputs_set,
                &mut outputs_set,
                &no_grad,
            )
            .0
        };
        let (outputs_fwd, inputs_fwd) = self.prepare_backward_prune_set(inputs, &complete_outputs);
        self.append_backward_ops(None, &effective)?;
        let (mut b_outputs, mut b_inputs, no_gradvar) =
            self.create_backward_prune_set(&outputs_fwd, &inputs_fwd);
        let mut remove: Vec<OpId> = Vec::new();
        if !inputs.is_empty() && !self.is_inplace_net(&self.backward_ops.clone()) {
            let ops = self.backward_ops.clone();
            remove = prune_ops(self.prog, &ops, &mut b_inputs, &mut b_outputs, &no_gradvar).1;
        }
        let mut removing: FxHashSet<OpId> = remove.iter().copied().collect();
        let live: Vec<OpId> = self.backward_ops.clone();
        for op in inverse_sort_op(self.prog, &live)? {
            if cf::is_control_flow(self.prog, op) {
                for b in cf::blocks(self.prog, op) {
                    self.remove_useless_full_like_ops(b)?;
                }
                continue;
            }
            let r = self.prog.op(op);
            if r.name() == "pd_op.full_like" && !self.prog.has_uses(r.result(0)) {
                if removing.insert(op) {
                    remove.push(op);
                }
                if let Some(full) = r.operand(1).and_then(|v| self.prog.defining_op(v)) {
                    if removing.insert(full) {
                        remove.push(full);
                    }
                }
            }
        }
        let seeds: FxHashSet<Value> = seeds.into_iter().collect();
        for op in inverse_sort_op(self.prog, &remove)? {
            let r = self.prog.op(op);
            if r.num_results() == 0 || seeds.contains(&r.result(0)) {
                continue;
            }
            if !self.prog.has_uses(r.result(0)) {
                self.remove_op(op)?;
            }
        }
        Ok(())
    }

    /// Paddle's `update_no_grad_set_by_stopgradient`, into `if`/`while` branches.
    fn add_stopped_to_no_grad(&mut self, block: BlockId) {
        let mut blocks = vec![block];
        while let Some(b) = blocks.pop() {
            let ops: Vec<OpId> = self.prog.block_ops(b).collect();
            for op in ops {
                if cf::is_control_flow(self.prog, op) {
                    blocks.extend(cf::blocks(self.prog, op));
                }
                for v in self.prog.op(op).results() {
                    if value_stop_gradient(self.prog, v) {
                        self.no_grad.insert(v);
                    }
                }
            }
        }
    }

    fn all_stop_gradient_true(&self, ops: &[OpId]) -> bool {
        ops.iter().all(|&op| {
            self.prog
                .op(op)
                .results()
                .all(|v| value_stop_gradient(self.prog, v))
        })
    }

    /// Paddle treats a program with `array_write_` / `assign_out_`, at top level or in an
    /// `if` / `while` block, as in-place: no pruning, ops walked in reverse program order.
    fn is_inplace_net(&self, ops: &[OpId]) -> bool {
        ops.iter().any(|&op| {
            matches!(self.prog.op(op).name(), ARRAY_WRITE_ | "pd_op.assign_out_")
                || (cf::is_control_flow(self.prog, op)
                    && cf::blocks(self.prog, op).into_iter().any(|b| {
                        let inner: Vec<OpId> = self.prog.block_ops(b).collect();
                        self.is_inplace_net(&inner)
                    }))
        })
    }

    /// The seed: the caller's gradient or `full_like(output, 1.0)` per output,
    /// `full_like(result, 0.0)` for the other results of the outputs' defining ops. Returns
    /// the outputs' gradients (Paddle's `complete_grad_outputs`, never pruned) and the
    /// completed outputs.
    fn prepare_grad_outputs(
        &mut self,
        outputs: &[Value],
    ) -> Result<(Vec<Value>, Vec<Value>), AutodiffError> {
        let mut seeds = Vec::with_capacity(outputs.len());
        for (i, &out) in outputs.iter().enumerate() {
            match self.grad_outputs.get(i).copied().flatten() {
                Some(g) => {
                    // Paddle records the gradient's defining op (`feedop`) as a backward op.
                    if let Some(feed) = self.prog.defining_op(g) {
                        if !self.backward_ops.contains(&feed) {
                            self.backward_ops.push(feed);
                        }
                    }
                    self.state
                        .value_to_valuegrad
                        .insert(out, vec![smallvec![Some(g)]]);
                    seeds.push(g);
                }
                None => seeds.extend(self.append_full_like(1.0, out, out)?),
            }
        }
        let mut complete = outputs.to_vec();
        let mut visited: FxHashSet<Value> = FxHashSet::default();
        for &out in outputs {
            if visited.contains(&out) {
                continue;
            }
            let Some(def) = self.prog.defining_op(out) else {
                continue;
            };
            let results: Vec<Value> = self.prog.op(def).results().collect();
            for r in results {
                if self.state.value_to_valuegrad.contains_key(&r) {
                    visited.insert(r);
                    continue;
                }
                self.append_full_like(0.0, r, r)?;
                visited.insert(r);
                complete.push(r);
            }
        }
        Ok((seeds, complete))
    }

    /// `full` + `full_like(like, fill)` as `value`'s one gradient; for a null value (Paddle's
    /// `is_fake_value`: no type, as `fused_gemm_epilogue`'s absent `reserve_space`) a null
    /// gradient and no op.
    fn append_full_like(
        &mut self,
        fill: f32,
        like: Value,
        value: Value,
    ) -> Result<Option<Value>, AutodiffError> {
        if self.prog.value_type(value).is_none() {
            self.state
                .value_to_valuegrad
                .insert(value, vec![smallvec![None]]);
            return Ok(None);
        }
        if is_array(self.prog, like) {
            return self.append_create_array_like(fill, like, value).map(Some);
        }
        let ctx = self.prog.ctx().clone();
        let def = ctx
            .op_def("pd_op.full_like")
            .ok_or_else(|| AutodiffError::MissingOp("pd_op.full_like".into()))?;
        let dtype = self
            .prog
            .value_type(like)
            .and_then(|t| t.as_dense_tensor(&ctx).map(|t| t.dtype))
            .unwrap_or(pir_runtime::phi::DataType::Float32);
        let describe = self
            .prog
            .describe(self.prog.defining_op(like).unwrap_or(self.prog.module_op()));
        let (op, created) = self.emit(|b| {
            build_typed(
                b,
                def,
                &[Some(like)],
                &[AttrArg::F32(fill)],
                &[AttrArg::DataType(dtype), AttrArg::Place(Place::default())],
            )
            .map_err(|source| AutodiffError::Build {
                op: describe,
                source,
            })
        })?;
        // Paddle records [full_like, full].
        self.backward_ops.extend(created.iter().rev());
        let g = self.prog.op(op).result(0);
        self.state
            .value_to_valuegrad
            .insert(value, vec![smallvec![Some(g)]]);
        Ok(Some(g))
    }

    /// The zero (or `fill`) gradient of an array `value`: `create_array_like(like, fill)`
    /// (Paddle's `append_full_like` for a value of array type; the one op is recorded).
    fn append_create_array_like(
        &mut self,
        fill: f32,
        like: Value,
        value: Value,
    ) -> Result<Value, AutodiffError> {
        let ctx = self.prog.ctx().clone();
        let def = ctx
            .op_def(CREATE_ARRAY_LIKE)
            .ok_or_else(|| AutodiffError::MissingOp(CREATE_ARRAY_LIKE.into()))?;
        let describe = self.describe_def(like);
        let (op, created) = self.emit(|b| {
            build_with_values(b, def, &[Some(like)], &[AttrArg::F32(fill)]).map_err(|source| {
                AutodiffError::Build {
                    op: describe,
                    source,
                }
            })
        })?;
        self.backward_ops.extend(created);
        let g = self.prog.op(op).result(0);
        self.state
            .value_to_valuegrad
            .insert(value, vec![smallvec![Some(g)]]);
        Ok(g)
    }

    /// The description of the op defining `v` (the module for a block argument), for errors.
    fn describe_def(&self, v: Value) -> String {
        self.prog
            .describe(self.prog.defining_op(v).unwrap_or(self.prog.module_op()))
    }

    /// `builtin.combine` + `pd_op.add_n` of a value's several gradients (`add_n_array` for
    /// an array, as Paddle's `append_add_n`).
    fn append_add_n(&mut self, value: Value) -> Result<(), AutodiffError> {
        let all = self
            .state
            .value_to_valuegrad
            .remove(&value)
            .unwrap_or_default();
        let list: Vec<Value> = all
            .iter()
            .filter_map(|g| g[0])
            .map(|g| map_value(&self.arg_map, g))
            .collect();
        self.state
            .value_to_sumvaluegrad
            .entry(value)
            .or_default()
            .extend(all);
        if list.is_empty() {
            self.state.value_to_valuegrad.insert(value, Vec::new());
            return Ok(());
        }
        let ctx = self.prog.ctx().clone();
        let name = if is_array(self.prog, value) {
            "pd_op.add_n_array"
        } else {
            "pd_op.add_n"
        };
        let def = ctx
            .op_def(name)
            .ok_or_else(|| AutodiffError::MissingOp(name.into()))?;
        let describe = self.prog.describe(
            self.prog
                .defining_op(value)
                .unwrap_or(self.prog.module_op()),
        );
        let (sum, created) = self.emit(|b| {
            let err = |source| AutodiffError::Build {
                op: describe.clone(),
                source,
            };
            let combined = builtin::combine(b, &list).map_err(|e| err(e.into()))?;
            let dict = b.ctx().empty_dict();
            build_with_attributes(b, def, &[Some(combined)], dict).map_err(err)
        })?;
        self.backward_ops.extend(created);
        let g = self.prog.op(sum).result(0);
        self.state
            .value_to_valuegrad
            .insert(value, vec![smallvec![Some(g)]]);
        Ok(())
    }

    fn split_op_of(&self, v: Value) -> Option<OpId> {
        self.prog
            .uses(v)
            .map(|u| u.op)
            .find(|&op| self.prog.op(op).name() == "builtin.split")
    }

    /// Paddle's `make_output_with_output_grad`: each result's gradient (summed if it has
    /// several, a zero `full_like` if none), results consumed by `builtin.split` as lists.
    #[allow(clippy::type_complexity)]
    fn make_output_with_output_grad(
        &mut self,
        op: OpId,
    ) -> Result<(Vec<bool>, Vec<Grads>, Vec<Grads>), AutodiffError> {
        let r = self.prog.op(op);
        // The in-place ops' gradient comes from the value they overwrite.
        let list: Vec<Value> = match r.name() {
            ARRAY_WRITE_ => r.operand(0).into_iter().collect(),
            "pd_op.assign_out_" => r.operand(1).into_iter().collect(),
            _ => r.results().collect(),
        };
        let mut zero = vec![false; list.len()];
        let mut outputs = Vec::with_capacity(list.len());
        let mut grads = Vec::with_capacity(list.len());
        for (i, value) in list.into_iter().enumerate() {
            let mut new_value: Grads = smallvec![Some(map_value(&self.copy_map, value))];
            let like = new_value[0].unwrap_or(value);
            let value = map_value(&self.state.inside_to_outside, value);
            if self.state.grads(value).len() > 1 {
                self.append_add_n(value)?;
            }
            if self.state.grads(value).is_empty() {
                match self.split_op_of(value) {
                    Some(split) => {
                        let (z, outs, gs) = self.make_output_with_output_grad(split)?;
                        zero[i] = z.iter().all(|&z| z);
                        let g: Grads = gs.iter().map(|g| g[0]).collect();
                        self.state.value_to_valuegrad.insert(value, vec![g]);
                        new_value = outs.iter().map(|o| o[0]).collect();
                    }
                    None => {
                        self.append_full_like(0.0, like, value)?;
                        zero[i] = true;
                    }
                }
            }
            outputs.push(new_value);
            let g = self.state.grads(value)[0].clone();
            if g.first().copied().flatten().is_none() {
                zero[i] = true;
            }
            grads.push(self.map_args(&g));
        }
        if self.prog.op(op).name() == ARRAY_READ {
            grads.push(self.array_read_array_grad(op)?);
        }
        Ok((zero, outputs, grads))
    }

    /// The second output gradient Paddle passes `array_read`: the gradient of the array it
    /// reads (summed if several, `create_array_like(array, 0)` if none yet).
    fn array_read_array_grad(&mut self, op: OpId) -> Result<Grads, AutodiffError> {
        let array = self
            .prog
            .op(op)
            .operand(0)
            .ok_or_else(|| AutodiffError::Invalid {
                op: self.prog.describe(op),
                message: "pd_op.array_read without an array operand".into(),
            })?;
        let value = map_value(&self.state.inside_to_outside, array);
        if self.state.grads(value).len() > 1 {
            self.append_add_n(value)?;
        }
        if self.state.grads(value).is_empty() {
            let like = map_value(&self.copy_map, value);
            self.append_full_like(0.0, like, value)?;
        }
        let g = self.state.grads(value)[0].clone();
        Ok(self.map_args(&g))
    }

    /// Paddle's `return_map_value_list(grads, bwd_value_to_block_argument_map)`.
    fn map_args(&self, grads: &Grads) -> Grads {
        grads
            .iter()
            .map(|g| g.map(|g| map_value(&self.arg_map, g)))
            .collect()
    }

    fn grad_semantics(&self, op: OpId) -> SmallVec<[bool; 8]> {
        if let Some(sem) = cf::grad_semantics(self.prog, op) {
            return sem;
        }
        let r = self.prog.op(op);
        if r.name() == "builtin.combine" {
            return smallvec![true; r.num_operands()];
        }
        // Paddle's `get_input_grad_semantics`: the schema's flags, for hand-written Vjps too
        // (the hand-written ops' GetOpInfo tuples are Paddle's, flags included).
        match r.def().schema {
            Some(s) => s.inputs.iter().map(|i| i.with_grad_semantic).collect(),
            None => smallvec![false; r.num_operands()],
        }
    }

    /// Paddle's `make_input_with_input_stopgradient`.
    fn make_input_with_input_stopgradient(
        &self,
        op: OpId,
    ) -> (Vec<Grads>, Vec<SmallVec<[bool; 1]>>) {
        let sem = self.grad_semantics(op);
        let name = self.prog.op(op).name();
        let operands = cf::real_inputs(self.prog, op);
        let mut inputs = Vec::with_capacity(operands.len());
        let mut stops = Vec::new();
        let copy = |v: Option<Value>| v.map(|v| map_value(&self.copy_map, v));
        for (k, input) in operands.into_iter().enumerate() {
            let combine = input
                .and_then(|v| defining_combine(self.prog, v))
                .filter(|_| name != cf::TUPLE_PUSH);
            if !sem.get(k).copied().unwrap_or(false) {
                match combine.filter(|_| name != cf::IF) {
                    Some(c) => inputs.push(self.prog.op(c).operands().map(copy).collect()),
                    None => inputs.push(smallvec![copy(input)]),
                }
                continue;
            }
            match (input, combine) {
                (Some(_), Some(c)) => {
                    let (ci, cs) = self.make_input_with_input_stopgradient(c);
                    inputs.push(ci.iter().map(|x| x[0]).collect());
                    stops.push(cs.iter().map(|x| x[0]).collect());
                }
                (Some(v), None) => {
                    inputs.push(smallvec![copy(Some(v))]);
                    let stop = self.no_grad.contains(&v) || value_stop_gradient(self.prog, v);
                    stops.push(smallvec![stop]);
                }
                (None, _) => {
                    inputs.push(smallvec![None]);
                    stops.push(smallvec![true]);
                }
            }
        }
        (inputs, stops)
    }

    /// Paddle's `update_input_grad_map`: records each operand's gradient (a combined operand's
    /// gradients go to the combined values).
    /// `operands` are the op's real inputs as they were before its backward was built (a
    /// control-flow op's grow by the `cf` pipe's inlets).
    fn update_input_grad_map(&mut self, op: OpId, grads: &[Grads], operands: &[Option<Value>]) {
        let sem = self.grad_semantics(op);
        let push = self.prog.op(op).name() == cf::TUPLE_PUSH;
        let mut i = 0;
        for (k, &input) in operands.iter().enumerate() {
            if !sem.get(k).copied().unwrap_or(false) {
                continue;
            }
            let g = grads.get(i).cloned().unwrap_or_default();
            i += 1;
            let Some(input) = input else { continue };
            match defining_combine(self.prog, input).filter(|_| !push) {
                Some(c) => {
                    let per: Vec<Grads> = g.iter().map(|x| smallvec![*x]).collect();
                    let inner: Vec<Option<Value>> = self.prog.op(c).operands().collect();
                    self.update_input_grad_map(c, &per, &inner);
                }
                None => self
                    .state
                    .value_to_valuegrad
                    .entry(input)
                    .or_default()
                    .push(g),
            }
        }
    }

    fn append_backward_ops(
        &mut self,
        base: Option<&Base>,
        forward_ops: &[OpId],
    ) -> Result<(), AutodiffError> {
        // A branch's `cf.yield`: what it yields is the control-flow op's result outside.
        let mut forward_ops = forward_ops;
        if let (Some(base), Some((&last, rest))) = (base, forward_ops.split_last()) {
            if !rest.is_empty() && self.prog.op(last).name() == cf::YIELD {
                let skip = usize::from(self.prog.op(base.op).name() == cf::WHILE);
                let yielded: Vec<Value> = self.prog.op(last).operands().flatten().collect();
                let results: Vec<Value> = self.prog.op(base.op).results().collect();
                for (outside, inside) in results.into_iter().zip(yielded.into_iter().skip(skip)) {
                    self.state.inside_to_outside.insert(inside, outside);
                }
                forward_ops = rest;
            }
        }
        let order = if self.is_inplace_net(forward_ops) {
            forward_ops.iter().rev().copied().collect()
        } else {
            inverse_sort_op(self.prog, forward_ops)?
        };
        // Paddle's `while_tuple_ops`: the first pipe's pop, push and stack.
        let mut pipe: Option<[OpId; 3]> = None;
        for op in order {
            let name = self.prog.op(op).name();
            if name == "builtin.combine" || name == "builtin.split" {
                continue;
            }
            match name {
                cf::TUPLE_PUSH => {
                    let ops = self.backward_of_tuple_push(op)?;
                    pipe.get_or_insert(ops);
                    continue;
                }
                cf::IF => {
                    self.backward_of_if(op)?;
                    continue;
                }
                cf::WHILE => {
                    self.backward_of_while(op)?;
                    continue;
                }
                cf::PYLAYER => {
                    self.backward_of_pylayer(op)?;
                    continue;
                }
                _ => {}
            }
            if self.rules.has_vjp(self.prog, op) {
                self.backward_of(op)?;
                continue;
            }
            let r = self.prog.op(op);
            if r.num_operands() == 0 && r.num_results() != 0 {
                let results: Vec<Value> = r.results().collect();
                for v in results {
                    if self.state.grads(v).len() > 1 {
                        self.append_add_n(v)?;
                    }
                }
            } else if !is_builtin(self.prog, op) && !ALLOW_NO_GRAD_OPS.contains(&r.name()) {
                return Err(AutodiffError::NoGradOp {
                    op: self.prog.describe(op),
                });
            }
        }
        if let Some(base) = base {
            if let Some(pipe) = pipe {
                self.prune_pipe(pipe)?;
            }
            self.append_yield(base)?;
        }
        Ok(())
    }

    /// Paddle's `while_prune_check`: a pipe whose popped values the backward block does not
    /// read goes (pop, push, then stack). A stack a backward `while`'s `cf.has_elements`
    /// still reads stays, with its push (Paddle cannot remove it either).
    fn prune_pipe(&mut self, [pop, push, stack]: [OpId; 3]) -> Result<(), AutodiffError> {
        let unused = |p: &Program, op: OpId| p.op(op).results().all(|v| !p.has_uses(v));
        if !unused(self.prog, pop) {
            return Ok(());
        }
        self.remove_op(pop)?;
        let stack_value = self.prog.op(stack).result(0);
        if self.prog.has_uses(stack_value) {
            return Ok(());
        }
        self.prog.erase_op(push)?;
        self.prog.erase_op(stack)?;
        Ok(())
    }

    /// Paddle's `TuplePushOp` Vjp: a `cf.tuple_pop` in the backward block; each pushed value
    /// is read there through its popped copy. Returns the pop, the push and the stack.
    fn backward_of_tuple_push(&mut self, op: OpId) -> Result<[OpId; 3], AutodiffError> {
        let (inputs, _stops) = self.make_input_with_input_stopgradient(op);
        let block = self.block;
        let pop = cf::build_tuple_pop(&mut Builder::at_block_end(self.prog, block), op)?;
        self.backward_ops.push(pop);
        let copies: Vec<Value> = self.prog.op(pop).results().collect();
        for (input, copy) in inputs.iter().skip(1).zip(copies) {
            if let Some(v) = input.first().copied().flatten() {
                self.copy_map.insert(v, copy);
            }
        }
        let stack = self
            .prog
            .op(op)
            .operand(0)
            .and_then(|v| self.prog.defining_op(v))
            .ok_or_else(|| AutodiffError::Invalid {
                op: self.prog.describe(op),
                message: "cf.tuple_push without a stack".into(),
            })?;
        Ok([pop, op, stack])
    }

    /// `pd_op.pylayer`: Paddle runs the Python function registered under the op's
    /// `backward_function_id` to build its backward; there is none to run here.
    fn backward_of_pylayer(&mut self, op: OpId) -> Result<(), AutodiffError> {
        let (zero, _outputs, out_grads) = self.make_output_with_output_grad(op)?;
        let (_inputs, stops) = self.make_input_with_input_stopgradient(op);
        let none = out_grads.iter().all(|g| g.iter().all(Option::is_none));
        if out_grads.is_empty() || zero.iter().all(|&z| z) || none {
            return Ok(());
        }
        if stops.iter().all(|s| s.iter().all(|&x| x)) {
            return Ok(());
        }
        let id = match self.prog.op(op).attr_data("backward_function_id") {
            Some(pir_runtime::AttrData::Int32(id)) => id.to_string(),
            _ => "?".into(),
        };
        Err(AutodiffError::Invalid {
            op: self.prog.describe(op),
            message: format!(
                "its backward is the Python function Paddle registered as \
                 backward_function_id {id} (PyLayer.backward); pir-rs cannot run it"
            ),
        })
    }

    /// A `pd_op.while`'s gradient (Paddle's `append_backward_ops` for `pd_op.while` and
    /// `WhileOp::Vjp`): the gradients of the values the body reads from outside join the
    /// output gradients, a pipe carries the body's values to the backward loop, and a
    /// `pd_op.while` over `cf.has_elements` of that pipe's stack runs the body's backward,
    /// its loop variables being the gradients of the inputs that want one.
    fn backward_of_while(&mut self, op: OpId) -> Result<(), AutodiffError> {
        let (_zero, _outputs, mut out_grads) = self.make_output_with_output_grad(op)?;
        let (inputs, stops) = self.make_input_with_input_stopgradient(op);
        if stops.iter().all(|s| s.iter().all(|&x| x)) {
            return Ok(());
        }
        let origin: Vec<Option<Value>> = cf::real_inputs(self.prog, op).into_vec();
        let body =
            cf::blocks(self.prog, op)
                .first()
                .copied()
                .ok_or_else(|| AutodiffError::Invalid {
                    op: self.prog.describe(op),
                    message: "pd_op.while without a body".into(),
                })?;
        let mut sub = self.state.clone();
        for input in cf::used_external_values_of_block(self.prog, body) {
            // As Paddle: several gradients are summed in the outer state, but the loop starts
            // from the first.
            if sub.grads(input).len() > 1 {
                self.append_add_n(input)?;
            }
            if sub.grads(input).is_empty() {
                // Paddle passes `input` itself as the model of the zeros; for a loop nested in
                // a backward body that is a forward value out of scope there, so the popped
                // copy (same type) stands in for it.
                let like = map_value(&self.copy_map, input);
                std::mem::swap(&mut self.state, &mut sub);
                let r = self.append_full_like(0.0, like, input);
                std::mem::swap(&mut self.state, &mut sub);
                r?;
            }
            let g = sub.grads(input)[0].clone();
            let old = self
                .state
                .value_to_valuegrad
                .insert(input, Vec::new())
                .unwrap_or_default();
            self.state
                .value_to_sumvaluegrad
                .entry(input)
                .or_default()
                .extend(old);
            out_grads.push(self.map_args(&g));
        }
        cf::build_pipe_for_block(self.prog, body)?;
        let stop_flags = first_stops(&stops);
        let og: Vec<Option<Value>> = out_grads.iter().map(|g| g[0]).collect();
        let block = self.block;
        let cf::WhileGrad {
            op: grad_op,
            body: grad_body,
            grads,
        } = cf::build_while_grad(
            &mut Builder::at_block_end(self.prog, block),
            op,
            &og,
            &stop_flags,
        )?;
        // The loop variables stand for their body's arguments inside (outer entries win).
        let loop_vars: Vec<Value> = self.prog.op(grad_op).operands().skip(1).flatten().collect();
        let mut arg_map: FxHashMap<Value, Value> = loop_vars
            .into_iter()
            .zip(self.prog.block_args(grad_body).iter().copied())
            .collect();
        arg_map.extend(self.arg_map.iter().map(|(k, v)| (*k, *v)));
        let base = Base {
            op,
            inputs: inputs
                .iter()
                .map(|i| i.first().copied().flatten())
                .collect(),
            grads: grads.clone(),
        };
        self.in_block(body, grad_body, &base, sub, arg_map)?;
        let per_input: Vec<Grads> = grads.iter().map(|g| smallvec![*g]).collect();
        self.update_input_grad_map(op, &per_input, &origin);
        self.backward_ops.push(grad_op);
        Ok(())
    }

    /// A `pd_op.if`'s gradient (`IfOp::Vjp` and the branch handling of Paddle's
    /// `append_backward_ops`): a `pd_op.if` on the same condition with one result per real
    /// input that wants a gradient, each branch differentiated on a copy of the state and
    /// ending with a `cf.yield` of the branch's input gradients (zeros where the branch does
    /// not use an input, the sum where it uses it several times or the input has gradients
    /// from ops after the `if`).
    fn backward_of_if(&mut self, op: OpId) -> Result<(), AutodiffError> {
        let (_zero, _outputs, _out_grads) = self.make_output_with_output_grad(op)?;
        let (inputs, stops) = self.make_input_with_input_stopgradient(op);
        if stops.iter().all(|s| s.iter().all(|&x| x)) {
            return Ok(());
        }
        let origin: Vec<Option<Value>> = cf::real_inputs(self.prog, op).into_vec();
        let cond = inputs
            .first()
            .and_then(|c| c[0])
            .ok_or_else(|| AutodiffError::Invalid {
                op: self.prog.describe(op),
                message: "pd_op.if without a condition".into(),
            })?;
        let rest: Vec<Option<Value>> = inputs
            .iter()
            .skip(1)
            .map(|i| i.first().copied().flatten())
            .collect();
        let stop_flags = first_stops(&stops);
        // Paddle lays a pipe for each branch before the Vjp; a backward branch that reads
        // none of its values drops it again (`prune_pipe`).
        for b in cf::blocks(self.prog, op) {
            cf::build_pipe_for_block(self.prog, b)?;
        }
        let block = self.block;
        let cf::IfGrad {
            op: grad_op,
            blocks: grad_blocks,
            grads,
        } = cf::build_if_grad(
            &mut Builder::at_block_end(self.prog, block),
            cond,
            &rest,
            &stop_flags,
        )?;
        let base = Base {
            op,
            inputs: rest,
            grads: grads.clone(),
        };
        let fwd_blocks = cf::blocks(self.prog, op);
        let mut used_by_others: Vec<(Value, Vec<Grads>)> = Vec::new();
        for (&fwd, &bwd) in fwd_blocks.iter().zip(grad_blocks.iter()) {
            for v in origin.iter().flatten() {
                if let Some(g) = self.state.value_to_valuegrad.get(v) {
                    used_by_others.push((*v, g.clone()));
                }
            }
            let state = self.state.clone();
            // Paddle's recursion for an `if` passes no `bwd_value_to_block_argument_map`
            // (the parameter's empty default), so a branch reads gradients unmapped.
            self.in_block(fwd, bwd, &base, state, FxHashMap::default())?;
            for (v, g) in &used_by_others {
                self.state.value_to_valuegrad.insert(*v, g.clone());
            }
        }
        for (v, _) in &used_by_others {
            self.state.value_to_valuegrad.insert(*v, Vec::new());
        }
        let per_input: Vec<Grads> = grads.iter().map(|g| smallvec![*g]).collect();
        self.update_input_grad_map(op, &per_input, &origin);
        self.backward_ops.push(grad_op);
        Ok(())
    }

    /// Differentiates forward block `fwd` into backward block `bwd` on `state` (a copy of the
    /// pass's) with `arg_map` (Paddle's recursive `append_backward_ops` with `sub_state`); the
    /// pass's state, copy map and argument map are restored afterwards.
    fn in_block(
        &mut self,
        fwd: BlockId,
        bwd: BlockId,
        base: &Base,
        state: State,
        arg_map: FxHashMap<Value, Value>,
    ) -> Result<(), AutodiffError> {
        let saved_state = std::mem::replace(&mut self.state, state);
        let saved_args = std::mem::replace(&mut self.arg_map, arg_map);
        let saved_ops = std::mem::take(&mut self.backward_ops);
        let saved_copy = self.copy_map.clone();
        let saved_block = std::mem::replace(&mut self.block, bwd);
        let ops: Vec<OpId> = self.prog.block_ops(fwd).collect();
        let r = self.append_backward_ops(Some(base), &ops);
        self.block = saved_block;
        self.copy_map = saved_copy;
        self.backward_ops = saved_ops;
        self.arg_map = saved_args;
        self.state = saved_state;
        r
    }

    /// Paddle's `append_yield`: ends a backward branch with `cf.yield` of the gradient of
    /// every base input that wants one (summed if several, zeros if the branch has none).
    fn append_yield(&mut self, base: &Base) -> Result<(), AutodiffError> {
        let mut yielded = Vec::new();
        let mut inputs = base.inputs.clone();
        if self.prog.op(base.op).name() == cf::WHILE {
            // A backward loop runs while the pipe has elements; the forward loop variables
            // are read as the forward body's arguments.
            let body = cf::blocks(self.prog, base.op)[0];
            let block = self.block;
            let cond = cf::build_has_elements(
                &mut Builder::at_block_end(self.prog, block),
                base.op,
                body,
            )?;
            yielded.push(cond);
            let r = self.prog.op(base.op);
            let n = r.num_operands();
            let fwd_args: FxHashMap<Value, Value> = r
                .operands()
                .skip(1)
                .flatten()
                .zip(self.prog.block_args(body).iter().copied())
                .collect();
            for v in inputs.iter_mut().take(n).flatten() {
                *v = map_value(&fwd_args, *v);
            }
        }
        for (input, grad) in inputs.iter().zip(&base.grads) {
            let (Some(input), Some(_)) = (input, grad) else {
                continue;
            };
            let value = map_value(&self.state.inside_to_outside, *input);
            match self.state.value_to_valuegrad.get(&value).map(Vec::len) {
                Some(n) if n > 1 => self.append_add_n(value)?,
                Some(n) if n > 0 => {}
                _ => {
                    let like = map_value(&self.copy_map, value);
                    self.append_full_like(0.0, like, value)?;
                }
            }
            let g = self.state.grads(value).first().and_then(|g| g[0]);
            yielded.extend(g.map(|g| map_value(&self.arg_map, g)));
        }
        let block = self.block;
        cf::build_yield(&mut Builder::at_block_end(self.prog, block), &yielded)?;
        Ok(())
    }

    /// Paddle's `remove_useless_full_like_ops` on a backward branch (and the branches nested
    /// in it): unused `full_like` zeros and their `full`.
    fn remove_useless_full_like_ops(&mut self, block: BlockId) -> Result<(), AutodiffError> {
        let ops: Vec<OpId> = self.prog.block_ops(block).collect();
        let mut remove = Vec::new();
        for op in inverse_sort_op(self.prog, &ops)? {
            if cf::is_control_flow(self.prog, op) {
                for b in cf::blocks(self.prog, op) {
                    self.remove_useless_full_like_ops(b)?;
                }
                continue;
            }
            let r = self.prog.op(op);
            if r.name() == "pd_op.full_like" && !self.prog.has_uses(r.result(0)) {
                remove.push(op);
                remove.extend(r.operand(1).and_then(|v| self.prog.defining_op(v)));
            }
        }
        for op in remove {
            if self.prog.is_alive(op) {
                self.remove_op(op)?;
            }
        }
        Ok(())
    }

    /// One forward op's gradient: its output grads, its inputs' stop flags, its Vjp.
    fn backward_of(&mut self, op: OpId) -> Result<(), AutodiffError> {
        let (zero, outputs, out_grads) = self.make_output_with_output_grad(op)?;
        let (inputs, stops) = self.make_input_with_input_stopgradient(op);
        let none = out_grads.iter().all(|g| g.iter().all(Option::is_none));
        // Paddle always runs the Vjp of `increment_` (it undoes the step in a backward loop)
        // and of the array ops.
        let name = self.prog.op(op).name();
        let increment = name == INCREMENT_;
        if (out_grads.is_empty() || zero.iter().all(|&z| z) || none) && !increment {
            return Ok(());
        }
        let always = increment || matches!(name, ARRAY_READ | ARRAY_WRITE_);
        if stops.iter().all(|s| s.iter().all(|&x| x)) && !always {
            return Ok(());
        }
        let vjp = self.rules.vjp(self.prog, op)?;
        let args = VjpArgs {
            inputs: &inputs,
            outputs: &outputs,
            out_grads: &out_grads,
            stop_gradients: &stops,
        };
        let (grads, created) = self.emit(|b| vjp.call(b, op, &args))?;
        self.backward_ops.extend(created);
        self.set_grad_types(op, &inputs, &grads);
        let operands = cf::real_inputs(self.prog, op);
        self.update_input_grad_map(op, &grads, &operands);
        Ok(())
    }

    /// Paddle's `call_vjp`: every gradient the Vjp returns takes the type of its forward input
    /// ("the grad_type must equal to forward type"), for ops with `OpYamlInfoInterface`. A
    /// gradient the grad op's infer-meta leaves untyped (`yolo_loss_grad`'s `gt_box_grad`)
    /// thus gets one.
    fn set_grad_types(&mut self, op: OpId, inputs: &[Grads], grads: &[Grads]) {
        if !self
            .prog
            .op(op)
            .def()
            .has_interface::<pir_runtime::interfaces::OpYamlInfo>()
        {
            return;
        }
        let sem = self.grad_semantics(op);
        let with_grad = inputs
            .iter()
            .zip(sem.iter())
            .filter_map(|(i, &s)| s.then_some(i));
        for (fwd, gs) in with_grad.zip(grads) {
            for (f, g) in fwd.iter().zip(gs) {
                if let (Some(f), Some(g)) = (f, g) {
                    let ty = self.prog.value_type(*f);
                    self.prog.set_value_type(*g, ty);
                }
            }
        }
    }

    fn prepare_backward_prune_set(
        &self,
        inputs: &[Value],
        outputs: &[Value],
    ) -> (Vec<Value>, Vec<Value>) {
        let mut outs_fwd = Vec::new();
        let mut seen = FxHashSet::default();
        for &input in inputs {
            for u in self.prog.uses(input) {
                for v in cf::real_inputs(self.prog, u.op).into_iter().flatten() {
                    if seen.insert(v) {
                        outs_fwd.push(v);
                    }
                }
            }
        }
        (outs_fwd, outputs.to_vec())
    }

    #[allow(clippy::type_complexity)]
    fn create_backward_prune_set(
        &self,
        outputs_fwd: &[Value],
        inputs_fwd: &[Value],
    ) -> (FxHashSet<Value>, FxHashSet<Value>, FxHashSet<Value>) {
        let first = |v: &Value| self.state.grads(*v).first().and_then(|g| g[0]);
        let outputs: FxHashSet<Value> = outputs_fwd.iter().filter_map(first).collect();
        let mut inputs: FxHashSet<Value> = inputs_fwd.iter().filter_map(first).collect();
        let mut extra = Vec::new();
        for &g in &inputs {
            if let Some(u) = self.prog.uses(g).next() {
                extra.extend(cf::real_inputs(self.prog, u.op).into_iter().flatten());
            }
        }
        inputs.extend(extra);
        let mut no_gradvar = FxHashSet::default();
        for (k, gs) in &self.state.value_to_valuegrad {
            if self.no_grad.contains(k) {
                if let Some(g) = gs.first().and_then(|g| g[0]) {
                    no_gradvar.insert(g);
                }
            }
        }
        for (k, gs) in &self.state.value_to_sumvaluegrad {
            if self.no_grad.contains(k) {
                if let Some(first) = gs.first() {
                    no_gradvar.extend(first.iter().flatten());
                }
            }
        }
        (outputs, inputs, no_gradvar)
    }

    /// Erases a backward op; the forward value whose gradient it made has none any more.
    fn remove_op(&mut self, op: OpId) -> Result<(), AutodiffError> {
        let results: FxHashSet<Value> = self.prog.op(op).results().collect();
        for gs in self.state.value_to_valuegrad.values_mut() {
            if gs
                .first()
                .and_then(|g| g[0])
                .is_some_and(|g| results.contains(&g))
            {
                gs.clear();
            }
        }
        self.prog.erase_op(op)?;
        self.backward_ops.retain(|&o| o != op);
        Ok(())
    }
}

/// Paddle's `prune_ops`: flags ops on a path from `inputs` to `outputs` (effective, in order)
/// and ops on no path at all (uneffective, in order).
fn prune_ops(
    prog: &Program,
    ops: &[OpId],
    inputs: &mut FxHashSet<Value>,
    outputs: &mut FxHashSet<Value>,
    no_grad: &FxHashSet<Value>,
) -> (Vec<OpId>, Vec<OpId>) {
    let n = ops.len();
    let mut inter = vec![true; n];
    let mut union = vec![false; n];
    if !inputs.is_empty() {
        for (i, &op) in ops.iter().enumerate() {
            let r = prog.op(op);
            if r.results().any(|v| inputs.contains(&v)) {
                union[i] = true;
                continue;
            }
            if cf::real_inputs(prog, op)
                .iter()
                .flatten()
                .any(|v| inputs.contains(v))
            {
                union[i] = true;
                inputs.extend(r.results().filter(|v| !no_grad.contains(v)));
            } else {
                inter[i] = false;
            }
        }
    }
    for (i, &op) in ops.iter().enumerate().rev() {
        let r = prog.op(op);
        if r.results().any(|v| outputs.contains(&v)) {
            union[i] = true;
            let real = cf::real_inputs(prog, op);
            outputs.extend(real.into_iter().flatten().filter(|v| !no_grad.contains(v)));
        } else {
            union[i] = false;
            inter[i] = false;
        }
    }
    // An op outside the path whose one user is on it joins the union.
    let pos: FxHashMap<OpId, usize> = ops.iter().enumerate().map(|(i, &o)| (o, i)).collect();
    for (i, &op) in ops.iter().enumerate() {
        if union[i] {
            continue;
        }
        for v in prog.op(op).results() {
            if prog.use_count(v) == 1 {
                let next = prog.uses(v).next().map(|u| u.op);
                if next.and_then(|o| pos.get(&o)).is_some_and(|&j| union[j]) {
                    union[i] = true;
                }
            }
        }
    }
    let effective = (0..n).filter(|&i| inter[i]).map(|i| ops[i]).collect();
    let uneffective = (0..n).filter(|&i| !union[i]).map(|i| ops[i]).collect();
    (effective, uneffective)
}

/// Paddle's `inverse_sort_op`: Kahn's algorithm from the sinks with a FIFO queue.
fn inverse_sort_op(prog: &Program, ops: &[OpId]) -> Result<Vec<OpId>, AutodiffError> {
    let in_set: FxHashSet<OpId> = ops.iter().copied().collect();
    let mut pending: FxHashMap<OpId, i64> = FxHashMap::default();
    let def_op = |v: Value| match prog.value_def(v) {
        ValueDef::OpResult { op, .. } => Some(op),
        _ => None,
    };
    for &op in ops {
        for v in cf::real_inputs(prog, op).into_iter().flatten() {
            if let Some(d) = def_op(v).filter(|d| in_set.contains(d)) {
                *pending.entry(d).or_default() += 1;
            }
        }
    }
    let mut queue: std::collections::VecDeque<OpId> = ops
        .iter()
        .copied()
        .filter(|op| pending.get(op).copied().unwrap_or(0) == 0)
        .collect();
    let mut sorted = Vec::with_capacity(ops.len());
    while let Some(op) = queue.pop_front() {
        sorted.push(op);
        for v in cf::real_inputs(prog, op).into_iter().flatten() {
            if let Some(d) = def_op(v).filter(|d| in_set.contains(d)) {
                let p = pending.entry(d).or_default();
                *p -= 1;
                if *p == 0 {
                    queue.push_back(d);
                }
            }
        }
    }
    if sorted.len() != ops.len() {
        return Err(AutodiffError::Cycle);
    }
    swap_increments(prog, &mut sorted);
    Ok(sorted)
}

/// Paddle's fix-up in `inverse_sort_op`: an `increment_` nobody reads comes out of the sort
/// too early; it trades places with the earliest-sorted op (a `cf.tuple_push` aside) that
/// reads one of its operands, so the backward undoes the step after that op's gradient.
fn swap_increments(prog: &Program, sorted: &mut [OpId]) {
    let mut swaps = Vec::new();
    for (i, &op) in sorted.iter().enumerate().rev() {
        if prog.op(op).name() != INCREMENT_ {
            continue;
        }
        let operands: FxHashSet<Value> = prog.op(op).operands().flatten().collect();
        let reader = sorted[..i].iter().position(|&other| {
            prog.op(other).name() != cf::TUPLE_PUSH
                && cf::real_inputs(prog, other)
                    .iter()
                    .flatten()
                    .any(|v| operands.contains(v))
        });
        if let Some(j) = reader {
            swaps.push((i, j));
        }
    }
    for (i, j) in swaps {
        sorted.swap(i, j);
    }
}

/// Each control-flow input's own stop-gradient flag (the first of its entry; `true` for an
/// input without one), as `IfOp::Vjp` / `WhileOp::Vjp` take them.
fn first_stops(stops: &[SmallVec<[bool; 1]>]) -> Vec<bool> {
    stops
        .iter()
        .map(|s| s.first().copied().unwrap_or(true))
        .collect()
}
