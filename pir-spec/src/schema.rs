//! The op specification: one plain-Rust model that both front ends (`#[pir_op]` and
//! `define_ops_from_yaml!`) lower into and that the code generator, the runtime's generic verify
//! and build helpers, the CLI and the translator read.
//!
//! Every string and list is a [`Cow`], so the same types describe a schema parsed at run time
//! (owned) and a schema emitted by the code generator as a `static` table (borrowed).

use std::borrow::Cow;

use crate::phi::{DataLayout, DataType, Place};

/// A string that is either `'static` (generated tables) or owned (parsed at run time).
pub type Str = Cow<'static, str>;
/// A list that is either `'static` (generated tables) or owned (parsed at run time).
pub type List<T> = Cow<'static, [T]>;

/// Where an op definition came from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SourceLoc {
    /// The file (yaml file as given to the macro, or the Rust file of a `#[pir_op]` struct).
    pub file: Str,
    /// 1-based line of the entry (`- op : ...`) or struct.
    pub line: u32,
}

pub use crate::kinds::{AttrKind, TensorKind, ValueKind};

/// A default value written in yaml (`int axis = -1`) or in a `#[pir_op]` field.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum DefaultValue {
    /// `true` / `false`.
    Bool(bool),
    /// An integer (also used for `Scalar` defaults written as integers).
    Int(i64),
    /// A floating-point number (`1.0e-6f`).
    Float(f64),
    /// A string (`"NCHW"`).
    Str(Str),
    /// `{1, 1}` for `int[]`, `int64_t[]`, `IntArray`.
    IntList(List<i64>),
    /// `{1.0, 2.0}` for `float[]` / `double[]`.
    FloatList(List<f64>),
    /// `{true}` for `bool[]`.
    BoolList(List<bool>),
    /// `{"a"}` for `str[]`.
    StrList(List<Str>),
    /// `DataType::INT64`.
    DataType(DataType),
    /// `"NCHW"` for a `DataLayout`.
    DataLayout(DataLayout),
    /// `CPUPlace()`, `{}`.
    Place(Place),
}

/// A mutable attribute: an `IntArray` or `Scalar` that arrives as an operand.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MutableAttr {
    /// [`AttrKind::IntArray`] or [`AttrKind::Scalar`].
    pub kind: AttrKind,
    /// The C++ build-argument type (`std::vector<int64_t>`, `float`, `int`).
    pub data_type: Str,
    /// The default used by the plain-values build.
    pub default: Option<DefaultValue>,
}

/// How an input is passed.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum InputKind {
    /// A tensor or a vector of tensors.
    Value(ValueKind),
    /// A mutable attribute (`is_mutable_attribute` in GetOpInfo).
    MutableAttribute(MutableAttr),
}

impl InputKind {
    /// Paddle's type name for GetOpInfo.
    pub fn type_name(&self) -> Cow<'static, str> {
        match self {
            InputKind::Value(v) => v.type_name(),
            InputKind::MutableAttribute(m) => Cow::Borrowed(m.kind.type_name()),
        }
    }
}

/// One operand of an op.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct InputSpec {
    /// The input's name (accessor name).
    pub name: Str,
    /// What it carries.
    pub kind: InputKind,
    /// May be absent (a null value).
    pub optional: bool,
    /// The kernel needs only its metadata.
    pub no_need_buffer: bool,
    /// The backward op produces a gradient for it.
    pub with_grad_semantic: bool,
    /// Documentation (doc comments of a `#[pir_op]` field).
    pub doc: Str,
}

/// One (non-mutable) attribute of an op.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AttributeSpec {
    /// The attribute's name.
    pub name: Str,
    /// Its IR kind.
    pub kind: AttrKind,
    /// GetOpInfo `data_type` (`std::vector<int64_t>` for IntArray, `float` for Scalar, else "").
    pub data_type: Str,
    /// The default value, if any.
    pub default: Option<DefaultValue>,
    /// The yaml type as written (`int[]`, `Scalar(int64_t)`), for messages and docs.
    pub yaml_type: Str,
    /// Documentation.
    pub doc: Str,
}

/// One result of an op.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct OutputSpec {
    /// The output's name.
    pub name: Str,
    /// What it carries.
    pub kind: ValueKind,
    /// May be null.
    pub optional: bool,
    /// Intermediate output (GetOpInfo reports it optional too).
    pub intermediate: bool,
    /// `{x.size()}` size expression of a vector output, as written.
    pub size_expr: Option<Str>,
    /// Documentation.
    pub doc: Str,
}

