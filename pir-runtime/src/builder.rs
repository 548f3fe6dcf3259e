//! The builder: creates operations at an insertion point.
//!
//! ```
//! use pir_runtime::{Builder, InsertPoint, IrContext, Program, builtin, phi::DataType};
//! let ctx = IrContext::new();
//! let mut prog = Program::new(&ctx);
//! let t = ctx.dense_tensor_type(DataType::Int64, &[3]);
//! let mut b = Builder::at_end(&mut prog);
//! let x = builtin::parameter(&mut b, "x", t).unwrap();
//! let first = b.program().defining_op(x).unwrap();
//! b.set_insertion_point(InsertPoint::Before(first));
//! builtin::parameter(&mut b, "y", t).unwrap();
//! let names: Vec<_> = prog.block_ops(prog.block())
//!     .map(|o| prog.op(o).attr("parameter_name").unwrap().display(&ctx).to_string())
//!     .collect();
//! assert_eq!(names, ["\"y\"", "\"x\""]);
//! ```

use std::sync::Arc;

use crate::attributes::Attribute;
use crate::context::IrContext;
use crate::error::IrError;
use crate::op_def::OpDef;
use crate::program::{BlockId, InsertPoint, OpId, OperationArgs, Program, Value};
use crate::types::Type;

/// Creates operations in a [`Program`] at an insertion point. Consecutive creations appear in
/// creation order.
///
/// ```
/// use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let mut b = Builder::at_end(&mut prog);
/// let t = b.ctx().dense_tensor_type(DataType::Float32, &[3]);
/// let x = builtin::parameter(&mut b, "x", t).unwrap();
/// let y = builtin::parameter(&mut b, "y", t).unwrap();
/// let v = builtin::combine(&mut b, &[x, y]).unwrap();
/// let ops: Vec<_> = prog.block_ops(prog.block()).collect();
/// assert_eq!(ops.len(), 3);
/// assert_eq!(prog.defining_op(v), Some(ops[2])); // creation order
/// ```
pub struct Builder<'p> {
    prog: &'p mut Program,
    ip: InsertPoint,
}

