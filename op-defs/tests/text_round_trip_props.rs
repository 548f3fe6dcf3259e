//! Property: a program built by the typed builders, printed and parsed back, is the same
//! program (`first_difference` finds nothing) and prints the same text.
//!
//! Programs are random sequences of typed builds (data, parameters, unary and binary ops,
//! `scale`, `full`, `cast`, `sum`, `concat` through `builtin.combine`, `split` and
//! `builtin.split`, `dropout` with its absent optional operand, `shadow_output`) over random
//! shapes (`-1` dims, 0-D), with random `stop_gradient` / `persistable` flags and extra
//! attributes of every kind the text can tell apart. The text keeps 6 significant digits of a
//! float, so float values are drawn from the values it can hold (6-digit decimals, `inf`,
//! `-nan`, `-0`); a float given for a mutable attribute (`scale`'s scale, `dropout`'s p)
//! becomes a `full` op whose value is the *double* of that float, as in Paddle, so those are
//! short binary fractions (`-62.4375`), whose double prints exactly; strings may hold quotes, backslashes, braces, newlines and non-ASCII
//! characters (a string ending in a backslash cannot be read back: Paddle's printer escapes
//! only `"`, so `"a\"` is ambiguous).

use std::sync::Arc;

use op_defs::pd_op::*;
use pir_runtime::meta::Scalar;
use pir_runtime::phi::{AllocationType, DataLayout, DataType, Place};
use pir_runtime::{builtin, parser, Attribute, Builder, IrContext, OpId, Program, Value};
use proptest::prelude::*;

#[path = "common/fixtures.rs"]
mod fixtures;
use fixtures::context;

/// One typed build; indices pick among the float tensors built so far (modulo their count).
#[derive(Clone, Debug)]
enum Step {
    Data(String),
    Param(String),
    Unary(u8, usize),
    Binary(u8, usize, usize),
    Scale(usize, String, String, bool),
    Full(Vec<i64>, String, usize),
    Cast(usize, usize),
    Sum(usize, bool),
    Concat(usize, usize),
    Split(usize),
    Dropout(usize, String),
    Output(usize, String),
    Flags(usize, bool, bool),
    Extra(usize, String, ExtraAttr),
}

/// An attribute no schema declares, of a kind its printed form determines.
#[derive(Clone, Debug)]
enum ExtraAttr {
    Bool(bool),
    Int(i32),
    Long(i64),
    Double(String),
    Str(String),
    Strs(Vec<String>),
    Dtype(usize),
    Layout(usize),
    Place(usize, i8),
    Ints(Vec<i32>),
}

const DTYPES: [DataType; 8] = [
    DataType::Float32,
    DataType::Float64,
    DataType::Float16,
    DataType::BFloat16,
    DataType::Int64,
    DataType::Int32,
    DataType::Bool,
    DataType::UInt8,
];

/// A float the text holds exactly: a 6-digit decimal or a special value.
fn decimal() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (-999_999i64..=999_999, -12i32..=12).prop_map(|(m, e)| format!("{m}e{e}")),
        1 => prop::sample::select(vec!["inf", "-inf", "nan", "-nan", "-0", "0"]).prop_map(str::to_string),
    ]
}

/// A float whose double is a short decimal: `m / 2^k`.
fn binary_fraction() -> impl Strategy<Value = String> {
    (-999i32..=999, 0u32..=4).prop_map(|(m, k)| format!("{}", f64::from(m) / f64::from(1u32 << k)))
}

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_ .\"\\\\{}\\[\\]():,%\n\té中]{0,12}"
        .prop_filter("no trailing backslash", |s| !s.ends_with('\\'))
}

