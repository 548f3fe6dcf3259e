//! The Paddle-schema yaml front end: Paddle's `ops.yaml` / `backward.yaml` / `op_compat.yaml`
//! in, [`OpSchema`]s out, following Paddle's own generator (`op_gen.py` and `parse_utils.py`).
//!
//! `define_ops_from_yaml!` calls [`load_op_set`] at compile time; the `pir` CLI and the
//! translator call it at run time. Every problem is reported with `file:line`, the op and what
//! was expected, and all problems of a load are reported together.
//!
//! ```
//! use pir_spec::yaml::{load_op_set, YamlSource};
//! let ops = "\
//! - op : relu
//!   args : (Tensor x)
//!   output : Tensor(out)
//!   infer_meta :
//!     func : UnchangedInferMeta
//!   kernel :
//!     func : relu
//!   inplace : (x -> out)
//!   backward : relu_grad
//! ";
//! let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }], None).unwrap();
//! let names: Vec<&str> = set.ops.iter().map(|o| o.name.as_ref()).collect();
//! assert_eq!(names, ["pd_op.relu", "pd_op.relu_"]);
//! let relu_ = set.get("relu_").unwrap();
//! assert_eq!(relu_.class_name, "Relu_Op");
//! assert!(relu_.has_trait("InplaceTrait"));
//! assert_eq!(relu_.runtime.inplace[0], ("out".into(), "x".into()));
//! assert_eq!(relu_.backward.as_deref(), Some("relu_grad")); // recorded though absent
//! ```
//!
//! Modules: [`args`] is the grammar of `args` / `output` / `forward` and of default values,
//! [`compat`] reads op_compat.yaml, [`paddle`] holds the names and lists taken from Paddle's
//! generator; reading (with line numbers), entry parsing and lowering are private. Errors are
//! [`SpecError`]s, collected in [`SpecErrors`].
//!
//! Where Paddle's generator has a special case or a hard-coded list, the same one is used
//! here and its source is cited next to it. In particular: entries of `sparse_ops.yaml` /
//! `sparse_backward.yaml` (recognised by file name, as op_gen.py does) are keyed `<name>_sp`
//! and make `<name>_sp` / `<func>_sp` / `<name>sp_` classes beside their dense namesakes;
//! classes of `PD_MANUAL_OP_LIST` ([`paddle::PD_MANUAL_OPS`], written by hand in Paddle) are
//! not generated, so the hand-written definitions are not shadowed; a key repeated in an entry
//! counts once, the last one (PyYAML's rule, which Paddle's own yaml relies on). Deliberate departures, none of which changes the
//! result for Paddle's own yaml:
//!
//! - An op's own `support_tensor : [...]` key makes those attributes mutable even without an
//!   op_compat entry, and an `IntArray` listed there stays an `IntArrayAttribute` (Paddle
//!   ignores the key without a compat entry and files `IntArray`s as `ScalarAttribute`).
//! - A `Tensor[]` input or output in a kernel dispatch signature stays a vector of the
//!   dispatched kind (Paddle's table maps `dense` to a plain `DenseTensorType`).
//! - When the backward op is not in the loaded files, `CacheGradOpSymbolicShapeInterface` (which
//!   depends on the backward's kernel) is not attached; `VjpInterface` is, since the backward
//!   is declared. Paddle requires the backward to be loaded.
//! - Inputs Paddle accepts silently or crashes on are errors: names in
//!   `inplace`/`view`/`kernel.param`/... that are not arguments, dispatch signatures of the wrong
//!   arity, defaults that do not fit their type, an invoked `forward:` signature that does not
//!   match its forward op's tensors and outputs.
//! - Argument lists are split with brackets and string literals balanced (Paddle's regexes stop
//!   at the first `)`, so `Place place = CPUPlace()` cannot appear in a `forward:` signature).

pub mod args;
mod checks;
pub mod compat;
mod entry;
mod error;
mod fast;
pub mod folder;
mod kernel;
mod lower;
pub mod paddle;
pub mod parallel;
mod reader;

