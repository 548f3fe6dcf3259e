//! Result-type inference: the op's infer-meta (or InferShape) function run on the metadata of
//! its inputs and the values of its attributes.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::sync::LazyLock;

use pir_spec::{AttrKind, InputKind, OpKind, OpSchema, TensorKind, ValueKind};
use smallvec::SmallVec;

use crate::append_arena::AppendArena;
use crate::context::IrContext;
use crate::error::{BuildError, BuildErrorKind, InferOutputError};
use crate::interfaces::{InferMeta, InferShape};
use crate::meta::build::{kind_of, tensor_type};
use crate::meta::{
    AttrValue, BuildArgs, BuildCall, BuildInput, InferMetaCtx, InferMetaFn, IntArrayArg, MetaArg,
    MetaOut, Scalar, TensorMeta, TypedOut, FALSE, TRUE,
};
use crate::op_def::{OpDef, ParamRef};
use crate::program::{OpRef, Program, Value};
use crate::types::{Type, TypeData};

use super::attrs::{attr_value_of, AttrArg};
use super::build::{invalid, schema_of};

/// An input as seen by infer-meta. A tensor's metadata is borrowed from its interned type.
#[derive(Clone, Debug)]
pub enum InputMeta<'a> {
    /// A tensor (or absent), borrowed from its interned type.
    Tensor(Option<&'a TensorMeta>),
    /// A tensor whose type stores its metadata differently (a dense tensor array).
    OwnedTensor(Box<TensorMeta>),
    /// A tensor list (or absent).
    Tensors(Option<Vec<TensorMeta>>),
    /// A mutable attribute's value.
    Attr(AttrValue<'a>),
}

/// The infer-meta view of operand `value` for input kind `kind`. Mutable attributes read the
/// value from a defining `full_int_array` / `full` op when there is one (as Paddle's generated
/// InferMeta does); otherwise the value is unknown (IntArray extents become -1).
#[inline]
pub fn input_meta<'p>(prog: &'p Program, kind: &InputKind, value: Option<Value>) -> InputMeta<'p> {
    let ctx: &'p IrContext = prog.ctx();
    let ty = value.and_then(|v| prog.value_type(v));
    match kind {
        InputKind::Value(ValueKind::Tensor(_)) => match ty.map(|t| (t, ctx.type_data(t))) {
            // The common case: metadata borrowed from the interned type.
            Some((_, TypeData::DenseTensor(m) | TypeData::SelectedRows(m))) => {
                InputMeta::Tensor(Some(m))
            }
            _ => tensor_input(ctx, ty),
        },
        _ => other_input_meta(prog, kind, value, ty),
    }
}

/// The infer-meta view of a tensor input of type `ty`.
fn tensor_input(ctx: &IrContext, ty: Option<Type>) -> InputMeta<'_> {
    match ty.and_then(|t| tensor_meta(ctx, t)) {
        Some(Cow::Owned(m)) => InputMeta::OwnedTensor(Box::new(m)),
        Some(Cow::Borrowed(m)) => InputMeta::Tensor(Some(m)),
        None => InputMeta::Tensor(None),
    }
}

