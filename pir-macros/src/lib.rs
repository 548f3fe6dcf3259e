//! Procedural macros of pir-rs.
//!
//! - `#[pir_op(...)]` declares an op by annotating a struct.
//! - `define_ops_from_yaml! { ... }` generates a whole dialect from Paddle-schema yaml.
//! - `#[infer_meta]` turns a function with typed parameters into a registered infer-meta
//!   function.
//!
//! Both lower into `pir_spec::OpSchema` and share one code generator, so an op declared either
//! way has the same API: an 8-byte `Copy` handle implementing `pir_runtime::Op`, accessors named
//! after its inputs and outputs, `build` / `build_with_attributes` / `build_with_values` /
//! `build_with_types`, the GetOpInfo tuple, and registration in its dialect.

mod codegen;
mod drr;
mod infer_meta_fn;
mod pir_op;
mod yaml_front;

use proc_macro::TokenStream;

/// Generates every op of Paddle-schema yaml files, plus the dialect type that registers them.
///
/// ```ignore
/// pir_macros::define_ops_from_yaml! {
///     dialect = "pd_op",
///     ops = ["ops-yaml/ops.yaml", "ops-yaml/backward.yaml"],
///     compat = "ops-yaml/op_compat.yaml",          // optional
///     infer_meta = crate::infer_meta::REGISTRY,     // optional
/// }
/// ```
///
/// Paths are relative to the invoking crate's `CARGO_MANIFEST_DIR`; absolute paths work and
/// `${VAR}` expands an environment variable. A bad entry is a compile error naming the file,
/// the line, the op and the problem.
#[proc_macro]
pub fn define_ops_from_yaml(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as yaml_front::YamlInput);
    match yaml_front::expand(input) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// Declares an op by annotating a struct: the struct is replaced by the op's typed handle.