use std::collections::{HashMap, HashSet};

use crate::schema::OpSchema;

pub use compat::CompatEntry;
pub use error::{SpecError, SpecErrorKind, SpecErrors};
pub use paddle::{class_name, pascal_case, qualified_name, short_name};

use error::Diag;

/// One yaml file given to the loader.
///
/// ```
/// use pir_spec::yaml::YamlSource;
/// let src = YamlSource { path: "ops.yaml", text: "- op : f\n  args : ()\n  output : Tensor\n" };
/// assert_eq!(src.path, "ops.yaml");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct YamlSource<'a> {
    /// The label used in messages (a path relative to the crate, usually).
    pub path: &'a str,
    /// The file's contents.
    pub text: &'a str,
}

/// All the op classes of a set of yaml files, with lookups.
///
/// ```
/// use pir_spec::yaml::{load_op_set, YamlSource};
/// let ops = "- op : add\n  args : (Tensor x, Tensor y)\n  output : Tensor(out)\n";
/// let compat = "- op : add (elementwise_add)\n  inputs : {x : X, y : Y}\n";
/// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }],
///     Some(YamlSource { path: "op_compat.yaml", text: compat })).unwrap();
/// assert_eq!(set.get("pd_op.add").unwrap().class_name, "AddOp");
/// assert_eq!(set.by_class_name("AddOp").unwrap().op_name, "add");
/// assert_eq!(set.by_legacy_name("elementwise_add")[0].op_name, "add");
/// assert!(set.by_legacy_name("add").is_empty()); // `add` is not a legacy op type
/// ```
#[derive(Clone, Debug)]
pub struct OpSet {
    /// The dialect name given to [`load_op_set`].
    pub dialect: String,
    /// Every class, in file order (an entry's classes: plain, then `_` twin; per kernel).
    pub ops: Vec<OpSchema>,
    compat: Vec<CompatEntry>,
    by_name: HashMap<String, usize>,
    by_class: HashMap<String, usize>,
    by_legacy: HashMap<String, Vec<usize>>,
    /// The entries of classes Paddle writes by hand (`PD_MANUAL_OP_LIST`): not ops of the set.
    hand_written: Vec<OpSchema>,
}

impl OpSet {
    /// The class named `name`: an op name (`conv2d`) or full name (`pd_op.conv2d`).
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let ops = "- op : relu\n  args : (Tensor x)\n  output : Tensor(out)\n  inplace : (x -> out)\n  backward : relu_grad\n\
    ///            - backward_op : relu_grad\n  forward : relu (Tensor x) -> Tensor(out)\n  args : (Tensor out, Tensor out_grad)\n  output : Tensor(x_grad)\n";
    /// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }], None).unwrap();
    /// assert_eq!(set.get("relu_").unwrap().class_name, "Relu_Op");
    /// assert!(set.get("pd_op.relu_grad").is_some());
    /// assert!(set.get("tanh").is_none());
    /// ```
    pub fn get(&self, name: &str) -> Option<&OpSchema> {
        self.by_name.get(name).map(|&i| &self.ops[i])
    }

    /// The backward entry named `name` (op name or full name), as Paddle's Vjp generator reads
    /// it: the class of [`OpSet::get`], or the entry of a class Paddle writes by hand
    /// (`split_grad`), which makes no op of the set but whose args and `invoke` still define
    /// the forward op's generated Vjp.
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let bwd = "- backward_op : split_grad\n  forward : split (Tensor x, IntArray sections, Scalar axis) -> Tensor[](out)\n  args : (Tensor[] out_grad, Scalar axis = -1)\n  output : Tensor(x_grad)\n  invoke : concat(out_grad, axis)\n";
    /// let set = load_op_set("pd_op", &[YamlSource { path: "backward.yaml", text: bwd }], None).unwrap();
    /// assert!(set.get("split_grad").is_none()); // op-defs writes the class by hand
    /// assert_eq!(set.backward_entry("split_grad").unwrap().invoke.as_deref(), Some("concat(out_grad, axis)"));
    /// ```
    pub fn backward_entry(&self, name: &str) -> Option<&OpSchema> {
        self.get(name).or_else(|| {
            self.hand_written
                .iter()
                .find(|s| s.op_name == name || s.name == name)
        })
    }

