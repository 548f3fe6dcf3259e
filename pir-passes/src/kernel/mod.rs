//! The kernel dialect (Paddle's `pd_kernel`): what `pd_op_to_kernel` lowers to.
//!
//! - One op definition, `pd_kernel.phi_kernel`, for every lowered `pd_op` op. It prints as
//!   Paddle prints a `PhiKernelOp`: the op's own name plus `(phi_kernel)`, no `[id:N]`, and its
//!   attributes with `kernel_key:<backend:CPU|layout:NCHW|dtype:float32>` unquoted.
//! - Types `cpu_tensor<...>` and `undefined_tensor<...>` (Paddle's `AllocatedDenseTensorType`
//!   on a CPU or undefined place), interned as custom types over the dense tensor type.
//! - [`syntax`]: the parser's tables for kernel programs, so they read back.
//! - [`registry`]: the phi kernel registry (`phi_kernels_cpu.json`).

pub mod registry;

use std::fmt;

use pir_runtime::parser::{self, AttrParser, ParseError, TextSyntax, TypeParser};
use pir_runtime::printer::Printer;
use pir_runtime::{AttrData, Attribute, IrContext, OpDef, OpRef, Type, TypeData, TypeKey};

/// The dialect's name.
pub const DIALECT: &str = "pd_kernel";

/// `pd_kernel.phi_kernel`.
pub static PHI_KERNEL_DEF: OpDef = {
    let mut d = OpDef::new("pd_kernel.phi_kernel", DIALECT);
    d.print = Some(print_phi_kernel);
    d
};

/// Registers the kernel dialect's op and type printers in `ctx`.
///
/// # Errors
///
/// An [`pir_runtime::IrError`] if the op is registered under another definition.
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// pir_passes::kernel::register(&ctx).unwrap();
/// let t = pir_passes::kernel::cpu_tensor(&ctx, ctx.dense_tensor_type(pir_runtime::phi::DataType::Float32, &[-1, 8]));
/// assert_eq!(t.display(&ctx).to_string(), "cpu_tensor<-1x8xf32>");
/// ```
pub fn register(ctx: &IrContext) -> Result<(), pir_runtime::IrError> {
    if ctx.op_def(PHI_KERNEL_DEF.name).is_none() {
        ctx.register_ops(DIALECT, &[&PHI_KERNEL_DEF])?;
    }
    ctx.register_type_printer(DIALECT, "cpu_tensor", |o, c, p| {
        print_place_type(o, c, p, "cpu_tensor")
    });
    ctx.register_type_printer(DIALECT, "undefined_tensor", |o, c, p| {
        print_place_type(o, c, p, "undefined_tensor")
    });
    Ok(())
}

/// `cpu_tensor<...>` of a dense tensor type.
pub fn cpu_tensor(ctx: &IrContext, dense: Type) -> Type {
    ctx.intern_type(TypeKey::Custom(
        DIALECT,
        "cpu_tensor",
        &[ctx.type_attr(dense)],
    ))
}

/// `undefined_tensor<...>` of a dense tensor type (a feed with no place yet).
pub fn undefined_tensor(ctx: &IrContext, dense: Type) -> Type {
    ctx.intern_type(TypeKey::Custom(
        DIALECT,
        "undefined_tensor",
        &[ctx.type_attr(dense)],
    ))
}

/// The dense tensor type under a kernel type.
pub fn dense_of(ctx: &IrContext, t: Type) -> Option<Type> {
    match ctx.type_data(t) {
        TypeData::Custom {
            dialect, params, ..
        } if &**dialect == DIALECT => match ctx.attr_data(*params.first()?) {
            AttrData::Type(d) => Some(*d),
            _ => None,
        },
        TypeData::DenseTensor(_) => Some(t),
        _ => None,
    }
}

fn print_place_type(
    out: &mut dyn fmt::Write,
    ctx: &IrContext,
    params: &[Attribute],
    keyword: &str,
) -> fmt::Result {
    let inner = params
        .first()
        .and_then(|p| match ctx.attr_data(*p) {
            AttrData::Type(t) => Some(t.display(ctx).to_string()),
            _ => None,
        })
        .unwrap_or_default();
    // The dense tensor prints `tensor<...>`; the kernel type keeps its `<...>`.
    out.write_str(keyword)?;
    out.write_str(inner.strip_prefix("tensor").unwrap_or(&inner))
}

