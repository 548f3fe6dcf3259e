//! Output parameters of typed infer-meta functions: Paddle's `MetaTensor* out` and
//! `std::vector<MetaTensor*> out`, as handles onto the op's result slots.
//!
//! ```
//! use pir_runtime::meta::{InferMetaCtx, MetaArg, MetaOut, Output, TensorMeta};
//! use pir_runtime::phi::DataType;
//! fn unchanged(x: &TensorMeta, out: Output<'_>) -> Result<(), pir_runtime::meta::InferMetaError> {
//!     out.share(x)
//! }
//! let x = TensorMeta::new(DataType::Float32, &[2]);
//! let args = [MetaArg::Tensor(Some(&x))];
//! let mut outs = [MetaOut::None];
//! let mut ctx = InferMetaCtx::new(&args, &mut outs);
//! let x = ctx.tensor(0).unwrap();
//! unchanged(x, ctx.outputs().output()).unwrap();
//! assert_eq!(outs[0], MetaOut::Shared(0)); // the build reuses x's type
//! ```

use std::ptr;

use crate::phi::DataType;

use super::{
    BuildArgs, InferMetaCtx, InferMetaError, MetaArg, MetaOut, Outputs, TensorMeta, TypedOut,
};

/// The op's result slots, handed out in order to the function's output parameters.
pub struct OutputSlots<'c> {
    slots: Slots<'c>,
    next: usize,
    count: usize,
}

/// The slots of a [`MetaArg`] call, or of a typed build (whose outputs are interned as set).
enum Slots<'c> {
    Meta(&'c [MetaArg<'c>], std::slice::IterMut<'c, MetaOut>),
    Typed(&'c BuildArgs<'c>, std::slice::IterMut<'c, TypedOut>),
}

/// One output slot.
enum Slot<'c> {
    Meta(&'c mut MetaOut, &'c [MetaArg<'c>]),
    Typed(&'c mut TypedOut, &'c BuildArgs<'c>),
}

impl Slot<'_> {
    fn reborrow(&mut self) -> Slot<'_> {
        match self {
            Slot::Meta(s, a) => Slot::Meta(s, a),
            Slot::Typed(s, b) => Slot::Typed(s, b),
        }
    }
}

impl<'a> InferMetaCtx<'a> {
    /// The output slots, to hand to a typed function's output parameters in order.
    ///
    /// ```
    /// use pir_runtime::meta::{InferMetaCtx, MetaOut};
    /// let mut outs = [MetaOut::None];
    /// let mut ctx = InferMetaCtx::new(&[], &mut outs);
    /// let mut slots = ctx.outputs();
    /// let (a, b) = (slots.output(), slots.output());
    /// assert!(a.is_present() && !b.is_present()); // the op has one output
    /// ```
    pub fn outputs(&mut self) -> OutputSlots<'_> {
        let count = self.num_outputs();
        let slots = match (&mut self.outputs, self.build) {
            (Outputs::Typed(o), Some(b)) => Slots::Typed(&b.args, o.iter_mut()),
            // Typed outputs come with a build (`for_build`): no slots otherwise.
            (Outputs::Typed(_), None) => Slots::Meta(&[], Default::default()),
            (Outputs::Meta(o), _) => Slots::Meta(self.args, o.iter_mut()),
        };
        OutputSlots {
            slots,
            next: 0,
            count,
        }
    }
}

impl<'c> OutputSlots<'c> {
    fn slot(&mut self) -> (Option<Slot<'c>>, usize) {
        let index = self.next;
        self.next += 1;
        let slot = match &mut self.slots {
            Slots::Meta(args, it) => it.next().map(|s| Slot::Meta(s, args)),
            Slots::Typed(b, it) => it.next().map(|s| Slot::Typed(s, b)),
        };
        (slot, index)
    }

    /// The next slot, for a `MetaTensor*` parameter.
    pub fn output(&mut self) -> Output<'c> {
        let (slot, index) = self.slot();
        Output {
            slot,
            index,
            count: self.count,
        }
    }

    /// The next slot, for a `std::vector<MetaTensor*>` parameter.
    pub fn output_list(&mut self) -> OutputList<'c> {
        let (slot, index) = self.slot();
        OutputList {
            slot,
            index,
            count: self.count,
        }
    }
}

#[cold]
fn missing(index: usize, count: usize) -> InferMetaError {
    InferMetaError(format!(
        "output {index} does not exist: the op has {count} outputs"
    ))
}

/// One tensor output (Paddle's `MetaTensor* out`). Absent when the op has fewer outputs than
/// the function (trailing optional or intermediate outputs of some ops).
pub struct Output<'c> {
    slot: Option<Slot<'c>>,
    index: usize,
    count: usize,
}