    /// The class with C++ class name `class` (`Conv2dOp`).
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let ops = "- op : relu\n  args : (Tensor x)\n  output : Tensor(out)\n  inplace : (x -> out)\n  backward : relu_grad\n\
    ///            - backward_op : relu_grad\n  forward : relu (Tensor x) -> Tensor(out)\n  args : (Tensor out, Tensor out_grad)\n  output : Tensor(x_grad)\n";
    /// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }], None).unwrap();
    /// assert_eq!(set.by_class_name("ReluGradOp").unwrap().op_name, "relu_grad");
    /// ```
    pub fn by_class_name(&self, class: &str) -> Option<&OpSchema> {
        self.by_class.get(class).map(|&i| &self.ops[i])
    }

    /// The classes a legacy (fluid) op type maps to: those whose op_compat entry gives this
    /// legacy name, else the op of that name if its compat entry gives no other legacy name.
    /// Several classes come back for ops with an inplace twin or several kernels.
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let ops = "- op : relu\n  args : (Tensor x)\n  output : Tensor(out)\n  inplace : (x -> out)\n  backward : relu_grad\n\
    ///            - backward_op : relu_grad\n  forward : relu (Tensor x) -> Tensor(out)\n  args : (Tensor out, Tensor out_grad)\n  output : Tensor(x_grad)\n";
    /// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }], None).unwrap();
    /// let classes: Vec<&str> = set.by_legacy_name("relu").iter().map(|o| o.name.as_ref()).collect();
    /// assert_eq!(classes, ["pd_op.relu", "pd_op.relu_"]);
    /// ```
    pub fn by_legacy_name(&self, legacy: &str) -> Vec<&OpSchema> {
        if let Some(ix) = self.by_legacy.get(legacy) {
            return ix.iter().map(|&i| &self.ops[i]).collect();
        }
        self.ops
            .iter()
            .filter(|o| {
                o.origin_name == legacy
                    && o.compat
                        .as_ref()
                        .and_then(|c| c.legacy_name.as_deref())
                        .is_none_or(|l| l == legacy)
            })
            .collect()
    }

    /// The op_compat.yaml entries, in file order.
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let ops = "- op : relu\n  args : (Tensor x)\n  output : Tensor(out)\n  inplace : (x -> out)\n  backward : relu_grad\n\
    ///            - backward_op : relu_grad\n  forward : relu (Tensor x) -> Tensor(out)\n  args : (Tensor out, Tensor out_grad)\n  output : Tensor(x_grad)\n";
    /// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }], None).unwrap();
    /// assert!(set.compat_entries().is_empty()); // no op_compat.yaml given
    /// ```
    pub fn compat_entries(&self) -> &[CompatEntry] {
        &self.compat
    }

    /// The op_compat.yaml entry Paddle uses for op `name` (its own, or the one listing it as a
    /// backward op).
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let ops = "- op : relu\n  args : (Tensor x)\n  output : Tensor(out)\n  inplace : (x -> out)\n  backward : relu_grad\n\
    ///            - backward_op : relu_grad\n  forward : relu (Tensor x) -> Tensor(out)\n  args : (Tensor out, Tensor out_grad)\n  output : Tensor(x_grad)\n";
    /// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }], None).unwrap();
    /// assert!(set.compat_entry("relu").is_none()); // no op_compat.yaml given
    /// ```
    pub fn compat_entry(&self, name: &str) -> Option<&CompatEntry> {
        self.compat.iter().find(|c| c.covers(name))
    }

