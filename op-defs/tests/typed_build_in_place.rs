//! A typed build reads its values in place and interns outputs as the function sets them
//! (`op_support::build_typed`); the general path converts every value first
//! (`op_support::build_with_attributes`). Both must give the same result types and the same
//! errors, whatever the function reads and however it sets its outputs.

use pir_runtime::meta::{InferMetaCtx, InferMetaError, InferMetaRegistry, TensorMeta};
use pir_runtime::op_support::{attribute_from_arg, build_typed, build_with_attributes, AttrArg};
use pir_runtime::phi::DataType;
use pir_runtime::pir_spec::yaml::{load_op_set, YamlSource};
use pir_runtime::yaml_dialect::YamlDialect;
use pir_runtime::{BuildError, Builder, IrContext, OpDef, Program, Type, Value};

type R = Result<(), InferMetaError>;

/// `x`'s dims plus `k` each, then the `dims` list appended; reads `dims` as `ints` (an `int[]`
/// widened into a cell), `k` as an `AttrValue` and `x` through `arg`.
fn grow(ctx: &mut InferMetaCtx<'_>) -> R {
    assert_eq!(ctx.num_args(), 3);
    let x = match ctx.arg(0)? {
        pir_runtime::meta::MetaArg::Tensor(Some(x)) => (*x).clone(),
        other => return Err(InferMetaError::new(format!("x is {other:?}"))),
    };
    let extra = ctx.ints(1)?.to_vec();
    let k = match ctx.attr(2)? {
        pir_runtime::meta::AttrValue::I32(k) => i64::from(*k),
        other => return Err(InferMetaError::new(format!("k is {other:?}"))),
    };
    let mut dims: Vec<i64> = x.dims.iter().map(|d| d + k).collect();
    dims.extend(extra);
    ctx.set_output(0, x.with_dims(&dims))
}

/// Shares `x` with the first output and gives the second `y`'s metadata (a copy, not shared).
fn pair(ctx: &mut InferMetaCtx<'_>) -> R {
    let y = ctx.tensor(1)?.clone();
    ctx.share_output(0, 0)?;
    let mut slots = ctx.outputs();
    slots.output();
    slots.output().share(&y)
}

/// Sets a tensor list where the op has one tensor.
fn list_for_tensor(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?.clone();
    ctx.set_outputs(0, vec![x])
}

/// Sets only the first of two outputs.
fn first_only(ctx: &mut InferMetaCtx<'_>) -> R {
    let x = ctx.tensor(0)?;
    ctx.outputs().output().set_new(x.dtype, &[7])
}

/// Reads its integer attribute as a string: a mismatch.
fn wrong_kind(ctx: &mut InferMetaCtx<'_>) -> R {
    let s = ctx.str(1)?;
    Err(InferMetaError::new(format!("unreachable: {s}")))
}

static REGISTRY: InferMetaRegistry = InferMetaRegistry::new(&[
    ("FirstOnlyInferMeta", first_only),
    ("GrowInferMeta", grow),
    ("ListForTensorInferMeta", list_for_tensor),
    ("PairInferMeta", pair),
    ("WrongKindInferMeta", wrong_kind),
]);

const OPS: &str = "
- op : grow
  args : (Tensor x, int[] dims, int k = 1)
  output : Tensor(out)
  infer_meta :
    func : GrowInferMeta
    param : [x, dims, k]
- op : pair
  args : (Tensor x, Tensor y)
  output : Tensor(a), Tensor(b)
  infer_meta :
    func : PairInferMeta
- op : list_for_tensor
  args : (Tensor x)
  output : Tensor(out)
  infer_meta :
    func : ListForTensorInferMeta
- op : first_only
  args : (Tensor x)
  output : Tensor(a), Tensor(b)
  infer_meta :
    func : FirstOnlyInferMeta
- op : wrong_kind
  args : (Tensor x, int k)
  output : Tensor(out)
  infer_meta :
    func : WrongKindInferMeta
";

struct Env {
    prog: Program,
    x: Value,
    y: Value,
}

fn env() -> Env {
    REGISTRY.check_sorted().unwrap();
    let set = load_op_set(
        "toy",
        &[YamlSource {
            path: "toy.yaml",
            text: OPS,
        }],
        None,
    )
    .unwrap();
    let dialect = YamlDialect::from_op_set(set, &REGISTRY).complete().unwrap();
    let ctx = IrContext::new();
    dialect.register(&ctx).unwrap();
    let mut prog = Program::new(&ctx);
    let mut b = Builder::at_end(&mut prog);
    let tx = ctx.dense_tensor_type(DataType::Float32, &[2, -1]);
    let ty = ctx.dense_tensor_type(DataType::Int64, &[3]);
    let x = pir_runtime::builtin::parameter(&mut b, "x", tx).unwrap();
    let y = pir_runtime::builtin::parameter(&mut b, "y", ty).unwrap();
    Env { prog, x, y }
}

