//! The trait and interface vocabulary: every trait and interface that Paddle's ops declare or
//! pir-runtime implements, with Paddle's C++ name and the pir-runtime type.
//!
//! This is the one place the vocabulary is written. The yaml lowering
//! ([`qualified_name`](crate::yaml::qualified_name)), both macro front ends (which names they
//! accept and which pir-runtime type they attach) and pir-runtime (the `NAME` of each of its trait
//! and interface types, through [`runtime_trait_name`] and [`runtime_interface_name`]) read it.
//!
//! ```
//! use pir_spec::known::{find_interface, find_trait, InterfaceImpl};
//! let t = find_trait("pir::SideEffectTrait").unwrap();
//! assert_eq!((t.name, t.runtime), ("SideEffectTrait", Some("SideEffect")));
//! assert_eq!(find_trait("OneDNNTrait").unwrap().runtime, None); // Paddle's, not implemented
//! let i = find_interface("VjpInterface").unwrap();
//! assert_eq!((i.runtime, i.implementation), ("Vjp", InterfaceImpl::BackwardOp));
//! ```

/// A trait Paddle's ops declare or pir-runtime implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownTrait {
    /// Paddle's short name (`SideEffectTrait`), as yaml, GetOpInfo and `OpTrait::NAME` spell it.
    pub name: &'static str,
    /// Paddle's fully qualified C++ name (`pir::SideEffectTrait`); `None` for pir-runtime's own.
    pub cpp: Option<&'static str>,
    /// The pir-runtime type in `pir_runtime::traits` (`SideEffect`); `None` where pir-runtime
    /// has none (an op declaring it cannot be generated).
    pub runtime: Option<&'static str>,
}

/// How the code generator obtains an interface's implementation for an op. (The variants are
/// not named after pir-runtime's types, so rustc's messages keep naming those types briefly.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterfaceImpl {
    /// `OpYamlInfo::new(&SCHEMA)`: the op's GetOpInfo tuple, attached to every op.
    SchemaInfo,
    /// `InferMeta`: the op's infer-meta function (needs `infer_meta`).
    InferMetaFunc,
    /// `Vjp`: the backward op's name (needs `backward`).
    BackwardOp,
    /// `InferShape`: the op's own `InferShapeOp` implementation (`#[pir_op]` only).
    OwnInferShape,
    /// A declaration-only interface: a marker carrying no functions.
    DeclarationOnly,
}

/// An interface Paddle's ops declare or pir-runtime implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownInterface {
    /// Paddle's short name (`VjpInterface`), as yaml and `Interface::NAME` spell it.
    pub name: &'static str,
    /// Paddle's fully qualified C++ name; `None` for pir-runtime's own.
    pub cpp: Option<&'static str>,
    /// The pir-runtime type in `pir_runtime::interfaces` (`Vjp`).
    pub runtime: &'static str,
    /// How generated ops get it.
    pub implementation: InterfaceImpl,
}

const fn tr(name: &'static str, cpp: &'static str, runtime: &'static str) -> KnownTrait {
    KnownTrait {
        name,
        cpp: if cpp.is_empty() { None } else { Some(cpp) },
        runtime: if runtime.is_empty() {
            None
        } else {
            Some(runtime)
        },
    }
}

const fn it(
    name: &'static str,
    cpp: &'static str,
    runtime: &'static str,
    implementation: InterfaceImpl,
) -> KnownInterface {
    KnownInterface {
        name,
        cpp: if cpp.is_empty() { None } else { Some(cpp) },
        runtime,
        implementation,
    }
}