    /// The backward class of `op` (its `backward` name), if loaded.
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let ops = "- op : relu\n  args : (Tensor x)\n  output : Tensor(out)\n  inplace : (x -> out)\n  backward : relu_grad\n\
    ///            - backward_op : relu_grad\n  forward : relu (Tensor x) -> Tensor(out)\n  args : (Tensor out, Tensor out_grad)\n  output : Tensor(x_grad)\n";
    /// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }], None).unwrap();
    /// let relu = set.get("relu").unwrap();
    /// assert_eq!(set.backward_of(relu).unwrap().op_name, "relu_grad");
    /// ```
    pub fn backward_of(&self, op: &OpSchema) -> Option<&OpSchema> {
        op.backward.as_deref().and_then(|b| self.get(b))
    }

    /// The forward class of a backward `op`, if loaded.
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let ops = "- op : relu\n  args : (Tensor x)\n  output : Tensor(out)\n  inplace : (x -> out)\n  backward : relu_grad\n\
    ///            - backward_op : relu_grad\n  forward : relu (Tensor x) -> Tensor(out)\n  args : (Tensor out, Tensor out_grad)\n  output : Tensor(x_grad)\n";
    /// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }], None).unwrap();
    /// let grad = set.get("relu_grad").unwrap();
    /// assert_eq!(set.forward_of(grad).unwrap().op_name, "relu");
    /// ```
    pub fn forward_of(&self, op: &OpSchema) -> Option<&OpSchema> {
        op.forward.as_deref().and_then(|f| self.get(f))
    }

    /// Iterates over the classes.
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let ops = "- op : relu\n  args : (Tensor x)\n  output : Tensor(out)\n  inplace : (x -> out)\n  backward : relu_grad\n\
    ///            - backward_op : relu_grad\n  forward : relu (Tensor x) -> Tensor(out)\n  args : (Tensor out, Tensor out_grad)\n  output : Tensor(x_grad)\n";
    /// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }], None).unwrap();
    /// let names: Vec<&str> = set.iter().map(|o| o.op_name.as_ref()).collect();
    /// assert_eq!(names, ["relu", "relu_", "relu_grad"]);
    /// ```
    pub fn iter(&self) -> std::slice::Iter<'_, OpSchema> {
        self.ops.iter()
    }

    /// The number of classes.
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let ops = "- op : relu\n  args : (Tensor x)\n  output : Tensor(out)\n  inplace : (x -> out)\n  backward : relu_grad\n\
    ///            - backward_op : relu_grad\n  forward : relu (Tensor x) -> Tensor(out)\n  args : (Tensor out, Tensor out_grad)\n  output : Tensor(x_grad)\n";
    /// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }], None).unwrap();
    /// assert_eq!(set.len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether there are no classes.
    ///
    /// ```
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let ops = "- op : relu\n  args : (Tensor x)\n  output : Tensor(out)\n  inplace : (x -> out)\n  backward : relu_grad\n\
    ///            - backward_op : relu_grad\n  forward : relu (Tensor x) -> Tensor(out)\n  args : (Tensor out, Tensor out_grad)\n  output : Tensor(x_grad)\n";
    /// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }], None).unwrap();
    /// assert!(!set.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

