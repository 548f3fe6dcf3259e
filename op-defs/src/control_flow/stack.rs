//! The `cf` dialect's stack ops, which carry forward values to a backward region: Paddle
//! 3.3.1's `cf.stack_create`, `cf.tuple_push`, `cf.tuple_pop` (`cf_op.h`) and
//! `cf.has_elements` (`control_flow_op.h`), with the types `cf.stack`, `cf.inlet` and
//! `cf.outlet` (`cf_type.h`).
//!
//! A `cf.stack_create` makes a stack and its two ends; the inlet has exactly one use, a
//! `cf.tuple_push` of a tuple of values, and the outlet exactly one, a `cf.tuple_pop` whose
//! results are typed as the pushed values. `cf.has_elements` tells whether the stack is
//! non-empty (the condition of a backward `while`).
//!
//! Paddle prints the stack's results with the aliases `%stack_N`, `%inlet_N`, `%outlet_N`
//! (`N` counts the `cf.stack_create` ops in printing order) and writes the types in JSON as
//! `2.t_stack`, `2.t_inlet`, `2.t_outlet`. Paddle registers `cf.has_elements` in the `pd_op`
//! dialect although it is named `cf.`; pir-rs registers ops by their name's dialect, so it is
//! a `cf` op here (name, printing and JSON are the same).

use std::fmt;

use pir_runtime::printer::Printer;
use pir_runtime::{
    Builder, IrContext, OpDef, OpId, OpRef, PrintedType, Program, Slot, Type, TypeData, TypeKey,
    Value, ValueDef, VerifyErrorKind,
};

use super::build::ControlFlowError;

/// The `cf` dialect's name.
const CF: &str = "cf";

/// The kinds of `cf` types, by their printed name (`cf.stack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CfType {
    /// `cf.stack` (Paddle's `pir::StackType`, JSON `2.t_stack`): a container.
    Stack,
    /// `cf.inlet` (`pir::InletType`, `2.t_inlet`): where a stack is pushed.
    Inlet,
    /// `cf.outlet` (`pir::OutletType`, `2.t_outlet`): where a stack is popped.
    Outlet,
}

impl CfType {
    /// The name after `cf.`.
    pub fn name(self) -> &'static str {
        match self {
            CfType::Stack => "stack",
            CfType::Inlet => "inlet",
            CfType::Outlet => "outlet",
        }
    }

    /// The interned type.
    ///
    /// ```
    /// use op_defs::control_flow::CfType;
    /// let ctx = pir_runtime::IrContext::new();
    /// let t = CfType::Inlet.get(&ctx);
    /// assert_eq!(t.display(&ctx).to_string(), "cf.inlet");
    /// assert_eq!(CfType::of(&ctx, t), Some(CfType::Inlet));
    /// ```
    pub fn get(self, ctx: &IrContext) -> Type {
        ctx.intern_type(TypeKey::Custom(CF, self.name(), &[]))
    }

    /// The kind of `t`, if it is a `cf` type.
    pub fn of(ctx: &IrContext, t: Type) -> Option<CfType> {
        match ctx.type_data(t) {
            TypeData::Custom {
                dialect,
                name,
                params,
            } if &**dialect == CF && params.is_empty() => match &**name {
                "stack" => Some(CfType::Stack),
                "inlet" => Some(CfType::Inlet),
                "outlet" => Some(CfType::Outlet),
                _ => None,
            },
            _ => None,
        }
    }
}

/// `cf.stack_create`: `() -> (cf.stack, cf.inlet, cf.outlet)`.
pub static STACK_CREATE_DEF: OpDef = OpDef {
    verify: Some(check_stack_create),
    print: Some(print_stack_create),
    ..OpDef::new("cf.stack_create", "cf")
};

/// `cf.tuple_push`: `(inlet, values...) -> ()`.
pub static TUPLE_PUSH_DEF: OpDef = OpDef {
    verify: Some(check_tuple_push),
    ..OpDef::new("cf.tuple_push", "cf")
};

