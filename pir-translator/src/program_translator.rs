//! ProgramTranslator: the block-level translation (Paddle's `ProgramTranslator::Translate`).
//!
//! 1. **Parameters** (`GetParameterForSingleBlock`): walking the ops' inputs in file order,
//!    every persistable variable (except `feed`/`fetch`) read before any op writes it becomes a
//!    `builtin.parameter`, appended in first-read order.
//! 2. **External inputs** (`InsertDataOpForSingleBlock`): every other variable the block
//!    declares and reads before writing becomes a `pd_op.data`, each inserted at the very front
//!    (so they end up in reverse discovery order, before the parameters).
//! 3. **Ops** (`TranslateBlock`): each op through its handler, appended in order.
//! 4. **Written parameters** (`SetParameterFromSingleBlock`, startup programs): a
//!    `builtin.set_parameter` right after the op defining a parameter the program writes and
//!    never read.
//! 5. **Flags** (`SetStopGradientAttributeForAllValue`, `SetIsPersistableAttributeForAllValue`):
//!    every op result a variable maps to gets that variable's `stop_gradient` and
//!    `persistable` at its index of the op's `stop_gradient` / `persistable` arrays (created as
//!    all-`false` when the op has none).
//!
//! Block 0 is translated, and the sub-block of each `conditional_block` into the regions of
//! its `pd_op.if` (with `select_input` → `pd_op.select_input`); `while` and the backward
//! control-flow ops are refused with a located error.

use op_defs::control_flow::CfType;
use pir_legacy::{AttrValue, LegacyOp, LegacyProgram, LegacyVar, Location, VarKind};
use pir_runtime::phi::Place;
use pir_runtime::{
    builtin, AttrData, Attribute, BlockId, InsertPoint, IrContext, OpId, Parameter, Program, Type,
    TypeData, Value,
};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use crate::builders::{self, bool_array, SliceError};
use crate::dialects::TargetDialects;
use crate::handlers::UNSUPPORTED_OPS;
use crate::op_context::OpContext;
use crate::op_translator::{argument_names, sorted_slots, ArgumentSet, NO_CAST_VAR_NAMES};
use crate::registry::Handlers;
use crate::translate_error::TranslateError;
use crate::type_translator::{tensor_meta, translate_var_type};
use crate::var_index::VarIndex;
use crate::variable_map::{VariableDefiningInfo, VariableMap};

/// The placeholder of an absent variable in a legacy argument list (`kEmptyVarName`).
const EMPTY_VAR: &str = "@EMPTY@";

/// A `conditional_block`'s output variables and their types.
type CondOutputs<'a> = (Vec<&'a String>, Vec<Option<Type>>);

/// The operands of an op and the types of all but the first (see `head_and_values`).
type ValuesAndTypes = (Vec<Option<Value>>, Vec<Option<Type>>);

/// How deep `conditional_block` sub-blocks may nest (a recursion bound on hostile inputs).
const MAX_SUB_BLOCK_DEPTH: usize = 256;

/// Where op `i` of legacy block `bi` is.
fn at(bi: usize, i: usize, op: &LegacyOp) -> Location {
    Location::program().block(bi).op(i, Some(&op.op_type))
}

/// Legacy op types `SetParameterFromSingleBlock` skips.
const NO_SET_PARAMETER_OPS: [&str; 2] = ["data", "feed"];

/// The result of a translation.
#[derive(Debug)]
pub struct Translation {
    /// The PIR program.
    pub program: Program,
    /// The variable map: each legacy variable and the values that defined it, oldest first
    /// (Paddle's `VarDesc2Value`), in first-definition order.
    pub variables: Vec<(String, Vec<VariableDefiningInfo>)>,
}

fn no_cast(name: &str) -> bool {
    NO_CAST_VAR_NAMES.contains(&name)
}

pub(crate) struct ProgramTranslator<'a> {
    dialects: &'a TargetDialects,
    handlers: &'a Handlers,
    legacy: &'a LegacyProgram,
    var_index: VarIndex<'a>,
    program: Program,
    block: BlockId,
    vars: VariableMap<'a>,
    /// Persistable variables of block 0 (Paddle's `parameter_name_mappings_`).
    candidates: FxHashMap<&'a str, &'a LegacyVar>,
    /// Parameters already given a `builtin.parameter` or `builtin.set_parameter`.
    visited: FxHashSet<&'a str>,
    /// How many `while` bodies are being translated.
    in_loop: usize,
    /// Block 0's `conditional_block_grad` ops and the `conditional_block` each differentiates
    /// (by op index), as `PreAnalysisForCond` pairs them through their `Scope` variable.
    cond_grad_to_cond: FxHashMap<usize, usize>,
    /// For each paired forward `conditional_block` (by op index in block 0): the variables
    /// its sub-block defines that its grad's sub-block reads, carried on a `cf` stack.
    push_pop_vars: FxHashMap<usize, Vec<&'a str>>,
    /// The stack of each paired forward `conditional_block`: its inlet, outlet and the types
    /// pushed.
    stacks: FxHashMap<usize, CondStack>,
}

/// A `cf.stack_create` made for a `conditional_block` whose grad reads its variables.
#[derive(Clone, Debug, Default)]
struct CondStack {
    outlet: Option<Value>,
    types: Vec<Option<Type>>,
}

/// `GetExternalInputs`: the variables a block's ops read before any of its ops writes them,
/// in reading order (repeats kept, as Paddle keeps them).
fn external_inputs(block: &pir_legacy::LegacyBlock) -> Vec<&str> {
    let mut produced: FxHashSet<&str> = FxHashSet::default();
    let mut out = Vec::new();
    for op in &block.ops {
        for slot in sorted_slots(&op.inputs) {
            if op.op_type == "transpose2_grad" && slot.parameter == "XShape" {
                continue;
            }
            out.extend(
                slot.arguments
                    .iter()
                    .map(String::as_str)
                    .filter(|n| !produced.contains(n)),
            );
        }
        produced.extend(op.output_arguments());
    }
    out
}