/// [`input_meta`] of a tensor list or a mutable attribute.
#[inline(never)]
fn other_input_meta<'p>(
    prog: &'p Program,
    kind: &InputKind,
    value: Option<Value>,
    ty: Option<Type>,
) -> InputMeta<'p> {
    let ctx: &'p IrContext = prog.ctx();
    match kind {
        InputKind::Value(ValueKind::Tensor(_)) => tensor_input(ctx, ty),
        InputKind::Value(ValueKind::Vector(_)) => InputMeta::Tensors(ty.and_then(|t| {
            match ctx.type_data(t) {
                TypeData::Vector(elems) => elems
                    .iter()
                    .map(|&e| tensor_meta(ctx, e).map(Cow::into_owned))
                    .collect(),
                _ => None,
            }
        })),
        InputKind::MutableAttribute(m) => {
            let def = value.and_then(|v| prog.defining_op(v)).map(|o| prog.op(o));
            let from_full = def.and_then(|d| match (m.kind, d.name()) {
                // full_int_array's `value` is an int64_t[]; full's a double.
                (AttrKind::IntArray, n) if n.ends_with(".full_int_array") => {
                    match d
                        .attr("value")
                        .and_then(|a| attr_value_of(ctx, a, AttrKind::Int64Array))
                    {
                        Some(AttrValue::Ints(v)) => {
                            Some(AttrValue::IntArray(IntArrayArg::known(&v)))
                        }
                        _ => None,
                    }
                }
                // full stores a double; Paddle's generated InferMeta reads it as the mutable
                // attribute's C++ type (`.to<int>()`, ...).
                (AttrKind::Scalar, n) if n.ends_with(".full") => {
                    match d
                        .attr("value")
                        .and_then(|a| attr_value_of(ctx, a, AttrKind::Scalar))
                    {
                        Some(AttrValue::Scalar(Some(v))) => {
                            Some(AttrValue::Scalar(Some(scalar_as(&m.data_type, v))))
                        }
                        other => other,
                    }
                }
                _ => None,
            });
            InputMeta::Attr(from_full.unwrap_or_else(|| match m.kind {
                AttrKind::IntArray => {
                    let len = ty.and_then(|t| match ctx.type_data(t) {
                        TypeData::DenseTensor(tt) if tt.dims.len() == 1 && tt.dims[0] >= 0 => {
                            Some(tt.dims[0] as usize)
                        }
                        TypeData::Vector(e) => Some(e.len()),
                        _ => None,
                    });
                    AttrValue::IntArray(IntArrayArg::unknown(len))
                }
                _ => AttrValue::Scalar(None),
            }))
        }
    }
}

/// `v` converted to the C++ type of a mutable attribute's build argument.
fn scalar_as(data_type: &str, v: Scalar) -> Scalar {
    match data_type {
        "int" | "int32_t" => Scalar::I32(v.to_i64() as i32),
        "int64_t" | "long" => Scalar::I64(v.to_i64()),
        "float" => Scalar::F32(v.to_f64() as f32),
        "double" => Scalar::F64(v.to_f64()),
        "bool" => Scalar::Bool(v.to_f64() != 0.0),
        _ => v,
    }
}

pub(super) fn tensor_meta(ctx: &IrContext, t: Type) -> Option<Cow<'_, TensorMeta>> {
    match ctx.type_data(t) {
        TypeData::DenseTensor(tt) | TypeData::SelectedRows(tt) => Some(Cow::Borrowed(tt)),
        TypeData::DenseTensorArray {
            dtype,
            dims,
            layout,
        } => Some(Cow::Owned(TensorMeta {
            dtype: *dtype,
            dims: dims.iter().copied().collect(),
            layout: *layout,
            lod: Vec::new(),
            offset: 0,
        })),
        TypeData::SparseCoo(s) => Some(Cow::Owned(sparse_meta(s.dtype, &s.dims, s.layout))),
        TypeData::SparseCsr(s) => Some(Cow::Owned(sparse_meta(s.dtype, &s.dims, s.layout))),
        _ => None,
    }
}

/// The metadata infer-meta sees of a sparse tensor: the dense tensor it stands for.
fn sparse_meta(
    dtype: crate::phi::DataType,
    dims: &[i64],
    layout: crate::phi::DataLayout,
) -> TensorMeta {
    TensorMeta {
        dtype,
        dims: dims.iter().copied().collect(),
        layout,
        lod: Vec::new(),
        offset: 0,
    }
}

