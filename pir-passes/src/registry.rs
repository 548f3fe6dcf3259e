//! The passes known by name (Paddle's pass registry), with their levels and attributes.

use crate::error::PassError;
use crate::pass::{Pass, PassAttrs};
use crate::passes;

/// One registered pass.
pub struct PassInfo {
    /// Paddle's registry name.
    pub name: &'static str,
    /// Paddle's `opt_level` for it.
    pub opt_level: u8,
    /// One line saying what it does.
    pub summary: &'static str,
    /// The attributes it takes.
    pub attrs: &'static [&'static str],
    make: fn(&PassAttrs) -> Result<Box<dyn Pass>, PassError>,
}

/// `pd_op_to_kernel` with an optional `kernel_registry` (a `phi_kernels_cpu.json` path).
fn make_lowering(attrs: &PassAttrs) -> Result<Box<dyn Pass>, PassError> {
    let registry = match attrs.get("kernel_registry") {
        None => None,
        Some(crate::pass::PassAttr::Str(path)) => {
            let bad = |problem: String| PassError::Attribute {
                pass: "pd_op_to_kernel".into(),
                attr: "kernel_registry".into(),
                problem,
            };
            let text = std::fs::read_to_string(path).map_err(|e| bad(format!("{path}: {e}")))?;
            Some(crate::kernel::registry::KernelRegistry::from_json(&text).map_err(bad)?)
        }
        Some(other) => {
            return Err(PassError::Attribute {
                pass: "pd_op_to_kernel".into(),
                attr: "kernel_registry".into(),
                problem: format!("expected a path, found {other:?}"),
            })
        }
    };
    Ok(Box::new(passes::PdOpToKernel { registry }))
}

impl PassInfo {
    /// Makes the pass with `attrs`.
    ///
    /// # Errors
    ///
    /// [`PassError::Attribute`] for an attribute the pass does not take.
    ///
    /// ```
    /// use pir_passes::{registry, PassAttr, PassAttrs};
    /// let info = registry::lookup("dead_code_elimination_pass").unwrap();
    /// assert_eq!(info.opt_level, 0);
    /// let mut attrs = PassAttrs::new();
    /// attrs.insert("bogus".into(), PassAttr::Int(1));
    /// let err = info.create(&attrs).err().unwrap();
    /// assert_eq!(err.to_string(), "pass `dead_code_elimination_pass`: attribute `bogus`: not an attribute of this pass (it takes none)");
    /// ```
    pub fn create(&self, attrs: &PassAttrs) -> Result<Box<dyn Pass>, PassError> {
        if let Some(bad) = attrs.keys().find(|k| !self.attrs.contains(&k.as_str())) {
            let takes = if self.attrs.is_empty() {
                "it takes none".to_string()
            } else {
                format!("it takes {}", self.attrs.join(", "))
            };
            return Err(PassError::Attribute {
                pass: self.name.into(),
                attr: bad.clone(),
                problem: format!("not an attribute of this pass ({takes})"),
            });
        }
        (self.make)(attrs)
    }
}

/// Every registered pass, sorted by name.
pub static PASSES: &[PassInfo] = &[
    PassInfo {
        name: "common_subexpression_elimination_pass",
        opt_level: 1,
        summary: "merges an op into an equal earlier one when it is safe to replace",
        attrs: &[],
        make: |_| Ok(Box::new(passes::CommonSubexpressionElimination)),
    },
    PassInfo {
        name: "conv2d_bn_fuse_pass",
        opt_level: 2,
        summary: "folds an inference batch_norm into the conv2d before it (weights and a bias add)",
        attrs: &[],
        make: |_| Ok(Box::new(passes::Conv2dBnFuse)),
    },
    PassInfo {
        name: "dead_code_elimination_pass",
        opt_level: 0,
        summary: "erases ops whose results are unused (not side effects, data, in-place ops)",
        attrs: &[],
        make: |_| Ok(Box::new(passes::DeadCodeElimination)),
    },
    PassInfo {
        name: "identity_op_clean_pass",
        opt_level: 2,
        summary: "removes scale-by-1, same-type casts, one-input concats, inference dropouts; folds scale and cast pairs",
        attrs: &[],
        make: |_| Ok(Box::new(passes::IdentityOpClean)),
    },
    PassInfo {
        name: "inplace_pass",
        opt_level: 3,
        summary: "switches kernel ops to their in-place twins where the overwritten value is free",
        attrs: &[],
        make: |_| Ok(Box::new(passes::InplacePass)),
    },
    PassInfo {
        name: "inplace_to_out_of_place_pass",
        opt_level: 0,
        summary: "relu_ -> relu with a fresh value (later readers of the input read the result)",
        attrs: &[],
        make: |_| Ok(Box::new(passes::InplaceToOutOfPlace)),
    },
    PassInfo {
        name: "out_of_place_to_inplace_pass",
        opt_level: 3,
        summary: "relu -> relu_ where the op is its input's last reader (pd_op programs)",
        attrs: &[],
        make: |_| Ok(Box::new(passes::OutOfPlaceToInplace)),
    },
    PassInfo {
        name: "pd_op_to_kernel",
        opt_level: 0,
        summary: "lowers pd_op ops to the kernel dialect (phi kernels chosen by dtype, place, layout)",
        attrs: &["kernel_registry"],
        make: make_lowering,
    },
    PassInfo {
        name: "replace_fetch_with_shadow_output_pass",
        opt_level: 0,
        summary: "turns every pd_op.fetch into a builtin.shadow_output of the same name",
        attrs: &[],
        make: |_| Ok(Box::new(passes::ReplaceFetchWithShadowOutput)),
    },
];

/// The pass named `name`.
///
/// ```
/// assert!(pir_passes::registry::lookup("common_subexpression_elimination_pass").is_some());
/// assert!(pir_passes::registry::lookup("cse").is_none());
/// ```
pub fn lookup(name: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|p| p.name == name)
}