fn extra() -> impl Strategy<Value = ExtraAttr> {
    prop_oneof![
        any::<bool>().prop_map(ExtraAttr::Bool),
        any::<i32>().prop_map(ExtraAttr::Int),
        prop_oneof![
            i64::MIN..i64::from(i32::MIN),
            i64::from(i32::MAX) + 1..i64::MAX
        ]
        .prop_map(ExtraAttr::Long),
        // A double that prints like an integer (`2`) reads back as an integer.
        decimal()
            .prop_filter("prints as a float", |d| {
                let mut s = String::new();
                pir_runtime::attributes::write_float_g(&mut s, f64_of(d)).unwrap();
                s.contains(['.', 'e', 'n'])
            })
            .prop_map(ExtraAttr::Double),
        text().prop_map(ExtraAttr::Str),
        prop::collection::vec(text(), 1..4).prop_map(ExtraAttr::Strs),
        (0usize..8).prop_map(ExtraAttr::Dtype),
        (0usize..4).prop_map(ExtraAttr::Layout),
        ((0usize..6), -3i8..8).prop_map(|(k, d)| ExtraAttr::Place(k, d)),
        prop::collection::vec(any::<i32>(), 0..5).prop_map(ExtraAttr::Ints),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    let i = 0usize..64;
    prop_oneof![
        text().prop_map(Step::Data),
        text().prop_map(Step::Param),
        (0u8..4, i.clone()).prop_map(|(k, a)| Step::Unary(k, a)),
        (0u8..4, i.clone(), i.clone()).prop_map(|(k, a, b)| Step::Binary(k, a, b)),
        (i.clone(), binary_fraction(), decimal(), any::<bool>())
            .prop_map(|(a, s, b, f)| Step::Scale(a, s, b, f)),
        (prop::collection::vec(0i64..4, 0..3), decimal(), 0usize..8)
            .prop_map(|(s, v, d)| Step::Full(s, v, d)),
        (i.clone(), 0usize..8).prop_map(|(a, d)| Step::Cast(a, d)),
        (i.clone(), any::<bool>()).prop_map(|(a, k)| Step::Sum(a, k)),
        (i.clone(), i.clone()).prop_map(|(a, b)| Step::Concat(a, b)),
        i.clone().prop_map(Step::Split),
        (i.clone(), binary_fraction()).prop_map(|(a, p)| Step::Dropout(a, p)),
        (i.clone(), text()).prop_map(|(a, n)| Step::Output(a, n)),
        (i.clone(), any::<bool>(), any::<bool>()).prop_map(|(a, s, p)| Step::Flags(a, s, p)),
        (i, "[a-z_][a-z0-9_]{0,8}", extra()).prop_map(|(a, n, e)| Step::Extra(a, n, e)),
    ]
}

fn shape() -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(prop_oneof![Just(-1i64), 1i64..5], 0..4)
}

fn f32_of(s: &str) -> f32 {
    s.parse().unwrap()
}

fn f64_of(s: &str) -> f64 {
    s.parse().unwrap()
}

struct Gen {
    prog: Program,
    shape: Vec<i64>,
    /// Float tensors of `shape`.
    values: Vec<Value>,
    /// Every op built, for flags and extra attributes.
    ops: Vec<OpId>,
}

impl Gen {
    fn op_of(&self, v: Value) -> OpId {
        self.prog.defining_op(v).unwrap()
    }

    fn keep(&mut self, v: Value) {
        let op = self.op_of(v);
        self.ops.push(op);
    }

