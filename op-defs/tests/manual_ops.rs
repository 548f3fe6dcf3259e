//! The ops Paddle writes by hand (`op_defs::manual`): GetOpInfo against Paddle 3.3.1
//! (`paddle-ref/op_info_manual.json`), their place in the `pd_op` dialect (no yaml op shadows
//! them), and, per family, typed builds (result types inferred as Paddle's build infers them)
//! and the verifier rejecting wrong operands with a message naming them.
//!
//! The reference is read from `$PIR_PADDLE_REF` (the `paddle-ref` directory) or
//! `$PIR_PADDLE_YAML/../paddle-ref`; without either the comparison prints a notice and passes.

use std::collections::BTreeSet;
use std::path::PathBuf;

use op_defs::manual;
use op_defs::pd_op::{self, PdOpDialect, PdOpYamlDialect};
use pir_runtime::interfaces::OpYamlInfo;
use pir_runtime::phi::DataType;
use pir_runtime::{builtin, Builder, Dialect, IrContext, OpDef, Program, Type, Value};
use serde_json::Value as Json;

fn reference_dir() -> Option<PathBuf> {
    let dir = match (
        std::env::var_os("PIR_PADDLE_REF"),
        std::env::var_os("PIR_PADDLE_YAML"),
    ) {
        (Some(r), _) => PathBuf::from(r),
        (None, Some(y)) => PathBuf::from(y).join("..").join("paddle-ref"),
        (None, None) => {
            eprintln!(
                "NOTICE: neither PIR_PADDLE_REF nor PIR_PADDLE_YAML is set; skipping the \
                 GetOpInfo comparison of the hand-written ops with Paddle 3.3.1. Set \
                 PIR_PADDLE_REF to ../shared/paddle-ref to run it."
            );
            return None;
        }
    };
    if !dir.join("op_info_manual.json").is_file() {
        eprintln!(
            "NOTICE: {} has no op_info_manual.json; skipping the comparison.",
            dir.display()
        );
        return None;
    }
    Some(dir)
}

fn info_json(def: &OpDef) -> Json {
    let info = def
        .interface::<OpYamlInfo>()
        .unwrap_or_else(|| panic!("{} has no OpYamlInfoInterface", def.name))
        .get_op_info();
    serde_json::to_value(info).expect("a GetOpInfo tuple serialises")
}

#[test]
fn get_op_info_of_every_hand_written_op_is_paddles() {
    let Some(dir) = reference_dir() else { return };
    let path = dir.join("op_info_manual.json");
    let text = std::fs::read_to_string(&path).expect("op_info_manual.json is readable");
    let reference: Vec<Json> = serde_json::from_str(&text).expect("op_info_manual.json is JSON");
    let names: BTreeSet<&str> = reference
        .iter()
        .map(|e| e["op_name"].as_str().expect("op_name"))
        .collect();
    let ours: BTreeSet<&str> = manual::OPS.iter().map(|d| d.name).collect();
    assert_eq!(ours, names, "the hand-written op set differs from Paddle's");

    let ctx = IrContext::new();
    pd_op::register(&ctx).unwrap();
    let mut mismatches = Vec::new();
    for r in &reference {
        let name = r["op_name"].as_str().unwrap();
        let def = ctx
            .op_def(name)
            .unwrap_or_else(|| panic!("{name} is not registered"));
        let ours = info_json(def);
        for field in ["inputs", "attributes", "outputs", "runtime_info"] {
            if ours[field] != r[field] {
                mismatches.push(format!(
                    "{name}: {field}\n    ours: {}\n    ref : {}",
                    ours[field], r[field]
                ));
            }
        }
        let class = def.schema.map(|s| s.class_name.to_string());
        assert_eq!(class.as_deref(), r["class"].as_str(), "{name}: class name");
    }
    for m in &mismatches {
        println!("MISMATCH {m}");
    }
    assert!(
        mismatches.is_empty(),
        "{} GetOpInfo mismatches",
        mismatches.len()
    );
    println!(
        "GetOpInfo of {} hand-written ops equals Paddle 3.3.1's",
        reference.len()
    );
}

