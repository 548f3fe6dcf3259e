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
pub struct Builder<'p> {
    prog: &'p mut Program,
    ip: InsertPoint,
}

impl<'p> Builder<'p> {
    /// A builder inserting at `ip`.
    pub fn new(prog: &'p mut Program, ip: InsertPoint) -> Builder<'p> {
        Builder { prog, ip }
    }

    /// A builder appending to the program's top-level block.
    pub fn at_end(prog: &'p mut Program) -> Builder<'p> {
        let b = prog.block();
        Builder {
            prog,
            ip: InsertPoint::BlockEnd(b),
        }
    }

    /// A builder appending to `block`.
    pub fn at_block_end(prog: &'p mut Program, block: BlockId) -> Builder<'p> {
        Builder {
            prog,
            ip: InsertPoint::BlockEnd(block),
        }
    }

    /// The insertion point.
    pub fn insertion_point(&self) -> InsertPoint {
        self.ip
    }

    /// Moves the insertion point.
    pub fn set_insertion_point(&mut self, ip: InsertPoint) {
        self.ip = ip;
    }

    /// The program.
    #[inline]
    pub fn program(&self) -> &Program {
        self.prog
    }

    /// The program, mutably.
    #[inline]
    pub fn program_mut(&mut self) -> &mut Program {
        self.prog
    }

    /// The context.
    #[inline]
    pub fn ctx(&self) -> &Arc<IrContext> {
        self.prog.ctx()
    }

    /// Creates an op from `args` and inserts it at the insertion point.
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