    fn run(&mut self, step: &Step) {
        let ctx = self.prog.ctx().clone();
        let shape = self.shape.clone();
        let mut b = Builder::at_end(&mut self.prog);
        let float = |v| v;
        let made: Option<Value> = match step {
            Step::Data(name) => {
                let attrs = DataOpAttrs {
                    name,
                    shape: &shape,
                    dtype: DataType::Float32,
                    place: Place::default(),
                };
                Some(float(
                    DataOp::build(&mut b, attrs).unwrap().out(b.program()),
                ))
            }
            Step::Param(name) => {
                let t = ctx.dense_tensor_type(DataType::Float32, &shape);
                Some(builtin::parameter(&mut b, name, t).unwrap())
            }
            Step::Unary(k, a) => {
                let x = self.values[a % self.values.len()];
                let p = b.program();
                let _ = p;
                Some(match k {
                    0 => ReluOp::build(&mut b, x).unwrap().out(b.program()),
                    1 => TanhOp::build(&mut b, x).unwrap().out(b.program()),
                    2 => SigmoidOp::build(&mut b, x).unwrap().out(b.program()),
                    _ => AssignOp::build(&mut b, x).unwrap().out(b.program()),
                })
            }
            Step::Binary(k, a, c) => {
                let (x, y) = (
                    self.values[a % self.values.len()],
                    self.values[c % self.values.len()],
                );
                Some(match k {
                    0 => AddOp::build(&mut b, x, y).unwrap().out(b.program()),
                    1 => MultiplyOp::build(&mut b, x, y).unwrap().out(b.program()),
                    2 => SubtractOp::build(&mut b, x, y).unwrap().out(b.program()),
                    _ => DivideOp::build(&mut b, x, y).unwrap().out(b.program()),
                })
            }
            Step::Scale(a, s, bias, after) => {
                let x = self.values[a % self.values.len()];
                let attrs = ScaleOpAttrs {
                    bias: Scalar::F32(f32_of(bias)),
                    bias_after_scale: *after,
                };
                Some(
                    ScaleOp::build(&mut b, x, f32_of(s), attrs)
                        .unwrap()
                        .out(b.program()),
                )
            }
            Step::Full(s, v, d) => {
                let attrs = FullOpAttrs {
                    shape: s,
                    value: Scalar::F64(f64_of(v)),
                    dtype: DTYPES[*d],
                    place: Place::cpu(),
                };
                let out = FullOp::build(&mut b, attrs).unwrap().out(b.program());
                let op = b.program().defining_op(out).unwrap();
                self.ops.push(op);
                None
            }
            Step::Cast(a, d) => {
                let x = self.values[a % self.values.len()];
                let out = CastOp::build(&mut b, x, CastOpAttrs { dtype: DTYPES[*d] })
                    .unwrap()
                    .out(b.program());
                let op = b.program().defining_op(out).unwrap();
                self.ops.push(op);
                None
            }
            Step::Sum(a, keepdim) => {
                let x = self.values[a % self.values.len()];
                let attrs = SumOpAttrs {
                    dtype: DataType::Undefined,
                    keepdim: *keepdim,
                };
                let out = SumOp::build(&mut b, x, &[], attrs)
                    .unwrap()
                    .out(b.program());
                let op = b.program().defining_op(out).unwrap();
                self.ops.push(op);
                None
            }
            Step::Concat(a, c) if !shape.is_empty() => {
                let (x, y) = (
                    self.values[a % self.values.len()],
                    self.values[c % self.values.len()],
                );
                let list = builtin::combine(&mut b, &[x, y]).unwrap();
                let out = ConcatOp::build(&mut b, list, 0).unwrap().out(b.program());
                let op = b.program().defining_op(out).unwrap();
                self.ops.push(op);
                None
            }
            Step::Split(a) if shape.first().is_some_and(|&d| d > 0) => {
                let x = self.values[a % self.values.len()];
                let n = shape[0];
                let parts = SplitOp::build(&mut b, x, &[n], 0).unwrap().out(b.program());
                let parts = builtin::split(&mut b, parts).unwrap();
                Some(parts[0])
            }
            Step::Dropout(a, p) => {
                let x = self.values[a % self.values.len()];
                let attrs = DropoutOpAttrs {
                    is_test: false,
                    mode: "upscale_in_train",
                    seed: 0,
                    fix_seed: false,
                };
                let d = DropoutOp::build(&mut b, x, None, f32_of(p), attrs).unwrap();
                Some(d.out(b.program()))
            }
            Step::Output(a, name) => {
                let x = self.values[a % self.values.len()];
                builtin::shadow_output(&mut b, x, name).unwrap();
                None
            }
            Step::Concat(..) | Step::Split(_) => None,
            Step::Flags(i, sg, p) => {
                self.set_flags(*i, *sg, *p);
                None
            }
            Step::Extra(i, name, e) => {
                self.set_extra(*i, name, e);
                None
            }
        };
        if let Some(v) = made {
            self.keep(v);
            self.values.push(v);
        }
    }

