// A trait and an interface of another crate, attached by path and implemented for the op.
use pir_macros::pir_op;
use pir_runtime::traits::ReadOnly;
use pir_runtime::{Op, OpRef};
use pir_ui_tests::ext::{Commutative, Cost, HasCost, TwoOperands};

#[pir_op(
    name = "test.add",
    traits(ReadOnly, pir_ui_tests::ext::Commutative, pir_ui_tests::ext::TwoOperands),
    interfaces(pir_ui_tests::ext::Cost)
)]
pub struct AddOp {
    #[input]
    x: DenseTensor,
    #[input]
    y: DenseTensor,
    #[output]
    out: DenseTensor,
}

impl HasCost for AddOp {
    fn cost(op: OpRef<'_>) -> u64 {
        op.num_operands() as u64
    }
}

fn main() {
    let def = AddOp::DEF;
    assert!(def.has_trait::<Commutative>());
    assert!(def.has_trait::<TwoOperands>());
    assert!(def.has_trait::<ReadOnly>());
    assert!(def.interface::<Cost>().is_some());
    let s = AddOp::schema();
    assert_eq!(
        s.traits.iter().map(|t| &**t).collect::<Vec<_>>(),
        ["CommutativeTrait", "ReadOnlyTrait", "TwoOperandsTrait"]
    );
    assert_eq!(
        s.interfaces.iter().map(|t| &**t).collect::<Vec<_>>(),
        ["CostInterface", "OpYamlInfoInterface"]
    );
}