///
/// ```ignore
/// use pir_runtime::interfaces::InferShapeOp;
/// use pir_runtime::meta::{InferMetaCtx, InferMetaError};
///
/// /// Element-wise absolute value.
/// #[pir_op(name = "test.abs", traits(ReadOnly, UnaryElementWise), interfaces(InferShape))]
/// pub struct AbsOp {
///     /// The operand.
///     #[input] x: DenseTensor,
///     #[output] out: DenseTensor,
/// }
///
/// impl InferShapeOp for AbsOp {
///     fn infer_shape(ctx: &mut InferMetaCtx<'_>) -> Result<(), InferMetaError> {
///         let x = ctx.tensor(0)?.clone();
///         ctx.set_output(0, x)
///     }
/// }
/// // AbsOp::build(&mut builder, x)?.out(builder.program())
/// ```
///
/// The generated API is the one `define_ops_from_yaml!` generates (the same code generator
/// emits both): an 8-byte `Copy` handle implementing `pir_runtime::Op`, an accessor per input
/// (`fn x(self, &Program) -> Option<Value>`, operands in order: tensor inputs, then mutable
/// attributes) and per output (`fn out(self, &Program) -> Value`); `build` (tensor inputs as
/// values, mutable attributes as Rust values materialised as `full` / `full_int_array` ops, the
/// other attributes in an `<Op>Attrs` struct with `Default` when every attribute has a default,
/// else `new(required...)`), `build_with_values` (mutable attributes as values),
/// `build_with_attributes` (an attribute dictionary), `build_with_types` (explicit result
/// types); `schema()`, `get_op_info()` (Paddle's GetOpInfo tuple), `NAME`, `ATTRIBUTE_NAMES`.
/// Register ops with `pir_runtime::dialect!(pub MyDialect = "test" [AbsOp, ...])`.
///
/// The struct's doc comments become the op's documentation (`schema.doc` and the handle's
/// rustdoc); a field's doc comments document that input, attribute or output. Other attributes
/// on the struct (`#[allow]`, `#[deprecated]`, ...) are kept on the handle; `#[derive]` is not
/// allowed (the handle derives `Clone, Copy, PartialEq, Eq, Hash, Debug`).
///
/// # `#[pir_op(...)]` keys
///
/// | key | meaning |
/// |---|---|
/// | `name = "dialect.op"` | **required**; the full op name. Names of in-place ops end with `_`. |
/// | `traits(A, B, path::C)` | pir-runtime traits by short name (`ReadOnly`, `UnaryElementWise`, `SideEffect`, `ForwardOnly`, `SameOperandsShape`, ..., Paddle's `...Trait` spellings too); any path (`crate::MyTrait`) is a trait of your own declared with `pir_runtime::declare_trait!`. |
/// | `interfaces(A, path::B)` | `OpYamlInfo` (always attached), `InferMeta` (needs `infer_meta`), `Vjp` (needs `backward`), `InferShape` (implement `pir_runtime::interfaces::InferShapeOp` for the op), Paddle's declaration-only interfaces (`InferSymbolicShape`, `LayoutTransformation`, `GetKernelTypeForVar`, ...); any path is an interface of your own, implemented through `pir_runtime::OpInterfaceImpl<Op>`. Declaring an interface the op does not implement is a compile error saying what to write. |
/// | `infer_meta(func = "Name", param(a, b), registry = path)` | the infer-meta function, looked up by name in an `InferMetaRegistry` static (`registry` defaults to `pir_runtime::meta::EMPTY_REGISTRY`: typed builds then report the function as not implemented). Attaches `InferMetaInterface`. |
/// | `infer_meta(with = path::to::fn, func = "Name", param(...))` | the same with a Rust function (`fn(&mut InferMetaCtx) -> Result<(), InferMetaError>`) called directly; `func` defaults to the function's name. |
/// | `kernel(func = "name", param(a, b), data_type(a), backend(place))` | the kernel: function, parameters, kernel-key data type and backend candidates (names of inputs and attributes). |
/// | `backward = "op_grad"` | the backward op (same dialect, name without it); attaches `VjpInterface` and sets `with_grad_semantic` on the tensor inputs. |
/// | `forward = "op"` | for a backward op: its forward op. |
/// | `kind = "forward"` / `"backward"` | defaults to backward when the name (without a trailing `_`) ends with `_grad`. Backward ops are verified leniently, as Paddle generates an empty `VerifySig` for them. |
/// | `origin = "op"` | GetOpInfo's origin (yaml) op name; defaults to the op name. |
/// | `verify = path::to::fn` | an extra verifier, `fn(OpRef<'_>) -> Result<(), E>` where `E` is a `pir_runtime::VerifyErrorKind` (or converts into one: a `String` becomes `VerifyErrorKind::Custom`), run after the signature check; the verifier adds the op and its location. |
/// | `custom_verify` | no generated signature check (Paddle's `custom_verify: true`). |
/// | `compat = "op_compat.yaml"` | the op's legacy names (for the translator), from the file's entry for the op (path relative to the crate's `CARGO_MANIFEST_DIR`; `${VAR}` expands). |
/// | `unsuffixed_inplace` | allows in-place or view outputs on an op whose name does not end with `_` (Paddle's hand-written `array_pop`); the op gets its pairs but no `InplaceTrait`. |
///
/// Parameter lists follow Paddle's defaults: `kernel.param` defaults to the inputs then the
/// attributes (mutable ones included, in field order), `infer_meta.param` to `kernel.param`
/// (or to inputs then attributes when there is no kernel). On the `pd_op` dialect the op also
/// gets `GetKernelTypeForVarInterface`, as Paddle's generator attaches it.
///
/// # Fields
///
/// Every field has exactly one role; its name is the IR name (`r#type` is `type`) and its type
/// is a marker of what it carries:
///
/// ```text
/// #[input]  x: DenseTensor            // one tensor (also SelectedRows, DenseTensorArray,
///                                     //   SparseCooTensor, SparseCsrTensor)
/// #[input]  xs: Vec<DenseTensor>      // a vector of tensors (one operand of VectorType)
/// #[input]  bias: Option<DenseTensor> // optional: the operand may be null
/// #[input(no_need_buffer)] x: ...     // the kernel reads only the metadata
/// #[input(no_grad)] index: ...        // the backward op computes no gradient for it
/// #[input(grad)] x: ...               // GetOpInfo's with_grad_semantic without a `backward`
///                                     //   (Paddle's hand-written classes state it by hand)
///
/// #[attr] axis: i32                   // bool, i32, i64, usize (size_t), f32, f64, String
/// #[attr(default = [1, 1])] strides: Vec<i32>   // Vec of bool/i32/i64/f32/f64/String/Scalar
/// #[attr(default = "NCHW")] data_format: String
/// #[attr] shape: IntArray             // IntArrayAttribute; data_type "std::vector<int64_t>"
/// #[attr(data_type = "int", default = 0)] value: Scalar   // ScalarAttribute; data_type "float" by default
/// #[attr(default = DataType::Float32)] dtype: DataType    // also DataType::FLOAT32
/// #[attr(default = DataLayout::Nchw)] layout: DataLayout  // also "NCHW"
/// #[attr(default = Place::cpu())] place: Place            // Place::gpu(0), Place::default(), CPUPlace()
/// #[attr(mutable)] sections: IntArray // a mutable attribute: an operand after the tensor inputs
/// #[attr(mutable, data_type = "int", default = 0)] axis: Scalar
///
/// #[output] out: DenseTensor          // also Vec<...>, Option<...> (may be null)
/// #[output(intermediate)] xshape: DenseTensor   // GetOpInfo reports it optional too
/// #[output(size = "sections.size()")] outs: Vec<DenseTensor>
/// #[output(inplace = x)] out: DenseTensor       // computed in place of input `x`
/// #[output(view = x)] out: DenseTensor          // a view of input `x`
/// ```
///
/// An op with `inplace` or `view` outputs must be named `..._`; every op whose name ends with
/// `_` gets `InplaceTrait` and its pairs in GetOpInfo's runtime info, as Paddle's `_` classes do.
/// An output computed in place of an optional input must be optional too.
///
/// Every misuse is a compile error pointing at the offending token and saying what to write.
#[proc_macro_attribute]
pub fn pir_op(args: TokenStream, item: TokenStream) -> TokenStream {
    pir_op::expand_or_errors(args.into(), item.into()).into()
}