    fn set_flags(&mut self, i: usize, sg: bool, p: bool) {
        let Some(&op) = self.ops.get(i % self.ops.len().max(1)) else {
            return;
        };
        let ctx = self.prog.ctx().clone();
        let n = self.prog.op(op).num_results();
        self.prog
            .set_attribute(op, "stop_gradient", ctx.bool_array_attr(&vec![sg; n]))
            .unwrap();
        self.prog
            .set_attribute(op, "persistable", ctx.bool_array_attr(&vec![p; n]))
            .unwrap();
    }

    fn set_extra(&mut self, i: usize, name: &str, e: &ExtraAttr) {
        let Some(&op) = self.ops.get(i % self.ops.len().max(1)) else {
            return;
        };
        // Only names no schema of the op declares: those are read by their syntax.
        let def = self.prog.op(op).def();
        let declared = def
            .schema
            .is_some_and(|s| s.attributes.iter().any(|a| a.name == name));
        if declared
            || def.attribute_names.contains(&name)
            || name == "origin_id"
            || name == "op_role"
        {
            return;
        }
        let ctx = self.prog.ctx().clone();
        let places = [
            AllocationType::Undefined,
            AllocationType::Gpu,
            AllocationType::Xpu,
            AllocationType::Ipu,
            AllocationType::Custom,
            AllocationType::Cpu,
        ];
        let a: Attribute = match e {
            ExtraAttr::Bool(v) => ctx.bool_attr(*v),
            ExtraAttr::Int(v) => ctx.i32_attr(*v),
            ExtraAttr::Long(v) => ctx.i64_attr(*v),
            ExtraAttr::Double(v) => ctx.f64_attr(f64_of(v)),
            ExtraAttr::Str(s) => ctx.str_attr(s),
            ExtraAttr::Strs(v) => {
                ctx.array_attr(&v.iter().map(|s| ctx.str_attr(s)).collect::<Vec<_>>())
            }
            ExtraAttr::Dtype(d) => ctx.dtype_attr(DTYPES[*d]),
            ExtraAttr::Layout(l) => ctx.layout_attr(
                [
                    DataLayout::Nchw,
                    DataLayout::Nhwc,
                    DataLayout::Undefined,
                    DataLayout::Ncdhw,
                ][*l],
            ),
            ExtraAttr::Place(k, d) => {
                let kind = places[*k];
                // Paddle prints no device id for CPU places.
                let device = if kind == AllocationType::Cpu { 0 } else { *d };
                ctx.place_attr(Place { kind, device })
            }
            ExtraAttr::Ints(v) => {
                ctx.array_attr(&v.iter().map(|&x| ctx.i32_attr(x)).collect::<Vec<_>>())
            }
        };
        self.prog.set_attribute(op, name, a).unwrap();
    }
}

fn build(ctx: &Arc<IrContext>, shape: Vec<i64>, steps: &[Step]) -> Program {
    let prog = Program::new(ctx);
    let mut g = Gen {
        prog,
        shape,
        values: Vec::new(),
        ops: Vec::new(),
    };
    g.run(&Step::Data("x".into()));
    for s in steps {
        g.run(s);
    }
    g.prog
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn built_programs_read_back_as_themselves(shape in shape(), steps in prop::collection::vec(step(), 0..40)) {
        let ctx = context();
        let prog = build(&ctx, shape, &steps);
        let text = prog.to_string();
        let parsed = parser::parse_program(&ctx, &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        prop_assert_eq!(parser::first_difference(&prog, &parsed), None, "{}", text);
        prop_assert_eq!(parsed.to_string(), text);
    }
}

#[test]
fn the_models_read_back_as_themselves() {
    let ctx = context();
    for prog in [
        op_defs::models::small_cnn_train(&ctx).unwrap(),
        op_defs::models::resnet50(&ctx, 8).unwrap(),
    ] {
        let text = prog.to_string();
        let parsed = parser::parse_program(&ctx, &text).unwrap();
        assert_eq!(parser::first_difference(&prog, &parsed), None);
        assert_eq!(parsed.to_string(), text);
        pir_runtime::verify(&parsed).unwrap();
    }
}
