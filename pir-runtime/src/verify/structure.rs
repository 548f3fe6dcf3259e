//! Structural checks of the verifier, beside each op's own verifier: nonsense that no op
//! verifier looks at because it is not about one op's operands and attributes.
//!
//! - Regions on an op whose definition has none: ops generated from Paddle's op yaml (they
//!   have a schema) and the builtin ops other than `builtin.module` are created by Paddle with
//!   no region.
//! - Arguments on the top block: the module's body takes none (Paddle's printer drops them).
//! - A use, inside a region, of a result of the op that owns the region (or of any op
//!   enclosing it): an op's results exist only once the op, regions included, has run.
//! - Dims no Paddle program holds (see [`dim_problem`]).
//!
//! One pass with an explicit stack (no recursion, however deep the nesting), linear in the
//! number of ops, operands and results.

use crate::context::IrContext;
use crate::error::{PrintedType, VerifyError, VerifyErrorKind, VerifyErrors};
use crate::meta::TensorMeta;
use crate::program::{OpId, Program, Value};
use crate::types::{Type, TypeData};

/// The structural checks of [`verify`](super::verify) alone (no op verifier runs): `Err`
/// lists every failure.
///
/// ```
/// use pir_runtime::{verify::verify_structure, IrContext, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// verify_structure(&prog).unwrap();
/// let top = prog.block();
/// prog.add_block_arg(top, Some(ctx.dense_tensor_type(DataType::Float32, &[2])));
/// let errs = verify_structure(&prog).unwrap_err();
/// assert_eq!(errs.0[0].to_string(), "builtin.module (the program's module): \
///     the top block has 1 argument(s): the module's body takes none");
/// ```
pub fn verify_structure(prog: &Program) -> Result<(), VerifyErrors> {
    let mut errors = Vec::new();
    check(prog, &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(VerifyErrors(errors))
    }
}

/// Appends the structural failures of `prog` to `errors`; `true` if a handle of another
/// program or context was found (then the op verifiers must not run: they would read it).
pub(super) fn check(prog: &Program, errors: &mut Vec<VerifyError>) -> bool {
    let top = prog.block();
    let n_args = prog.block_args(top).len();
    if n_args > 0 {
        errors.push(VerifyError {
            op: prog.module_op(),
            op_name: crate::builtin::MODULE_DEF.name,
            location: "the program's module".into(),
            kind: Box::new(VerifyErrorKind::Custom(format!(
                "the top block has {n_args} argument(s): the module's body takes none"
            ))),
        });
    }
    let ctx = prog.ctx();
    // Dims and handles are checked value by value only when the cheap bounds say a problem
    // may exist; regions (and what their ops use) always, they are few.
    let handles = !prog.handles_in_range();
    let dims = ctx.has_unusual_dims(|d| type_data_dims(d, true).is_some());
    let mut c = Checker {
        prog,
        ctx,
        open: Vec::new(),
        n_open: 0,
        types: Vec::new(),
        errors,
        foreign: false,
        values: handles || dims,
    };
    if c.values {
        c.walk(Frame::Ops(prog.first_op(top)));
    } else {
        for op in prog.ops_with_regions() {
            let top_level = prog
                .op(op)
                .parent_block()
                .and_then(|b| prog.block_parent(b))
                .and_then(|r| prog.region_parent(r))
                == Some(prog.module_op());
            if top_level {
                c.walk(Frame::One(op));
            }
        }
    }
    c.foreign
}

impl Checker<'_, '_> {
    /// Checks the ops from `start` on (one op or the rest of a block) and all nested in them.
    fn walk(&mut self, start: Frame) {
        let prog = self.prog;
        let mut stack = vec![start];
        while let Some(frame) = stack.pop() {
            let op = match frame {
                Frame::Close(op) => {
                    self.open[op.index()] = false;
                    self.n_open -= 1;
                    continue;
                }
                Frame::Ops(None) => continue,
                Frame::Ops(Some(op)) => {
                    stack.push(Frame::Ops(prog.op(op).next_op()));
                    op
                }
                Frame::One(op) => op,
            };
            self.op(op);
            let r = prog.op(op);
            // The op's regions come first, then it is closed, then the rest of its block.
            if r.num_regions() > 0 {
                if self.open.len() <= op.index() {
                    self.open.resize(op.index() + 1, false);
                }
                self.open[op.index()] = true;
                self.n_open += 1;
                stack.push(Frame::Close(op));
                for i in (0..r.num_regions()).rev() {
                    for &b in prog.region_blocks(r.region(i)).iter().rev() {
                        stack.push(Frame::Ops(prog.first_op(b)));
                    }
                }
            }
        }
    }
}

