//! The typed-build form of an infer-meta call: arguments read in place from the build (the
//! inputs' interned metadata, the Rust attribute values) and outputs interned as they are set,
//! with no argument or output vector in between.
//!
//! A function sees the same [`InferMetaCtx`](super::InferMetaCtx) either way: the common
//! accessors read the build's values directly, anything else (a reader that wants the
//! [`MetaArg`] form, a mismatch to report) works on the arguments made on demand, so results
//! and messages are those of the [`MetaArg`] call.

use std::cell::OnceCell;

use pir_spec::{OpSchema, TensorKind, ValueKind};

use super::{AttrValue, MetaArg, MetaOut, TensorMeta};
use crate::context::IrContext;
use crate::op_def::ParamRef;
use crate::op_support::AttrArg;
use crate::phi::DataType;
use crate::types::{TensorKey, Type, TypeKey, TypeKind};

/// The values of boolean constants in `infer_meta.param` lists.
pub(crate) static TRUE: AttrValue<'static> = AttrValue::Bool(true);
/// See [`TRUE`].
pub(crate) static FALSE: AttrValue<'static> = AttrValue::Bool(false);

/// One schema input of a typed build: its dense (or selected-rows) metadata, borrowed from the
/// interned type, and that type; both `None` for an absent optional input.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BuildInput<'a> {
    pub(crate) meta: Option<&'a TensorMeta>,
    pub(crate) ty: Option<Type>,
}

/// A typed build's arguments. Every `ParamRef` index is in range (the caller checks).
#[derive(Clone, Copy)]
pub(crate) struct BuildArgs<'a> {
    pub(crate) ctx: &'a IrContext,
    pub(crate) schema: &'static OpSchema,
    pub(crate) params: &'a [ParamRef],
    pub(crate) inputs: &'a [BuildInput<'a>],
    pub(crate) attrs: &'a [AttrArg<'a>],
}

/// An output of a typed build as the function leaves it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) enum TypedOut {
    /// Not set.
    #[default]
    None,
    /// Its type.
    Type(Type),
    /// Set to what the output's kind cannot hold: a tensor list (`true`) or one tensor.
    Wrong(bool),
    /// Shares argument `i`, which is not a tensor.
    SharesNonTensor(usize),
}