impl Output<'_> {
    /// Whether the op has this output.
    pub fn is_present(&self) -> bool {
        self.slot.is_some()
    }

    /// Sets the output; an error when the op lacks it.
    ///
    /// ```
    /// use pir_runtime::meta::{InferMetaCtx, MetaOut, TensorMeta};
    /// use pir_runtime::phi::DataType;
    /// let mut ctx = InferMetaCtx::new(&[], &mut []);
    /// let e = ctx.outputs().output().set(TensorMeta::new(DataType::Bool, &[1])).unwrap_err();
    /// assert_eq!(e.0, "output 0 does not exist: the op has 0 outputs");
    /// ```
    #[inline]
    pub fn set(self, meta: TensorMeta) -> Result<(), InferMetaError> {
        match self.slot {
            Some(s) => {
                put(s, self.index, meta);
                Ok(())
            }
            None => Err(missing(self.index, self.count)),
        }
    }

    /// Sets the output to a fresh tensor of `dtype` and `dims` ([`TensorMeta::new`]: layout
    /// NCHW, no LoD, offset 0), what most functions produce; an error when the op lacks it.
    /// A typed build interns the type from `dims` directly, with no metadata to fill and drop.
    ///
    /// ```
    /// use pir_runtime::meta::{InferMetaCtx, MetaOut, TensorMeta};
    /// use pir_runtime::phi::DataType;
    /// let mut outs = [MetaOut::None];
    /// let mut ctx = InferMetaCtx::new(&[], &mut outs);
    /// ctx.outputs().output().set_new(DataType::Int64, &[2, 3]).unwrap();
    /// assert_eq!(outs[0], MetaOut::Tensor(TensorMeta::new(DataType::Int64, &[2, 3])));
    /// ```
    #[inline]
    pub fn set_new(self, dtype: DataType, dims: &[i64]) -> Result<(), InferMetaError> {
        match self.slot {
            Some(Slot::Meta(s, _)) => {
                *s = MetaOut::Tensor(TensorMeta::new(dtype, dims));
                Ok(())
            }
            Some(Slot::Typed(s, b)) => {
                *s = b.new_out(self.index, dtype, dims);
                Ok(())
            }
            None => Err(missing(self.index, self.count)),
        }
    }

    /// Sets the output if the op has it (an optional or intermediate output); else nothing.
    pub fn set_if_present(self, meta: TensorMeta) {
        if let Some(s) = self.slot {
            put(s, self.index, meta);
        }
    }

    /// `out->share_meta(x)`: the output has exactly `x`'s metadata. When `x` is one of the
    /// call's tensor arguments the build reuses its type without copying or interning.
    pub fn share(self, x: &TensorMeta) -> Result<(), InferMetaError> {
        match self.slot {
            Some(Slot::Meta(s, args)) => {
                let shared = args
                    .iter()
                    .position(|a| matches!(a, MetaArg::Tensor(Some(t)) if ptr::eq(*t, x)));
                *s = match shared {
                    Some(i) => MetaOut::Shared(i),
                    None => MetaOut::Tensor(x.clone()),
                };
                Ok(())
            }
            Some(Slot::Typed(s, b)) => {
                *s = b.share_out(self.index, x);
                Ok(())
            }
            None => Err(missing(self.index, self.count)),
        }
    }

    /// The same slot, borrowed again (to pass to a helper and keep using it).
    pub fn reborrow(&mut self) -> Output<'_> {
        Output {
            slot: self.slot.as_mut().map(Slot::reborrow),
            index: self.index,
            count: self.count,
        }
    }
}

/// Sets output slot `j` to one tensor: kept, or interned for a typed build.
#[inline]
fn put(slot: Slot<'_>, j: usize, meta: TensorMeta) {
    match slot {
        Slot::Meta(s, _) => *s = MetaOut::Tensor(meta),
        Slot::Typed(s, b) => *s = b.tensor_out(j, &meta),
    }
}

/// A tensor-list output (Paddle's `std::vector<MetaTensor*> out`).
pub struct OutputList<'c> {
    slot: Option<Slot<'c>>,
    index: usize,
    count: usize,
}

impl OutputList<'_> {
    /// Whether the op has this output.
    pub fn is_present(&self) -> bool {
        self.slot.is_some()
    }

    /// Sets the output; an error when the op lacks it.
    ///
    /// ```
    /// use pir_runtime::meta::{InferMetaCtx, MetaOut, TensorMeta};
    /// use pir_runtime::phi::DataType;
    /// let mut outs = [MetaOut::None];
    /// let mut ctx = InferMetaCtx::new(&[], &mut outs);
    /// ctx.outputs().output_list().set(vec![TensorMeta::new(DataType::Bool, &[1])]).unwrap();
    /// assert!(matches!(&outs[0], MetaOut::Tensors(v) if v.len() == 1));
    /// ```
    pub fn set(self, metas: Vec<TensorMeta>) -> Result<(), InferMetaError> {
        match self.slot {
            Some(s) => {
                put_list(s, self.index, metas);
                Ok(())
            }
            None => Err(missing(self.index, self.count)),
        }
    }

    /// Sets the output if the op has it; else nothing.
    pub fn set_if_present(self, metas: Vec<TensorMeta>) {
        if let Some(s) = self.slot {
            put_list(s, self.index, metas);
        }
    }
}

fn put_list(slot: Slot<'_>, j: usize, metas: Vec<TensorMeta>) {
    match slot {
        Slot::Meta(s, _) => *s = MetaOut::Tensors(metas),
        Slot::Typed(s, b) => *s = b.list_out(j, &metas),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phi::DataType;

    #[test]
    fn share_refers_to_the_argument_or_copies() {
        let x = TensorMeta::new(DataType::Float32, &[2]);
        let xs = [x.clone()];
        let args = [MetaArg::Tensors(Some(&xs)), MetaArg::Tensor(Some(&x))];
        let mut outs = [MetaOut::None, MetaOut::None, MetaOut::None];
        let mut ctx = InferMetaCtx::new(&args, &mut outs);
        let (list, t) = (ctx.tensors(0).unwrap(), ctx.tensor(1).unwrap());
        let mut slots = ctx.outputs();
        slots.output().share(t).unwrap();
        slots.output().share(&list[0]).unwrap();
        let mut third = slots.output();
        third.reborrow().set_if_present(x.with_dims(&[3]));
        assert!(third.is_present());
        assert!(!slots.output_list().is_present());
        assert_eq!(outs[0], MetaOut::Shared(1));
        assert_eq!(outs[1], MetaOut::Tensor(x.clone()));
        assert_eq!(outs[2], MetaOut::Tensor(x.with_dims(&[3])));
    }
}
