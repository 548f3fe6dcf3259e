//! One op class read at run time: its [`OpSchema`] becomes the same `'static` tables the code
//! generator emits for it (`pir-macros/src/codegen/tables.rs`): the trait and interface entries
//! sorted by id, the attribute order, the infer-meta argument table and the `OpDef`. The
//! tables are leaked: an `OpDef` is `'static` by design (operations point at it), and a
//! dialect is loaded once per process.

use pir_spec::known::InterfaceImpl;
use pir_spec::OpSchema;

use super::vocabulary::{
    declaration_only_entry, interface_impl, trait_entry, yaml_interfaces, yaml_traits,
};
use super::OpDefError;
use crate::interfaces::{InferMeta, OpYamlInfo, Vjp};
use crate::meta::{FitMismatch, InferMetaRegistry};
use crate::op_def::{AttrCache, InterfaceEntry, OpDef, ParamRef, TraitEntry};

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Vec::leak(v)
}

fn leak_str(s: String) -> &'static str {
    String::leak(s)
}

/// The trait entries of `s`, sorted by id (as `sort_traits` sorts a generated op's).
fn traits(s: &'static OpSchema) -> Result<Vec<TraitEntry>, OpDefError> {
    let mut out = Vec::with_capacity(s.traits.len());
    for t in s.traits.iter() {
        let e = trait_entry(t).ok_or_else(|| {
            OpDefError::new(
                s,
                format!(
                    "unknown trait `{t}`; pir-runtime implements {}",
                    yaml_traits()
                ),
            )
        })?;
        out.push(e);
    }
    out.sort_by_key(|e| e.id);
    if out.windows(2).any(|w| w[0].id == w[1].id) {
        return Err(OpDefError::new(s, "lists the same trait twice".into()));
    }
    Ok(out)
}

/// The interface entries of `s`, each with its implementation, sorted by id.
fn interfaces(
    s: &'static OpSchema,
    registry: &'static InferMetaRegistry,
) -> Result<Vec<InterfaceEntry>, OpDefError> {
    let mut out = Vec::with_capacity(s.interfaces.len());
    for i in s.interfaces.iter() {
        let unknown = || {
            OpDefError::new(
                s,
                format!(
                    "unknown interface `{i}`; pir-runtime implements {}",
                    yaml_interfaces()
                ),
            )
        };
        let (how, runtime) = interface_impl(i).ok_or_else(unknown)?;
        out.push(match how {
            InterfaceImpl::SchemaInfo => {
                InterfaceEntry::of(Box::leak(Box::new(OpYamlInfo::new(s))))
            }
            InterfaceImpl::InferMetaFunc => InterfaceEntry::of(Box::leak(Box::new(
                InferMeta::from_registry(&s.runtime.infer_meta_func, registry),
            ))),
            InterfaceImpl::BackwardOp => {
                let backward_op = match &s.backward {
                    Some(b) => leak_str(format!("{}.{b}", s.dialect)),
                    None => "",
                };
                InterfaceEntry::of(Box::leak(Box::new(Vjp::new(backward_op))))
            }
            InterfaceImpl::DeclarationOnly | InterfaceImpl::OwnInferShape => {
                declaration_only_entry(runtime).ok_or_else(unknown)?
            }
        });
    }
    out.sort_by_key(|e| e.id);
    if out.windows(2).any(|w| w[0].id == w[1].id) {
        return Err(OpDefError::new(s, "lists the same interface twice".into()));
    }
    Ok(out)
}

/// The attributes' indices sorted by name (the generator's `attr_order`).
fn attr_order(s: &OpSchema) -> Vec<u16> {
    let mut order: Vec<u16> = (0..s.attributes.len() as u16).collect();
    order.sort_by(|&a, &b| {
        s.attributes[a as usize]
            .name
            .cmp(&s.attributes[b as usize].name)
    });
    order
}

/// Where each infer-meta argument comes from, as the generator's `infer_param_table` works it
/// out: `infer_meta.param` for ops with an infer-meta function, inputs then attributes for
/// `InferShape`; `None` when a name resolves to neither (the build reports it).
fn infer_params(s: &OpSchema, has_infer_meta: bool) -> Option<Vec<ParamRef>> {
    if has_infer_meta {
        s.runtime
            .infer_meta_param
            .iter()
            .map(|p| {
                s.input_index(p)
                    .map(|i| ParamRef::Input(i as u16))
                    .or_else(|| s.attribute_index(p).map(|i| ParamRef::Attr(i as u16)))
                    .or_else(|| OpSchema::param_constant(p).map(ParamRef::Bool))
            })
            .collect()
    } else if s.has_interface("InferShapeInterface") {
        let inputs = (0..s.inputs.len()).map(|i| ParamRef::Input(i as u16));
        let attrs = (0..s.attributes.len()).map(|i| ParamRef::Attr(i as u16));
        Some(inputs.chain(attrs).collect())
    } else {
        None
    }
}

/// Checks that `infer_meta.param` fits the registry's function, as the generated `const` check
/// does at compile time (a param naming neither an input nor an attribute passes: the build
/// reports it).
fn check_fit(s: &'static OpSchema, registry: &InferMetaRegistry) -> Result<(), OpDefError> {
    match registry.check_schema(s) {
        Err(e) if !matches!(e.mismatch, FitMismatch::UnknownParam { .. }) => {
            Err(OpDefError::new(s, e.message))
        }
        _ => Ok(()),
    }
}

/// The definition of the class `s`, with infer-meta functions from `registry`.
pub(super) fn op_def(
    s: &'static OpSchema,
    registry: &'static InferMetaRegistry,
) -> Result<&'static OpDef, OpDefError> {
    let traits = traits(s)?;
    let interfaces = interfaces(s, registry)?;
    let has_infer_meta = interfaces
        .iter()
        .any(|e| e.implementation.downcast_ref::<InferMeta>().is_some());
    if has_infer_meta {
        check_fit(s, registry)?;
    }
    let attribute_names: Vec<&'static str> = s.attributes.iter().map(|a| &*a.name).collect();
    Ok(Box::leak(Box::new(OpDef {
        name: &s.name,
        dialect: &s.dialect,
        traits: leak(traits),
        interfaces: leak(interfaces),
        attribute_names: leak(attribute_names),
        verify: None,
        schema: Some(s),
        print: None,
        attr_order: leak(attr_order(s)),
        infer_params: infer_params(s, has_infer_meta).map(leak),
        attr_cache: AttrCache::new(),
    })))
}
