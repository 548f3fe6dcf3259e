//! A dialect read from Paddle's generator yaml at run time (feature `yaml`).
//!
//! [`YamlDialect::load`] reads a yaml folder through [`pir_spec::yaml::folder`] (the one folder
//! reader), lowers it to [`OpSchema`]s exactly as `define_ops_from_yaml!` does, and builds for
//! each class the tables the code generator would emit for it: an [`OpDef`] with the same
//! traits, interfaces (GetOpInfo through `OpYamlInfo`, `InferMeta` found by Paddle's function
//! name in an [`InferMetaRegistry`], `Vjp`, the declaration-only ones), attribute order and
//! infer-meta argument table. Everything that works on an [`OpDef`] (verify, print, the
//! parser, PIR JSON, typed builds through [`op_support`](crate::op_support), `check_types`,
//! translation) therefore treats these ops as it treats generated ones.
//!
//! [`YamlDialect::register`] adds the classes to a context, skipping every name the context
//! already has: ops registered before (builtin, a compiled dialect, hand-written ops) win.
//!
//! ```
//! use pir_runtime::{meta::EMPTY_REGISTRY, yaml_dialect::YamlDialect, IrContext};
//! let dir = std::env::temp_dir().join(format!("pir-yaml-dialect-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! std::fs::write(dir.join("ops.yaml"), "\
//! - op : relu
//!   args : (Tensor x)
//!   output : Tensor(out)
//!   infer_meta :
//!     func : UnchangedInferMeta
//!   kernel :
//!     func : relu
//!   inplace : (x -> out)
//! ").unwrap();
//! let dialect = YamlDialect::load(&dir, "pd_op", &EMPTY_REGISTRY).unwrap();
//! std::fs::remove_dir_all(&dir).unwrap();
//! assert_eq!(dialect.len(), 2); // relu and its in-place twin relu_
//! let ctx = IrContext::new();
//! let added = dialect.register(&ctx).unwrap();
//! assert_eq!(added, 2);
//! let relu_ = ctx.op_def("pd_op.relu_").unwrap();
//! assert!(relu_.has_trait_named("InplaceTrait"));
//! assert_eq!(relu_.schema.unwrap().class_name, "Relu_Op");
//! ```

mod op;
mod vocabulary;

use std::path::Path;

use pir_spec::yaml::folder::{FolderError, YamlFolder};
use pir_spec::yaml::parallel::map_ordered;
use pir_spec::yaml::{OpSet, SpecErrors};
use pir_spec::OpSchema;

use crate::context::IrContext;
use crate::error::IrError;
use crate::meta::InferMetaRegistry;
use crate::op_def::OpDef;

/// Classes defined per parallel job.
const CLASSES_PER_JOB: usize = 64;

/// About how many bytes of yaml a class comes from (the unit of `map_ordered`'s weights).
const CLASS_WEIGHT: usize = 200;

/// An op class that yaml describes but pir-runtime cannot define (the run-time counterpart of
/// the macro's compile errors): an unknown trait or interface, an `infer_meta.param` list
/// that does not fit its function.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {message}")]
pub struct OpDefError {
    /// `ops.yaml:12: op `conv2d``, or the op alone when the schema has no source.
    pub at: String,
    /// The full op name.
    pub op: String,
    /// What is wrong.
    pub message: String,
}

impl OpDefError {
    fn new(s: &OpSchema, message: String) -> OpDefError {
        let at = match &s.source {
            Some(l) => format!("{}:{}: op `{}`", l.file, l.line, s.op_name),
            None => format!("op `{}`", s.op_name),
        };
        OpDefError {
            at,
            op: s.name.to_string(),
            message,
        }
    }
}

/// Why a yaml dialect could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum YamlDialectError {
    /// The folder could not be read.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// The yaml has problems (each with file:line).
    #[error("{} problem(s) in the yaml:\n{}", .0.len(), .0)]
    Spec(SpecErrors),
    /// Classes that cannot be defined, each located.
    #[error("{} op class(es) cannot be defined:\n{}", .0.len(), .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))]
    Ops(Vec<OpDefError>),
}