#[test]
fn hand_written_ops_are_in_pd_op_and_no_yaml_op_shadows_them() {
    let ctx = IrContext::new();
    pd_op::register(&ctx).unwrap();
    let yaml: BTreeSet<&str> = PdOpYamlDialect::op_defs().iter().map(|d| d.name).collect();
    for def in manual::OPS {
        assert!(
            !yaml.contains(def.name),
            "ops-yaml/ also defines {}",
            def.name
        );
        let got = ctx
            .op_def(def.name)
            .unwrap_or_else(|| panic!("{}", def.name));
        assert!(
            std::ptr::eq(got, *def),
            "{} resolves to another definition",
            def.name
        );
        assert_eq!(def.dialect, "pd_op");
    }
    let all: Vec<&str> = PdOpDialect::op_defs().iter().map(|d| d.name).collect();
    let unique: BTreeSet<&str> = all.iter().copied().collect();
    assert_eq!(unique.len(), all.len(), "pd_op op names are unique");
    assert_eq!(all.len(), yaml.len() + manual::OPS.len());
}

// ---------------------------------------------------------------------------------------------
// Builds and verification
// ---------------------------------------------------------------------------------------------

struct Fixture {
    ctx: std::sync::Arc<IrContext>,
    prog: Program,
}

impl Fixture {
    fn new() -> Fixture {
        let ctx = IrContext::new();
        pd_op::register(&ctx).unwrap();
        let prog = Program::new(&ctx);
        Fixture { ctx, prog }
    }

    fn b(&mut self) -> Builder<'_> {
        Builder::at_end(&mut self.prog)
    }

    fn dense(&self, dtype: DataType, dims: &[i64]) -> Type {
        self.ctx.dense_tensor_type(dtype, dims)
    }

    fn param(&mut self, name: &str, ty: Type) -> Value {
        builtin::parameter(&mut self.b(), name, ty).unwrap()
    }

    fn shown(&self, v: Value) -> String {
        match self.prog.value_type(v) {
            Some(t) => t.display(&self.ctx).to_string(),
            None => "<<NULL TYPE>>".into(),
        }
    }

    /// The verifier's message for the program, which must fail.
    fn verify_error(&self) -> String {
        pir_runtime::verify(&self.prog)
            .expect_err("the program must not verify")
            .to_string()
    }
}

#[test]
fn array_family_builds_infer_paddles_types() {
    use pd_op::*;
    let mut f = Fixture::new();
    let x = f.param("x", f.dense(DataType::Float32, &[2, 3]));
    let arr = CreateArrayOp::build(&mut f.b(), CreateArrayOpAttrs::new(DataType::Float32))
        .unwrap()
        .out(&f.prog);
    assert_eq!(f.shown(arr), "pd_op.tensor_array<f32>");
    // create_array's element dims are [0], as CreateArrayOp::InferMeta sets them.
    assert_eq!(
        f.prog.value_type(arr),
        Some(
            f.ctx
                .dense_tensor_array_type(DataType::Float32, &[0], Default::default())
        )
    );
    let w = ArrayWrite_Op::build(&mut f.b(), arr, x, 0).unwrap();
    let warr = w.out(&f.prog);
    // array_write_'s result carries x's dims.
    assert_eq!(
        f.prog.value_type(warr),
        Some(
            f.ctx
                .dense_tensor_array_type(DataType::Float32, &[2, 3], Default::default())
        )
    );
    let len = ArrayLengthOp::build(&mut f.b(), warr).unwrap().out(&f.prog);
    assert_eq!(f.shown(len), "tensor<1xi64>");
    let read = ArrayReadOp::build(&mut f.b(), warr, 0)
        .unwrap()
        .out(&f.prog);
    assert_eq!(f.shown(read), "tensor<-1x-1xf32>");
    let stacked = ArrayToTensorOp::build(
        &mut f.b(),
        warr,
        ArrayToTensorOpAttrs {
            axis: 0,
            use_stack: true,
        },
    )
    .unwrap();
    assert_eq!(f.shown(stacked.out(&f.prog)), "tensor<-1x2x3xf32>");
    assert_eq!(f.shown(stacked.out_index(&f.prog)), "tensor<-1xi32>");
    let concat = ArrayToTensorOp::build(
        &mut f.b(),
        warr,
        ArrayToTensorOpAttrs {
            axis: 1,
            use_stack: false,
        },
    )
    .unwrap();
    assert_eq!(f.shown(concat.out(&f.prog)), "tensor<2x-1xf32>");
    let dense = SliceArrayDenseOp::build(&mut f.b(), warr, &[0])
        .unwrap()
        .out(&f.prog);
    assert_eq!(f.shown(dense), "tensor<2x3xf32>");
    let sliced = SliceArrayOp::build(&mut f.b(), warr, &[0], &[1])
        .unwrap()
        .out(&f.prog);
    assert_eq!(f.shown(sliced), "pd_op.tensor_array<f32>");
    let pop = ArrayPopOp::build(&mut f.b(), warr, ArrayPopOpAttrs::new(0)).unwrap();
    assert_eq!(f.shown(pop.array_out(&f.prog)), "pd_op.tensor_array<f32>");
    assert_eq!(f.shown(pop.out(&f.prog)), "tensor<f32>");
    let like = CreateArrayLikeOp::build(&mut f.b(), warr, CreateArrayLikeOpAttrs::default())
        .unwrap()
        .out(&f.prog);
    let copy = AssignArrayOp::build(&mut f.b(), like).unwrap().out(&f.prog);
    let copy_ = AssignArray_Op::build(&mut f.b(), copy)
        .unwrap()
        .out(&f.prog);
    let sum_in = builtin::combine(&mut f.b(), &[copy_, like]).unwrap();
    let sum = AddNArrayOp::build(&mut f.b(), sum_in).unwrap().out(&f.prog);
    assert_eq!(f.shown(sum), "pd_op.tensor_array<f32>");
    let g = f.param("g", f.dense(DataType::Float32, &[4, 3]));
    let back = TensorToArrayOp::build(&mut f.b(), warr, g, TensorToArrayOpAttrs::default())
        .unwrap()
        .out(&f.prog);
    assert_eq!(f.shown(back), "pd_op.tensor_array<f32>");
    pir_runtime::verify(&f.prog).unwrap();
    // The program prints the array type as Paddle does, and reads back the same.
    let text = f.prog.to_string();
    assert!(text.contains(
        "\"pd_op.array_write_\" (%1, %0, %2) {} : (pd_op.tensor_array<f32>, tensor<2x3xf32>, \
         tensor<1xi64>) -> pd_op.tensor_array<f32>"
    ));
    let again = pir_runtime::parser::parse_program(&f.ctx, &text).unwrap();
    assert_eq!(again.to_string(), text);
}