/// The name a kernel op prints with: its `op_name` without the dialect, then `(phi_kernel)`.
fn printed_name(r: OpRef<'_>) -> String {
    let op_name = match r.attr_data("op_name") {
        Some(AttrData::Str(s)) => &**s,
        _ => "unknown",
    };
    let short = op_name.split_once('.').map_or(op_name, |(_, n)| n);
    format!("{short}(phi_kernel)")
}

fn print_phi_kernel(p: &mut Printer<'_>, r: OpRef<'_>) -> fmt::Result {
    p.print_op_results(r)?;
    p.write_str(" = \"")?;
    p.write_str(&printed_name(r))?;
    p.write_str("\"")?;
    p.print_op_operands(r)?;
    p.write_str(" {")?;
    let ctx = r.ctx();
    let mut first = true;
    for (name, value) in r.attribute_entries() {
        if matches!(&**name, "op_callstack" | "sym_shape_str") {
            continue;
        }
        if !first {
            p.write_str(",")?;
        }
        first = false;
        p.write_str(name)?;
        p.write_str(":")?;
        match (&**name, ctx.attr_data(*value)) {
            ("kernel_key", AttrData::Str(s)) => p.write_str(s)?,
            _ => p.print_attribute(*value)?,
        }
    }
    p.write_str("} :")?;
    p.print_operand_types(r)?;
    p.write_str(" -> ")?;
    p.print_result_types(r)
}

fn parse_cpu_tensor(p: &mut TypeParser<'_, '_>, _: &str) -> Result<Type, ParseError> {
    let dense = parse_dense(p)?;
    Ok(cpu_tensor(p.ctx(), dense))
}

fn parse_undefined_tensor(p: &mut TypeParser<'_, '_>, _: &str) -> Result<Type, ParseError> {
    let dense = parse_dense(p)?;
    Ok(undefined_tensor(p.ctx(), dense))
}

fn parse_dense(p: &mut TypeParser<'_, '_>) -> Result<Type, ParseError> {
    p.cursor().expect(b'<', "`<`")?;
    let (dims, dtype) = p.dims_and_dtype()?;
    p.cursor().expect(b'>', "`>`")?;
    Ok(p.ctx().dense_tensor_type(dtype, &dims))
}

/// `<backend:CPU|layout:NCHW|dtype:float32>`, kept as its text.
fn parse_kernel_key(p: &mut AttrParser<'_, '_>) -> Result<Attribute, ParseError> {
    let c = p.cursor();
    let start = c.pos();
    c.expect(b'<', "`<` starting a kernel key")?;
    loop {
        match c.peek() {
            Some(b'>') => {
                c.eat(b'>');
                break;
            }
            Some(b) => {
                c.eat(b);
            }
            None => return Err(c.expected("`>` ending the kernel key")),
        }
    }
    let text = c.text()[start..c.pos()].to_string();
    Ok(p.ctx().str_attr(&text))
}

fn resolve(ctx: &IrContext, name: &str) -> Option<&'static OpDef> {
    name.ends_with("(phi_kernel)")
        .then(|| ctx.op_def(PHI_KERNEL_DEF.name))
        .flatten()
}

/// The parser's tables for kernel programs: the standard syntax plus the kernel types, the
/// `(phi_kernel)` op names and `kernel_key`.
pub fn syntax() -> TextSyntax {
    let mut s = TextSyntax::new();
    s.register_type("cpu_tensor", parse_cpu_tensor);
    s.register_type("undefined_tensor", parse_undefined_tensor);
    s.register_attr(
        None,
        "kernel_key",
        parser::AttrSyntax::Custom(parse_kernel_key),
    );
    s.register_op_resolver(resolve);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel program reads back and prints as read.
    #[test]
    fn kernel_program_round_trips() {
        let ctx = IrContext::new();
        register(&ctx).unwrap();
        let text = concat!(
            "{\n",
            "    (%0) = \"builtin.parameter\" [id:7] () {origin_id:5,parameter_name:\"w\"} : () -> cpu_tensor<2x3xf32>\n",
            "    (%1) = \"relu(phi_kernel)\" (%0) {kernel_key:<backend:CPU|layout:NCHW|dtype:float32>,kernel_name:\"relu\",op_name:\"pd_op.relu\",origin_id:8} : (cpu_tensor<2x3xf32>) -> cpu_tensor<2x3xf32>\n",
            "}\n",
        );
        let m = parser::parse_module_with(&ctx, text, &syntax()).unwrap();
        assert_eq!(m.to_string(), text);
        let relu = m.program.last_op(m.program.block()).unwrap();
        assert_eq!(m.program.op(relu).name(), "pd_kernel.phi_kernel");
    }
}
