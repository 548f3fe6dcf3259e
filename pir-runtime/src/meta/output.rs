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

use super::{InferMetaCtx, InferMetaError, MetaArg, MetaOut, TensorMeta};

/// The op's result slots, handed out in order to the function's output parameters.
pub struct OutputSlots<'c> {
    args: &'c [MetaArg<'c>],
    slots: std::slice::IterMut<'c, MetaOut>,
    next: usize,
    count: usize,
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
        let count = self.outputs.len();
        OutputSlots {
            args: self.args,
            slots: self.outputs.iter_mut(),
            next: 0,
            count,
        }
    }
}

impl<'c> OutputSlots<'c> {
    fn slot(&mut self) -> (Option<&'c mut MetaOut>, usize) {
        let index = self.next;
        self.next += 1;
        (self.slots.next(), index)
    }

    /// The next slot, for a `MetaTensor*` parameter.
    pub fn output(&mut self) -> Output<'c> {
        let (slot, index) = self.slot();
        Output {
            slot,
            index,
            count: self.count,
            args: self.args,
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
    slot: Option<&'c mut MetaOut>,
    index: usize,
    count: usize,
    args: &'c [MetaArg<'c>],
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
    pub fn set(self, meta: TensorMeta) -> Result<(), InferMetaError> {
        match self.slot {
            Some(s) => {
                *s = MetaOut::Tensor(meta);
                Ok(())
            }
            None => Err(missing(self.index, self.count)),
        }
    }

    /// Sets the output if the op has it (an optional or intermediate output); else nothing.
    pub fn set_if_present(self, meta: TensorMeta) {
        if let Some(s) = self.slot {
            *s = MetaOut::Tensor(meta);
        }
    }

    /// `out->share_meta(x)`: the output has exactly `x`'s metadata. When `x` is one of the
    /// call's tensor arguments the build reuses its type without copying or interning.
    pub fn share(self, x: &TensorMeta) -> Result<(), InferMetaError> {
        let shared = self
            .args
            .iter()
            .position(|a| matches!(a, MetaArg::Tensor(Some(t)) if ptr::eq(*t, x)));
        match self.slot {
            Some(s) => {
                *s = match shared {
                    Some(i) => MetaOut::Shared(i),
                    None => MetaOut::Tensor(x.clone()),
                };
                Ok(())
            }
            None => Err(missing(self.index, self.count)),
        }
    }

    /// The same slot, borrowed again (to pass to a helper and keep using it).
    pub fn reborrow(&mut self) -> Output<'_> {
        Output {
            slot: self.slot.as_deref_mut(),
            index: self.index,
            count: self.count,
            args: self.args,
        }
    }
}

/// A tensor-list output (Paddle's `std::vector<MetaTensor*> out`).
pub struct OutputList<'c> {
    slot: Option<&'c mut MetaOut>,
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
                *s = MetaOut::Tensors(metas);
                Ok(())
            }
            None => Err(missing(self.index, self.count)),
        }
    }

    /// Sets the output if the op has it; else nothing.
    pub fn set_if_present(self, metas: Vec<TensorMeta>) {
        if let Some(s) = self.slot {
            *s = MetaOut::Tensors(metas);
        }
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