/// A step of the walk: visit ops from this one to the end of its block, or leave an op's
/// regions.
enum Frame {
    Ops(Option<OpId>),
    One(OpId),
    Close(OpId),
}

/// `Checker::types` flags: the type was checked, as an inferred or as a declared value's.
const INFERRED_OK: u8 = 1;
const DECLARED_OK: u8 = 2;

struct Checker<'a, 'e> {
    prog: &'a Program,
    ctx: &'a IrContext,
    /// Ops whose regions are being visited, by op index (a region may not use their results),
    /// and how many there are.
    open: Vec<bool>,
    n_open: usize,
    /// What is known of each type of the context, by index (each type is checked once).
    types: Vec<u8>,
    errors: &'e mut Vec<VerifyError>,
    foreign: bool,
    /// Whether to check every value's type and every op's attributes (else only the ops in
    /// regions are visited, for the region rules).
    values: bool,
}

impl Checker<'_, '_> {
    fn op(&mut self, op: OpId) {
        let (prog, ctx) = (self.prog, self.ctx);
        let r = prog.op(op);
        let fail = |kind| super::failure(prog, op, kind);
        if r.num_regions() > 0 && !may_have_regions(r.def()) {
            self.errors.push(fail(VerifyErrorKind::RegionCount {
                expected: 0,
                found: r.num_regions(),
            }));
        }
        if self.values && !attrs_of_ctx(ctx, r.attributes()) {
            self.foreign = true;
            self.errors.push(fail(VerifyErrorKind::Custom(
                "its attribute dictionary is not of the program's context (an attribute of \
                 another IrContext)"
                    .into(),
            )));
        }
        // A use of an enclosing op's result is the main verifier's (its scope of values).
        if !self.values {
            return;
        }
        let declared = r.num_operands() == 0;
        for (i, v) in r.results().enumerate() {
            if let Some(kind) = self.value(v, declared, || format!("result {i}")) {
                self.errors.push(fail(kind));
            }
        }
        for region in r.regions() {
            for &b in prog.region_blocks(region) {
                for (i, &a) in prog.block_args(b).iter().enumerate() {
                    let what = || format!("argument {i} of block {b:?} of its region");
                    if let Some(kind) = self.value(a, true, what) {
                        self.errors.push(fail(kind));
                    }
                }
            }
        }
    }

    /// The problem with `v`'s type, as an error about `what`.
    fn value(
        &mut self,
        v: Value,
        declared: bool,
        what: impl Fn() -> String,
    ) -> Option<VerifyErrorKind> {
        let ty = self.prog.value_type(v)?;
        let i = ty.index() as usize;
        let flag = if declared { DECLARED_OK } else { INFERRED_OK };
        if self.types.get(i).is_some_and(|&f| f & flag != 0) {
            return None;
        }
        if !type_of_ctx(self.ctx, ty) {
            self.foreign = true;
            return Some(VerifyErrorKind::Custom(format!(
                "{}: its type is not of the program's context (a type of another IrContext)",
                what()
            )));
        }
        if let Some((dim, reason)) = type_dims(self.ctx, ty, declared) {
            return Some(VerifyErrorKind::Custom(format!(
                "{}: type {} has dim {dim}: {reason}",
                what(),
                PrintedType::new(self.ctx, Some(ty))
            )));
        }
        if self.types.len() <= i {
            self.types.resize(i + 1, 0);
        }
        self.types[i] |= flag;
        None
    }
}

/// Whether `ty` may be a type of `ctx`: in range, and of the kind its handle says (a handle of
/// another context passes only if it happens to name a type of the same kind here).
fn type_of_ctx(ctx: &IrContext, ty: Type) -> bool {
    (ty.index() as usize) < ctx.num_types() && kind_of(ctx.type_data(ty)) == ty.kind()
}

fn kind_of(d: &TypeData) -> crate::TypeKind {
    use crate::TypeKind as K;
    match d {
        TypeData::Scalar(_) => K::Scalar,
        TypeData::Vector(_) => K::Vector,
        TypeData::DenseTensor(_) => K::DenseTensor,
        TypeData::SelectedRows(_) => K::SelectedRows,
        TypeData::DenseTensorArray { .. } => K::DenseTensorArray,
        TypeData::SparseCoo(_) => K::SparseCoo,
        TypeData::SparseCsr(_) => K::SparseCsr,
        TypeData::Custom { .. } => K::Custom,
    }
}

