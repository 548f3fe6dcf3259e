//! Paddle's trait and interface names (as yaml and GetOpInfo spell them) and the pir-runtime
//! types that implement them.

/// The pir-runtime trait type for Paddle trait `name` (short or qualified).
pub(crate) fn trait_path(name: &str) -> Option<&'static str> {
    let short = name.rsplit("::").next().unwrap_or(name);
    Some(match short {
        "InplaceTrait" => "Inplace",
        "ViewLikeTrait" => "ViewLike",
        "ReadOnlyTrait" => "ReadOnly",
        "HasValueSemanticsTrait" => "HasValueSemantics",
        "ForwardOnlyTrait" => "ForwardOnly",
        "UnaryElementWiseTrait" => "UnaryElementWise",
        "BinaryElementWiseTrait" => "BinaryElementWise",
        "SideEffectTrait" => "SideEffect",
        "CustomVjpTrait" => "CustomVjp",
        "ImmutableLayoutTrait" => "ImmutableLayout",
        "OneResultTrait" => "OneResult",
        "SameOperandsShapeTrait" => "SameOperandsShape",
        "SameOperandsAndResultShapeTrait" => "SameOperandsAndResultShape",
        "SameOperandsElementTypeTrait" => "SameOperandsElementType",
        "SameOperandsAndResultElementTypeTrait" => "SameOperandsAndResultElementType",
        "SameOperandsAndResultTypeTrait" => "SameOperandsAndResultType",
        "SameTypeOperandsTrait" => "SameTypeOperands",
        _ => return None,
    })
}

/// Every trait name [`trait_path`] knows, for messages.
pub(crate) const TRAIT_NAMES: &str = "InplaceTrait, ViewLikeTrait, ReadOnlyTrait, HasValueSemanticsTrait, ForwardOnlyTrait, UnaryElementWiseTrait, BinaryElementWiseTrait, SideEffectTrait, CustomVjpTrait, ImmutableLayoutTrait, OneResultTrait, SameOperandsShapeTrait, SameOperandsAndResultShapeTrait, SameOperandsElementTypeTrait, SameOperandsAndResultElementTypeTrait, SameOperandsAndResultTypeTrait, SameTypeOperandsTrait";

/// What implements Paddle interface `name` (short or qualified).
pub(crate) enum KnownInterface {
    /// `OpYamlInfoInterface`.
    OpYamlInfo,
    /// `InferMetaInterface`.
    InferMeta,
    /// `VjpInterface`.
    Vjp,
    /// A declaration-only interface: the pir-runtime type in `pir_runtime::interfaces`.
    Declared(&'static str),
}

/// The implementation of Paddle interface `name`.
pub(crate) fn interface(name: &str) -> Option<KnownInterface> {
    let short = name.rsplit("::").next().unwrap_or(name);
    Some(match short {
        "OpYamlInfoInterface" => KnownInterface::OpYamlInfo,
        "InferMetaInterface" => KnownInterface::InferMeta,
        "VjpInterface" => KnownInterface::Vjp,
        "GetKernelTypeForVarInterface" => KnownInterface::Declared("GetKernelTypeForVar"),
        "InferSymbolicShapeInterface" => KnownInterface::Declared("InferSymbolicShape"),
        "CacheGradOpSymbolicShapeInterface" => KnownInterface::Declared("CacheGradOpSymbolicShape"),
        "LayoutTransformationInterface" => KnownInterface::Declared("LayoutTransformation"),
        "DecompInterface" => KnownInterface::Declared("Decomp"),
        "DecompVjpInterface" => KnownInterface::Declared("DecompVjp"),
        "ParseKernelKeyInterface" => KnownInterface::Declared("ParseKernelKey"),
        _ => return None,
    })
}

/// Every interface name [`interface`] knows, for messages.
pub(crate) const INTERFACE_NAMES: &str = "OpYamlInfoInterface, InferMetaInterface, VjpInterface, GetKernelTypeForVarInterface, InferSymbolicShapeInterface, CacheGradOpSymbolicShapeInterface, LayoutTransformationInterface, DecompInterface, DecompVjpInterface, ParseKernelKeyInterface";