impl<'a> ProgramTranslator<'a> {
    pub(crate) fn new(
        dialects: &'a TargetDialects,
        handlers: &'a Handlers,
        legacy: &'a LegacyProgram,
    ) -> Self {
        let num_ops: usize = legacy.blocks.iter().map(|b| b.ops.len()).sum();
        let program = Program::with_capacity(dialects.ctx(), num_ops * 3);
        let block = program.block();
        let candidates = legacy
            .global_block()
            .vars
            .iter()
            .filter(|v| v.persistable && !no_cast(&v.name))
            .map(|v| (v.name.as_str(), v))
            .collect();
        ProgramTranslator {
            dialects,
            handlers,
            legacy,
            var_index: VarIndex::new(legacy),
            program,
            block,
            vars: VariableMap::with_capacity(legacy.global_block().vars.len()),
            candidates,
            visited: FxHashSet::default(),
            in_loop: 0,
            cond_grad_to_cond: FxHashMap::default(),
            push_pop_vars: FxHashMap::default(),
            stacks: FxHashMap::default(),
        }
    }

    fn ctx(&self) -> &'a IrContext {
        self.dialects.ctx()
    }

    fn at_op(&self, op_index: usize) -> Location {
        let op = &self.legacy.global_block().ops[op_index];
        Location::program().block(0).op(op_index, Some(&op.op_type))
    }

    /// Appends an op of `def` without attributes or regions at the end of `block` (the
    /// control-flow helpers' plain ops: `assign_out_`, `select_input`, ...).
    fn append_plain(
        &mut self,
        def: &'static pir_runtime::OpDef,
        operands: &[Option<Value>],
        result_types: &[Option<Type>],
        block: BlockId,
        place: Location,
    ) -> Result<OpId, TranslateError> {
        let attributes = self.ctx().empty_dict();
        let args = pir_runtime::OperationArgs {
            def,
            operands,
            attributes,
            result_types,
            num_regions: 0,
        };
        self.program
            .create_op_at(args, InsertPoint::BlockEnd(block))
            .map_err(|e| Self::ir_error(place, e))
    }

    fn ir_error(at: Location, source: pir_runtime::IrError) -> TranslateError {
        TranslateError::Ir {
            at: Box::new(at),
            source,
        }
    }

    pub(crate) fn run(mut self) -> Result<Translation, TranslateError> {
        self.get_parameters()?;
        self.insert_data_ops()?;
        self.pre_analysis_for_cond();
        self.translate_block()?;
        self.set_parameters()?;
        self.set_value_flags()?;
        // What the handlers build from a hostile desc (absurd dims, untyped outputs) must not
        // come out as a program that does not verify: one linear pass refuses it, located.
        // Results left without a type are kept: Paddle's translator writes them too (an
        // `@EMPTY@` output, a variable without a tensor type), and its verifier refuses them
        // later, as `verify` does here.
        if let Err(errors) = pir_runtime::verify(&self.program) {
            if !errors.0.iter().all(is_null_type_error) {
                return Err(self.not_verified(&errors));
            }
        }
        let variables = self
            .vars
            .iter()
            .map(|(name, values)| (name.to_string(), values.to_vec()))
            .collect();
        Ok(Translation {
            program: self.program,
            variables,
        })
    }

    /// The verification errors, each with the legacy variables bound to its op's results.
    #[cold]
    fn not_verified(&self, errors: &pir_runtime::VerifyErrors) -> TranslateError {
        let problems = errors
            .0
            .iter()
            .map(|e| {
                let results: Vec<_> = self.program.op(e.op).results().collect();
                let names: Vec<&str> = self
                    .vars
                    .iter()
                    .filter(|(_, infos)| infos.iter().any(|i| results.contains(&i.value)))
                    .map(|(name, _)| name)
                    .collect();
                if names.is_empty() {
                    e.to_string()
                } else {
                    format!("{e} (legacy variable(s) {})", names.join(", "))
                }
            })
            .collect();
        TranslateError::NotVerified { problems }
    }

    /// An empty set of block-0 variable names, sized for all of them.
    fn name_set(&self) -> FxHashSet<&'a str> {
        let capacity = self.legacy.global_block().vars.len();
        FxHashSet::with_capacity_and_hasher(capacity, Default::default())
    }

    /// Step 1: `builtin.parameter` for parameters read before written.
    fn get_parameters(&mut self) -> Result<(), TranslateError> {
        let legacy = self.legacy;
        let mut inner = self.name_set();
        for (i, op) in legacy.global_block().ops.iter().enumerate() {
            for name in argument_names(&op.inputs) {
                if no_cast(name) {
                    continue;
                }
                let Some(&var) = self.candidates.get(name) else {
                    continue;
                };
                if self.visited.contains(name) || inner.contains(name) {
                    continue;
                }
                let ty =
                    translate_var_type(self.ctx(), var).map_err(|e| TranslateError::Variable {
                        at: Box::new(self.at_op(i)),
                        var: name.to_string(),
                        problem: e.to_string(),
                    })?;
                let op_id = builders::parameter_op(
                    &mut self.program,
                    InsertPoint::BlockEnd(self.block),
                    &builtin::PARAMETER_DEF,
                    name,
                    &[],
                    &[Some(ty)],
                )
                .map_err(|e| Self::ir_error(self.at_op(i), e))?;
                let value = self.program.op(op_id).result(0);
                self.vars.push(name, VariableDefiningInfo::new(value));
                self.record_parameter(name, ty);
                self.visited.insert(name);
                inner.insert(name);
            }
            inner.extend(op.output_arguments());
        }
        Ok(())
    }

    /// Records `name` as a (mutable) parameter of type `ty` of the program.
    fn record_parameter(&mut self, name: &str, ty: Type) {
        let parameter = Parameter {
            bytes: Vec::new(),
            ty,
            is_mutable: true,
        };
        self.program.set_parameter(name, parameter);
    }

    /// Step 2: `pd_op.data` (each at the front of the block) for the block's external inputs.
    fn insert_data_ops(&mut self) -> Result<(), TranslateError> {
        let legacy = self.legacy;
        let mut produced = self.name_set();
        for (i, op) in legacy.global_block().ops.iter().enumerate() {
            for slot in sorted_slots(&op.inputs) {
                if op.op_type == "transpose2_grad" && slot.parameter == "XShape" {
                    continue;
                }
                for name in &slot.arguments {
                    let name = name.as_str();
                    if produced.contains(name) || no_cast(name) || self.vars.contains(name) {
                        continue;
                    }
                    let Some(var) = self.var_index.local(0, name) else {
                        continue;
                    };
                    let value = self.create_undefined_variable(i, var)?;
                    self.vars.push(name, VariableDefiningInfo::new(value));
                }
            }
            produced.extend(op.output_arguments());
        }
        Ok(())
    }

    /// Paddle's `CreateUndefinedVariable`: `DataOp::Build(name, var shape, var dtype, Place())`
    /// at the front of the block.
    fn create_undefined_variable(
        &mut self,
        op_index: usize,
        var: &'a LegacyVar,
    ) -> Result<Value, TranslateError> {
        let at = self.at_op(op_index);
        let (dtype, dims) = tensor_meta(var).map_err(|e| TranslateError::Variable {
            at: Box::new(at.clone()),
            var: var.name.clone(),
            problem: e.to_string(),
        })?;
        if var.kind == VarKind::DenseTensorArray {
            // `CreateArrayOp::Build(dtype)` for an array variable.
            let front = InsertPoint::BlockStart(self.block);
            return self.create_array_at(at, front, dtype, None);
        }
        let def = self
            .dialects
            .op_def("pd_op.data")
            .ok_or_else(|| TranslateError::MissingOps {
                at: Box::new(at.clone()),
                op_type: self.legacy.global_block().ops[op_index].op_type.clone(),
                missing: vec!["pd_op.data".into()],
            })?;
        builders::data_op(
            &mut self.program,
            InsertPoint::BlockStart(self.block),
            def,
            &var.name,
            dtype,
            dims,
        )
        .map_err(|e| Self::ir_error(at, e))
    }

    /// `pd_op.create_array(dtype)` at `ip`, as `pir::Builder` builds it (`stop_gradient:[true]`),
    /// its result retyped to `ty` when given (`array_op.out().set_type(type)`).
    fn create_array_at(
        &mut self,
        at: Location,
        ip: InsertPoint,
        dtype: pir_runtime::phi::DataType,
        ty: Option<Type>,
    ) -> Result<Value, TranslateError> {
        let def = self.dialects.op_def("pd_op.create_array").ok_or_else(|| {
            TranslateError::MissingOps {
                at: Box::new(at.clone()),
                op_type: "create_array".into(),
                missing: vec!["pd_op.create_array".into()],
            }
        })?;
        let op = {
            let mut b = pir_runtime::Builder::new(&mut self.program, ip);
            pir_runtime::op_support::build_with_values(
                &mut b,
                def,
                &[],
                &[pir_runtime::op_support::AttrArg::DataType(dtype)],
            )
        }
        .map_err(|source| TranslateError::Build {
            at: Box::new(at.clone()),
            source,
        })?;
        let ctx = self.ctx();
        self.program
            .set_attribute(op, "stop_gradient", bool_array(ctx, true, 1))
            .map_err(|e| Self::ir_error(at.clone(), e))?;
        let v = self.program.op(op).result(0);
        if let Some(t) = ty {
            self.program.set_value_type(v, Some(t));
        }
        Ok(v)
    }

    /// Paddle's `PreAnalysisForCond`: pairs each `conditional_block_grad` of block 0 with the
    /// `conditional_block` before it that wrote its `Scope` variable, and lists the variables
    /// the forward sub-block defines and the grad sub-block reads from outside (in reading
    /// order), which a `cf` stack carries from one to the other.
    fn pre_analysis_for_cond(&mut self) {
        let legacy = self.legacy;
        let mut scope_to_cond: FxHashMap<&str, usize> = FxHashMap::default();
        for (i, op) in legacy.global_block().ops.iter().enumerate() {
            let scope = |slot| op.input(slot).or(op.output(slot)).and_then(|v| v.first());
            match op.op_type.as_str() {
                "conditional_block" => {
                    if let Some(s) = op.output("Scope").and_then(|v| v.first()) {
                        scope_to_cond.insert(s.as_str(), i);
                    }
                }
                "conditional_block_grad" => {
                    if let Some(&fwd) = scope("Scope").and_then(|s| scope_to_cond.get(s.as_str())) {
                        self.cond_grad_to_cond.insert(i, fwd);
                    }
                }
                _ => {}
            }
        }
        let sub = |op: &'a LegacyOp| match op.attr("sub_block") {
            Some(AttrValue::Block(b)) => legacy.block(*b),
            _ => None,
        };
        let ops = &legacy.global_block().ops;
        for (&grad, &fwd) in &self.cond_grad_to_cond {
            let (Some(fwd_block), Some(grad_block)) = (sub(&ops[fwd]), sub(&ops[grad])) else {
                continue;
            };
            let inner: FxHashSet<&str> = fwd_block
                .ops
                .iter()
                .flat_map(|o| o.output_arguments())
                .collect();
            let vars: Vec<&'a str> = external_inputs(grad_block)
                .into_iter()
                .filter(|n| inner.contains(n))
                .collect();
            self.push_pop_vars.insert(fwd, vars);
        }
    }

    /// The stacked variables of op `i` of block `bi` (a paired `conditional_block` or
    /// `conditional_block_grad` of block 0), with the forward op's index.
    fn stacked_vars(&self, bi: usize, i: usize, for_bwd: bool) -> Option<(usize, Vec<&'a str>)> {
        if bi != 0 {
            return None;
        }
        let fwd = if for_bwd {
            *self.cond_grad_to_cond.get(&i)?
        } else {
            i
        };
        let vars = self.push_pop_vars.get(&fwd)?;
        (!vars.is_empty()).then(|| (fwd, vars.clone()))
    }

    /// Step 3: every op of block 0 through its handler.
    fn translate_block(&mut self) -> Result<(), TranslateError> {
        let block = self.block;
        self.translate_ops(0, block, 0)
    }

    /// The ops of legacy block `bi` into `block` (Paddle's `TranslateBlock`); a
    /// `conditional_block` becomes a `pd_op.if` whose regions hold its sub-block.
    fn translate_ops(
        &mut self,
        bi: usize,
        block: BlockId,
        depth: usize,
    ) -> Result<(), TranslateError> {
        let legacy = self.legacy;
        let Some(src) = legacy.block(bi) else {
            return Err(TranslateError::Invalid {
                at: Box::new(Location::program().block(bi)),
                message: format!("block {bi} does not exist"),
            });
        };
        for (i, op) in src.ops.iter().enumerate() {
            if UNSUPPORTED_OPS.contains(&op.op_type.as_str()) {
                return Err(TranslateError::Unsupported {
                    at: Box::new(at(bi, i, op)),
                    what: format!("the control-flow op `{}`", op.op_type),
                });
            }
            if op.op_type == "shadow_output" {
                if let Some([x, ..]) = op.input("x") {
                    if !self.vars.contains(x) {
                        continue;
                    }
                }
            }
            match op.op_type.as_str() {
                "conditional_block" => self.conditional_block(bi, i, op, block, depth, false)?,
                "conditional_block_grad" => {
                    self.conditional_block(bi, i, op, block, depth, true)?
                }
                "while" => self.while_op(bi, i, op, block, depth)?,
                "assign" if self.in_loop > 0 && self.writes_defined(op) => {
                    self.assign_out(bi, i, op, block)?
                }
                "select_input" => self.select_input(bi, i, op, block)?,
                "select_output" => self.select_output(bi, i, op, block)?,
                _ => {
                    let handlers = self.handlers;
                    let mut cx = self.op_context(bi, i, op, block);
                    handlers.get(&op.op_type).translate(&mut cx)?;
                }
            }
        }
        Ok(())
    }

    fn op_context<'v>(
        &'v mut self,
        bi: usize,
        i: usize,
        op: &'a LegacyOp,
        block: BlockId,
    ) -> OpContext<'a, 'v> {
        OpContext {
            dialects: self.dialects,
            special_handler: self.handlers.is_special(&op.op_type),
            legacy: self.legacy,
            var_index: &self.var_index,
            block_index: bi,
            op_index: i,
            op,
            names: self.dialects.compat().op_names(&op.op_type),
            program: &mut self.program,
            block,
            vars: &mut self.vars,
        }
    }

    /// The value of input `slot`'s argument `k` of `op`.
    fn input_value(
        &self,
        bi: usize,
        i: usize,
        op: &LegacyOp,
        slot: &str,
        k: usize,
    ) -> Result<Value, TranslateError> {
        let invalid = |message: String| TranslateError::Invalid {
            at: Box::new(at(bi, i, op)),
            message,
        };
        let name = op
            .input(slot)
            .and_then(|a| a.get(k))
            .ok_or_else(|| invalid(format!("input `{slot}` has no argument {k}")))?;
        self.vars
            .get(name)
            .map(|info| info.value)
            .ok_or_else(|| invalid(format!("input `{slot}`: variable `{name}` is not defined")))
    }

    /// The translated type of variable `name` as block `bi` sees it.
    fn var_type(
        &self,
        bi: usize,
        i: usize,
        op: &LegacyOp,
        name: &str,
    ) -> Result<Type, TranslateError> {
        let var = self
            .var_index
            .find(bi, name)
            .ok_or_else(|| TranslateError::Invalid {
                at: Box::new(at(bi, i, op)),
                message: format!("variable `{name}` is not declared"),
            })?;
        translate_var_type(self.ctx(), var).map_err(|e| TranslateError::Variable {
            at: Box::new(at(bi, i, op)),
            var: name.to_string(),
            problem: e.to_string(),
        })
    }

    fn control_flow_def(
        &self,
        bi: usize,
        i: usize,
        op: &LegacyOp,
        name: &str,
    ) -> Result<&'static pir_runtime::OpDef, TranslateError> {
        self.ctx()
            .op_def(name)
            .ok_or_else(|| TranslateError::MissingOps {
                at: Box::new(at(bi, i, op)),
                op_type: op.op_type.clone(),
                missing: vec![name.to_string()],
            })
    }

    /// The `sub_block` of a control-flow op at nesting `depth`: another block of the program,
    /// and not deeper than [`MAX_SUB_BLOCK_DEPTH`].
    fn sub_block(
        &self,
        bi: usize,
        i: usize,
        op: &'a LegacyOp,
        depth: usize,
    ) -> Result<usize, TranslateError> {
        let invalid = |message: String| TranslateError::Invalid {
            at: Box::new(at(bi, i, op)),
            message,
        };
        if depth >= MAX_SUB_BLOCK_DEPTH {
            return Err(invalid(format!(
                "sub-blocks nest deeper than {MAX_SUB_BLOCK_DEPTH} levels"
            )));
        }
        match op.attr("sub_block") {
            Some(AttrValue::Block(b)) if *b != bi && *b < self.legacy.blocks.len() => Ok(*b),
            _ => Err(invalid("attribute `sub_block` is not a valid block".into())),
        }
    }

    /// `conditional_block(Cond, Input) -> Out, Scope` with `sub_block`: Paddle 3.3.1 makes it
    /// a `pd_op.if` of the condition with `fake_false_branch:true`, whose then block is the
    /// translated sub-block yielding the `Out` variables (the sub-block's trailing `assign`s
    /// included) and whose else block yields zeros of the outputs' shapes (`pd_op.full` on
    /// the CPU, made last output first). The sub-block's variables are scoped to it: only the
    /// `if`'s results define the outputs after it.
    fn conditional_block(
        &mut self,
        bi: usize,
        i: usize,
        op: &'a LegacyOp,
        block: BlockId,
        depth: usize,
        for_bwd: bool,
    ) -> Result<(), TranslateError> {
        let def = self.control_flow_def(bi, i, op, "pd_op.if")?;
        let yield_def = self.control_flow_def(bi, i, op, "cf.yield")?;
        let cond = self.input_value(bi, i, op, "Cond", 0)?;
        let sub = self.sub_block(bi, i, op, depth)?;
        let stacked = self.stacked_vars(bi, i, for_bwd);
        let (outs, types) = self.cond_outputs(bi, i, op, for_bwd)?;
        let ctx = self.ctx();
        // A forward op whose grad reads its variables: its stack, before the `if`.
        let inlet = match (&stacked, for_bwd) {
            (Some((fwd, _)), false) => Some(self.create_cond_stack(bi, i, op, *fwd, block)?),
            _ => None,
        };
        let attrs = ctx.dict_attr(&[("fake_false_branch", ctx.bool_attr(true))]);
        let if_op = self
            .program
            .create_op_at(
                pir_runtime::OperationArgs {
                    def,
                    operands: &[Some(cond)],
                    attributes: attrs,
                    result_types: &types,
                    num_regions: 2,
                },
                InsertPoint::BlockEnd(block),
            )
            .map_err(|e| Self::ir_error(at(bi, i, op), e))?;
        let regions: Vec<_> = self.program.op(if_op).regions().collect();
        let then_block = self.program.add_block(regions[0]);
        let else_block = self.program.add_block(regions[1]);
        // The then block: the sub-block, in a scope of its own; a grad first pops what its
        // forward op pushed, a forward op pushes last.
        let yields = self.scoped(|t| {
            if let (Some((fwd, names)), true) = (&stacked, for_bwd) {
                t.pop_stacked(bi, i, op, *fwd, names, then_block)?;
            }
            t.translate_ops(sub, then_block, depth + 1)?;
            if let (Some((fwd, names)), Some(inlet)) = (&stacked, inlet) {
                t.push_stacked(bi, i, op, *fwd, names, inlet, then_block)?;
            }
            t.cond_yields(bi, i, op, sub, &outs, for_bwd)
        })?;
        self.append_plain(yield_def, &yields, &[], then_block, at(bi, i, op))?;
        let zeros = self.fake_false_branch(bi, i, op, &outs, &yields, else_block)?;
        self.append_plain(yield_def, &zeros, &[], else_block, at(bi, i, op))?;
        self.bind_results(if_op, outs.iter().map(|n| n.as_str()));
        Ok(())
    }

    /// The variables a `conditional_block` defines (`Out`, or a grad's `Input@GRAD`; empty
    /// slots skipped) with their types.
    fn cond_outputs(
        &self,
        bi: usize,
        i: usize,
        op: &'a LegacyOp,
        for_bwd: bool,
    ) -> Result<CondOutputs<'a>, TranslateError> {
        let out_slot = if for_bwd { "Input@GRAD" } else { "Out" };
        let outs: Vec<&'a String> = op
            .output(out_slot)
            .unwrap_or(&[])
            .iter()
            .filter(|n| n.as_str() != EMPTY_VAR)
            .collect();
        let types = outs
            .iter()
            .map(|n| self.var_type(bi, i, op, n).map(Some))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((outs, types))
    }

    /// The values the then block of sub-block `sub` yields: the outputs' values at its end.
    fn cond_yields(
        &self,
        bi: usize,
        i: usize,
        op: &'a LegacyOp,
        sub: usize,
        outs: &[&'a String],
        for_bwd: bool,
    ) -> Result<Vec<Option<Value>>, TranslateError> {
        outs.iter()
            .map(|n| {
                // A grad's output renamed in its sub-block is yielded by its first name.
                let n = match n.find("@RENAME@block") {
                    Some(k) if for_bwd => &n[..k],
                    _ => n.as_str(),
                };
                self.vars
                    .get(n)
                    .map(|v| Some(v.value))
                    .ok_or_else(|| TranslateError::Invalid {
                        at: Box::new(at(bi, i, op)),
                        message: format!("output `{n}` is not written by block {sub}"),
                    })
            })
            .collect()
    }

    /// Runs `f` in a scope of its own (a sub-block's variables), closed when it returns.
    fn scoped<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, TranslateError>,
    ) -> Result<T, TranslateError> {
        let mark = self.vars.mark();
        let r = f(self);
        self.vars.rollback(mark);
        r
    }

    /// Defines `names`, in order, as the results of `op` (a control-flow op's results stand
    /// for the variables after it).
    fn bind_results(&mut self, op: OpId, names: impl IntoIterator<Item = &'a str>) {
        for (k, name) in names.into_iter().enumerate() {
            let v = self.program.op(op).result(k);
            self.vars.push(name, VariableDefiningInfo::new(v));
        }
    }

    /// `cf.stack_create` at the end of `block` for the forward op `fwd` whose grad reads its
    /// variables; records the outlet for the grad and returns the inlet.
    fn create_cond_stack(
        &mut self,
        bi: usize,
        i: usize,
        op: &'a LegacyOp,
        fwd: usize,
        block: BlockId,
    ) -> Result<Value, TranslateError> {
        let ctx = self.ctx();
        let create = self.control_flow_def(bi, i, op, "cf.stack_create")?;
        let types = [CfType::Stack, CfType::Inlet, CfType::Outlet].map(|k| Some(k.get(ctx)));
        let s = builders::create(
            &mut self.program,
            InsertPoint::BlockEnd(block),
            create,
            &[],
            ctx.empty_dict(),
            &types,
        )
        .map_err(|e| Self::ir_error(at(bi, i, op), e))?;
        let outlet = Some(self.program.op(s).result(2));
        let types = Vec::new();
        self.stacks.insert(fwd, CondStack { outlet, types });
        Ok(self.program.op(s).result(1))
    }

    /// The values the else block (Paddle's fake false branch) yields: an output that has a
    /// value outside yields it; each other one an init value of the type the then block
    /// yields (zeros of its shape with `-1` read as 1, or an empty array), each made at the
    /// block's front, so the last output's comes first.
    fn fake_false_branch(
        &mut self,
        bi: usize,
        i: usize,
        op: &'a LegacyOp,
        outs: &[&'a String],
        yields: &[Option<Value>],
        else_block: BlockId,
    ) -> Result<Vec<Option<Value>>, TranslateError> {
        let ctx = self.ctx();
        let mut zeros = vec![None; outs.len()];
        for k in (0..outs.len()).rev() {
            if let Some(info) = self.vars.get(outs[k]) {
                zeros[k] = Some(info.value);
                continue;
            }
            let ty = yields[k].and_then(|v| self.program.value_type(v));
            zeros[k] = Some(match ty.map(|t| (t, ctx.type_data(t))) {
                Some((_, TypeData::DenseTensor(t))) => {
                    let dims: Vec<i64> = t.dims.iter().map(|d| d.abs()).collect();
                    let dtype = t.dtype;
                    let mut cx = self.op_context(bi, i, op, else_block);
                    cx.full_shaped(&dims, 0.0, dtype, Place::cpu())?
                }
                Some((t, TypeData::DenseTensorArray { dtype, .. })) => {
                    let end = InsertPoint::BlockEnd(else_block);
                    self.create_array_at(at(bi, i, op), end, *dtype, Some(t))?
                }
                _ => {
                    return Err(TranslateError::Invalid {
                        at: Box::new(at(bi, i, op)),
                        message: format!(
                            "output `{}` is neither a dense tensor nor a tensor array (the \
                             false branch has no value to yield for it)",
                            outs[k]
                        ),
                    })
                }
            });
        }
        Ok(zeros)
    }

    /// `cf.tuple_push` of the stacked variables' current values into `inlet` at the end of
    /// `block`, recording their types for the grad's pop.
    #[allow(clippy::too_many_arguments)]
    fn push_stacked(
        &mut self,
        bi: usize,
        i: usize,
        op: &'a LegacyOp,
        fwd: usize,
        names: &[&'a str],
        inlet: Value,
        block: BlockId,
    ) -> Result<(), TranslateError> {
        let def = self.control_flow_def(bi, i, op, "cf.tuple_push")?;
        let (operands, types) = self.head_and_values(bi, i, op, inlet, names, |n| {
            format!("`{n}`, which the grad reads, has no value to push")
        })?;
        let empty = self.ctx().empty_dict();
        builders::create(
            &mut self.program,
            InsertPoint::BlockEnd(block),
            def,
            &operands,
            empty,
            &[],
        )
        .map_err(|e| Self::ir_error(at(bi, i, op), e))?;
        if let Some(s) = self.stacks.get_mut(&fwd) {
            s.types = types;
        }
        Ok(())
    }

    /// `cf.tuple_pop` of the forward op's outlet at the start of the grad's then block, its
    /// results standing for the stacked variables there.
    fn pop_stacked(
        &mut self,
        bi: usize,
        i: usize,
        op: &'a LegacyOp,
        fwd: usize,
        names: &[&'a str],
        block: BlockId,
    ) -> Result<(), TranslateError> {
        let def = self.control_flow_def(bi, i, op, "cf.tuple_pop")?;
        let Some(CondStack {
            outlet: Some(outlet),
            types,
        }) = self.stacks.get(&fwd).cloned()
        else {
            return Err(TranslateError::Invalid {
                at: Box::new(at(bi, i, op)),
                message: format!(
                    "the forward conditional_block (op {fwd} of block 0) has not been translated before its grad"
                ),
            });
        };
        if types.len() != names.len() {
            return Err(TranslateError::Invalid {
                at: Box::new(at(bi, i, op)),
                message: format!(
                    "the forward conditional_block (op {fwd} of block 0) pushed {} value(s) but its grad pops {}",
                    types.len(),
                    names.len()
                ),
            });
        }
        let empty = self.ctx().empty_dict();
        let pop = builders::create(
            &mut self.program,
            InsertPoint::BlockEnd(block),
            def,
            &[Some(outlet)],
            empty,
            &types,
        )
        .map_err(|e| Self::ir_error(at(bi, i, op), e))?;
        self.bind_results(pop, names.iter().copied());
        Ok(())
    }

    /// Whether `op`'s one `Out` variable already has a value (a loop variable or the loop
    /// condition written back in a `while` body).
    fn writes_defined(&self, op: &LegacyOp) -> bool {
        matches!(op.output("Out"), Some([out]) if self.vars.contains(out))
    }

    /// `assign(X) -> Out` in a `while` body where `Out` already has a value: Paddle 3.3.1
    /// writes it back in place, `pd_op.assign_out_(x, out)`, typed as `out`.
    fn assign_out(
        &mut self,
        bi: usize,
        i: usize,
        op: &'a LegacyOp,
        block: BlockId,
    ) -> Result<(), TranslateError> {
        let def = self.control_flow_def(bi, i, op, "pd_op.assign_out_")?;
        let x = self.input_value(bi, i, op, "X", 0)?;
        let Some([out]) = op.output("Out") else {
            return Err(TranslateError::Invalid {
                at: Box::new(at(bi, i, op)),
                message: "assign must have one `Out`".into(),
            });
        };
        let Some(current) = self.vars.get(out).map(|v| v.value) else {
            return Err(TranslateError::Invalid {
                at: Box::new(at(bi, i, op)),
                message: format!("`{out}` has no value to assign to"),
            });
        };
        let ty = self.program.value_type(current);
        let new = self.append_plain(def, &[Some(x), Some(current)], &[ty], block, at(bi, i, op))?;
        let v = self.program.op(new).result(0);
        self.vars.push(out, VariableDefiningInfo::new(v));
        Ok(())
    }

    /// `while(Condition, X) -> Out, StepScopes` with `sub_block`: Paddle 3.3.1 makes it a
    /// `pd_op.while` of the condition over the loop variables (the `Out` variables other than
    /// the condition, in `Out` order), whose body block has one argument per loop variable
    /// (no attributes), holds the translated sub-block (its `assign`s back to a loop variable
    /// or to the condition become `pd_op.assign_out_`) and yields the condition, then the
    /// loop variables. After the loop, the loop variables are its results.
    fn while_op(
        &mut self,
        bi: usize,
        i: usize,
        op: &'a LegacyOp,
        block: BlockId,
        depth: usize,
    ) -> Result<(), TranslateError> {
        let def = self.control_flow_def(bi, i, op, "pd_op.while")?;
        let yield_def = self.control_flow_def(bi, i, op, "cf.yield")?;
        let cond = self.input_value(bi, i, op, "Condition", 0)?;
        let cond_name: &'a str = op
            .input("Condition")
            .and_then(|c| c.first())
            .map(String::as_str)
            .unwrap_or_default();
        let sub = self.sub_block(bi, i, op, depth)?;
        let loop_vars: Vec<&'a str> = op
            .output("Out")
            .unwrap_or(&[])
            .iter()
            .map(String::as_str)
            .filter(|&n| n != cond_name)
            .collect();
        let (inputs, types) = self.head_and_values(bi, i, op, cond, &loop_vars, |n| {
            format!("loop variable `{n}` has no value before the loop")
        })?;
        let empty = self.ctx().empty_dict();
        let while_op = self
            .program
            .create_op_at(
                pir_runtime::OperationArgs {
                    def,
                    operands: &inputs,
                    attributes: empty,
                    result_types: &types,
                    num_regions: 1,
                },
                InsertPoint::BlockEnd(block),
            )
            .map_err(|e| Self::ir_error(at(bi, i, op), e))?;
        let region = self.program.op(while_op).region(0);
        let body = self.program.add_block(region);
        let yields = self.scoped(|t| {
            for (name, ty) in loop_vars.iter().zip(&types) {
                let arg = t.program.add_block_arg(body, *ty);
                t.vars.push(name, VariableDefiningInfo::new(arg));
            }
            t.in_loop += 1;
            let translated = t.translate_ops(sub, body, depth + 1);
            t.in_loop -= 1;
            translated?;
            t.loop_yields(bi, i, op, cond_name, &loop_vars)
        })?;
        self.append_plain(yield_def, &yields, &[], body, at(bi, i, op))?;
        self.bind_results(while_op, loop_vars.iter().copied());
        Ok(())
    }

    /// The operands of an op taking `head` then the current values of the variables `names`,
    /// and those values' types; a variable without a value is an error, worded by `missing`.
    fn head_and_values(
        &self,
        bi: usize,
        i: usize,
        op: &'a LegacyOp,
        head: Value,
        names: &[&'a str],
        missing: impl Fn(&str) -> String,
    ) -> Result<ValuesAndTypes, TranslateError> {
        let mut operands = Vec::with_capacity(names.len() + 1);
        operands.push(Some(head));
        let mut types = Vec::with_capacity(names.len());
        for name in names {
            let v =
                self.vars
                    .get(name)
                    .map(|v| v.value)
                    .ok_or_else(|| TranslateError::Invalid {
                        at: Box::new(at(bi, i, op)),
                        message: missing(name),
                    })?;
            operands.push(Some(v));
            types.push(self.program.value_type(v));
        }
        Ok((operands, types))
    }

    /// The values the loop body yields at its end: the condition, then the loop variables.
    fn loop_yields(
        &self,
        bi: usize,
        i: usize,
        op: &'a LegacyOp,
        cond_name: &'a str,
        loop_vars: &[&'a str],
    ) -> Result<Vec<Option<Value>>, TranslateError> {
        std::iter::once(cond_name)
            .chain(loop_vars.iter().copied())
            .map(|n| {
                self.vars
                    .get(n)
                    .map(|v| Some(v.value))
                    .ok_or_else(|| TranslateError::Invalid {
                        at: Box::new(at(bi, i, op)),
                        message: format!("`{n}` has no value at the end of the body"),
                    })
            })
            .collect()
    }

    /// `select_input(Mask, X) -> Out`: `pd_op.select_input(mask, x0, x1)`, typed as `Out`.
    fn select_input(
        &mut self,
        bi: usize,
        i: usize,
        op: &'a LegacyOp,
        block: BlockId,
    ) -> Result<(), TranslateError> {
        let def = self.control_flow_def(bi, i, op, "pd_op.select_input")?;
        let mask = self.input_value(bi, i, op, "Mask", 0)?;
        let x0 = self.input_value(bi, i, op, "X", 0)?;
        let x1 = self.input_value(bi, i, op, "X", 1)?;
        let Some([out]) = op.output("Out") else {
            return Err(TranslateError::Invalid {
                at: Box::new(at(bi, i, op)),
                message: "select_input must have one `Out`".into(),
            });
        };
        let ty = self.var_type(bi, i, op, out)?;
        let new = self.append_plain(
            def,
            &[Some(mask), Some(x0), Some(x1)],
            &[Some(ty)],
            block,
            at(bi, i, op),
        )?;
        let v = self.program.op(new).result(0);
        self.vars.push(out, VariableDefiningInfo::new(v));
        Ok(())
    }

    /// `select_output(Mask, X) -> Out[2]`: `pd_op.select_output(mask, x)`, both results typed
    /// as `x` (Paddle's `SelectOutputOpTranscriber`).
    fn select_output(
        &mut self,
        bi: usize,
        i: usize,
        op: &'a LegacyOp,
        block: BlockId,
    ) -> Result<(), TranslateError> {
        let def = self.control_flow_def(bi, i, op, "pd_op.select_output")?;
        let mask = self.input_value(bi, i, op, "Mask", 0)?;
        let x = self.input_value(bi, i, op, "X", 0)?;
        let outs = match op.output("Out") {
            Some(outs @ [_, _]) => outs,
            _ => {
                return Err(TranslateError::Invalid {
                    at: Box::new(at(bi, i, op)),
                    message: "select_output must have two `Out` variables".into(),
                })
            }
        };
        let ty = self.program.value_type(x);
        let new =
            self.append_plain(def, &[Some(mask), Some(x)], &[ty, ty], block, at(bi, i, op))?;
        for (k, name) in outs.iter().enumerate() {
            let v = self.program.op(new).result(k);
            self.vars.push(name, VariableDefiningInfo::new(v));
        }
        Ok(())
    }

    /// Step 4: `builtin.set_parameter` after the op defining a written, never-read parameter.
    fn set_parameters(&mut self) -> Result<(), TranslateError> {
        let legacy = self.legacy;
        for (i, op) in legacy.global_block().ops.iter().enumerate().rev() {
            if NO_SET_PARAMETER_OPS.contains(&op.op_type.as_str()) {
                continue;
            }
            let inputs = ArgumentSet::new(&op.inputs);
            for name in argument_names(&op.outputs) {
                if !self.candidates.contains_key(name)
                    || self.visited.contains(name)
                    || !self.vars.contains(name)
                    || inputs.contains(name)
                {
                    continue;
                }
                let Some(mut info) = self.vars.get(name).copied() else {
                    continue;
                };
                if info.generated_by_vector {
                    let v =
                        builders::insert_slice(&mut self.program, self.block, &mut self.vars, name)
                            .map_err(|e| TranslateError::Invalid {
                                at: Box::new(self.at_op(i)),
                                message: match e {
                                    SliceError::Unmapped => format!("`{name}` is unmapped"),
                                    SliceError::Invalid(m) => m,
                                },
                            })?;
                    info = VariableDefiningInfo::new(v);
                }
                let Some(defining) = self.program.defining_op(info.value) else {
                    continue;
                };
                builders::parameter_op(
                    &mut self.program,
                    InsertPoint::After(defining),
                    &builtin::SET_PARAMETER_DEF,
                    name,
                    &[Some(info.value)],
                    &[],
                )
                .map_err(|e| Self::ir_error(self.at_op(i), e))?;
                if let Some(ty) = self.program.value_type(info.value) {
                    self.record_parameter(name, ty);
                }
                self.visited.insert(name);
            }
        }
        Ok(())
    }

    /// The declaration whose flags each mapped variable's values get, in the order they are
    /// written. Paddle's passes run for every block in order, each taking the declaration
    /// `FindVarRecursive` finds from that block, so the last block finding one decides (and,
    /// for a value mapped to several variables, the variable written last).
    fn flag_sources(&self) -> Vec<(&'a LegacyVar, &[VariableDefiningInfo])> {
        let mapped = self.vars.iter().filter(|(name, _)| !no_cast(name));
        if self.legacy.blocks.len() == 1 || self.vars.is_empty() {
            return mapped
                .filter_map(|(name, values)| Some((self.var_index.local(0, name)?, values)))
                .collect();
        }
        let last = self.var_index.last_found();
        let mut sources: Vec<(usize, &'a LegacyVar, &[VariableDefiningInfo])> = mapped
            .filter_map(|(name, values)| {
                let &(block, var) = last.get(name)?;
                Some((block, var, values))
            })
            .collect();
        sources.sort_by_key(|&(block, _, _)| block);
        sources
            .into_iter()
            .map(|(_, var, values)| (var, values))
            .collect()
    }

    /// Step 5: the `stop_gradient` and `persistable` arrays. Paddle runs one pass per flag and
    /// block; both are computed here in one sweep and each op's arrays are written once.
    fn set_value_flags(&mut self) -> Result<(), TranslateError> {
        let mut flags: FxHashMap<OpId, (Flags, Flags)> =
            FxHashMap::with_capacity_and_hasher(self.vars.len(), Default::default());
        let ctx = self.ctx();
        let read = |program: &Program, op: OpId, name: &str| -> Flags {
            let r = program.op(op);
            match r.attr_data(name) {
                Some(AttrData::Array(items)) if items.len() == r.num_results() => items
                    .iter()
                    .map(|&a| matches!(ctx.attr_data(a), AttrData::Bool(true)))
                    .collect(),
                _ => std::iter::repeat_n(false, r.num_results()).collect(),
            }
        };
        let mut order: Vec<OpId> = Vec::new();
        for (var, values) in self.flag_sources() {
            for info in values {
                let pir_runtime::ValueDef::OpResult { op, index } =
                    self.program.value_def(info.value)
                else {
                    continue;
                };
                let entry = flags.entry(op).or_insert_with(|| {
                    order.push(op);
                    (
                        read(&self.program, op, "stop_gradient"),
                        read(&self.program, op, "persistable"),
                    )
                });
                if let Some(s) = entry.0.get_mut(index as usize) {
                    *s = var.stop_gradient;
                }
                if let Some(p) = entry.1.get_mut(index as usize) {
                    *p = var.persistable;
                }
            }
        }
        for op in order {
            let (sg, pers) = &flags[&op];
            let (sg, pers) = (bools(ctx, sg), bools(ctx, pers));
            // One new dictionary: the op's entries with both arrays set.
            let entries: SmallVec<[(&str, Attribute); 16]> = self
                .program
                .op(op)
                .attribute_entries()
                .iter()
                .map(|(n, a)| (&**n, *a))
                .filter(|(n, _)| *n != "stop_gradient" && *n != "persistable")
                .chain([("persistable", pers), ("stop_gradient", sg)])
                .collect();
            let dict = ctx.dict_attr(&entries);
            drop(entries);
            self.program
                .set_attributes(op, dict)
                .map_err(|e| Self::ir_error(Location::program(), e))?;
        }
        Ok(())
    }
}

/// One flag per result of an op.
type Flags = SmallVec<[bool; 6]>;

fn bools(ctx: &IrContext, v: &[bool]) -> Attribute {
    if let [b] = v {
        return bool_array(ctx, *b, 1);
    }
    ctx.bool_array_attr(v)
}

/// Whether a verification error is about a result or operand left without a type.
fn is_null_type_error(e: &pir_runtime::VerifyError) -> bool {
    e.message().contains("<<NULL TYPE>>")
}
