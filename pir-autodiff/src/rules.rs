//! Where an op's Vjp comes from: the rule derived from its schema and its backward op's
//! schema ([`pir_spec::vjp::vjp_rule`]), computed once per op kind and cached for the pass.

use std::sync::Arc;

use pir_runtime::interfaces::Vjp;
use pir_runtime::{Builder, OpDef, OpId, Program};
use pir_spec::vjp::{vjp_rule, VjpRule};
use pir_spec::OpSchema;
use rustc_hash::FxHashMap;

use crate::error::AutodiffError;
use crate::vjp::{run_rule, VjpArgs, VjpResult};

/// An op's Vjp: a table interpreted by [`run_rule`].
#[derive(Debug, Clone)]
pub struct VjpImpl {
    schema: &'static OpSchema,
    rule: Arc<VjpRule>,
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
        run_rule(b, op, self.schema, &self.rule, args)
    }

    /// The rule.
    pub fn rule(&self) -> &VjpRule {
        &self.rule
    }
}

/// The Vjp rules of the op kinds one pass meets, by op name.
#[derive(Default)]
pub struct RuleCache {
    rules: FxHashMap<&'static str, VjpImpl>,
}

impl RuleCache {
    /// Whether `op` declares a Vjp (Paddle's `has_vjp`).
    pub fn has_vjp(&self, prog: &Program, op: OpId) -> bool {
        prog.op(op).def().has_interface::<Vjp>()
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

fn rule_of(prog: &Program, def: &'static OpDef) -> Result<VjpImpl, pir_spec::vjp::VjpError> {
    let ctx = prog.ctx();
    let schema = def.schema.ok_or_else(|| pir_spec::vjp::VjpError::NoBackward {
        op: def.name.to_string(),
    })?;
    let rule = vjp_rule(schema, |name| {
        ctx.op_def(&format!("{}.{name}", schema.dialect))
            .and_then(|d| d.schema)
    })?;
    Ok(VjpImpl {
        schema,
        rule: Arc::new(rule),
    })
}
