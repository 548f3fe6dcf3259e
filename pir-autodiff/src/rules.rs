//! Where an op's Vjp comes from: the rule derived from its schema and its backward op's
//! schema ([`pir_spec::vjp::vjp_rule`]), computed once per op kind and cached for the pass.

use std::sync::Arc;

use pir_runtime::interfaces::Vjp;
use pir_runtime::{Builder, OpDef, OpId, Program};
use pir_spec::vjp::{vjp_rule, VjpRule};
use pir_spec::OpSchema;
use rustc_hash::FxHashMap;

use crate::error::AutodiffError;
use crate::vjp::{run_rule, VjpArgs, VjpFn, VjpResult};

/// An op's Vjp: a table interpreted by [`run_rule`] (generated, or derived at run time from
/// the schemas), or a hand-written function.
#[derive(Debug, Clone)]
pub enum VjpImpl {
    /// A table.
    Rule {
        /// The forward op's schema.
        schema: &'static OpSchema,
        /// The table.
        rule: RuleRef,
    },
    /// A hand-written Vjp (`impl VjpOp`).
    Custom(VjpFn),
}

/// A Vjp table: generated (`'static`) or derived at run time.
#[derive(Debug, Clone)]
pub enum RuleRef {
    /// Emitted by the code generator.
    Static(&'static VjpRule),
    /// Derived from the registered schemas.
    Derived(Arc<VjpRule>),
}

impl std::ops::Deref for RuleRef {
    type Target = VjpRule;
    fn deref(&self) -> &VjpRule {
        match self {
            RuleRef::Static(r) => r,
            RuleRef::Derived(r) => r,
        }
    }
}

impl VjpImpl {
    /// Builds the backward of `op` at `b`'s insertion point.
    ///
    /// # Errors
    ///
    /// As [`run_rule`].
    pub fn call(
        &self,
        b: &mut Builder<'_>,
        op: OpId,
        args: &VjpArgs<'_>,
    ) -> Result<VjpResult, AutodiffError> {
        match self {
            VjpImpl::Rule { schema, rule } => run_rule(b, op, schema, rule, args),
            VjpImpl::Custom(f) => f(b, op, args).map_err(|source| AutodiffError::Build {
                op: b.program().describe(op),
                source,
            }),
        }
    }

    /// The table, for a table-driven Vjp.
    pub fn rule(&self) -> Option<&VjpRule> {
        match self {
            VjpImpl::Rule { rule, .. } => Some(rule),
            VjpImpl::Custom(_) => None,
        }
    }
}

/// The Vjp rules of the op kinds one pass meets, by op name.
#[derive(Default)]
pub struct RuleCache {
    rules: FxHashMap<&'static str, VjpImpl>,
}

impl RuleCache {
    /// Whether `op` declares a Vjp (Paddle's `has_vjp`): the interface, or, for an op
    /// registered at run time from a schema, `VjpInterface` in the schema with a backward op.
    pub fn has_vjp(&self, prog: &Program, op: OpId) -> bool {
        let def = prog.op(op).def();
        def.has_interface::<Vjp>()
            || def
                .schema
                .is_some_and(|s| s.backward.is_some() && s.has_interface("VjpInterface"))
    }

    /// The Vjp of `op`.
    ///
    /// # Errors
    ///
    /// [`AutodiffError::Rule`] when the rule cannot be derived from the schemas.
    pub fn vjp(&mut self, prog: &Program, op: OpId) -> Result<VjpImpl, AutodiffError> {
        let def: &'static OpDef = prog.op(op).def();
        if let Some(v) = self.rules.get(def.name) {
            return Ok(v.clone());
        }
        let v = rule_of(prog, def).map_err(|source| AutodiffError::Rule {
            op: prog.describe(op),
            source,
        })?;
        self.rules.insert(def.name, v.clone());
        Ok(v)
    }
}

/// The op's Vjp: its hand-written function, its generated table, or a table derived now from
/// its schema and its backward op's (registered) schema.
fn rule_of(prog: &Program, def: &'static OpDef) -> Result<VjpImpl, pir_spec::vjp::VjpError> {
    let ctx = prog.ctx();
    let iface = def.interface::<Vjp>();
    if let Some(f) = iface.and_then(|v| v.custom) {
        return Ok(VjpImpl::Custom(f));
    }
    let schema = def
        .schema
        .ok_or_else(|| pir_spec::vjp::VjpError::NoBackward {
            op: def.name.to_string(),
        })?;
    if let Some(rule) = iface.and_then(|v| v.rule) {
        return Ok(VjpImpl::Rule {
            schema,
            rule: RuleRef::Static(rule),
        });
    }
    let rule = vjp_rule(schema, |name| {
        ctx.op_def(&format!("{}.{name}", schema.dialect))
            .and_then(|d| d.schema)
    })?;
    Ok(VjpImpl::Rule {
        schema,
        rule: RuleRef::Derived(Arc::new(rule)),
    })
}
