//! What passes transform: a program and the op ids Paddle prints with it.

use std::fmt;

use pir_runtime::parser::ParsedProgram;
use pir_runtime::printer::{print_program_with_ids, OpIds};
use pir_runtime::Program;

/// A program and its op ids (`[id:N]`, Paddle's `Operation::id()`). Passes keep the ids of the
/// ops they keep; lowering gives the new program fresh ids, as Paddle's process-wide counter
/// does.
///
/// ```
/// use pir_passes::IrModule;
/// use pir_runtime::{parser, IrContext};
/// let ctx = IrContext::new();
/// let text = "{\n    (%0) = \"builtin.parameter\" [id:7] () {parameter_name:\"w\"} : () -> tensor<2xf32>\n}\n";
/// let module = IrModule::from(parser::parse_module(&ctx, text).unwrap());
/// assert_eq!(module.to_string(), text);
/// assert_eq!(module.max_id(), Some(7));
/// ```
#[derive(Debug)]
pub struct IrModule {
    /// The program.
    pub program: Program,
    /// Ids of its ops, where known.
    pub op_ids: OpIds,
}

impl IrModule {
    /// The largest op id recorded for a live op of the program.
    pub fn max_id(&self) -> Option<u64> {
        let mut max = None;
        self.program.walk(self.program.module_op(), &mut |op| {
            if let Some(id) = self.op_ids.get(op) {
                max = max.max(Some(id));
            }
        });
        max
    }
}

impl From<Program> for IrModule {
    fn from(program: Program) -> IrModule {
        IrModule {
            program,
            op_ids: OpIds::default(),
        }
    }
}

impl From<ParsedProgram> for IrModule {
    fn from(p: ParsedProgram) -> IrModule {
        IrModule {
            program: p.program,
            op_ids: p.op_ids,
        }
    }
}

impl fmt::Display for IrModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print_program_with_ids(f, &self.program, &self.op_ids)
    }
}