#[test]
fn array_write_rejects_a_mismatched_element_type() {
    use pd_op::*;
    let mut f = Fixture::new();
    let x = f.param("x", f.dense(DataType::Int32, &[2]));
    let arr = CreateArrayOp::build(&mut f.b(), CreateArrayOpAttrs::new(DataType::Float32))
        .unwrap()
        .out(&f.prog);
    let err = ArrayWrite_Op::build(&mut f.b(), arr, x, 0)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("ArrayWriteInferMeta") && err.contains("int32") && err.contains("float32"),
        "{err}"
    );
}

#[test]
fn array_ops_reject_a_dense_tensor_where_an_array_goes() {
    use pd_op::*;
    let mut f = Fixture::new();
    let x = f.param("x", f.dense(DataType::Float32, &[2]));
    let t = f.dense(DataType::Int64, &[1]);
    let none = f.ctx.empty_dict();
    ArrayLengthOp::build_with_types(&mut f.b(), &[Some(x)], none, &[Some(t)]).unwrap();
    let msg = f.verify_error();
    assert!(msg.contains("pd_op.array_length"), "{msg}");
    assert!(
        msg.contains("`x`") && msg.contains("DenseTensorArrayType"),
        "{msg}"
    );
}

#[test]
fn math_family_builds_and_verifies() {
    use pd_op::*;
    let mut f = Fixture::new();
    let a = f.param("a", f.dense(DataType::Float32, &[2, 3]));
    let b = f.param("b", f.dense(DataType::Float32, &[2, 3]));
    let ab = builtin::combine(&mut f.b(), &[a, b]).unwrap();
    let sum = AddN_Op::build(&mut f.b(), ab).unwrap().out(&f.prog);
    assert_eq!(f.shown(sum), "tensor<2x3xf32>");
    let copied = AssignOut_Op::build(&mut f.b(), a, b).unwrap().out(&f.prog);
    assert_eq!(f.shown(copied), "tensor<2x3xf32>");
    let i = f.param("i", f.dense(DataType::Int64, &[1]));
    let next = Increment_Op::build(&mut f.b(), i, Increment_OpAttrs { value: 2.0 })
        .unwrap()
        .out(&f.prog);
    assert_eq!(f.shown(next), "tensor<1xi64>");
    let s = f.param("s", f.dense(DataType::Int64, &[4]));
    let t = f.param("t", f.dense(DataType::Int64, &[2]));
    let sb = ShapeBroadcastOp::build(&mut f.b(), s, t)
        .unwrap()
        .out(&f.prog);
    assert_eq!(f.shown(sb), "tensor<4xi64>");
    pir_runtime::verify(&f.prog).unwrap();
    // increment needs a one-element counter.
    let err = IncrementOp::build(&mut f.b(), a, IncrementOpAttrs::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("IncrementInferMeta") && err.contains("one element"),
        "{err}"
    );
}