/// Loads Paddle-schema op yaml files (and optionally op_compat.yaml) into op classes of
/// `dialect`.
///
/// `ops` holds forward and backward files in any order (each entry is `- op :` or
/// `- backward_op :`); a file set without backward ops is valid, backward names are recorded
/// anyway. Errors are collected from every file and returned together, sorted by file and line.
///
/// ```
/// use pir_spec::yaml::{load_op_set, YamlSource};
/// let ops = "- op : scale\n  args : (Tensor x, Scalar scale=1.0, float bias=0.0)\n  output : Tensor(out)\n  infer_meta :\n    func : UnchangedInferMeta\n    param : [x]\n  kernel :\n    func : scale\n";
/// let compat = "- op : scale\n  scalar :\n    scale :\n      data_type : float\n      tensor_name : ScaleTensor\n";
/// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }],
///     Some(YamlSource { path: "op_compat.yaml", text: compat })).unwrap();
/// let info = set.get("scale").unwrap().op_info_tuple();
/// assert_eq!(info.inputs[1].name, "scale");          // mutable attribute, after tensors
/// assert!(info.inputs[1].is_mutable_attribute);
/// assert_eq!(info.attributes.len(), 1);               // only `bias` stays an attribute
/// assert_eq!(info.runtime_info.kernel_param, ["x", "scale", "bias"]);
/// ```
pub fn load_op_set(
    dialect: &str,
    ops: &[YamlSource<'_>],
    compat: Option<YamlSource<'_>>,
) -> Result<OpSet, SpecErrors> {
    let mut diag = Diag::new();
    let files: Vec<&str> = ops.iter().map(|s| s.path).collect();
    let (entries, broken, compat_entries) = read_all(ops, compat, &mut diag);
    let compat_index = compat::CompatIndex::new(&compat_entries);
    let kept = drop_duplicates(entries, &broken, &files, &mut diag);
    let by_name: HashMap<&str, usize> = kept
        .iter()
        .enumerate()
        .map(|(i, e)| (e.name.as_str(), i))
        .collect();
    let broken_names: HashSet<String> = broken.into_iter().map(|(n, _, _)| n).collect();
    let cx = lower::Ctx {
        dialect,
        files: &files,
        entries: &kept,
        by_name: &by_name,
        compat: &compat_entries,
        compat_index: &compat_index,
        broken: &broken_names,
    };
    checks::cross_check(&cx, &mut diag);
    checks::check_backward_cycles(&cx, &mut diag);
    if let Some(src) = compat {
        checks::check_compat(
            &files,
            src.path,
            &compat_entries,
            &kept,
            &by_name,
            &mut diag,
        );
    }
    let (classes, hand_written) = lower_all(&cx, &mut diag);
    if !diag.errors.is_empty() {
        let rank = |f: &str| files.iter().position(|p| *p == f).unwrap_or(files.len());
        let mut errors = diag.errors;
        errors.sort_by_key(|e| (rank(&e.file), e.line));
        return Err(SpecErrors::new(errors));
    }
    let mut set = OpSet::new(dialect, classes, compat_entries);
    set.hand_written = hand_written;
    Ok(set)
}

/// An entry that had errors: its name, file and line. Kept so that duplicates are still found
/// and entries referring to it are not reported again.
type Broken = (String, usize, u32);

/// A file to read: an op file (its index) or op_compat.yaml.
enum ReadJob<'a> {
    Ops(usize, YamlSource<'a>),
    Compat(YamlSource<'a>),
}

/// What reading one file gave, with its errors.
enum ReadOut {
    Ops(Vec<entry::OpEntry>, Vec<Broken>, Diag),
    Compat(Vec<CompatEntry>, Diag),
}

/// Reads every op file and op_compat.yaml, the files in parallel ([`parallel::map_ordered`]);
/// entries and errors come out in file order, op_compat last, as if read one after another.
fn read_all(
    ops: &[YamlSource<'_>],
    compat: Option<YamlSource<'_>>,
    diag: &mut Diag,
) -> (Vec<entry::OpEntry>, Vec<Broken>, Vec<CompatEntry>) {
    let mut jobs: Vec<ReadJob<'_>> = ops
        .iter()
        .enumerate()
        .map(|(i, s)| ReadJob::Ops(i, *s))
        .collect();
    jobs.extend(compat.map(ReadJob::Compat));
    let weight = |j: &ReadJob<'_>| match j {
        ReadJob::Ops(_, s) | ReadJob::Compat(s) => s.text.len(),
    };
    let outs = parallel::map_ordered(&jobs, weight, |j| match j {
        ReadJob::Ops(i, src) => {
            let mut d = Diag::new();
            let (e, b) = read_entries(*i, *src, &mut d);
            ReadOut::Ops(e, b, d)
        }
        ReadJob::Compat(src) => {
            let mut d = Diag::new();
            let c = read_compat(*src, &mut d);
            ReadOut::Compat(c, d)
        }
    });
    let mut entries = Vec::new();
    let mut broken = Vec::new();
    let mut compat_entries = Vec::new();
    for out in outs {
        match out {
            ReadOut::Ops(e, b, d) => {
                entries.extend(e);
                broken.extend(b);
                diag.errors.extend(d.errors);
            }
            ReadOut::Compat(c, d) => {
                compat_entries = c;
                diag.errors.extend(d.errors);
            }
        }
    }
    (entries, broken, compat_entries)
}

/// Reads and parses every entry of op file number `i`.
fn read_entries(
    i: usize,
    src: YamlSource<'_>,
    diag: &mut Diag,
) -> (Vec<entry::OpEntry>, Vec<Broken>) {
    let mut entries = Vec::new();
    let mut broken = Vec::new();
    let lines: Vec<&str> = src.text.lines().collect();
    let root = match reader::read(src.text) {
        Ok(r) => r,
        Err(e) => {
            diag.push(src.path, e.line, None, SpecErrorKind::Syntax, e.message);
            return (entries, broken);
        }
    };
    let Some(root) = root else {
        return (entries, broken);
    };
    let reader::NodeKind::Seq(items) = &root.kind else {
        diag.push(
            src.path,
            root.line,
            None,
            SpecErrorKind::Syntax,
            format!(
                "the file is {}; expected a list of `- op :` / `- backward_op :` entries",
                root.shape()
            ),
        );
        return (entries, broken);
    };
    entries.reserve(items.len());
    let sparse = entry::is_sparse_file(src.path);
    for item in items {
        match entry::parse_entry(i, src.path, &lines, item, diag) {
            entry::Parsed::Ok(mut e) => {
                if sparse {
                    e.mark_sparse();
                }
                entries.push(*e);
            }
            entry::Parsed::Broken {
                mut name,
                file,
                line,
            } => {
                if sparse {
                    name.push_str(entry::SPARSE_SUFFIX);
                }
                broken.push((name, file, line));
            }
            entry::Parsed::Unnamed => {}
        }
    }
    (entries, broken)
}

/// Reads op_compat.yaml.
fn read_compat(src: YamlSource<'_>, diag: &mut Diag) -> Vec<CompatEntry> {
    match reader::read(src.text) {
        Ok(root) => compat::parse_compat(src.path, root.as_ref(), diag),
        Err(e) => {
            diag.push(src.path, e.line, None, SpecErrorKind::Syntax, e.message);
            Vec::new()
        }
    }
}

/// The entries without a repeated name (the first definition, broken or not, wins; each
/// repeat is reported).
fn drop_duplicates(
    entries: Vec<entry::OpEntry>,
    broken: &[Broken],
    files: &[&str],
    diag: &mut Diag,
) -> Vec<entry::OpEntry> {
    let mut kept = Vec::with_capacity(entries.len());
    let mut first: HashMap<String, (usize, u32)> = HashMap::new();
    for (name, file, line) in broken {
        first.entry(name.clone()).or_insert((*file, *line));
    }
    for e in entries {
        if let Some(&(f, l)) = first.get(&e.name) {
            diag.push(
                files[e.file],
                e.line,
                Some(&e.name),
                SpecErrorKind::Duplicate,
                format!(
                    "op `{}` is defined twice (first at {}:{l})",
                    e.name, files[f]
                ),
            );
            continue;
        }
        first.insert(e.name.clone(), (e.file, e.line));
        kept.push(e);
    }
    kept
}

/// One entry's classes and hand-written classes.
struct Lowered {
    classes: Vec<OpSchema>,
    hand_written: Vec<OpSchema>,
}

/// About how many bytes of yaml an entry takes (for [`parallel::map_ordered`]'s weights).
const ENTRY_WEIGHT: usize = 400;

/// Entries lowered per job: enough jobs for the threads to balance, few enough to be cheap.
const ENTRIES_PER_JOB: usize = 64;

/// Lowers every entry ([`lower::lower_entry`]), runs of entries in parallel, results in
/// entry order.
fn lower_entries(cx: &lower::Ctx<'_>) -> Vec<Lowered> {
    let runs: Vec<&[entry::OpEntry]> = cx.entries.chunks(ENTRIES_PER_JOB).collect();
    let lowered = parallel::map_ordered(
        &runs,
        |run| run.len() * ENTRY_WEIGHT,
        |run| {
            run.iter()
                .map(|e| {
                    let mut classes = Vec::new();
                    let mut hand_written = Vec::new();
                    lower::lower_entry(cx, e, &mut classes, &mut hand_written);
                    Lowered {
                        classes,
                        hand_written,
                    }
                })
                .collect::<Vec<_>>()
        },
    );
    lowered.into_iter().flatten().collect()
}

/// Lowers every entry into its classes; a class whose op name another op or class already
/// takes (`foo` + `foo_`, or a kernel name), or whose C++/Rust class name another class takes
/// (`a_b` and `a__b` are both `ABOp`, `ab` and `aB` both `AbOp`), is reported and dropped.
/// Also returns the hand-written classes' entries (see [`OpSet::backward_entry`]).
fn lower_all(cx: &lower::Ctx<'_>, diag: &mut Diag) -> (Vec<OpSchema>, Vec<OpSchema>) {
    let mut classes = Vec::with_capacity(cx.entries.len() * 2);
    let mut hand_written = Vec::new();
    let mut generated: HashSet<String> = HashSet::with_capacity(cx.entries.len() * 2);
    // Class name -> (op name, file, line) of the class that took it first.
    let mut class_names: HashMap<String, (String, usize, u32)> =
        HashMap::with_capacity(cx.entries.len() * 2);
    for (e, lowered) in cx.entries.iter().zip(lower_entries(cx)) {
        let before = classes.len();
        classes.extend(lowered.classes);
        hand_written.extend(lowered.hand_written);
        let mut i = before;
        while i < classes.len() {
            let name = classes[i].op_name.to_string();
            let class = classes[i].class_name.to_string();
            let clash = generated.contains(&name)
                || (name != e.name
                    && (cx.by_name.contains_key(name.as_str()) || cx.broken.contains(&name)));
            let message = if clash {
                format!(
                    "this entry generates op `{name}`, which is also defined elsewhere (an inplace twin or a kernel function of the same name)"
                )
            } else if let Some((other, file, line)) = class_names.get(&class) {
                format!(
                    "op `{name}` makes class `{class}`, which op `{other}` ({}:{line}) makes too: class names ignore case and repeated `_`; rename one of them",
                    cx.files[*file]
                )
            } else {
                generated.insert(name.clone());
                class_names.insert(class, (name, e.file, e.line));
                i += 1;
                continue;
            };
            diag.push(
                cx.files[e.file],
                e.line,
                Some(&e.name),
                SpecErrorKind::Duplicate,
                message,
            );
            classes.remove(i);
        }
    }
    (classes, hand_written)
}

impl OpSet {
    /// The set of `classes`, indexed by op name, full name, class name and legacy name.
    fn new(dialect: &str, classes: Vec<OpSchema>, compat: Vec<CompatEntry>) -> OpSet {
        let mut by_name = HashMap::with_capacity(classes.len() * 2);
        let mut by_class = HashMap::with_capacity(classes.len());
        let mut by_legacy: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, c) in classes.iter().enumerate() {
            by_name.insert(c.op_name.to_string(), i);
            by_name.insert(c.name.to_string(), i);
            by_class.insert(c.class_name.to_string(), i);
            if let Some(l) = c.compat.as_ref().and_then(|c| c.legacy_name.as_deref()) {
                by_legacy.entry(l.to_string()).or_default().push(i);
            }
        }
        OpSet {
            dialect: dialect.to_string(),
            ops: classes,
            compat,
            by_name,
            by_class,
            by_legacy,
            hand_written: Vec::new(),
        }
    }
}