/// The op classes of a yaml folder as `'static` definitions, ready to register in any number of
/// contexts, and the classes it could not define ([`YamlDialect::skipped`]).
#[derive(Debug)]
pub struct YamlDialect {
    name: &'static str,
    ops: Vec<&'static OpDef>,
    skipped: Vec<OpDefError>,
}

impl YamlDialect {
    /// Reads the folder `dir` (Paddle's `paddle/phi/ops/yaml/` layout) and defines every class
    /// of dialect `dialect`, with infer-meta functions from `registry`.
    ///
    /// A class that cannot be defined (where the macro would not compile) is left out and
    /// listed in [`YamlDialect::skipped`]; [`YamlDialect::complete`] makes that an error.
    ///
    /// # Errors
    ///
    /// The folder's read error, or every yaml problem (file:line).
    pub fn load(
        dir: &Path,
        dialect: &str,
        registry: &'static InferMetaRegistry,
    ) -> Result<YamlDialect, YamlDialectError> {
        let folder = YamlFolder::read(dir)?;
        let set = folder.load(dialect).map_err(YamlDialectError::Spec)?;
        Ok(YamlDialect::from_op_set(set, registry))
    }

    /// Defines every class of `set` (as [`pir_spec::yaml::load_op_set`] returns it).
    pub fn from_op_set(set: OpSet, registry: &'static InferMetaRegistry) -> YamlDialect {
        let name = String::leak(set.dialect.clone());
        YamlDialect::from_schemas(name, set.ops, registry)
    }

    /// Defines the classes `schemas` of dialect `name`; those that cannot be defined are
    /// listed in [`YamlDialect::skipped`].
    pub fn from_schemas(
        name: &'static str,
        schemas: Vec<OpSchema>,
        registry: &'static InferMetaRegistry,
    ) -> YamlDialect {
        // The schemas are leaked in one block (an `OpDef` points at its schema for ever);
        // runs of classes are defined in parallel, kept in file order.
        let schemas: &'static [OpSchema] = Vec::leak(schemas);
        let runs: Vec<&'static [OpSchema]> = schemas.chunks(CLASSES_PER_JOB).collect();
        let defined = map_ordered(
            &runs,
            |run| run.len() * CLASS_WEIGHT,
            |run| {
                run.iter()
                    .map(|s| op::op_def(s, registry))
                    .collect::<Vec<_>>()
            },
        );
        let mut ops = Vec::with_capacity(defined.iter().map(Vec::len).sum());
        let mut skipped = Vec::new();
        for d in defined.into_iter().flatten() {
            match d {
                Ok(d) => ops.push(d),
                Err(e) => skipped.push(e),
            }
        }
        YamlDialect { name, ops, skipped }
    }

    /// The classes the yaml describes that could not be defined, each located (an unknown
    /// trait or interface, an `infer_meta.param` list that does not fit its function).
    pub fn skipped(&self) -> &[OpDefError] {
        &self.skipped
    }

    /// `self`, or every skipped class as an error: what the macro would refuse to compile.
    ///
    /// # Errors
    ///
    /// [`YamlDialectError::Ops`] listing every class that could not be defined.
    pub fn complete(self) -> Result<YamlDialect, YamlDialectError> {
        if self.skipped.is_empty() {
            Ok(self)
        } else {
            Err(YamlDialectError::Ops(self.skipped))
        }
    }

    /// The dialect's name (`pd_op`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The definitions, in file order.
    pub fn op_defs(&self) -> &[&'static OpDef] {
        &self.ops
    }

    /// The number of classes.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether the folder defined no class.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The definition named `name` (`pd_op.relu`), a linear search.
    pub fn op_def(&self, name: &str) -> Option<&'static OpDef> {
        self.ops.iter().copied().find(|d| d.name == name)
    }

    /// Registers the classes in `ctx`, except those whose name `ctx` already has (builtin ops,
    /// a compiled dialect's, hand-written ones win); returns how many were added.
    ///
    /// # Errors
    ///
    /// [`IrError`] if a class's name does not belong to the dialect.
    pub fn register(&self, ctx: &IrContext) -> Result<usize, IrError> {
        let new: Vec<&'static OpDef> = self
            .ops
            .iter()
            .copied()
            .filter(|d| ctx.op_def(d.name).is_none())
            .collect();
        ctx.register_ops(self.name, &new)?;
        Ok(new.len())
    }
}
