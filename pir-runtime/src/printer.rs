//! Paddle 3.3.1's text format, byte for byte (`pir::IrPrinter`).
//!
//! Values are numbered the first time they are printed (`%0`, `%1`, ...; block arguments
//! `%arg_0 {attrs}`), attributes print sorted by name without `op_callstack` and
//! `sym_shape_str`, floats print as C++'s `ostream` does, and ops with regions print their blocks
//! indented by four more spaces. Types and attribute dictionaries are printed once and then
//! copied from a cache, which keeps printing fast on large programs.
//!
//! ```
//! use pir_runtime::{Builder, IrContext, Program, builtin, phi::DataType};
//! let ctx = IrContext::new();
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let t = ctx.dense_tensor_type(DataType::Float32, &[6, 5]);
//! let w = builtin::parameter(&mut b, "fc_0.w_0", t).unwrap();
//! builtin::set_parameter(&mut b, w, "fc_0.w_0").unwrap();
//! let expected = concat!(
//!     "{\n",
//!     "    (%0) = \"builtin.parameter\" () {parameter_name:\"fc_0.w_0\"} : () -> tensor<6x5xf32>\n",
//!     "    () = \"builtin.set_parameter\" (%0) {parameter_name:\"fc_0.w_0\"} : (tensor<6x5xf32>) -> \n",
//!     "}\n",
//! );
//! assert_eq!(prog.to_string(), expected);
//! ```

use std::fmt::{self, Write};

use rustc_hash::FxHashMap;

use crate::attributes::{write_attr, AttrData, Attribute};
use crate::program::{BlockId, OpId, OpRef, Program, RegionId, Value, ValueDef};
use crate::types::{write_type, Type};

/// Attributes the printer leaves out, as Paddle's does.
const HIDDEN_ATTRIBUTES: [&str; 2] = ["op_callstack", "sym_shape_str"];

/// Prints a program, or parts of one, in Paddle's text format. Custom op printers
/// ([`OpDef::print`](crate::op_def::OpDef::print)) receive it.
pub struct Printer<'a> {
    prog: &'a Program,
    out: &'a mut dyn Write,
    names: Vec<u32>,
    next_result: u32,
    next_arg: u32,
    indent: usize,
    type_cache: FxHashMap<Type, Box<str>>,
    dict_cache: FxHashMap<Attribute, Box<str>>,
}

const UNNAMED: u32 = u32::MAX;

/// Writes `prog` in Paddle's text format.
pub fn print_program(out: &mut dyn Write, prog: &Program) -> fmt::Result {
    let mut p = Printer::new(prog, out);
    p.print_program()
}