impl<'p> Builder<'p> {
    /// A builder inserting at `ip`.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, InsertPoint, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let first = prog.defining_op(x).unwrap();
    /// let mut b = Builder::new(&mut prog, InsertPoint::Before(first));
    /// let w = builtin::parameter(&mut b, "w", t).unwrap();
    /// assert_eq!(prog.first_op(prog.block()), prog.defining_op(w));
    /// ```
    pub fn new(prog: &'p mut Program, ip: InsertPoint) -> Builder<'p> {
        Builder { prog, ip }
    }

    /// A builder appending to the program's top-level block.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, InsertPoint, IrContext, Program};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// let block = prog.block();
    /// let b = Builder::at_end(&mut prog);
    /// assert_eq!(b.insertion_point(), InsertPoint::BlockEnd(block));
    /// ```
    pub fn at_end(prog: &'p mut Program) -> Builder<'p> {
        let b = prog.block();
        Builder {
            prog,
            ip: InsertPoint::BlockEnd(b),
        }
    }

    /// A builder appending to `block`.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, OpDef, Program, phi::DataType};
    /// # static FUNC: OpDef = OpDef::new("toy.func", "toy");
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let f = Builder::at_end(&mut prog).create_with(&FUNC, &[], ctx.empty_dict(), &[], 1).unwrap();
    /// let body = prog.add_block(prog.op(f).region(0));
    /// let mut b = Builder::at_block_end(&mut prog, body);
    /// builtin::parameter(&mut b, "inner", t).unwrap();
    /// assert_eq!((prog.block_len(body), prog.block_len(prog.block())), (1, 1));
    /// ```
    pub fn at_block_end(prog: &'p mut Program, block: BlockId) -> Builder<'p> {
        Builder {
            prog,
            ip: InsertPoint::BlockEnd(block),
        }
    }

    /// The insertion point.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, InsertPoint, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let block = prog.block();
    /// let mut b = Builder::new(&mut prog, InsertPoint::BlockStart(block));
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// // After inserting at the start, the builder moves after the new op:
    /// let op = b.program().defining_op(x).unwrap();
    /// assert_eq!(b.insertion_point(), InsertPoint::After(op));
    /// ```
    pub fn insertion_point(&self) -> InsertPoint {
        self.ip
    }

    /// Moves the insertion point.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, InsertPoint, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let block = b.program().block();
    /// b.set_insertion_point(InsertPoint::BlockStart(block));
    /// let y = builtin::parameter(&mut b, "y", t).unwrap();
    /// assert_eq!(prog.first_op(block), prog.defining_op(y));
    /// ```
    pub fn set_insertion_point(&mut self, ip: InsertPoint) {
        self.ip = ip;
    }

    /// The program.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// assert_eq!(b.program().value_type(x), Some(t)); // read while building
    /// ```
    #[inline]
    pub fn program(&self) -> &Program {
        self.prog
    }

    /// The program, mutably.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let op = b.program().defining_op(x).unwrap();
    /// b.program_mut().set_attribute(op, "persistable", ctx.bool_array_attr(&[true])).unwrap();
    /// assert!(prog.op(op).attr("persistable").is_some());
    /// ```
    #[inline]
    pub fn program_mut(&mut self) -> &mut Program {
        self.prog
    }

    /// The context.
    ///
    /// ```
    /// # use pir_runtime::{Builder, IrContext, Program};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// let b = Builder::at_end(&mut prog);
    /// assert_eq!(b.ctx().str_attr("x"), ctx.str_attr("x")); // the program's context
    /// ```
    #[inline]
    pub fn ctx(&self) -> &Arc<IrContext> {
        self.prog.ctx()
    }

    /// Creates an op from `args` and inserts it at the insertion point.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, OperationArgs, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// let mut b = Builder::at_end(&mut prog);
    /// let op = b.create(OperationArgs {
    ///     def: &builtin::CONSTANT_DEF,
    ///     operands: &[],
    ///     attributes: ctx.dict_attr(&[("value", ctx.f32_attr(1.5))]),
    ///     result_types: &[Some(ctx.scalar_type(DataType::Float32))],
    ///     num_regions: 0,
    /// }).unwrap();
    /// assert!(prog.to_string().contains("\"builtin.constant\" () {value:1.5} : () -> f32"));
    /// # let _ = op;
    /// ```
    // With `Program::create_op_at`: appending folds with the caller's slices. Forced only in
    // optimised builds: in debug builds it would copy the append path into every generated op.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn create(&mut self, args: OperationArgs<'_>) -> Result<OpId, IrError> {
        let op = self.prog.create_op_at(args, self.ip)?;
        // Keep creation order: later ops go after this one.
        match self.ip {
            InsertPoint::BlockStart(_) | InsertPoint::After(_) => self.ip = InsertPoint::After(op),
            InsertPoint::BlockEnd(_) | InsertPoint::Before(_) => {}
        }
        Ok(op)
    }

    /// Creates an op of definition `def` with an attribute dictionary.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let attrs = ctx.dict_attr(&[("output_name", ctx.str_attr("y"))]);
    /// let op = b.create_with(&builtin::SHADOW_OUTPUT_DEF, &[Some(x)], attrs, &[], 0).unwrap();
    /// assert_eq!(prog.op(op).operand(0), Some(x));
    /// pir_runtime::verify(&prog).unwrap();
    /// ```
    // A thin wrapper: callers pass their arguments to `create_op_at` directly (forced only in
    // optimised builds, as `create_with`).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn create_with(
        &mut self,
        def: &'static OpDef,
        operands: &[Option<Value>],
        attributes: Attribute,
        result_types: &[Option<Type>],
        num_regions: usize,
    ) -> Result<OpId, IrError> {
        self.create(OperationArgs {
            def,
            operands,
            attributes,
            result_types,
            num_regions,
        })
    }

    /// Creates the registered op named `name` with `(name, value)` attributes in any order.
    ///
    /// ```
    /// # use pir_runtime::{builtin, Builder, IrContext, IrError, Program, phi::DataType};
    /// # let ctx = IrContext::new();
    /// # let mut prog = Program::new(&ctx);
    /// # let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let name = b.ctx().str_attr("x_out");
    /// b.create_by_name("builtin.shadow_output", &[Some(x)], &[("output_name", name)], &[]).unwrap();
    /// let err = b.create_by_name("pd_op.relu", &[Some(x)], &[], &[Some(t)]).unwrap_err();
    /// assert_eq!(err, IrError::UnknownOp("pd_op.relu".into()));
    /// assert_eq!(err.to_string(), "op `pd_op.relu` is not registered in this context (is its dialect registered?)");
    /// ```
    pub fn create_by_name(
        &mut self,
        name: &str,
        operands: &[Option<Value>],
        attributes: &[(&str, Attribute)],
        result_types: &[Option<Type>],
    ) -> Result<OpId, IrError> {
        let def = self
            .ctx()
            .op_def(name)
            .ok_or_else(|| IrError::UnknownOp(name.into()))?;
        let attributes = self.ctx().dict_attr(attributes);
        self.create_with(def, operands, attributes, result_types, 0)
    }
}