/// `cf.tuple_pop`: `(outlet) -> values...`, typed as the pushed values.
pub static TUPLE_POP_DEF: OpDef = OpDef {
    verify: Some(check_tuple_pop),
    ..OpDef::new("cf.tuple_pop", "cf")
};

/// `cf.has_elements`: `(stack) -> tensor<1xb>`, whether the stack is non-empty.
pub static HAS_ELEMENTS_DEF: OpDef = OpDef {
    attribute_names: &["stop_gradient"],
    verify: Some(check_has_elements),
    ..OpDef::new("cf.has_elements", "cf")
};

handle!(
    /// A `cf.stack_create` (see [`StackCreateOp::build`]).
    StackCreateOp,
    STACK_CREATE_DEF
);
handle!(
    /// A `cf.tuple_push` (see [`TuplePushOp::build`]).
    TuplePushOp,
    TUPLE_PUSH_DEF
);
handle!(
    /// A `cf.tuple_pop` (see [`TuplePopOp::build`]).
    TuplePopOp,
    TUPLE_POP_DEF
);
handle!(
    /// A `cf.has_elements` (see [`HasElementsOp::build`]).
    HasElementsOp,
    HAS_ELEMENTS_DEF
);

impl StackCreateOp {
    /// `cf.stack_create` at `b`'s insertion point (Paddle's `StackCreateOp::Build`: no
    /// operands, no attributes).
    ///
    /// # Errors
    ///
    /// [`ControlFlowError::Ir`] if the insertion point is invalid.
    ///
    /// ```
    /// use op_defs::control_flow::{StackCreateOp, TuplePopOp, TuplePushOp};
    /// use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// let ctx = IrContext::new();
    /// op_defs::pd_op::register(&ctx).unwrap();
    /// let mut prog = Program::new(&ctx);
    /// let mut b = Builder::at_end(&mut prog);
    /// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let stack = StackCreateOp::build(&mut b).unwrap();
    /// let (inlet, outlet) = (stack.inlet(b.program()), stack.outlet(b.program()));
    /// TuplePushOp::build(&mut b, inlet, &[x]).unwrap();
    /// let pop = TuplePopOp::build(&mut b, outlet).unwrap();
    /// assert_eq!(prog.value_type(pop.results(&prog)[0]), Some(t));
    /// pir_runtime::verify(&prog).unwrap();
    /// let text = prog.to_string();
    /// assert!(text.contains("(%stack_0, %inlet_0, %outlet_0) = \"cf.stack_create\" () {} : () -> cf.stack, cf.inlet, cf.outlet\n"));
    /// assert!(text.contains("() = \"cf.tuple_push\" (%inlet_0, %0) {} : (cf.inlet, tensor<2xf32>) -> \n"));
    /// assert!(text.contains("(%1) = \"cf.tuple_pop\" (%outlet_0) {} : (cf.outlet) -> tensor<2xf32>\n"));
    /// ```
    pub fn build(b: &mut Builder<'_>) -> Result<StackCreateOp, ControlFlowError> {
        let ctx = b.ctx().clone();
        let types = [CfType::Stack, CfType::Inlet, CfType::Outlet].map(|k| Some(k.get(&ctx)));
        let op = b.create_with(&STACK_CREATE_DEF, &[], ctx.empty_dict(), &types, 0)?;
        Ok(StackCreateOp(op))
    }

    /// The stack (result 0).
    pub fn stack(self, prog: &Program) -> Value {
        prog.op(self.0).result(0)
    }

    /// The inlet (result 1), which one `cf.tuple_push` uses.
    pub fn inlet(self, prog: &Program) -> Value {
        prog.op(self.0).result(1)
    }

    /// The outlet (result 2), which one `cf.tuple_pop` uses.
    pub fn outlet(self, prog: &Program) -> Value {
        prog.op(self.0).result(2)
    }