#[test]
fn increment_rejects_a_wrong_attribute_kind() {
    use pd_op::*;
    let mut f = Fixture::new();
    let i = f.param("i", f.dense(DataType::Int64, &[1]));
    let t = f.dense(DataType::Int64, &[1]);
    let dict = f.ctx.dict_attr(&[("value", f.ctx.i32_attr(1))]);
    IncrementOp::build_with_types(&mut f.b(), &[Some(i)], dict, &[Some(t)]).unwrap();
    let msg = f.verify_error();
    assert!(
        msg.contains("pd_op.increment") && msg.contains("value"),
        "{msg}"
    );
}

#[test]
fn shape_family_builds_as_paddle_builds() {
    use pd_op::*;
    let mut f = Fixture::new();
    let x = f.param("x", f.dense(DataType::Float32, &[3, 1]));
    // Paddle's expand.txt case 4: [-1, 4] keeps x's 3.
    let e = ExpandOp::build(&mut f.b(), x, &[-1, 4])
        .unwrap()
        .out(&f.prog);
    assert_eq!(f.shown(e), "tensor<3x4xf32>");
    // A shape computed at run time: its extents are unknown, not "keep x's" (-2, not -1).
    let shape = f.param("shape", f.dense(DataType::Int64, &[2]));
    let e = ExpandOp::build_with_values(&mut f.b(), x, shape)
        .unwrap()
        .out(&f.prog);
    assert_eq!(f.shown(e), "tensor<-1x-1xf32>");
    let p = f.param("p", f.dense(DataType::Float32, &[2, 4]));
    let q = f.param("q", f.dense(DataType::Float32, &[3, 4]));
    let pq = builtin::combine(&mut f.b(), &[p, q]).unwrap();
    let g = SplitGradOp::build(&mut f.b(), pq, 0.0).unwrap();
    assert_eq!(f.shown(g.x_grad(&f.prog)), "tensor<5x4xf32>");
    // split_grad's axis is a float32 `full`, as SplitGradOp::Build makes it.
    let axis = g.axis(&f.prog).unwrap();
    assert_eq!(f.shown(axis), "tensor<1xf32>");
    pir_runtime::verify(&f.prog).unwrap();
    // expand cannot shrink a rank.
    let y = f.param("y", f.dense(DataType::Float32, &[2, 3, 4]));
    let err = ExpandOp::build(&mut f.b(), y, &[3, 4])
        .unwrap_err()
        .to_string();
    assert!(err.contains("ExpandInferMeta"), "{err}");
}