/// `OpRunTimeInfo`: infer-meta and kernel selection data.
#[derive(Clone, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RuntimeInfo {
    /// `infer_meta.func`.
    pub infer_meta_func: Str,
    /// `infer_meta.param`.
    pub infer_meta_param: List<Str>,
    /// This class's kernel function.
    pub kernel_func: Str,
    /// `kernel.param`.
    pub kernel_param: List<Str>,
    /// `kernel.data_type` candidates.
    pub kernel_key_dtype: List<Str>,
    /// `kernel.backend` candidates.
    pub kernel_key_backend: List<Str>,
    /// `(output, input)` inplace pairs (only on the `_` class).
    pub inplace: List<(Str, Str)>,
    /// `(output, input)` view pairs (only on the `_` class).
    pub view: List<(Str, Str)>,
    /// `data_transform.skip_transform`.
    pub skip_transform_inputs: List<Str>,
}

/// Forward or backward.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum OpKind {
    /// An `op :` entry or a `#[pir_op]` struct.
    Forward,
    /// A `backward_op :` entry.
    Backward,
}

/// One `scalar:` / `int_array:` entry of op_compat.yaml.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CompatMutable {
    /// The attribute's (new) name.
    pub name: Str,
    /// `data_type`.
    pub data_type: Option<Str>,
    /// `tensor_name` (legacy input carrying the value as one tensor).
    pub tensor_name: Option<Str>,
    /// `tensors_name` (legacy input carrying the value as a list of scalar tensors).
    pub tensors_name: Option<Str>,
    /// `support_tensor`.
    pub support_tensor: bool,
}

/// Legacy (fluid) names of an op, from op_compat.yaml, for the translator.
///
/// ```
/// # #[cfg(feature = "yaml")] {
/// use pir_spec::yaml::{load_op_set, YamlSource};
/// let ops = "- op : mean\n  args : (Tensor x, IntArray axis={}, bool keepdim=false)\n  output : Tensor(out)\n";
/// let compat = "- op : mean (reduce_mean)\n  inputs :\n    x : X\n  attrs :\n    {axis : dim, keepdim : keep_dim}\n  extra :\n    attrs : [bool use_mkldnn = false]\n";
/// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text: ops }],
///     Some(YamlSource { path: "op_compat.yaml", text: compat })).unwrap();
/// let c = set.get("mean").unwrap().compat.as_ref().unwrap();
/// assert_eq!(c.legacy_name.as_deref(), Some("reduce_mean"));
/// assert_eq!(c.attrs[0], ("axis".into(), "dim".into()));
/// assert_eq!(c.extra_attrs[0], "bool use_mkldnn = false");
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CompatSpec {
    /// The legacy op type (`elementwise_add` for `add`), if it differs.
    pub legacy_name: Option<Str>,
    /// `(name, legacy name)` of inputs.
    pub inputs: List<(Str, Str)>,
    /// `(name, legacy name)` of outputs.
    pub outputs: List<(Str, Str)>,
    /// `(name, legacy name)` of attributes.
    pub attrs: List<(Str, Str)>,
    /// Mutable attribute entries (`scalar:` and `int_array:`).
    pub mutable: List<CompatMutable>,
    /// `extra: attrs` declarations as written (`bool use_mkldnn = false`).
    pub extra_attrs: List<Str>,
    /// `extra: inputs` (legacy-only inputs).
    pub extra_inputs: List<Str>,
    /// `extra: outputs` (legacy-only outputs, such as `XShape`).
    pub extra_outputs: List<Str>,
    /// `complex_promote`: legacy input names whose complex dtype promotes the kernel type.
    pub complex_promote: List<Str>,
    /// `drop_empty_grad`: grad outputs dropped when empty.
    pub drop_empty_grad: List<Str>,
    /// `manual_signature`: ops whose legacy argument mapping is hand-written.
    pub manual_signature: List<Str>,
    /// `get_expected_kernel_type`: `(op, function)` pairs.
    pub expected_kernel_type: List<(Str, Str)>,
}