/// Whether the attribute dictionary `a` and its entries are in `ctx`'s range.
fn attrs_of_ctx(ctx: &IrContext, a: crate::Attribute) -> bool {
    match ctx.try_attr_data(a) {
        Some(crate::AttrData::Dict(entries)) => {
            entries.iter().all(|(_, e)| ctx.try_attr_data(*e).is_some())
        }
        Some(_) => true,
        None => false,
    }
}

/// Whether ops of `def` may have regions (Paddle creates yaml ops and builtin ops but the
/// module without any).
fn may_have_regions(def: &crate::OpDef) -> bool {
    def.schema.is_none()
        && (def.dialect != "builtin" || std::ptr::eq(def, &crate::builtin::MODULE_DEF))
}

/// The first invalid dim of `ty` (elements of vectors included) and why.
fn type_dims(ctx: &IrContext, ty: Type, declared: bool) -> Option<(i64, &'static str)> {
    match ctx.type_data(ty) {
        TypeData::Vector(elems) => elems.iter().find_map(|&e| type_dims(ctx, e, declared)),
        d => type_data_dims(d, declared),
    }
}

/// The first invalid dim of a tensor type's data and why (vectors: see [`type_dims`]; their
/// elements are types of the context too).
fn type_data_dims(d: &TypeData, declared: bool) -> Option<(i64, &'static str)> {
    match d {
        TypeData::DenseTensor(t) | TypeData::SelectedRows(t) => tensor_dims(t, declared),
        TypeData::DenseTensorArray { dtype, dims, .. } => {
            dims_problem(dims, dtype.size_of(), declared)
        }
        TypeData::SparseCoo(t) => dims_problem(&t.dims, t.dtype.size_of(), declared),
        TypeData::SparseCsr(t) => dims_problem(&t.dims, t.dtype.size_of(), declared),
        TypeData::Vector(_) | TypeData::Scalar(_) | TypeData::Custom { .. } => None,
    }
}

fn tensor_dims(t: &TensorMeta, declared: bool) -> Option<(i64, &'static str)> {
    dims_problem(&t.dims, t.dtype.size_of(), declared)
}

/// Why `dims` (of elements of `elem_size` bytes) are no dims of a Paddle tensor, if they are
/// not. Paddle writes a dim as `-1` (unknown), `>= 0`, or a product of an unknown dim with
/// known ones (`instance_norm` on `-1x3x..` gives `tensor<-3x..>`): `-N` for any `N`, but only
/// where infer-meta computes it from an input, never on a declared value (a block argument,
/// the result of an op without operands). And Paddle keeps a tensor's size in bytes in an
/// `int64`.
fn dims_problem(dims: &[i64], elem_size: usize, declared: bool) -> Option<(i64, &'static str)> {
    if declared {
        if let Some(&d) = dims.iter().find(|&&d| d < -1) {
            return Some((
                d,
                "a dim below -1 is only written by Paddle as the product of an input's unknown \
                 (-1) dim with known dims, and this value has no input (declared dims are -1 or \
                 >= 0)",
            ));
        }
    }
    let mut bytes = elem_size.max(1) as i64;
    for &d in dims {
        // `i64::MIN` has no magnitude in an int64 either.
        bytes =
            match d.checked_abs().and_then(|m| bytes.checked_mul(m.max(1))) {
                Some(b) => b,
                None => return Some((
                    d,
                    "the tensor's size in bytes does not fit in an int64, where Paddle keeps it",
                )),
            };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::dims_problem;

    #[test]
    fn paddle_dims_pass_and_others_say_why() {
        // What Paddle writes: unknown, known, products of unknown dims in inferred results.
        assert!(dims_problem(&[-1, 3], 4, true).is_none());
        assert!(dims_problem(&[-3], 8, false).is_none());
        assert!(dims_problem(&[-8], 4, false).is_none());
        assert!(dims_problem(&[0, 7], 4, true).is_none());
        assert_eq!(dims_problem(&[-5], 4, true).unwrap().0, -5);
        assert_eq!(dims_problem(&[2, i64::MAX], 4, false).unwrap().0, i64::MAX);
        assert_eq!(dims_problem(&[i64::MIN], 1, false).unwrap().0, i64::MIN);
        // 2^31 x 2^31 f32 overflows, 2^20 x 2^20 does not.
        assert!(dims_problem(&[1 << 31, 1 << 31], 4, false).is_some());
        assert!(dims_problem(&[1 << 20, 1 << 20], 4, false).is_none());
    }
}