/// [`BuildArgs`] with the [`MetaArg`] form of the arguments, made on first need.
pub(crate) struct BuildCall<'a> {
    pub(crate) args: BuildArgs<'a>,
    cells: OnceCell<Box<[OnceCell<AttrValue<'static>>]>>,
    meta_args: OnceCell<Box<[MetaArg<'a>]>>,
}

impl<'a> BuildCall<'a> {
    pub(crate) fn new(args: BuildArgs<'a>) -> BuildCall<'a> {
        BuildCall {
            args,
            cells: OnceCell::new(),
            meta_args: OnceCell::new(),
        }
    }

    /// The arguments as [`MetaArg`]s (what the general build passes), made once.
    #[cold]
    #[inline(never)]
    pub(crate) fn meta_args(&'a self) -> &'a [MetaArg<'a>] {
        self.meta_args.get_or_init(|| {
            let b = &self.args;
            let cells = self
                .cells
                .get_or_init(|| b.attrs.iter().map(|_| OnceCell::new()).collect());
            b.params
                .iter()
                .map(|p| match *p {
                    ParamRef::Input(k) => MetaArg::Tensor(b.inputs[k as usize].meta),
                    ParamRef::Attr(k) => {
                        let k = k as usize;
                        MetaArg::Arg(&b.attrs[k], b.schema.attributes[k].kind, &cells[k])
                    }
                    ParamRef::Bool(true) => MetaArg::Attr(&TRUE),
                    ParamRef::Bool(false) => MetaArg::Attr(&FALSE),
                })
                .collect()
        })
    }
}

impl<'a> BuildArgs<'a> {
    /// Argument `i` if it is a tensor input: its metadata (`None`: absent).
    #[inline]
    pub(crate) fn tensor(&self, i: usize) -> Option<Option<&'a TensorMeta>> {
        match self.params.get(i) {
            Some(ParamRef::Input(k)) => Some(self.inputs[*k as usize].meta),
            _ => None,
        }
    }

    /// Argument `i` if it is an attribute: the build's value.
    #[inline]
    pub(crate) fn raw(&self, i: usize) -> Option<&'a AttrArg<'a>> {
        match self.params.get(i) {
            Some(ParamRef::Attr(k)) => Some(&self.attrs[*k as usize]),
            _ => None,
        }
    }

    /// The argument that is exactly `x` (the same borrowed metadata), as `Output::share` finds
    /// it among [`MetaArg::Tensor`]s.
    #[inline]
    pub(crate) fn position_of(&self, x: &TensorMeta) -> Option<usize> {
        self.params.iter().position(|p| match p {
            ParamRef::Input(k) => self.inputs[*k as usize]
                .meta
                .is_some_and(|m| std::ptr::eq(m, x)),
            _ => false,
        })
    }

    /// Output `j` set to one tensor `m`.
    #[inline]
    pub(crate) fn tensor_out(&self, j: usize, m: &TensorMeta) -> TypedOut {
        match self.schema.outputs[j].kind {
            ValueKind::Tensor(k) => TypedOut::Type(tensor_type(self.ctx, k, m)),
            ValueKind::Vector(_) => TypedOut::Wrong(false),
        }
    }

    /// Output `j` set to `TensorMeta::new(dtype, dims)`: a dense output's type interned from
    /// the dims (the type `tensor_type` gives that metadata).
    #[inline]
    pub(crate) fn new_out(&self, j: usize, dtype: DataType, dims: &[i64]) -> TypedOut {
        match self.schema.outputs[j].kind {
            ValueKind::Tensor(TensorKind::Dense) => {
                TypedOut::Type(self.ctx.dense_tensor_type(dtype, dims))
            }
            _ => self.tensor_out(j, &TensorMeta::new(dtype, dims)),
        }
    }

    /// Output `j` sharing argument `i`: the input's own type when its kind fits, else `m`'s.
    pub(crate) fn shared_out(&self, j: usize, i: usize) -> TypedOut {
        let ValueKind::Tensor(k) = self.schema.outputs[j].kind else {
            // A shared output is not "one tensor" to the general build's message.
            return TypedOut::Wrong(true);
        };
        let Some(ParamRef::Input(x)) = self.params.get(i) else {
            return TypedOut::SharesNonTensor(i);
        };
        let input = self.inputs[*x as usize];
        match (input.ty, input.meta) {
            (Some(t), Some(_)) if t.kind() == kind_of(k) => TypedOut::Type(t),
            (_, Some(m)) => TypedOut::Type(tensor_type(self.ctx, k, m)),
            (_, None) => TypedOut::SharesNonTensor(i),
        }
    }

    /// Output `j` set to `x`, shared when `x` is one of the arguments.
    #[inline]
    pub(crate) fn share_out(&self, j: usize, x: &TensorMeta) -> TypedOut {
        match self.position_of(x) {
            Some(i) => self.shared_out(j, i),
            None => self.tensor_out(j, x),
        }
    }

    /// Output `j` set to a tensor list.
    pub(crate) fn list_out(&self, j: usize, ms: &[TensorMeta]) -> TypedOut {
        match self.schema.outputs[j].kind {
            ValueKind::Vector(k) => {
                let elems: smallvec::SmallVec<[Type; 8]> =
                    ms.iter().map(|m| tensor_type(self.ctx, k, m)).collect();
                TypedOut::Type(self.ctx.vector_type(&elems))
            }
            ValueKind::Tensor(_) => TypedOut::Wrong(true),
        }
    }

    /// Output `j` set to `out` (the positional setters).
    pub(crate) fn out_of(&self, j: usize, out: MetaOut) -> TypedOut {
        match out {
            MetaOut::None => TypedOut::None,
            MetaOut::Tensor(m) => self.tensor_out(j, &m),
            MetaOut::Tensors(ms) => self.list_out(j, &ms),
            MetaOut::Shared(i) => self.shared_out(j, i),
        }
    }
}

/// The type kind of a tensor kind.
pub(crate) fn kind_of(k: TensorKind) -> TypeKind {
    match k {
        TensorKind::SelectedRows => TypeKind::SelectedRows,
        TensorKind::DenseTensorArray => TypeKind::DenseTensorArray,
        TensorKind::Dense => TypeKind::DenseTensor,
        TensorKind::SparseCoo => TypeKind::SparseCoo,
        TensorKind::SparseCsr => TypeKind::SparseCsr,
    }
}

/// The interned type of kind `kind` with metadata `m`.
pub(crate) fn tensor_type(ctx: &IrContext, kind: TensorKind, m: &TensorMeta) -> Type {
    match kind {
        TensorKind::SelectedRows => ctx.intern_type(TypeKey::SelectedRows(TensorKey::of_meta(m))),
        TensorKind::DenseTensorArray => ctx.dense_tensor_array_type(m.dtype, &m.dims, m.layout),
        TensorKind::SparseCoo => ctx.sparse_coo_type_of(m),
        TensorKind::SparseCsr => ctx.sparse_csr_type_of(m),
        TensorKind::Dense => ctx.tensor_type_of(m),
    }
}
