//! The generated verifier (Paddle's `VerifySig`) and the kind checks it shares with builds.

use pir_spec::{AttrKind, InputKind, OpSchema, TensorKind, ValueKind};

use crate::context::IrContext;
use crate::error::{PrintedType, VerifyErrorKind};
use crate::program::OpRef;
use crate::types::{Type, TypeData};

use super::attrs::attribute_fits;

#[inline]
pub(crate) fn type_fits(ctx: &IrContext, kind: &InputKind, t: Type) -> bool {
    // The common case, decided from the handle alone.
    if let InputKind::Value(ValueKind::Tensor(TensorKind::Dense)) = kind {
        return t.is_dense_tensor();
    }
    type_fits_by_data(ctx, kind, t)
}

fn type_fits_by_data(ctx: &IrContext, kind: &InputKind, t: Type) -> bool {
    let data = ctx.type_data(t);
    match kind {
        InputKind::Value(v) => value_kind_fits(ctx, *v, data),
        InputKind::MutableAttribute(m) => match m.kind {
            AttrKind::IntArray => {
                matches!(data, TypeData::DenseTensor(_))
                    || value_kind_fits(ctx, ValueKind::Vector(TensorKind::Dense), data)
            }
            _ => matches!(data, TypeData::DenseTensor(_)),
        },
    }
}

fn tensor_kind_fits(kind: TensorKind, data: &TypeData) -> bool {
    matches!(
        (kind, data),
        (TensorKind::Dense, TypeData::DenseTensor(_))
            | (TensorKind::SelectedRows, TypeData::SelectedRows(_))
            | (
                TensorKind::DenseTensorArray,
                TypeData::DenseTensorArray { .. }
            )
            | (TensorKind::SparseCoo, TypeData::SparseCoo(_))
            | (TensorKind::SparseCsr, TypeData::SparseCsr(_))
    )
}

pub(crate) fn value_kind_fits(ctx: &IrContext, kind: ValueKind, data: &TypeData) -> bool {
    match (kind, data) {
        (ValueKind::Tensor(k), d) => tensor_kind_fits(k, d),
        (ValueKind::Vector(k), TypeData::Vector(elems)) => {
            elems.iter().all(|&e| tensor_kind_fits(k, ctx.type_data(e)))
        }
        _ => false,
    }
}

/// Whether `data` is a vector of `kind` elements, some of which may be null (held as the
/// undefined element type, as the text parser and the translator make them).
fn vector_fits_with_nulls(ctx: &IrContext, kind: ValueKind, data: &TypeData) -> bool {
    let (ValueKind::Vector(k), TypeData::Vector(elems)) = (kind, data) else {
        return false;
    };
    elems.iter().all(|&e| {
        let d = ctx.type_data(e);
        matches!(d, TypeData::Scalar(crate::phi::DataType::Undefined)) || tensor_kind_fits(k, d)
    })
}

/// The generated verifier (Paddle's `VerifySig`): operand and result counts and kinds, absent
/// operands only where optional, attributes present with the right kinds. Backward ops (for
/// which Paddle generates an empty `VerifySig`) are checked leniently: null results and missing
/// attributes are accepted, present ones must still be of the right kind.
pub fn verify_schema(op: OpRef<'_>, s: &'static OpSchema) -> Result<(), VerifyErrorKind> {
    let ctx = op.ctx();
    let strict = s.verify_signature;
    // The op's slots in one look: the verifier's walk reads them by stored index.
    let slots = op.slots();
    if slots.num_operands() != s.inputs.len() {
        return Err(VerifyErrorKind::OperandCount {
            expected: s.inputs.len(),
            found: slots.num_operands(),
            names: Some(s.inputs.iter().map(|i| &*i.name).collect()),
        });
    }
    for (i, (input, ty)) in s.inputs.iter().zip(slots.operand_types()).enumerate() {
        match ty {
            Some(t) if type_fits(ctx, &input.kind, t) => {}
            None if slots.operand_is_null(i) && (input.optional || !strict) => {}
            None if slots.operand_is_null(i) => {
                return Err(VerifyErrorKind::NullOperand {
                    index: i,
                    name: Some(&*input.name),
                })
            }
            found => {
                return Err(VerifyErrorKind::OperandType {
                    index: i,
                    name: Some(&*input.name),
                    expected: input.kind.type_name(),
                    found: PrintedType::new(ctx, found),
                })
            }
        }
    }
    if !s.attributes.is_empty() {
        verify_attributes(op, s, strict)?;
    }
    if slots.num_results() != s.outputs.len() {
        return Err(VerifyErrorKind::ResultCount {
            expected: s.outputs.len(),
            found: slots.num_results(),
            names: Some(s.outputs.iter().map(|o| &*o.name).collect()),
        });
    }
    for (i, (out, ty)) in s.outputs.iter().zip(slots.result_types()).enumerate() {
        match ty {
            Some(t) if out.kind == ValueKind::DENSE && t.is_dense_tensor() => {}
            None if out.optional || out.intermediate || !strict => {}
            Some(t) if value_kind_fits(ctx, out.kind, ctx.type_data(t)) => {}
            // A lenient op's vector result may hold null elements too (a translated
            // `rnn_grad` with `@EMPTY@` gradients: `vec[<<NULL TYPE>>,...]`).
            Some(t) if !strict && vector_fits_with_nulls(ctx, out.kind, ctx.type_data(t)) => {}
            found => {
                return Err(VerifyErrorKind::ResultType {
                    index: i,
                    name: Some(&*out.name),
                    expected: out.kind.type_name(),
                    found: PrintedType::new(ctx, found),
                })
            }
        }
    }
    Ok(())
}

fn verify_attributes(
    op: OpRef<'_>,
    s: &'static OpSchema,
    strict: bool,
) -> Result<(), VerifyErrorKind> {
    let ctx = op.ctx();
    for a in s.attributes.iter() {
        match op.attr_data(&a.name) {
            Some(d) if attribute_fits(ctx, a.kind, d) => {}
            Some(d) => {
                return Err(VerifyErrorKind::AttributeType {
                    name: &a.name,
                    expected: a.kind.type_name(),
                    found: d.kind_name(),
                    value: Some(
                        op.attr(&a.name)
                            .map(|x| x.display(ctx).to_string())
                            .unwrap_or_default(),
                    ),
                })
            }
            None if !strict => {}
            None => {
                return Err(VerifyErrorKind::MissingAttribute {
                    name: &a.name,
                    expected: Some(a.kind.type_name()),
                })
            }
        }
    }
    Ok(())
}