    /// The `cf.tuple_push` of the inlet, if it has exactly one use and that is one.
    pub fn tuple_push(self, prog: &Program) -> Option<TuplePushOp> {
        single_user(prog, self.inlet(prog), &TUPLE_PUSH_DEF).map(TuplePushOp)
    }

    /// The `cf.tuple_pop` of the outlet, if it has exactly one use and that is one.
    pub fn tuple_pop(self, prog: &Program) -> Option<TuplePopOp> {
        single_user(prog, self.outlet(prog), &TUPLE_POP_DEF).map(TuplePopOp)
    }
}

impl TuplePushOp {
    /// `cf.tuple_push` of `elements` into `inlet` (a `cf.inlet`).
    ///
    /// # Errors
    ///
    /// [`ControlFlowError::Ir`] if the insertion point is invalid.
    pub fn build(
        b: &mut Builder<'_>,
        inlet: Value,
        elements: &[Value],
    ) -> Result<TuplePushOp, ControlFlowError> {
        let mut operands = Vec::with_capacity(elements.len() + 1);
        operands.push(Some(inlet));
        operands.extend(elements.iter().copied().map(Some));
        let empty = b.ctx().empty_dict();
        let op = b.create_with(&TUPLE_PUSH_DEF, &operands, empty, &[], 0)?;
        Ok(TuplePushOp(op))
    }

    /// The inlet pushed into.
    pub fn inlet(self, prog: &Program) -> Option<Value> {
        prog.op(self.0).operand(0)
    }

    /// The values pushed.
    pub fn elements(self, prog: &Program) -> Vec<Option<Value>> {
        prog.op(self.0).operands().skip(1).collect()
    }
}