impl Env {
    fn def(&self, name: &str) -> &'static OpDef {
        self.prog.ctx().op_def(&format!("toy.{name}")).unwrap()
    }

    /// The typed build, then the general build of the same values; both results.
    #[allow(clippy::type_complexity)]
    fn both(
        &mut self,
        name: &str,
        inputs: &[Option<Value>],
        attrs: &[AttrArg<'_>],
    ) -> (
        Result<Vec<Option<Type>>, BuildError>,
        Result<Vec<Option<Type>>, BuildError>,
    ) {
        let def = self.def(name);
        let s = def.schema.unwrap();
        let ctx = self.prog.ctx().clone();
        let entries: Vec<(&str, _)> = s
            .attributes
            .iter()
            .zip(attrs)
            .map(|(a, v)| (&*a.name, attribute_from_arg(&ctx, a.kind, v).unwrap()))
            .collect();
        let dict = ctx.dict_attr(&entries);
        let mut b = Builder::at_end(&mut self.prog);
        let typed = build_typed(&mut b, def, inputs, &[], attrs);
        let general = build_with_attributes(&mut b, def, inputs, dict);
        let types = |r: Result<_, BuildError>| {
            r.map(|op| self.prog.op(op).result_types().collect::<Vec<_>>())
        };
        (types(typed), types(general))
    }
}

#[test]
fn values_read_in_their_general_form_give_the_general_result() {
    let mut e = env();
    let (x, ctx) = (e.x, e.prog.ctx().clone());
    let (typed, general) = e.both(
        "grow",
        &[Some(x)],
        &[AttrArg::I32s(&[5, 6]), AttrArg::I32(2)],
    );
    assert_eq!(typed, general);
    let want = ctx.tensor_type_of(&TensorMeta::new(DataType::Float32, &[4, 1, 5, 6]));
    assert_eq!(typed.unwrap(), [Some(want)]);
}

#[test]
fn shared_outputs_keep_the_input_type_and_copies_are_interned() {
    let mut e = env();
    let (x, y) = (e.x, e.y);
    let (typed, general) = e.both("pair", &[Some(x), Some(y)], &[]);
    assert_eq!(typed, general);
    let tx = e.prog.value_type(x);
    let ty = e.prog.value_type(y);
    assert_eq!(typed.unwrap(), [tx, ty]);
}

#[test]
fn output_errors_are_those_of_the_general_build() {
    let mut e = env();
    let x = e.x;
    for name in ["list_for_tensor", "first_only"] {
        let (typed, general) = e.both(name, &[Some(x)], &[]);
        let (t, g) = (typed.unwrap_err(), general.unwrap_err());
        assert_eq!(t, g, "{name}");
        assert!(matches!(t, BuildError::InferOutput { .. }), "{name}: {t}");
    }
}

#[test]
fn mismatches_are_reported_as_by_the_general_build() {
    let mut e = env();
    let x = e.x;
    let (typed, general) = e.both("wrong_kind", &[Some(x)], &[AttrArg::I32(3)]);
    let (t, g) = (typed.unwrap_err(), general.unwrap_err());
    assert_eq!(t, g);
    assert!(
        t.to_string()
            .contains("argument 1: expected str, found int"),
        "{t}"
    );
}

/// Every op of the models built with typed builds (most in place: convolutions, batch norms
/// with several outputs, shared outputs, gradients, optimizer updates) has the result types
/// the general path infers again from its attributes (`check_types`).
#[test]
fn models_built_in_place_type_check_clean() {
    let ctx = IrContext::new();
    op_defs::pd_op::register(&ctx).unwrap();
    for (name, prog) in [
        ("resnet50", op_defs::models::resnet50(&ctx, -1).unwrap()),
        (
            "small_cnn_train",
            op_defs::models::small_cnn_train(&ctx).unwrap(),
        ),
    ] {
        let report = pir_runtime::check_types(&prog);
        assert!(report.is_clean(), "{name}: {:?}", report.differences);
        assert!(
            report.checked > 30,
            "{name}: {} ops checked",
            report.checked
        );
    }
}