/// The complete specification of one op class.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct OpSchema {
    /// Dialect name (`pd_op`).
    pub dialect: Str,
    /// Op name without the dialect (`conv2d`, `adam_`).
    pub op_name: Str,
    /// Full name (`pd_op.conv2d`).
    pub name: Str,
    /// Paddle's class name (`Conv2dOp`, `Adam_Op`).
    pub class_name: Str,
    /// The yaml op the class was generated from (GetOpInfo's last element).
    pub origin_name: Str,
    /// Forward or backward.
    pub kind: OpKind,
    /// Operands in order: tensor inputs, then mutable attributes.
    pub inputs: List<InputSpec>,
    /// Non-mutable attributes in order.
    pub attributes: List<AttributeSpec>,
    /// Results in order.
    pub outputs: List<OutputSpec>,
    /// Runtime info.
    pub runtime: RuntimeInfo,
    /// Traits by Paddle's short name (`InplaceTrait`), sorted.
    pub traits: List<Str>,
    /// Interfaces by Paddle's short name (`OpYamlInfoInterface`), sorted.
    pub interfaces: List<Str>,
    /// The backward op's name (`conv2d_grad`), recorded even when absent from the file set.
    pub backward: Option<Str>,
    /// For backward ops, the forward op's name.
    pub forward: Option<Str>,
    /// `invoke : f(args)` as written.
    pub invoke: Option<Str>,
    /// Whether a signature verifier is generated (Paddle: not for grad ops or `custom_verify`).
    pub verify_signature: bool,
    /// Legacy names for the translator.
    pub compat: Option<CompatSpec>,
    /// Yaml keys kept as written that do not change the generated code (`composite`, ...).
    pub extra: List<(Str, Str)>,
    /// Where the definition came from.
    pub source: Option<SourceLoc>,
    /// Documentation.
    pub doc: Str,
}

impl OpSchema {
    /// Position of the input named `name`.
    pub fn input_index(&self, name: &str) -> Option<usize> {
        self.inputs.iter().position(|i| i.name == name)
    }

    /// A boolean constant written in place of a name in the `infer_meta.param` list, as
    /// Paddle's generator prints it (`True` / `False`: sparse `matmul` passes
    /// `[x, y, False, False]` to MatmulInferMeta).
    ///
    /// ```
    /// use pir_spec::OpSchema;
    /// assert_eq!(OpSchema::param_constant("False"), Some(false));
    /// assert_eq!(OpSchema::param_constant("x"), None);
    /// ```
    pub fn param_constant(name: &str) -> Option<bool> {
        match name {
            "True" => Some(true),
            "False" => Some(false),
            _ => None,
        }
    }

    /// Position of the attribute named `name`.
    pub fn attribute_index(&self, name: &str) -> Option<usize> {
        self.attributes.iter().position(|a| a.name == name)
    }

    /// Position of the output named `name`.
    pub fn output_index(&self, name: &str) -> Option<usize> {
        self.outputs.iter().position(|o| o.name == name)
    }

    /// Whether the op declares the trait with Paddle name `name` (`InplaceTrait`).
    pub fn has_trait(&self, name: &str) -> bool {
        self.traits.iter().any(|t| t == name)
    }

    /// Whether the op declares the interface with Paddle name `name`.
    pub fn has_interface(&self, name: &str) -> bool {
        self.interfaces.iter().any(|t| t == name)
    }