impl<'a> Printer<'a> {
    /// A printer of `prog` writing to `out`.
    pub fn new(prog: &'a Program, out: &'a mut dyn Write) -> Printer<'a> {
        Printer {
            prog,
            out,
            names: vec![UNNAMED; prog.num_values_allocated()],
            next_result: 0,
            next_arg: 0,
            indent: 0,
            type_cache: FxHashMap::default(),
            dict_cache: FxHashMap::default(),
        }
    }

    /// The program being printed.
    pub fn program(&self) -> &'a Program {
        self.prog
    }

    /// Writes raw text.
    pub fn write_str(&mut self, s: &str) -> fmt::Result {
        self.out.write_str(s)
    }

    /// Writes the current indentation.
    pub fn write_indent(&mut self) -> fmt::Result {
        for _ in 0..self.indent {
            self.out.write_str("    ")?;
        }
        Ok(())
    }

    /// Indents one level more.
    pub fn indent_more(&mut self) {
        self.indent += 1;
    }

    /// Indents one level less.
    pub fn indent_less(&mut self) {
        self.indent = self.indent.saturating_sub(1);
    }

    /// `IrPrinter::PrintProgram`: the module's region.
    pub fn print_program(&mut self) -> fmt::Result {
        let module = self.prog.op(self.prog.module_op());
        for r in module.regions() {
            self.print_region(r)?;
        }
        Ok(())
    }

    /// `PrintRegion`: each block.
    pub fn print_region(&mut self, region: RegionId) -> fmt::Result {
        for &b in self.prog.region_blocks(region) {
            self.print_block(b)?;
        }
        Ok(())
    }

    /// `PrintBlock`: `{`, the ops one per line, `}`.
    pub fn print_block(&mut self, block: BlockId) -> fmt::Result {
        self.write_indent()?;
        self.out.write_str("{\n")?;
        self.indent += 1;
        for op in self.prog.block_ops(block) {
            self.print_operation(op)?;
            self.out.write_char('\n')?;
        }
        self.indent -= 1;
        self.write_indent()?;
        self.out.write_str("}\n")
    }

    /// Prints the ops of `block` (one per line, indented) without braces.
    pub fn print_block_body(&mut self, block: BlockId) -> fmt::Result {
        for op in self.prog.block_ops(block) {
            self.print_operation(op)?;
            self.out.write_char('\n')?;
        }
        Ok(())
    }

    /// `PrintOperation`: indentation, then the op's custom printer or the general form.
    pub fn print_operation(&mut self, op: OpId) -> fmt::Result {
        self.write_indent()?;
        let r = self.prog.op(op);
        match r.def().print {
            Some(f) => f(self, r),
            None => self.print_general_operation(op),
        }
    }

    /// `PrintGeneralOperation`: the op line, then its regions.
    pub fn print_general_operation(&mut self, op: OpId) -> fmt::Result {
        self.print_operation_with_no_region(op)?;
        let r = self.prog.op(op);
        if r.num_regions() > 0 {
            self.out.write_char('\n')?;
        }
        for region in r.regions() {
            self.print_region(region)?;
        }
        Ok(())
    }

    /// `(results) = "name" (operands) {attrs} : (operand types) -> result types`.
    pub fn print_operation_with_no_region(&mut self, op: OpId) -> fmt::Result {
        let r = self.prog.op(op);
        self.print_op_results(r)?;
        self.out.write_str(" = \"")?;
        self.out.write_str(r.name())?;
        self.out.write_char('"')?;
        self.print_op_operands(r)?;
        self.out.write_char(' ')?;
        self.print_attribute_map(r.attributes())?;
        self.out.write_str(" :")?;
        self.print_operand_types(r)?;
        self.out.write_str(" -> ")?;
        self.print_result_types(r)
    }

    /// `(%0, %1)`.
    pub fn print_op_results(&mut self, r: OpRef<'_>) -> fmt::Result {
        self.out.write_char('(')?;
        for (i, v) in r.results().enumerate() {
            if i > 0 {
                self.out.write_str(", ")?;
            }
            self.print_value(Some(v))?;
        }
        self.out.write_char(')')
    }

    /// ` (%a, %b)`.
    pub fn print_op_operands(&mut self, r: OpRef<'_>) -> fmt::Result {
        self.out.write_str(" (")?;
        for (i, v) in r.operands().enumerate() {
            if i > 0 {
                self.out.write_str(", ")?;
            }
            self.print_value(v)?;
        }
        self.out.write_char(')')
    }

    /// ` (t1, t2)`.
    pub fn print_operand_types(&mut self, r: OpRef<'_>) -> fmt::Result {
        self.out.write_str(" (")?;
        for i in 0..r.num_operands() {
            if i > 0 {
                self.out.write_str(", ")?;
            }
            self.print_type(r.operand_type(i))?;
        }
        self.out.write_char(')')
    }

    /// `t1, t2` (no parentheses).
    pub fn print_result_types(&mut self, r: OpRef<'_>) -> fmt::Result {
        for i in 0..r.num_results() {
            if i > 0 {
                self.out.write_str(", ")?;
            }
            self.print_type(r.result_type(i))?;
        }
        Ok(())
    }

    /// `PrintValue`: the value's name, naming it on first print (`%N`, or `%arg_N {attrs}`).
    pub fn print_value(&mut self, v: Option<Value>) -> fmt::Result {
        let Some(v) = v else {
            return self.out.write_str("<<NULL VALUE>>");
        };
        let idx = v.index();
        if idx >= self.names.len() {
            self.names.resize(idx + 1, UNNAMED);
        }
        let name = self.names[idx];
        match self.prog.value_def(v) {
            ValueDef::OpResult { .. } => {
                let n = if name == UNNAMED {
                    let n = self.next_result;
                    self.next_result += 1;
                    self.names[idx] = n;
                    n
                } else {
                    name
                };
                write!(self.out, "%{n}")
            }
            ValueDef::BlockArg { block, index } => {
                if name != UNNAMED {
                    return write!(self.out, "%arg_{name}");
                }
                let n = self.next_arg;
                self.next_arg += 1;
                self.names[idx] = n;
                write!(self.out, "%arg_{n} {{")?;
                if let Some(attrs) = self.prog.block_arg_attrs(block, index as usize) {
                    self.print_dict_entries(attrs)?;
                }
                self.out.write_char('}')
            }
        }
    }

    /// A type, or `<<NULL TYPE>>`.
    pub fn print_type(&mut self, t: Option<Type>) -> fmt::Result {
        let Some(t) = t else {
            return self.out.write_str("<<NULL TYPE>>");
        };
        if let Some(s) = self.type_cache.get(&t) {
            return self.out.write_str(s);
        }
        let mut s = String::new();
        write_type(&mut s, self.prog.ctx(), t)?;
        self.out.write_str(&s)?;
        self.type_cache.insert(t, s.into_boxed_str());
        Ok(())
    }

    /// An attribute.
    pub fn print_attribute(&mut self, a: Attribute) -> fmt::Result {
        write_attr(&mut *self.out, self.prog.ctx(), a)
    }

    /// `{name:value,...}` of an attribute dictionary, without the hidden attributes.
    pub fn print_attribute_map(&mut self, dict: Attribute) -> fmt::Result {
        if let Some(s) = self.dict_cache.get(&dict) {
            return self.out.write_str(s);
        }
        let mut s = String::with_capacity(64);
        s.push('{');
        write_dict_entries(&mut s, self.prog, dict)?;
        s.push('}');
        self.out.write_str(&s)?;
        self.dict_cache.insert(dict, s.into_boxed_str());
        Ok(())
    }

    fn print_dict_entries(&mut self, dict: Attribute) -> fmt::Result {
        write_dict_entries(&mut *self.out, self.prog, dict)
    }
}

fn write_dict_entries(out: &mut dyn Write, prog: &Program, dict: Attribute) -> fmt::Result {
    let ctx = prog.ctx();
    let AttrData::Dict(entries) = ctx.attr_data(dict) else {
        return Ok(());
    };
    let mut first = true;
    for (name, value) in entries.iter() {
        if HIDDEN_ATTRIBUTES.contains(&&**name) {
            continue;
        }
        if !first {
            out.write_char(',')?;
        }
        first = false;
        out.write_str(name)?;
        out.write_char(':')?;
        write_attr(&mut *out, ctx, *value)?;
    }
    Ok(())
}