impl TuplePopOp {
    /// `cf.tuple_pop` of `outlet` (a `cf.stack_create`'s): one result per value its stack's
    /// `cf.tuple_push` pushes, of the same types (Paddle's `TuplePopOp::Build`), so the push
    /// must be built first.
    ///
    /// # Errors
    ///
    /// [`ControlFlowError::NoTuplePush`] if `outlet` is not a `cf.stack_create`'s or its inlet
    /// has no single `cf.tuple_push`; [`ControlFlowError::Untyped`] for an untyped pushed value.
    pub fn build(b: &mut Builder<'_>, outlet: Value) -> Result<TuplePopOp, ControlFlowError> {
        let prog = b.program();
        let push = stack_of(prog, outlet)
            .and_then(|s| s.tuple_push(prog))
            .ok_or(ControlFlowError::NoTuplePush)?;
        let types = push
            .elements(prog)
            .into_iter()
            .enumerate()
            .map(|(i, v)| {
                v.and_then(|v| prog.value_type(v)).map(Some).ok_or_else(|| {
                    ControlFlowError::Untyped {
                        op: "cf.tuple_pop",
                        what: format!("pushed value {i}"),
                    }
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let empty = b.ctx().empty_dict();
        let op = b.create_with(&TUPLE_POP_DEF, &[Some(outlet)], empty, &types, 0)?;
        Ok(TuplePopOp(op))
    }

    /// The values popped.
    pub fn results(self, prog: &Program) -> Vec<Value> {
        prog.op(self.0).results().collect()
    }
}

impl HasElementsOp {
    /// `cf.has_elements` of `stack` (a `cf.stack`): a `tensor<1xb>` result with
    /// `stop_gradient:[true]`, as Paddle's `HasElementsOp::Build`.
    ///
    /// # Errors
    ///
    /// [`ControlFlowError::Ir`] if the insertion point is invalid.
    ///
    /// ```
    /// use op_defs::control_flow::{HasElementsOp, StackCreateOp};
    /// use pir_runtime::{Builder, IrContext, Program};
    /// let ctx = IrContext::new();
    /// op_defs::pd_op::register(&ctx).unwrap();
    /// let mut prog = Program::new(&ctx);
    /// let mut b = Builder::at_end(&mut prog);
    /// let stack = StackCreateOp::build(&mut b).unwrap();
    /// let s = stack.stack(b.program());
    /// HasElementsOp::build(&mut b, s).unwrap();
    /// assert!(prog.to_string().contains(
    ///     "(%0) = \"cf.has_elements\" (%stack_0) {stop_gradient:[true]} : (cf.stack) -> tensor<1xb>\n"
    /// ));
    /// ```
    pub fn build(b: &mut Builder<'_>, stack: Value) -> Result<HasElementsOp, ControlFlowError> {
        let ctx = b.ctx().clone();
        let out = ctx.dense_tensor_type(pir_runtime::phi::DataType::Bool, &[1]);
        let attrs = ctx.dict_attr(&[("stop_gradient", ctx.bool_array_attr(&[true]))]);
        let op = b.create_with(&HAS_ELEMENTS_DEF, &[Some(stack)], attrs, &[Some(out)], 0)?;
        Ok(HasElementsOp(op))
    }

    /// The result.
    pub fn out(self, prog: &Program) -> Value {
        prog.op(self.0).result(0)
    }
}

/// The `cf.stack_create` that defines `v`, if one does.
fn stack_of(prog: &Program, v: Value) -> Option<StackCreateOp> {
    match prog.value_def(v) {
        ValueDef::OpResult { op, .. } if std::ptr::eq(prog.op(op).def(), &STACK_CREATE_DEF) => {
            Some(StackCreateOp(op))
        }
        _ => None,
    }
}

/// The op using `v`, if `v` has exactly one use and its op is of `def`.
fn single_user(prog: &Program, v: Value, def: &'static OpDef) -> Option<OpId> {
    let mut uses = prog.uses(v);
    let first = uses.next()?;
    if uses.next().is_some() || !std::ptr::eq(prog.op(first.op).def(), def) {
        return None;
    }
    Some(first.op)
}

fn cf_kind(op: OpRef<'_>, t: Option<Type>) -> Option<CfType> {
    t.and_then(|t| CfType::of(op.ctx(), t))
}

fn count(
    op: OpRef<'_>,
    operands: Option<usize>,
    results: Option<usize>,
) -> Result<(), VerifyErrorKind> {
    if let Some(expected) = operands.filter(|&n| n != op.num_operands()) {
        return Err(VerifyErrorKind::OperandCount {
            expected,
            found: op.num_operands(),
            names: None,
        });
    }
    if let Some(expected) = results.filter(|&n| n != op.num_results()) {
        return Err(VerifyErrorKind::ResultCount {
            expected,
            found: op.num_results(),
            names: None,
        });
    }
    Ok(())
}

fn no_regions(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    if op.num_regions() == 0 {
        Ok(())
    } else {
        Err(VerifyErrorKind::RegionCount {
            expected: 0,
            found: op.num_regions(),
        })
    }
}

/// Operand `index` must be a `kind`.
fn operand_is(op: OpRef<'_>, index: usize, kind: CfType) -> Result<(), VerifyErrorKind> {
    let t = op.operand_type(index);
    if cf_kind(op, t) == Some(kind) {
        return Ok(());
    }
    Err(VerifyErrorKind::OperandType {
        index,
        name: None,
        expected: format!("cf.{}", kind.name()).into(),
        found: PrintedType::new(op.ctx(), t),
    })
}

/// Operand `index` (the inlet or outlet) must have exactly one use (Paddle's `VerifyRegion`).
fn single_use(op: OpRef<'_>, index: usize, what: &'static str) -> Result<(), VerifyErrorKind> {
    let Some(v) = op.operand(index) else {
        return Ok(());
    };
    match op.program().use_count(v) {
        1 => Ok(()),
        found => Err(VerifyErrorKind::UseCount {
            value: Slot::Operand(index),
            what,
            found,
        }),
    }
}

/// `cf.stack_create`: no operands, results `cf.stack`, `cf.inlet`, `cf.outlet`.
fn check_stack_create(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    count(op, Some(0), Some(3))?;
    no_regions(op)?;
    for (index, kind) in [CfType::Stack, CfType::Inlet, CfType::Outlet]
        .into_iter()
        .enumerate()
    {
        let t = op.result_type(index);
        if cf_kind(op, t) != Some(kind) {
            return Err(VerifyErrorKind::ResultType {
                index,
                name: None,
                expected: format!("cf.{}", kind.name()).into(),
                found: PrintedType::new(op.ctx(), t),
            });
        }
    }
    Ok(())
}

/// `cf.tuple_push`: an inlet used only here, then the values; no results.
fn check_tuple_push(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    if op.num_operands() == 0 {
        return Err(VerifyErrorKind::OperandCount {
            expected: 1,
            found: 0,
            names: Some(vec!["inlet"]),
        });
    }
    operand_is(op, 0, CfType::Inlet)?;
    count(op, None, Some(0))?;
    no_regions(op)?;
    single_use(op, 0, "the inlet")
}

/// `cf.tuple_pop`: an outlet used only here; when the outlet's stack is in this program, its
/// push pushes as many values, of the popped types.
fn check_tuple_pop(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    count(op, Some(1), None)?;
    operand_is(op, 0, CfType::Outlet)?;
    no_regions(op)?;
    single_use(op, 0, "the outlet")?;
    let prog = op.program();
    let Some(stack) = op.operand(0).and_then(|v| stack_of(prog, v)) else {
        return Ok(()); // the stack is elsewhere: nothing more to compare
    };
    let inlet = stack.inlet(prog);
    let uses = prog.use_count(inlet);
    let Some(push) = stack.tuple_push(prog) else {
        return Err(format!(
            "the outlet's stack must have one cf.tuple_push of its inlet (the inlet has {uses} use(s){})",
            if uses == 1 { ", not a cf.tuple_push" } else { "" }
        )
        .into());
    };
    let pushed = push.elements(prog);
    if pushed.len() != op.num_results() {
        return Err(VerifyErrorKind::PopCount {
            pushed: pushed.len(),
            popped: op.num_results(),
        });
    }
    for (index, v) in pushed.into_iter().enumerate() {
        let want = v.and_then(|v| prog.value_type(v));
        let got = op.result_type(index);
        if want != got {
            return Err(VerifyErrorKind::PopType {
                index,
                pushed: PrintedType::new(op.ctx(), want),
                popped: PrintedType::new(op.ctx(), got),
            });
        }
    }
    Ok(())
}

/// `cf.has_elements`: a container (`cf.stack`) in, a dense tensor out.
fn check_has_elements(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    count(op, Some(1), Some(1))?;
    operand_is(op, 0, CfType::Stack)?;
    no_regions(op)?;
    let t = op.result_type(0);
    if t.is_some_and(|t| matches!(op.ctx().type_data(t), TypeData::DenseTensor(_))) {
        Ok(())
    } else {
        Err(VerifyErrorKind::ResultType {
            index: 0,
            name: None,
            expected: "a dense tensor".into(),
            found: PrintedType::new(op.ctx(), t),
        })
    }
}

/// `StackCreateOp::Print`: names the results `%stack_N`, `%inlet_N`, `%outlet_N` (`N`: this
/// op's index among the `cf.stack_create` ops the printer has printed), then the general line.
fn print_stack_create(p: &mut Printer<'_>, op: OpRef<'_>) -> fmt::Result {
    let n = p.op_index(STACK_CREATE_DEF.name, op.id());
    let names = ["%stack_", "%inlet_", "%outlet_"];
    for (v, prefix) in op.results().zip(names) {
        p.add_value_alias(v, &format!("{prefix}{n}"));
    }
    p.print_operation_with_no_region(op.id())
}