    /// The GetOpInfo tuple Paddle's generator would produce for this class.
    ///
    /// As in Paddle's `OP_INFO_TEMPLATE`, an empty `infer_meta_param` or `kernel_param` is
    /// reported as one empty string (`{""}` in the generated C++).
    ///
    /// ```
    /// # #[cfg(feature = "yaml")] {
    /// use pir_spec::yaml::{load_op_set, YamlSource};
    /// let text = "- op : ones\n  args : (IntArray shape)\n  output : Tensor(out)\n  invoke : full(shape, 1)\n";
    /// let set = load_op_set("pd_op", &[YamlSource { path: "ops.yaml", text }], None).unwrap();
    /// let info = set.get("ones").unwrap().op_info_tuple();
    /// assert_eq!(info.op_name, "pd_op.ones");
    /// assert_eq!(info.runtime_info.infer_meta_func, "");
    /// assert_eq!(info.runtime_info.infer_meta_param, [""]);
    /// # }
    /// ```
    pub fn op_info_tuple(&self) -> OpInfoTuple {
        let s = |x: &Str| x.to_string();
        OpInfoTuple {
            op_name: self.name.to_string(),
            inputs: self
                .inputs
                .iter()
                .map(|i| OpInputInfo {
                    name: s(&i.name),
                    type_name: i.kind.type_name().into_owned(),
                    optional: i.optional,
                    no_need_buffer: i.no_need_buffer,
                    is_mutable_attribute: matches!(i.kind, InputKind::MutableAttribute(_)),
                    with_grad_semantic: i.with_grad_semantic,
                })
                .collect(),
            attributes: self
                .attributes
                .iter()
                .map(|a| OpAttributeInfo {
                    name: s(&a.name),
                    type_name: a.kind.type_name().to_string(),
                    data_type: s(&a.data_type),
                })
                .collect(),
            outputs: self
                .outputs
                .iter()
                .map(|o| OpOutputInfo {
                    name: s(&o.name),
                    type_name: o.kind.type_name().into_owned(),
                    optional: o.optional || o.intermediate,
                    intermediate: o.intermediate,
                })
                .collect(),
            runtime_info: {
                let r = &self.runtime;
                let v = |l: &List<Str>| l.iter().map(|x| x.to_string()).collect::<Vec<_>>();
                let p = |l: &List<(Str, Str)>| {
                    l.iter()
                        .map(|(a, b)| (a.to_string(), b.to_string()))
                        .collect::<Vec<_>>()
                };
                // Paddle's OP_INFO_TEMPLATE writes `{"<params joined>"}`, so an empty
                // parameter list comes out as one empty string.
                let params = |l: &List<Str>| {
                    if l.is_empty() {
                        vec![String::new()]
                    } else {
                        v(l)
                    }
                };
                OpRunTimeInfo {
                    infer_meta_func: s(&r.infer_meta_func),
                    infer_meta_param: params(&r.infer_meta_param),
                    kernel_func: s(&r.kernel_func),
                    kernel_param: params(&r.kernel_param),
                    kernel_key_dtype: v(&r.kernel_key_dtype),
                    kernel_key_backend: v(&r.kernel_key_backend),
                    inplace: p(&r.inplace),
                    view: p(&r.view),
                    skip_transform_inputs: v(&r.skip_transform_inputs),
                }
            },
            origin_name: s(&self.origin_name),
        }
    }
}

/// `OpInputInfo` of Paddle's GetOpInfo tuple.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct OpInputInfo {
    /// Name.
    pub name: String,
    /// `paddle::dialect::DenseTensorType`, ...
    pub type_name: String,
    /// Optional input.
    pub optional: bool,
    /// No need buffer.
    pub no_need_buffer: bool,
    /// Mutable attribute passed as an operand.
    pub is_mutable_attribute: bool,
    /// Has a gradient in the backward op.
    pub with_grad_semantic: bool,
}

/// `OpAttributeInfo` of Paddle's GetOpInfo tuple.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct OpAttributeInfo {
    /// Name.
    pub name: String,
    /// `pir::Int32Attribute`, ...
    pub type_name: String,
    /// Build-argument type for Scalar/IntArray kinds, else empty.
    pub data_type: String,
}

/// `OpOutputInfo` of Paddle's GetOpInfo tuple.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct OpOutputInfo {
    /// Name.
    pub name: String,
    /// Type name.
    pub type_name: String,
    /// Optional (also true for intermediate outputs).
    pub optional: bool,
    /// Intermediate.
    pub intermediate: bool,
}

/// `OpRunTimeInfo` of Paddle's GetOpInfo tuple (the fields the reference data carries).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct OpRunTimeInfo {
    /// InferMeta function name.
    pub infer_meta_func: String,
    /// Its parameters.
    pub infer_meta_param: Vec<String>,
    /// Kernel function name.
    pub kernel_func: String,
    /// Its parameters.
    pub kernel_param: Vec<String>,
    /// Kernel-key data type candidates.
    pub kernel_key_dtype: Vec<String>,
    /// Kernel-key backend candidates.
    pub kernel_key_backend: Vec<String>,
    /// `(output, input)` inplace pairs.
    pub inplace: Vec<(String, String)>,
    /// `(output, input)` view pairs.
    pub view: Vec<(String, String)>,
    /// Inputs that skip data transform.
    pub skip_transform_inputs: Vec<String>,
}

/// Paddle's GetOpInfo tuple, plus the op's full name.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct OpInfoTuple {
    /// `pd_op.conv2d`.
    pub op_name: String,
    /// Input infos.
    pub inputs: Vec<OpInputInfo>,
    /// Attribute infos.
    pub attributes: Vec<OpAttributeInfo>,
    /// Output infos.
    pub outputs: Vec<OpOutputInfo>,
    /// Runtime info.
    pub runtime_info: OpRunTimeInfo,
    /// The origin yaml op name.
    pub origin_name: String,
}