#[test]
fn fused_family_builds_and_checks_shapes() {
    use pd_op::*;
    let mut f = Fixture::new();
    let x = f.param("x", f.dense(DataType::Float32, &[2, 3]));
    let w = f.param("w", f.dense(DataType::Float32, &[3, 8]));
    let bias = f.param("b", f.dense(DataType::Float32, &[8]));
    let none = FusedGemmEpilogueOp::build(&mut f.b(), x, w, bias, Default::default()).unwrap();
    assert_eq!(f.shown(none.out(&f.prog)), "tensor<2x8xf32>");
    assert_eq!(f.shown(none.reserve_space(&f.prog)), "<<NULL TYPE>>");
    let gelu = FusedGemmEpilogueOp::build(
        &mut f.b(),
        x,
        w,
        bias,
        FusedGemmEpilogueOpAttrs {
            activation: "gelu",
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(f.shown(gelu.reserve_space(&f.prog)), "tensor<2x8xf32>");
    let dout = f.param("dout", f.dense(DataType::Float32, &[2, 8]));
    let reserve = gelu.reserve_space(&f.prog);
    let grad = FusedGemmEpilogueGradOp::build(
        &mut f.b(),
        x,
        w,
        Some(reserve),
        dout,
        FusedGemmEpilogueGradOpAttrs {
            activation_grad: "gelu_grad",
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(f.shown(grad.x_grad(&f.prog)), "tensor<2x3xf32>");
    assert_eq!(f.shown(grad.y_grad(&f.prog)), "tensor<3x8xf32>");
    assert_eq!(f.shown(grad.bias_grad(&f.prog)), "tensor<8xf32>");
    pir_runtime::verify(&f.prog).unwrap();
    // relu needs N to be a multiple of 128.
    let err = FusedGemmEpilogueOp::build(
        &mut f.b(),
        x,
        w,
        bias,
        FusedGemmEpilogueOpAttrs {
            activation: "relu",
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("multiple of 128"), "{err}");
    // The contracted extents must agree.
    let w2 = f.param("w2", f.dense(DataType::Float32, &[4, 8]));
    let err = FusedGemmEpilogueOp::build(&mut f.b(), x, w2, bias, Default::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("contracted extent"), "{err}");
}

#[test]
fn runtime_family_builds_and_verifies() {
    use pd_op::*;
    let mut f = Fixture::new();
    let x = f.param("x", f.dense(DataType::Float32, &[2, 3]));
    let out = FetchOp::build(&mut f.b(), x, FetchOpAttrs::new("x", 0))
        .unwrap()
        .out(&f.prog);
    assert_eq!(f.shown(out), "tensor<2x3xf32>");
    let arr = CreateArrayOp::build(&mut f.b(), CreateArrayOpAttrs::new(DataType::Float32))
        .unwrap()
        .out(&f.prog);
    let arr = ArrayWrite_Op::build(&mut f.b(), arr, x, 0)
        .unwrap()
        .out(&f.prog);
    let host = MemcpyD2hMultiIoOp::build(&mut f.b(), arr, MemcpyD2hMultiIoOpAttrs::new(0))
        .unwrap()
        .out(&f.prog);
    assert_eq!(f.shown(host), "pd_op.tensor_array<f32>");
    let cond = f.param("c", f.dense(DataType::Bool, &[1]));
    let data = builtin::combine(&mut f.b(), &[x]).unwrap();
    let a = AssertOp::build(&mut f.b(), cond, data, AssertOpAttrs::default()).unwrap();
    assert_eq!(f.prog.op(a.op()).num_results(), 0);
    pir_runtime::verify(&f.prog).unwrap();
    // assert's condition must be bool.
    AssertOp::build(&mut f.b(), x, data, AssertOpAttrs::default()).unwrap();
    let msg = f.verify_error();
    assert!(
        msg.contains("pd_op.assert") && msg.contains("`cond` must be a bool"),
        "{msg}"
    );
}

#[test]
fn hand_written_ops_carry_their_legacy_names() {
    use pd_op::*;
    let legacy = |s: &pir_runtime::pir_spec::OpSchema| {
        s.compat
            .as_ref()
            .and_then(|c| c.legacy_name.as_deref().map(str::to_string))
    };
    assert_eq!(legacy(FetchOp::schema()).as_deref(), Some("fetch_v2"));
    assert_eq!(legacy(ExpandOp::schema()).as_deref(), Some("expand_v2"));
    assert_eq!(
        legacy(ArrayToTensorOp::schema()).as_deref(),
        Some("tensor_array_to_tensor")
    );
    // Same name in both worlds: an entry with argument names, no legacy op name.
    let inc = IncrementOp::schema()
        .compat
        .as_ref()
        .expect("increment's entry");
    assert_eq!(inc.legacy_name, None);
    assert_eq!(inc.inputs[0], ("x".into(), "X".into()));
    // expand's shape can come from the legacy `Shape` or `expand_shapes_tensor` inputs.
    let shape = &ExpandOp::schema().compat.as_ref().unwrap().mutable[0];
    assert_eq!(shape.name, "shape");
    assert_eq!(shape.tensor_name.as_deref(), Some("Shape"));
    assert_eq!(shape.tensors_name.as_deref(), Some("expand_shapes_tensor"));
    let grad = FusedGemmEpilogueGradOp::schema().compat.as_ref().unwrap();
    assert!(grad.inputs.contains(&("out_grad".into(), "DOut".into())));
    assert!(CreateArrayOp::schema().compat.is_none());
}
