//! The op traits Paddle uses. Each is a marker; some carry a verifier that runs on every op
//! declaring the trait (Paddle's `static Verify(op)`).
//!
//! ```
//! use pir_runtime::op_def::OpTrait;
//! use pir_runtime::traits::Inplace;
//! assert_eq!(Inplace::NAME, "InplaceTrait");
//! ```

use crate::declare_trait;
use crate::error::{Slot, VerifyErrorKind};
use crate::program::OpRef;
use crate::types::{Type, TypeData};

/// A trait of pir-runtime: its Paddle name is read from the one vocabulary table,
/// `pir_spec::known::TRAITS` (a type the table lacks does not compile).
macro_rules! known_trait {
    ($(#[$m:meta])* $name:ident $(, verify = $verify:path)?) => {
        declare_trait!(
            $(#[$m])* pub $name,
            ::pir_spec::known::runtime_trait_name(stringify!($name))
            $(, verify = $verify)?
        );
        // Evaluated now, so a type without a row is an error even if nothing reads its NAME.
        const _: &str = <$name as $crate::op_def::OpTrait>::NAME;
    };
}

known_trait!(
    /// The op writes its result into an input (`foo_` ops; Paddle's `InplaceTrait`).
    Inplace
);
known_trait!(
    /// The result is a view of an input.
    ViewLike
);
known_trait!(
    /// The op reads its inputs only (Paddle's test trait `ReadOnlyTrait`).
    ReadOnly
);
known_trait!(
    /// Results are values, not references into inputs.
    HasValueSemantics
);
known_trait!(
    /// The op has no backward (`paddle::dialect::ForwardOnlyTrait`).
    ForwardOnly
);
known_trait!(
    /// Element-wise with one input (`pir::UnaryElementWiseTrait`).
    UnaryElementWise
);
known_trait!(
    /// Element-wise with two inputs (`pir::BinaryElementWiseTrait`).
    BinaryElementWise
);
known_trait!(
    /// The op has side effects and must not be removed or reordered (`pir::SideEffectTrait`).
    SideEffect
);
known_trait!(
    /// The op's VJP is written by hand (`paddle::dialect::CustomVjpTrait`).
    CustomVjp
);
known_trait!(
    /// Layout transformations must not move through the op (`pir::ImmutableLayoutTrait`).
    ImmutableLayout
);
known_trait!(
    /// The op has exactly one result (`pir::OneResultTrait`).
    ///
    /// ```
    /// use pir_runtime::{op_def::{sort_traits, TraitEntry}, traits::OneResult};
    /// use pir_runtime::{verify, Builder, IrContext, OpDef, Program};
    /// static T: [TraitEntry; 1] = sort_traits([TraitEntry::of::<OneResult>()]);
    /// static TWO: OpDef = OpDef { traits: &T, ..OpDef::new("toy.two", "toy") };
    /// let ctx = IrContext::new();
    /// let mut prog = Program::new(&ctx);
    /// Builder::at_end(&mut prog).create_with(&TWO, &[], ctx.empty_dict(), &[None, None], 0).unwrap();
    /// assert_eq!(verify(&prog).unwrap_err().0[0].message(), "OneResultTrait: expected exactly 1 result, found 2");
    /// ```
    OneResult, verify = verify_one_result
);
known_trait!(
    /// All operands have the same shape (`pir::SameOperandsShapeTrait`).
    SameOperandsShape, verify = verify_same_operands_shape
);
known_trait!(
    /// All operands and results have the same shape.
    SameOperandsAndResultShape, verify = verify_same_operands_and_result_shape
);
known_trait!(
    /// All operands have the same element type.
    SameOperandsElementType, verify = verify_same_operands_element_type
);
known_trait!(
    /// All operands and results have the same element type.
    SameOperandsAndResultElementType, verify = verify_same_operands_and_result_element_type
);
known_trait!(
    /// All operands and results have the same type.
    ///
    /// ```
    /// use pir_runtime::{op_def::{sort_traits, TraitEntry}, traits::SameOperandsAndResultType};
    /// use pir_runtime::{builtin, verify_op, Builder, IrContext, OpDef, Program, phi::DataType};
    /// static T: [TraitEntry; 1] = sort_traits([TraitEntry::of::<SameOperandsAndResultType>()]);
    /// static ID: OpDef = OpDef { traits: &T, ..OpDef::new("toy.id", "toy") };
    /// let ctx = IrContext::new();
    /// let mut prog = Program::new(&ctx);
    /// let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", ctx.dense_tensor_type(DataType::Float32, &[2])).unwrap();
    /// let i64_ = ctx.dense_tensor_type(DataType::Int64, &[2]);
    /// let op = b.create_with(&ID, &[Some(x)], ctx.empty_dict(), &[Some(i64_)], 0).unwrap();
    /// let err = verify_op(&prog, op).unwrap_err();
    /// assert_eq!(err.message(), "SameOperandsAndResultTypeTrait: \
    ///     result 0 has type tensor<2xi64>, but operand 0 has tensor<2xf32>");
    /// ```
    SameOperandsAndResultType, verify = verify_same_operands_and_result_type
);
known_trait!(
    /// All operands have the same type.
    SameTypeOperands, verify = verify_same_type_operands
);

fn verify_one_result(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    match op.num_results() {
        1 => Ok(()),
        n => Err(format!("expected exactly 1 result, found {n}").into()),
    }
}

fn operand_types(op: OpRef<'_>) -> impl Iterator<Item = (Slot, Option<Type>)> + '_ {
    (0..op.num_operands()).map(move |i| (Slot::Operand(i), op.operand_type(i)))
}

fn all_types(op: OpRef<'_>) -> impl Iterator<Item = (Slot, Option<Type>)> + '_ {
    operand_types(op)
        .chain((0..op.num_results()).map(move |i| (Slot::Result(i), op.result_type(i))))
}

fn shape_of(op: OpRef<'_>, t: Option<Type>) -> Option<&[i64]> {
    match t.map(|t| op.ctx().type_data(t))? {
        TypeData::DenseTensor(tt) | TypeData::SelectedRows(tt) => Some(&tt.dims),
        TypeData::DenseTensorArray { dims, .. } => Some(dims),
        TypeData::SparseCoo(s) => Some(&s.dims),
        TypeData::SparseCsr(s) => Some(&s.dims),
        _ => None,
    }
}

fn element_of(op: OpRef<'_>, t: Option<Type>) -> Option<crate::phi::DataType> {
    match t.map(|t| op.ctx().type_data(t))? {
        TypeData::DenseTensor(tt) | TypeData::SelectedRows(tt) => Some(tt.dtype),
        TypeData::DenseTensorArray { dtype, .. } => Some(*dtype),
        TypeData::SparseCoo(s) => Some(s.dtype),
        TypeData::SparseCsr(s) => Some(s.dtype),
        TypeData::Scalar(d) => Some(*d),
        _ => None,
    }
}

/// `Ok` when every present item equals the first; else a [`VerifyErrorKind::Mismatch`] of the
/// first that differs, its property printed by `show`.
fn all_equal<T: PartialEq>(
    items: impl Iterator<Item = (Slot, Option<T>)>,
    what: &'static str,
    show: impl Fn(&T) -> String,
) -> Result<(), VerifyErrorKind> {
    let mut first: Option<(Slot, T)> = None;
    for (slot, v) in items {
        let Some(v) = v else { continue };
        match &first {
            None => first = Some((slot, v)),
            Some((fslot, fv)) if *fv != v => {
                return Err(VerifyErrorKind::Mismatch {
                    what,
                    value: slot,
                    found: show(&v),
                    other: *fslot,
                    other_found: show(fv),
                });
            }
            Some(_) => {}
        }
    }
    Ok(())
}

fn debug<T: std::fmt::Debug>(v: &T) -> String {
    format!("{v:?}")
}

fn verify_same_operands_shape(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    all_equal(
        operand_types(op).map(|(n, t)| (n, shape_of(op, t))),
        "shape",
        debug,
    )
}

fn verify_same_operands_and_result_shape(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    all_equal(
        all_types(op).map(|(n, t)| (n, shape_of(op, t))),
        "shape",
        debug,
    )
}

fn verify_same_operands_element_type(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    all_equal(
        operand_types(op).map(|(n, t)| (n, element_of(op, t))),
        "element type",
        debug,
    )
}

fn verify_same_operands_and_result_element_type(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    all_equal(
        all_types(op).map(|(n, t)| (n, element_of(op, t))),
        "element type",
        debug,
    )
}

fn show_type(op: OpRef<'_>) -> impl Fn(&Type) -> String + '_ {
    move |t| t.display(op.ctx()).to_string()
}

fn verify_same_operands_and_result_type(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    all_equal(all_types(op), "type", show_type(op))
}

fn verify_same_type_operands(op: OpRef<'_>) -> Result<(), VerifyErrorKind> {
    all_equal(operand_types(op), "type", show_type(op))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op_def::OpTrait;

    #[test]
    fn every_trait_of_the_vocabulary_table_has_its_type_here() {
        // Each NAME is read from the table by the type's name, so a type without a row does not
        // compile; this checks the other way: no row names a type pir-runtime lacks.
        let here = [
            Inplace::NAME,
            ViewLike::NAME,
            ReadOnly::NAME,
            HasValueSemantics::NAME,
            ForwardOnly::NAME,
            UnaryElementWise::NAME,
            BinaryElementWise::NAME,
            SideEffect::NAME,
            CustomVjp::NAME,
            ImmutableLayout::NAME,
            OneResult::NAME,
            SameOperandsShape::NAME,
            SameOperandsAndResultShape::NAME,
            SameOperandsElementType::NAME,
            SameOperandsAndResultElementType::NAME,
            SameOperandsAndResultType::NAME,
            SameTypeOperands::NAME,
        ];
        let table: Vec<&str> = pir_spec::known::TRAITS
            .iter()
            .filter(|t| t.runtime.is_some())
            .map(|t| t.name)
            .collect();
        assert_eq!(here.as_slice(), table.as_slice());
        assert_eq!(SideEffect::NAME, "SideEffectTrait");
    }
}