/// Every known trait: pir-runtime's (in the order its messages list them), then Paddle's
/// traits pir-runtime does not implement. C++ names from Paddle's `op_trait.h`,
/// `pir/core/builtin_op_trait.h` and the generator's rules.
///
/// ```
/// let names: Vec<&str> = pir_spec::known::TRAITS.iter().map(|t| t.name).collect();
/// assert!(names.contains(&"InplaceTrait"));
/// ```
#[rustfmt::skip]
pub const TRAITS: &[KnownTrait] = &[
    //  Paddle's name, C++ name ("": pir-runtime's own), pir-runtime type ("": none)
    tr("InplaceTrait", "paddle::dialect::InplaceTrait", "Inplace"),
    tr("ViewLikeTrait", "", "ViewLike"),
    tr("ReadOnlyTrait", "", "ReadOnly"),
    tr("HasValueSemanticsTrait", "", "HasValueSemantics"),
    tr("ForwardOnlyTrait", "paddle::dialect::ForwardOnlyTrait", "ForwardOnly"),
    tr("UnaryElementWiseTrait", "pir::UnaryElementWiseTrait", "UnaryElementWise"),
    tr("BinaryElementWiseTrait", "pir::BinaryElementWiseTrait", "BinaryElementWise"),
    tr("SideEffectTrait", "pir::SideEffectTrait", "SideEffect"),
    tr("CustomVjpTrait", "paddle::dialect::CustomVjpTrait", "CustomVjp"),
    tr("ImmutableLayoutTrait", "pir::ImmutableLayoutTrait", "ImmutableLayout"),
    tr("OneResultTrait", "pir::OneResultTrait", "OneResult"),
    tr("SameOperandsShapeTrait", "pir::SameOperandsShapeTrait", "SameOperandsShape"),
    tr("SameOperandsAndResultShapeTrait", "pir::SameOperandsAndResultShapeTrait", "SameOperandsAndResultShape"),
    tr("SameOperandsElementTypeTrait", "pir::SameOperandsElementTypeTrait", "SameOperandsElementType"),
    tr("SameOperandsAndResultElementTypeTrait", "pir::SameOperandsAndResultElementTypeTrait", "SameOperandsAndResultElementType"),
    tr("SameOperandsAndResultTypeTrait", "pir::SameOperandsAndResultTypeTrait", "SameOperandsAndResultType"),
    tr("SameTypeOperandsTrait", "pir::SameTypeOperandsTrait", "SameTypeOperands"),
    tr("OneDNNTrait", "paddle::dialect::OneDNNTrait", ""),
    tr("OneDNNOnlyTrait", "paddle::dialect::OneDNNOnlyTrait", ""),
    tr("OneDNNDynamicFallbackTrait", "paddle::dialect::OneDNNDynamicFallbackTrait", ""),
];

/// Every known interface, in the order messages list them. C++ names from Paddle's generator
/// (`op_gen.py`) and its interface headers.
///
/// ```
/// use pir_spec::known::{InterfaceImpl, INTERFACES};
/// assert_eq!(INTERFACES[0].implementation, InterfaceImpl::SchemaInfo);
/// ```
#[rustfmt::skip]
pub const INTERFACES: &[KnownInterface] = &[
    //  Paddle's name, C++ name ("": pir-runtime's own), pir-runtime type, how ops get it
    it("OpYamlInfoInterface", "paddle::dialect::OpYamlInfoInterface", "OpYamlInfo", InterfaceImpl::SchemaInfo),
    it("InferMetaInterface", "paddle::dialect::InferMetaInterface", "InferMeta", InterfaceImpl::InferMetaFunc),
    it("VjpInterface", "paddle::dialect::VjpInterface", "Vjp", InterfaceImpl::BackwardOp),
    it("InferShapeInterface", "", "InferShape", InterfaceImpl::OwnInferShape),
    it("GetKernelTypeForVarInterface", "paddle::dialect::GetKernelTypeForVarInterface", "GetKernelTypeForVar", InterfaceImpl::DeclarationOnly),
    it("InferSymbolicShapeInterface", "paddle::dialect::InferSymbolicShapeInterface", "InferSymbolicShape", InterfaceImpl::DeclarationOnly),
    it("CacheGradOpSymbolicShapeInterface", "paddle::dialect::CacheGradOpSymbolicShapeInterface", "CacheGradOpSymbolicShape", InterfaceImpl::DeclarationOnly),
    it("LayoutTransformationInterface", "paddle::dialect::LayoutTransformationInterface", "LayoutTransformation", InterfaceImpl::DeclarationOnly),
    it("DecompInterface", "paddle::dialect::DecompInterface", "Decomp", InterfaceImpl::DeclarationOnly),
    it("DecompVjpInterface", "paddle::dialect::DecompVjpInterface", "DecompVjp", InterfaceImpl::DeclarationOnly),
    it("ParseKernelKeyInterface", "paddle::dialect::ParseKernelKeyInterface", "ParseKernelKey", InterfaceImpl::DeclarationOnly),
];

/// `name` without its C++ namespace (`pir::SideEffectTrait` → `SideEffectTrait`).
fn unqualified(name: &str) -> &str {
    name.rsplit("::").next().unwrap_or(name)
}