/// Turns a function with typed, named parameters into a registered infer-meta function, after
/// Paddle's C++ signatures (`void ConvInferMeta(const MetaTensor& input, ..., MetaTensor* out,
/// MetaConfig config)`).
///
/// ```ignore
/// use pir_macros::infer_meta;
/// use pir_runtime::meta::{InferMetaError, Output, TensorMeta};
///
/// /// `CastInferMeta(x, dtype)`: x's dims, layout and LoD; dtype `dtype`.
/// #[infer_meta(name = "CastInferMeta")] // Paddle's name; derived (`CastInferMeta`) if left out
/// pub fn cast_infer_meta(x: &TensorMeta, dtype: DataType, out: Output<'_>) -> Result<(), InferMetaError> {
///     out.set(TensorMeta { dtype, offset: 0, ..x.clone() })
/// }
/// ```
///
/// `also = ["TriuInferMeta"]` registers the same function under more Paddle names (Paddle has
/// identical functions under several names).
///
/// Parameters come in Paddle's order, inputs and attributes (the op's `infer_meta.param`
/// list), then outputs (the op's outputs); `MetaConfig` is left out (the functions follow
/// Paddle's compile-time branch). Each C++ type has one Rust type:
///
/// | Paddle | Rust | accepts |
/// |---|---|---|
/// | `const MetaTensor&` | `&TensorMeta` | a tensor input (an error if an optional one is absent) |
/// | `const paddle::optional<MetaTensor>&` | `Option<&TensorMeta>` | a tensor input |
/// | `const std::vector<const MetaTensor*>&` | `&[TensorMeta]`, `Option<&[TensorMeta]>` | a `Tensor[]` input |
/// | `bool` | `bool` | `bool` |
/// | `int`, `int64_t` | `i32` (range-checked), `i64` | `int`, `int64_t`, `long`, `size_t`, a known `Scalar` |
/// | `float`, `double` | `f32`, `f64` | any number |
/// | `const std::string&` | `&str` | `str`, `DataLayout` (by name) |
/// | `const std::vector<int64_t>&` | `&[i64]` | `int[]`, `int64_t[]`, an `IntArray` of known values |
/// | `const std::vector<float>&`, `<bool>` | `&[f64]`, `&[bool]` | `float[]`/`double[]`, `bool[]` |
/// | `const std::vector<std::string>&` | `&[Cow<'_, str>]` | `str[]` |
/// | `const IntArray&` | `IntArray<'_>` (Paddle's decoding: `-1`s from a tensor), `IntArrayArg` (raw) | `IntArray`, `int[]`, `int64_t[]` |
/// | `const Scalar&` | `Option<Scalar>` (`None` from a tensor) | `Scalar` or any number or bool |
/// | `const std::vector<Scalar>&` | `&[Scalar]` | `Scalar[]` |
/// | `DataType`, `DataLayout`, `Place` | the same | the same (`DataLayout` also from a `str`) |
/// | `MetaTensor* out` | `Output<'_>` | the next output |
/// | `std::vector<MetaTensor*> out` | `OutputList<'_>` | the next output, a tensor list |
///
/// Lists and strings are borrowed from the call (no copy). Beside the function the macro emits
/// a hidden `__<NAME>` constant, a `pir_runtime::meta::InferMetaEntry`: the uniform entry point
/// builds call (it reads each argument by position with the accessor its type names and hands
/// the output slots to the output parameters), Paddle's name, and the signature: parameter names
/// (a leading `_` dropped), kinds, Rust types, outputs, `file:line`. A registry lists these
/// entries (op-defs' `build.rs` generates its registry from every `#[infer_meta]` function);
/// ops generated with that registry check at compile time that their `infer_meta.param` list
/// fits the parameters in count and kind.
///
/// A function still written against the positional context (its one parameter is
/// `ctx: &mut InferMetaCtx<'_>`) gets an entry without a signature: registered, not checked.
///
/// Misuse (an unsupported parameter type, an argument after an output, no `Result` return, a
/// generic, `async` or method function, an unknown key) is a compile error at the offending
/// token.
#[proc_macro_attribute]
pub fn infer_meta(args: TokenStream, item: TokenStream) -> TokenStream {
    infer_meta_fn::expand(args.into(), item.into()).into()
}

/// Declarative rewrite rules (Paddle's DRR), checked against the ops' schemas at compile time.
///
/// Each pattern becomes a `static` `pir_passes::drr::DrrPattern` table that
/// `pir_passes::drr::DrrRewrite` runs. Source ops bind tensors (by name) and attribute
/// captures (`@name`); result ops read source tensors or earlier results, and take attributes
/// from captures, literals, functions `fn(&MatchContext) -> Option<Attribute>`, or every
/// attribute of a source op (`..tensor`: the op that made `tensor`). Unknown ops, wrong operand
/// or result counts, unknown attributes and attributes of the wrong kind are compile errors at
/// the offending token.
///
/// ```ignore
/// pir_macros::drr! {
///     schema = ["../ops-yaml/ops.yaml"],
///     /// `scale(x, full(1.0))` with bias 0 is `x`.
///     pub static USELESS_SCALE: "RemoveUselessScalePattern" {
///         source {
///             s = pd_op.full() { value: @value };
///             out = pd_op.scale(x, s) { bias: @bias };
///         }
///         constraint scale_is_identity;
///         result {}
///         replace { out => x }
///     }
/// }
/// ```
#[proc_macro]
pub fn drr(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as drr::DrrInput);
    drr::expand(input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