/// Where the arguments of an infer-meta call come from: the generated table, or resolved from
/// the schema's parameter names (or inputs then attributes for InferShape).
enum Params {
    Static(&'static [ParamRef]),
    Computed(SmallVec<[ParamRef; 10]>),
}

impl Params {
    fn as_slice(&self) -> &[ParamRef] {
        match self {
            Params::Static(p) => p,
            Params::Computed(p) => p,
        }
    }
}

/// The op's infer-meta function, where each of its arguments comes from, and the function's
/// name for messages.
fn inference(
    def: &'static OpDef,
    s: &'static OpSchema,
) -> Result<(InferMetaFn, Params, &'static str), BuildError> {
    if let Some(im) = def.interface::<InferMeta>() {
        if im.func_name.is_empty() {
            return Err(invalid(
                def,
                BuildErrorKind::NotInferable {
                    invoke: s.invoke.as_deref(),
                },
            ));
        }
        let f = im.func().ok_or(BuildError::InferMetaMissing {
            op: def.name,
            func: im.func_name,
        })?;
        let params = match def.infer_params {
            Some(p) => Params::Static(p),
            None => Params::Computed(resolve_params(def, s)?),
        };
        return Ok((f, params, im.func_name));
    }
    if let Some(is) = def.interface::<InferShape>() {
        let params = match def.infer_params {
            Some(p) => Params::Static(p),
            None => Params::Computed(
                (0..s.inputs.len())
                    .map(|i| ParamRef::Input(i as u16))
                    .chain((0..s.attributes.len()).map(|i| ParamRef::Attr(i as u16)))
                    .collect(),
            ),
        };
        return Ok((is.infer, params, "InferShape"));
    }
    Err(BuildError::NoInference { op: def.name })
}

/// Maps the schema's `infer_meta.param` names to inputs and attributes.
pub(crate) fn resolve_params(
    def: &OpDef,
    s: &'static OpSchema,
) -> Result<SmallVec<[ParamRef; 10]>, BuildError> {
    s.runtime
        .infer_meta_param
        .iter()
        .map(|p| {
            if let Some(i) = s.input_index(p) {
                Ok(ParamRef::Input(i as u16))
            } else if let Some(i) = s.attribute_index(p) {
                Ok(ParamRef::Attr(i as u16))
            } else if let Some(b) = OpSchema::param_constant(p) {
                Ok(ParamRef::Bool(b))
            } else {
                Err(invalid(def, BuildErrorKind::UnknownInferParam { name: p }))
            }
        })
        .collect()
}

/// Runs the op's infer-meta (or InferShape) function on `inputs` (one per schema input) and
/// `attrs` (one per schema attribute) and returns the result types.
///
/// `input_types` are the inputs' types where known (one per input, or empty): an output that
/// shares an input's metadata then gets that type without interning.
pub fn infer_result_types(
    ctx: &IrContext,
    def: &'static OpDef,
    inputs: &[InputMeta<'_>],
    input_types: &[Option<Type>],
    attrs: &[AttrValue<'_>],
) -> Result<SmallVec<[Option<Type>; 4]>, BuildError> {
    let s = schema_of(def)?;
    let Some((f, params, fname)) = inference_for(def, s)? else {
        return Ok(SmallVec::new());
    };
    let params = params.as_slice();
    let mut args: SmallVec<[MetaArg<'_>; 10]> = SmallVec::with_capacity(params.len());
    for p in params {
        args.push(match *p {
            ParamRef::Input(i) => input_arg(def, inputs, i)?,
            ParamRef::Attr(i) => match attrs.get(i as usize) {
                Some(a) => MetaArg::Attr(a),
                None => return Err(arity(def, "attribute", i, attrs.len())),
            },
            ParamRef::Bool(true) => MetaArg::Attr(&TRUE),
            ParamRef::Bool(false) => MetaArg::Attr(&FALSE),
        });
    }
    let shared_type = |x: usize| match inputs.get(x) {
        Some(InputMeta::Tensor(Some(_))) => input_types.get(x).copied().flatten(),
        _ => None,
    };
    run_inference(ctx, def, s, f, params, fname, &args, shared_type)
}

/// Result types for a typed build: `inputs` (one per schema input), `input_type(x)` the type
/// of input `x`, and the build's Rust attribute values `attrs` (one per schema attribute),
/// handed to the function as they are ([`MetaArg::Arg`]): a value is converted to an
/// [`AttrValue`] only if the function reads it in that form. The same results as
/// [`infer_result_types`] on the converted values.
pub(crate) fn infer_build_types(
    ctx: &IrContext,
    def: &'static OpDef,
    s: &'static OpSchema,
    inputs: &[InputMeta<'_>],
    input_type: impl Fn(usize) -> Option<Type>,
    attrs: &[AttrArg<'_>],
) -> Result<SmallVec<[Option<Type>; 4]>, BuildError> {
    let Some((f, params, fname)) = inference_for(def, s)? else {
        return Ok(SmallVec::new());
    };
    let params = params.as_slice();
    // One cell per attribute for the values a reader wants as an `AttrValue`: on the stack
    // for up to `CELLS` attributes (empty cells cost a tag each to make and to drop).
    const CELLS: usize = 8;
    let on_stack = [const { OnceCell::<AttrValue<'static>>::new() }; CELLS];
    let on_heap: Vec<OnceCell<AttrValue<'static>>>;
    let cells: &[OnceCell<AttrValue<'static>>] = if attrs.len() <= CELLS {
        &on_stack[..attrs.len()]
    } else {
        on_heap = attrs.iter().map(|_| OnceCell::new()).collect();
        &on_heap
    };
    let mut args: SmallVec<[MetaArg<'_>; 10]> = SmallVec::with_capacity(params.len());
    for p in params {
        args.push(match *p {
            ParamRef::Input(i) => input_arg(def, inputs, i)?,
            ParamRef::Attr(i) => {
                let i = i as usize;
                match (attrs.get(i), s.attributes.get(i), cells.get(i)) {
                    (Some(a), Some(spec), Some(cell)) => MetaArg::Arg(a, spec.kind, cell),
                    _ => return Err(arity(def, "attribute", i as u16, attrs.len())),
                }
            }
            ParamRef::Bool(true) => MetaArg::Attr(&TRUE),
            ParamRef::Bool(false) => MetaArg::Attr(&FALSE),
        });
    }
    let shared_type = |x: usize| match inputs.get(x) {
        Some(InputMeta::Tensor(Some(_))) => input_type(x),
        _ => None,
    };
    run_inference(ctx, def, s, f, params, fname, &args, shared_type)
}

/// Result types for a typed build, read in place: each input a tensor (dense or selected rows,
/// borrowed from its interned type) or absent, the op's inference remembered
/// ([`INFERENCES`]). The function reads the build's values where they are and its outputs are
/// interned as it sets them ([`InferMetaCtx::for_build`]): no argument, metadata or output
/// vector. `None` when the build does not qualify (the caller takes [`infer_build_types`]);
/// otherwise what [`infer_build_types`] returns.
pub(crate) fn infer_in_place(
    prog: &mut Program,
    def: &'static OpDef,
    s: &'static OpSchema,
    operands: &[Option<Value>],
    attrs: &[AttrArg<'_>],
) -> Option<Result<SmallVec<[Option<Type>; 4]>, BuildError>> {
    // The program remembers the inferences of the ops it builds (a few compares, against a
    // lookup in the shared arena).
    let inference = prog
        .attr_memo
        .inference(def, || remembered(def, s).copied())
        .filter(|i| i.in_range)?;
    let prog = &*prog;
    if operands.len() != s.inputs.len() || attrs.len() != s.attributes.len() {
        return None;
    }
    // Fixed arrays on the stack (ops with more inputs or outputs take the general path).
    const MAX: usize = 8;
    if s.inputs.len() > MAX || s.outputs.len() > MAX {
        return None;
    }
    let ctx: &IrContext = prog.ctx();
    let mut inputs = [BuildInput {
        meta: None,
        ty: None,
    }; MAX];
    for ((slot, input), v) in inputs.iter_mut().zip(s.inputs.iter()).zip(operands) {
        if !matches!(input.kind, InputKind::Value(ValueKind::Tensor(_))) {
            return None;
        }
        let ty = v.and_then(|v| prog.value_type(v));
        slot.meta = match ty.map(|t| ctx.type_data(t)) {
            Some(TypeData::DenseTensor(m) | TypeData::SelectedRows(m)) => Some(m),
            None => None,
            Some(_) => return None,
        };
        slot.ty = ty;
    }
    let mut outs = [TypedOut::None; MAX];
    let outs = &mut outs[..s.outputs.len()];
    let call = BuildCall::new(BuildArgs {
        ctx,
        schema: s,
        params: inference.params,
        inputs: &inputs[..s.inputs.len()],
        attrs,
    });
    let called = (inference.func)(&mut InferMetaCtx::for_build(&call, outs));
    Some(match called {
        Ok(()) => typed_results(def, s, inference.name, outs),
        Err(e) => Err(BuildError::InferMeta {
            op: def.name,
            func: inference.name,
            message: e.0,
        }),
    })
}

/// The op's remembered inference, found first if it is not yet (`None`: none to remember,
/// the general path reports why).
#[inline]
fn remembered(def: &'static OpDef, s: &'static OpSchema) -> Option<&'static Inference> {
    if let Some(i) = inference_at(def.attr_cache.inference_slot()) {
        return Some(i);
    }
    inference_for(def, s).ok()?;
    inference_at(def.attr_cache.inference_slot())
}

/// The inference remembered at `slot` (0: none).
#[inline]
fn inference_at(slot: u32) -> Option<&'static Inference> {
    INFERENCES.get(slot.checked_sub(1)? as usize)
}

/// The result types of a typed build's outputs, checked as [`run_inference`] checks them.
fn typed_results(
    def: &'static OpDef,
    s: &'static OpSchema,
    fname: &'static str,
    outs: &[TypedOut],
) -> Result<SmallVec<[Option<Type>; 4]>, BuildError> {
    let output_error = |problem| BuildError::InferOutput {
        op: def.name,
        func: fname,
        problem,
    };
    let mut types = SmallVec::with_capacity(outs.len());
    for (out, spec) in outs.iter().zip(s.outputs.iter()) {
        types.push(match *out {
            TypedOut::Type(t) => Some(t),
            TypedOut::None => {
                if !(spec.optional || spec.intermediate || s.kind == OpKind::Backward) {
                    return Err(output_error(InferOutputError::NotSet {
                        output: &spec.name,
                    }));
                }
                None
            }
            TypedOut::Wrong(list) => {
                return Err(output_error(InferOutputError::WrongArity {
                    output: &spec.name,
                    expected: spec.kind.type_name(),
                    set: if list { "a tensor list" } else { "one tensor" },
                }))
            }
            TypedOut::SharesNonTensor(argument) => {
                return Err(output_error(InferOutputError::SharesNonTensor {
                    output: &spec.name,
                    argument,
                }))
            }
        });
    }
    Ok(types)
}

/// The op's inference function, its argument sources and name; `None` for an op without
/// results that names none (Paddle's `assert`: nothing to infer).
fn inference_for(
    def: &'static OpDef,
    s: &'static OpSchema,
) -> Result<Option<(InferMetaFn, Params, &'static str)>, BuildError> {
    let slot = def.attr_cache.inference_slot();
    if let Some(i) = inference_at(slot) {
        return Ok(Some((i.func, Params::Static(i.params), i.name)));
    }
    match inference(def, s) {
        Ok(found) => {
            if let (Params::Static(params), 0) = (&found.1, slot) {
                remember(def, s, found.0, params, found.2);
            }
            Ok(Some(found))
        }
        Err(BuildError::NoInference { .. }) if s.outputs.is_empty() => Ok(None),
        Err(e) => Err(e),
    }
}

/// An op's inference as [`inference`] finds it from the static definition alone (a table of
/// argument sources, not one computed from the schema): the same every time, so found once per
/// op and kept in [`INFERENCES`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Inference {
    func: InferMetaFn,
    params: &'static [ParamRef],
    name: &'static str,
    /// Whether every parameter names an input or attribute the schema has (then a build, whose
    /// operand and attribute counts are the schema's, needs no range check).
    in_range: bool,
}

/// The inferences found so far, for every context (one per op definition, or a few more when
/// threads find one at once); `OpDef::attr_cache` says where each op's is.
static INFERENCES: LazyLock<AppendArena<Inference, ()>> = LazyLock::new(|| AppendArena::new(()));

#[cold]
fn remember(
    def: &'static OpDef,
    s: &OpSchema,
    func: InferMetaFn,
    params: &'static [ParamRef],
    name: &'static str,
) {
    let in_range = params.iter().all(|p| match *p {
        ParamRef::Input(i) => usize::from(i) < s.inputs.len(),
        ParamRef::Attr(i) => usize::from(i) < s.attributes.len(),
        ParamRef::Bool(_) => true,
    });
    let i = INFERENCES.writer().push(Inference {
        func,
        params,
        name,
        in_range,
    });
    if let Ok(slot) = u32::try_from(i + 1) {
        def.attr_cache.set_inference_slot(slot);
    }
}

/// The argument made of input `i`.
#[inline]
fn input_arg<'a>(
    def: &OpDef,
    inputs: &'a [InputMeta<'a>],
    i: u16,
) -> Result<MetaArg<'a>, BuildError> {
    Ok(match inputs.get(i as usize) {
        Some(InputMeta::Tensor(t)) => MetaArg::Tensor(*t),
        Some(InputMeta::OwnedTensor(t)) => MetaArg::Tensor(Some(t)),
        Some(InputMeta::Tensors(t)) => MetaArg::Tensors(t.as_deref()),
        Some(InputMeta::Attr(a)) => MetaArg::Attr(a),
        None => return Err(arity(def, "input", i, inputs.len())),
    })
}

/// Calls `f` on `args` and turns its outputs into result types. `shared_type(x)` is the type
/// of input `x` when its argument is that input's own metadata (a shared output reuses it).
#[allow(clippy::too_many_arguments)]
fn run_inference(
    ctx: &IrContext,
    def: &'static OpDef,
    s: &'static OpSchema,
    f: InferMetaFn,
    params: &[ParamRef],
    fname: &'static str,
    args: &[MetaArg<'_>],
    shared_type: impl Fn(usize) -> Option<Type>,
) -> Result<SmallVec<[Option<Type>; 4]>, BuildError> {
    let mut outs: SmallVec<[MetaOut; 4]> = SmallVec::new();
    outs.extend((0..s.outputs.len()).map(|_| MetaOut::None));
    f(&mut InferMetaCtx::new(args, &mut outs)).map_err(|e| BuildError::InferMeta {
        op: def.name,
        func: fname,
        message: e.0,
    })?;
    let output_error = |problem| BuildError::InferOutput {
        op: def.name,
        func: fname,
        problem,
    };
    let mut types = SmallVec::with_capacity(outs.len());
    for (out, spec) in outs.iter().zip(s.outputs.iter()) {
        let ty = match (out, spec.kind) {
            (MetaOut::None, _) => {
                if !(spec.optional || spec.intermediate || s.kind == OpKind::Backward) {
                    return Err(output_error(InferOutputError::NotSet {
                        output: &spec.name,
                    }));
                }
                None
            }
            (MetaOut::Tensor(m), ValueKind::Tensor(k)) => Some(tensor_type(ctx, k, m)),
            // A shared output has the type of the tensor it shares: no copy, no interning.
            (MetaOut::Shared(i), ValueKind::Tensor(k)) => {
                let shared = match params.get(*i) {
                    Some(ParamRef::Input(x)) => shared_type(*x as usize),
                    _ => None,
                };
                match shared {
                    Some(t) if t.kind() == kind_of(k) => Some(t),
                    _ => match args.get(*i) {
                        Some(MetaArg::Tensor(Some(m))) => Some(tensor_type(ctx, k, m)),
                        _ => {
                            return Err(output_error(InferOutputError::SharesNonTensor {
                                output: &spec.name,
                                argument: *i,
                            }))
                        }
                    },
                }
            }
            (MetaOut::Tensors(ms), ValueKind::Vector(k)) => {
                let elems: SmallVec<[Type; 8]> =
                    ms.iter().map(|m| tensor_type(ctx, k, m)).collect();
                Some(ctx.vector_type(&elems))
            }
            (got, _) => {
                return Err(output_error(InferOutputError::WrongArity {
                    output: &spec.name,
                    expected: spec.kind.type_name(),
                    set: if matches!(got, MetaOut::Tensor(_)) {
                        "one tensor"
                    } else {
                        "a tensor list"
                    },
                }))
            }
        };
        types.push(ty);
    }
    Ok(types)
}

/// The result type of a single-input, single-output op whose infer-meta is Paddle's
/// `UnchangedInferMeta` (`out->share_meta(x)`: relu, tanh, sigmoid, ...), when the input is a
/// tensor of the output's kind: the input's own type handle. This is exactly what
/// [`infer_result_types`] computes for such an op (its shared output keeps the input's type),
/// without building the infer-meta context; `None` sends the op down the general path.
pub(crate) fn unchanged_result_type(
    prog: &Program,
    def: &'static OpDef,
    s: &OpSchema,
    operands: &[Option<Value>],
) -> Option<Type> {
    let ([_], [output], [Some(x)]) = (&*s.inputs, &*s.outputs, operands) else {
        return None;
    };
    // The rest depends on the definition alone: worked out once per op.
    def.attr_cache
        .unchanged_shortcut(|| unchanged_applies(def, s))?;
    let ValueKind::Tensor(k) = output.kind else {
        return None;
    };
    let t = prog.value_type(*x)?;
    (t.kind() == kind_of(k)).then_some(t)
}

/// Whether `def` is a one-tensor-in, one-tensor-out op whose infer-meta is an existing
/// `UnchangedInferMeta` taking its input: `Some(plain)` if so, `plain` when both tensors are
/// dense, the input is not optional and the op has no attributes.
fn unchanged_applies(def: &'static OpDef, s: &OpSchema) -> Option<bool> {
    let ([input], [output]) = (&*s.inputs, &*s.outputs) else {
        return None;
    };
    if !matches!(input.kind, InputKind::Value(ValueKind::Tensor(_)))
        || !matches!(output.kind, ValueKind::Tensor(_))
        || def.infer_params != Some(&[ParamRef::Input(0)][..])
    {
        return None;
    }
    // The function must also exist, so that a missing one is still reported by the general
    // path.
    let im = def.interface::<InferMeta>()?;
    if im.func_name != "UnchangedInferMeta" || im.func().is_none() {
        return None;
    }
    let dense = ValueKind::Tensor(TensorKind::Dense);
    Some(
        input.kind == InputKind::Value(dense)
            && output.kind == dense
            && !input.optional
            && s.attributes.is_empty(),
    )
}

#[cold]
fn arity(def: &OpDef, what: &'static str, i: u16, n: usize) -> BuildError {
    invalid(
        def,
        BuildErrorKind::InferArgOutOfRange {
            what,
            index: usize::from(i),
            given: n,
        },
    )
}

/// Re-runs the op's infer-meta on its current operands and attributes (for `check-types`).
pub fn reinfer_result_types(op: OpRef<'_>) -> Result<SmallVec<[Option<Type>; 4]>, BuildError> {
    let def = op.def();
    let s = schema_of(def)?;
    let ctx = op.ctx();
    let mut values: SmallVec<[AttrValue<'_>; 8]> = SmallVec::new();
    for spec in s.attributes.iter() {
        let v = op
            .attr(&spec.name)
            .and_then(|a| attr_value_of(ctx, a, spec.kind))
            .ok_or_else(|| {
                invalid(
                    def,
                    BuildErrorKind::UnreadableAttribute {
                        name: &spec.name,
                        expected: spec.kind.type_name(),
                    },
                )
            })?;
        values.push(v);
    }
    let metas: SmallVec<[InputMeta<'_>; 6]> = s
        .inputs
        .iter()
        .enumerate()
        .map(|(i, input)| input_meta(op.program(), &input.kind, op.operand(i)))
        .collect();
    let types: SmallVec<[Option<Type>; 6]> = op.operand_types().collect();
    infer_result_types(ctx, def, &metas, &types, &values)
}
