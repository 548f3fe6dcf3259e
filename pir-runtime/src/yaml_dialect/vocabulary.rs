//! The run-time counterpart of the code generator's trait and interface paths: Paddle's short
//! name of a trait or interface (as `pir_spec::known` lists it) to the entry of pir-runtime's
//! type, the same `TraitEntry::of::<T>()` / `InterfaceEntry::of(&IMPL)` a generated op holds.

use pir_spec::known::{self, InterfaceImpl};

use crate::interfaces::{
    CacheGradOpSymbolicShape, Decomp, DecompVjp, GetKernelTypeForVar, InferSymbolicShape,
    LayoutTransformation, ParseKernelKey,
};
use crate::op_def::{InterfaceEntry, TraitEntry};
use crate::traits::*;

/// The entry of the trait Paddle calls `name`, when pir-runtime implements it.
pub(super) fn trait_entry(name: &str) -> Option<TraitEntry> {
    let runtime = known::find_trait(name)?.runtime?;
    Some(match runtime {
        "Inplace" => TraitEntry::of::<Inplace>(),
        "ViewLike" => TraitEntry::of::<ViewLike>(),
        "ReadOnly" => TraitEntry::of::<ReadOnly>(),
        "HasValueSemantics" => TraitEntry::of::<HasValueSemantics>(),
        "ForwardOnly" => TraitEntry::of::<ForwardOnly>(),
        "UnaryElementWise" => TraitEntry::of::<UnaryElementWise>(),
        "BinaryElementWise" => TraitEntry::of::<BinaryElementWise>(),
        "SideEffect" => TraitEntry::of::<SideEffect>(),
        "CustomVjp" => TraitEntry::of::<CustomVjp>(),
        "ImmutableLayout" => TraitEntry::of::<ImmutableLayout>(),
        "OneResult" => TraitEntry::of::<OneResult>(),
        "SameOperandsShape" => TraitEntry::of::<SameOperandsShape>(),
        "SameOperandsAndResultShape" => TraitEntry::of::<SameOperandsAndResultShape>(),
        "SameOperandsElementType" => TraitEntry::of::<SameOperandsElementType>(),
        "SameOperandsAndResultElementType" => TraitEntry::of::<SameOperandsAndResultElementType>(),
        "SameOperandsAndResultType" => TraitEntry::of::<SameOperandsAndResultType>(),
        "SameTypeOperands" => TraitEntry::of::<SameTypeOperands>(),
        _ => return None,
    })
}

static GET_KERNEL_TYPE_FOR_VAR: GetKernelTypeForVar = GetKernelTypeForVar;
static INFER_SYMBOLIC_SHAPE: InferSymbolicShape = InferSymbolicShape;
static CACHE_GRAD_OP_SYMBOLIC_SHAPE: CacheGradOpSymbolicShape = CacheGradOpSymbolicShape;
static LAYOUT_TRANSFORMATION: LayoutTransformation = LayoutTransformation;
static DECOMP: Decomp = Decomp;
static DECOMP_VJP: DecompVjp = DecompVjp;
static PARSE_KERNEL_KEY: ParseKernelKey = ParseKernelKey;

/// How an op read from yaml gets the interface Paddle calls `name`: `None` when yaml cannot
/// give it (unknown, or `InferShape`, which needs the op's own Rust code).
pub(super) fn interface_impl(name: &str) -> Option<(InterfaceImpl, &'static str)> {
    let k = known::find_interface(name)?;
    (k.implementation != InterfaceImpl::OwnInferShape).then_some((k.implementation, k.runtime))
}

/// The entry of a declaration-only interface, by pir-runtime's type name.
pub(super) fn declaration_only_entry(runtime: &str) -> Option<InterfaceEntry> {
    Some(match runtime {
        "GetKernelTypeForVar" => InterfaceEntry::of(&GET_KERNEL_TYPE_FOR_VAR),
        "InferSymbolicShape" => InterfaceEntry::of(&INFER_SYMBOLIC_SHAPE),
        "CacheGradOpSymbolicShape" => InterfaceEntry::of(&CACHE_GRAD_OP_SYMBOLIC_SHAPE),
        "LayoutTransformation" => InterfaceEntry::of(&LAYOUT_TRANSFORMATION),
        "Decomp" => InterfaceEntry::of(&DECOMP),
        "DecompVjp" => InterfaceEntry::of(&DECOMP_VJP),
        "ParseKernelKey" => InterfaceEntry::of(&PARSE_KERNEL_KEY),
        _ => return None,
    })
}

/// Names the messages list: what yaml ops may declare.
pub(super) fn yaml_traits() -> String {
    let names: Vec<&str> = known::TRAITS
        .iter()
        .filter(|t| t.runtime.is_some())
        .map(|t| t.name)
        .collect();
    names.join(", ")
}

/// Interfaces yaml ops may declare, for messages.
pub(super) fn yaml_interfaces() -> String {
    let names: Vec<&str> = known::INTERFACES
        .iter()
        .filter(|i| i.implementation != InterfaceImpl::OwnInferShape)
        .map(|i| i.name)
        .collect();
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_trait_and_interface_yaml_may_name_has_its_entry() {
        for t in known::TRAITS {
            let e = trait_entry(t.name);
            assert_eq!(e.is_some(), t.runtime.is_some(), "{}", t.name);
            if let Some(e) = e {
                assert_eq!(e.name, t.name);
            }
        }
        for i in known::INTERFACES {
            if i.implementation == InterfaceImpl::DeclarationOnly {
                let e = declaration_only_entry(i.runtime).unwrap_or_else(|| panic!("{}", i.name));
                assert_eq!(e.name, i.name);
            } else {
                assert!(declaration_only_entry(i.runtime).is_none(), "{}", i.name);
            }
        }
        assert!(interface_impl("InferShapeInterface").is_none());
        assert!(trait_entry("OneDNNTrait").is_none());
        assert!(trait_entry("pir::SideEffectTrait").is_some());
    }
}