/// The trait Paddle calls `name` (short or qualified).
///
/// ```
/// assert_eq!(pir_spec::known::find_trait("InplaceTrait").unwrap().runtime, Some("Inplace"));
/// assert!(pir_spec::known::find_trait("Inplace").is_none()); // Paddle's names end in `Trait`
/// ```
pub fn find_trait(name: &str) -> Option<&'static KnownTrait> {
    let short = unqualified(name);
    TRAITS.iter().find(|t| t.name == short)
}

/// The interface Paddle calls `name` (short or qualified).
///
/// ```
/// let i = pir_spec::known::find_interface("paddle::dialect::DecompInterface").unwrap();
/// assert_eq!(i.runtime, "Decomp");
/// ```
pub fn find_interface(name: &str) -> Option<&'static KnownInterface> {
    let short = unqualified(name);
    INTERFACES.iter().find(|i| i.name == short)
}

/// The trait pir-runtime implements with type `runtime` (`ReadOnly`).
///
/// ```
/// assert_eq!(pir_spec::known::runtime_trait("ReadOnly").unwrap().name, "ReadOnlyTrait");
/// ```
pub fn runtime_trait(runtime: &str) -> Option<&'static KnownTrait> {
    TRAITS.iter().find(|t| t.runtime == Some(runtime))
}

/// The interface pir-runtime implements with type `runtime` (`InferShape`).
///
/// ```
/// assert_eq!(pir_spec::known::runtime_interface("InferShape").unwrap().name, "InferShapeInterface");
/// ```
pub fn runtime_interface(runtime: &str) -> Option<&'static KnownInterface> {
    INTERFACES.iter().find(|i| i.runtime == runtime)
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Paddle's name of pir-runtime's trait type `runtime`, for `OpTrait::NAME`. A type the table
/// does not list is a compile-time error where the constant is evaluated.
///
/// ```
/// const NAME: &str = pir_spec::known::runtime_trait_name("SideEffect");
/// assert_eq!(NAME, "SideEffectTrait");
/// ```
pub const fn runtime_trait_name(runtime: &str) -> &'static str {
    let mut i = 0;
    while i < TRAITS.len() {
        if let Some(r) = TRAITS[i].runtime {
            if same(r, runtime) {
                return TRAITS[i].name;
            }
        }
        i += 1;
    }
    panic!("pir_spec::known::TRAITS has no row for this pir-runtime trait type")
}

/// Paddle's name of pir-runtime's interface type `runtime`, for `Interface::NAME`. A type the
/// table does not list is a compile-time error where the constant is evaluated.
///
/// ```
/// const NAME: &str = pir_spec::known::runtime_interface_name("Vjp");
/// assert_eq!(NAME, "VjpInterface");
/// ```
pub const fn runtime_interface_name(runtime: &str) -> &'static str {
    let mut i = 0;
    while i < INTERFACES.len() {
        if same(INTERFACES[i].runtime, runtime) {
            return INTERFACES[i].name;
        }
        i += 1;
    }
    panic!("pir_spec::known::INTERFACES has no row for this pir-runtime interface type")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_match_their_cpp_names() {
        let mut seen: Vec<&str> = Vec::new();
        for (name, cpp) in TRAITS
            .iter()
            .map(|t| (t.name, t.cpp))
            .chain(INTERFACES.iter().map(|i| (i.name, i.cpp)))
        {
            assert!(!seen.contains(&name), "{name} is listed twice");
            seen.push(name);
            if let Some(cpp) = cpp {
                assert_eq!(unqualified(cpp), name);
            }
        }
        assert!(TRAITS.iter().all(|t| t.name.ends_with("Trait")));
        assert!(INTERFACES.iter().all(|i| i.name.ends_with("Interface")));
    }

    #[test]
    fn runtime_types_are_the_names_without_their_suffix() {
        for t in TRAITS {
            if let Some(r) = t.runtime {
                assert_eq!(t.name, format!("{r}Trait"));
                assert_eq!(runtime_trait_name(r), t.name);
            }
        }
        for i in INTERFACES {
            assert_eq!(i.name, format!("{}Interface", i.runtime));
            assert_eq!(runtime_interface_name(i.runtime), i.name);
        }
    }

    #[test]
    fn lookups_take_short_and_qualified_names() {
        assert_eq!(
            find_trait("pir::OneResultTrait"),
            find_trait("OneResultTrait")
        );
        assert!(find_trait("NoSuchTrait").is_none());
        assert!(find_interface("paddle::dialect::NoSuchInterface").is_none());
        assert!(runtime_trait("OneDNN").is_none());
        assert!(runtime_interface("InferMetaInterface").is_none());
    }
}
