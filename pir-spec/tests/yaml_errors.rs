//! Every kind of bad input is reported with `file:line`, the op and what was expected; nothing
//! panics; all errors of a load come back together.

#![cfg(feature = "yaml")]

use pir_spec::yaml::{load_op_set, SpecError, SpecErrorKind, YamlSource};

fn load(ops: &str) -> Vec<SpecError> {
    load_with("ops.yaml", ops, None)
}

fn load_with(path: &str, ops: &str, compat: Option<&str>) -> Vec<SpecError> {
    let compat = compat.map(|text| YamlSource {
        path: "op_compat.yaml",
        text,
    });
    match load_op_set("pd_op", &[YamlSource { path, text: ops }], compat) {
        Ok(set) => panic!("expected errors, loaded {} ops", set.len()),
        Err(e) => e.into_vec(),
    }
}

/// Asserts exactly one error, located at `file:line` in op `op`, whose message contains `what`.
fn expect_one(errors: &[SpecError], file_line: &str, op: &str, what: &str) -> SpecErrorKind {
    assert_eq!(errors.len(), 1, "expected one error, got {errors:#?}");
    expect(errors, file_line, op, what)
}

fn expect(errors: &[SpecError], file_line: &str, op: &str, what: &str) -> SpecErrorKind {
    let prefix = format!("{file_line}: op `{op}`: ");
    let found = errors.iter().find(|e| {
        let m = e.to_string();
        m.starts_with(&prefix) && m.contains(what)
    });
    match found {
        Some(e) => e.kind,
        None => panic!("no error `{prefix}...{what}...` in:\n{errors:#?}"),
    }
}

const GOOD: &str = "\
- op : relu
  args : (Tensor x)
  output : Tensor(out)
  infer_meta :
    func : UnchangedInferMeta
  kernel :
    func : relu
  backward : relu_grad
";

#[test]
fn unparseable_args() {
    let e = load("- op : f\n  args : Tensor x, int y\n  output : Tensor(out)\n");
    let k = expect_one(&e, "ops.yaml:2", "f", "expected `(Type name, ...)`");
    assert_eq!(k, SpecErrorKind::BadSignature);
    let e = load("- op : f\n  args : (Tensor x, int)\n  output : Tensor(out)\n");
    expect_one(&e, "ops.yaml:2", "f", "cannot parse argument `int`");
    let e = load("- op : f\n  args : (Tensor x, int[] a = {1, 2)\n  output : Tensor(out)\n");
    expect_one(&e, "ops.yaml:2", "f", "missing `}`");
}

#[test]
fn unknown_type() {
    let e = load("- op : f\n  args : (Tensor x, int32 axis)\n  output : Tensor(out)\n");
    let k = expect_one(
        &e,
        "ops.yaml:2",
        "f",
        "unknown type `int32` for argument `axis`",
    );
    assert_eq!(k, SpecErrorKind::UnknownType);
    assert!(e[0].message.contains("int64_t"), "lists the accepted types");
    let e = load("- op : f\n  args : (Tensor x)\n  output : Matrix(out)\n");
    expect_one(&e, "ops.yaml:3", "f", "unknown output type `Matrix`");
}

#[test]
fn bad_default() {
    let cases = [
        ("int[] axes = {1.5}", "expected an integer"),
        ("int n = 3000000000", "out of range"),
        ("bool b = yes", "expected `true`, `false` or a number"),
        ("str fmt = NCHW", "double quotes"),
        ("int[] k = 1", "braces"),
        ("DataType dtype = \"float32\"", "DataType::"),
        ("float eps = 1e-6x", "malformed number"),
        ("Place p = Moon()", "expected a place"),
    ];
    for (arg, why) in cases {
        let text = format!("- op : f\n  args : (Tensor x, {arg})\n  output : Tensor(out)\n");
        let e = load(&text);
        let k = expect_one(&e, "ops.yaml:2", "f", why);
        assert_eq!(k, SpecErrorKind::BadDefault, "{arg}");
        assert!(
            e[0].message.contains("does not fit its type"),
            "{arg}: {e:?}"
        );
    }
}

#[test]
fn inplace_or_view_naming_missing_names() {
    let e = load("- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  inplace : (y -> out)\n");
    let k = expect_one(
        &e,
        "ops.yaml:4",
        "f",
        "names `y`, which is not a tensor input",
    );
    assert_eq!(k, SpecErrorKind::UnknownName);
    let e = load("- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  view : (x -> res)\n");
    expect_one(
        &e,
        "ops.yaml:4",
        "f",
        "`view` pair `(x -> res)` names `res`, which is not an output",
    );
    let e = load("- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  inplace : x => out\n");
    expect_one(&e, "ops.yaml:4", "f", "expected `(input -> output)`");
}

#[test]
fn output_without_a_name_where_one_is_needed() {
    let e = load("- op : f\n  args : (Tensor x)\n  output : Tensor, Tensor\n");
    let k = expect_one(&e, "ops.yaml:3", "f", "give each output a name");
    assert_eq!(k, SpecErrorKind::Duplicate);
    let e = load("- op : f\n  args : (Tensor x)\n  output : Tensor(x)\n");
    expect_one(&e, "ops.yaml:3", "f", "same name as an argument");
}

#[test]
fn duplicate_op() {
    let text = format!("{GOOD}\n{GOOD}");
    let e = load(&text);
    let k = expect_one(
        &e,
        "ops.yaml:10",
        "relu",
        "defined twice (first at ops.yaml:1)",
    );
    assert_eq!(k, SpecErrorKind::Duplicate);
    // Across files too.
    let err = load_op_set(
        "pd_op",
        &[
            YamlSource {
                path: "a.yaml",
                text: GOOD,
            },
            YamlSource {
                path: "b.yaml",
                text: GOOD,
            },
        ],
        None,
    )
    .unwrap_err();
    expect_one(err.errors(), "b.yaml:1", "relu", "first at a.yaml:1");
    // A generated inplace twin colliding with an op of that name.
    let text = "- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  inplace : (x -> out)\n- op : f_\n  args : (Tensor x)\n  output : Tensor(out)\n";
    let e = load(text);
    expect_one(&e, "ops.yaml:1", "f", "generates op `f_`");
}

#[test]
fn unknown_key() {
    let e = load("- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  colour : red\n");
    let k = expect_one(&e, "ops.yaml:4", "f", "unknown key `colour`");
    assert_eq!(k, SpecErrorKind::UnknownKey);
    assert!(
        e[0].message.contains("infer_meta"),
        "lists the accepted keys"
    );
    let e = load("- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  kernel :\n    func : f\n    speed : fast\n");
    expect_one(&e, "ops.yaml:6", "f", "unknown key `kernel.speed`");
    let e = load("- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  infer_meta :\n    func : F\n    parms : [x]\n");
    expect_one(&e, "ops.yaml:6", "f", "unknown key `infer_meta.parms`");
}

#[test]
fn malformed_values() {
    let e = load(
        "- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  infer_meta :\n    param : [x]\n",
    );
    let k = expect_one(&e, "ops.yaml:5", "f", "`infer_meta` has no `func`");
    assert_eq!(k, SpecErrorKind::MissingKey);
    let e = load("- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  kernel :\n    func : f\n    param : x\n");
    expect_one(&e, "ops.yaml:6", "f", "expected a list such as `[x, axis]`");
    let e = load("- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  kernel :\n    func : f {dense, dense -> dense}\n");
    expect_one(
        &e,
        "ops.yaml:5",
        "f",
        "lists 2 inputs and 1 outputs, but the op has 1 tensor inputs",
    );
    let e = load("- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  kernel :\n    func : f {dense -> tensor}\n");
    expect_one(&e, "ops.yaml:5", "f", "invalid tensor type `tensor`");
    let e = load("- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  kernel :\n    func : f\n    data_type : y\n");
    expect_one(
        &e,
        "ops.yaml:4",
        "f",
        "`kernel.data_type` names `y`, which is not an argument",
    );
    let e =
        load("- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  custom_verify : maybe\n");
    expect_one(&e, "ops.yaml:4", "f", "expected `true` or `false`");
    let e = load("- op : f\n  output : Tensor(out)\n");
    expect_one(&e, "ops.yaml:1", "f", "missing `args`");
    let e = load(
        "- op : f\n  args : (Tensor x, int axis)\n  output : Tensor(out)\n  support_tensor : [x]\n",
    );
    expect_one(
        &e,
        "ops.yaml:4",
        "f",
        "`support_tensor` names `x`, which is not an attribute",
    );
}

#[test]
fn forward_backward_signatures_disagree() {
    let text = "\
- op : f
  args : (Tensor x, Tensor y)
  output : Tensor(out)
  backward : f_grad
- backward_op : f_grad
  forward : f (Tensor x) -> Tensor(out)
  args : (Tensor x, Tensor out_grad)
  output : Tensor(x_grad)
";
    let e = load(text);
    let k = expect_one(
        &e,
        "ops.yaml:6",
        "f_grad",
        "it lists 1 tensor inputs, `f` has 2",
    );
    assert_eq!(k, SpecErrorKind::ForwardBackward);
    assert!(
        e[0].message.contains("ops.yaml:1"),
        "points at the forward op: {e:?}"
    );

    let text = "\
- op : f
  args : (Tensor x)
  output : Tensor(out)
  backward : g_grad
- backward_op : f_grad
  forward : f (Tensor x) -> Tensor(out)
  args : (Tensor x, Tensor out_grad)
  output : Tensor(x_grad)
- backward_op : g_grad
  forward : g (Tensor x) -> Tensor(out)
  args : (Tensor x, Tensor out_grad)
  output : Tensor(x_grad)
";
    let e = load(text);
    expect(
        &e,
        "ops.yaml:6",
        "f_grad",
        "declares `backward : g_grad`, not `f_grad`",
    );
    expect(&e, "ops.yaml:4", "f", "says its forward is `g`, not `f`");

    let text = "\
- op : f
  args : (Tensor x)
  output : Tensor(out)
  backward : f_grad
- backward_op : f_grad
  forward : f (Tensor[] x) -> Tensor(out), Tensor(extra)
  args : (Tensor out_grad)
  output : Tensor(x_grad)
";
    let e = load(text);
    expect(
        &e,
        "ops.yaml:6",
        "f_grad",
        "input `x` is `Tensor[]` here but `Tensor`",
    );
    expect(&e, "ops.yaml:6", "f_grad", "it lists 2 outputs, `f` has 1");
}

#[test]
fn backward_op_whose_forward_should_be_known() {
    // A double grad's forward is a backward op, defined with it: it must be in the set.
    let text = "\
- backward_op : f_double_grad
  forward : f_grad (Tensor x, Tensor grad_out) -> Tensor(grad_x)
  args : (Tensor x, Tensor grad_x_grad)
  output : Tensor(x_grad)
";
    let e = load(text);
    let k = expect_one(
        &e,
        "ops.yaml:2",
        "f_double_grad",
        "forward op `f_grad` is not defined",
    );
    assert_eq!(k, SpecErrorKind::ForwardBackward);
    // A first-order backward op whose forward lives in files not loaded is fine.
    let text = "\
- backward_op : g_grad
  forward : g (Tensor x) -> Tensor(out)
  args : (Tensor out_grad)
  output : Tensor(x_grad)
";
    assert!(load_op_set(
        "pd_op",
        &[YamlSource {
            path: "b.yaml",
            text
        }],
        None
    )
    .is_ok());
}

#[test]
fn optional_naming_something_missing() {
    let e = load("- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  optional : bias\n");
    let k = expect_one(
        &e,
        "ops.yaml:4",
        "f",
        "`optional` names `bias`, which is neither a tensor input nor an output",
    );
    assert_eq!(k, SpecErrorKind::UnknownName);
}

#[test]
fn intermediate_naming_a_non_output() {
    let e = load("- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  intermediate : x\n");
    expect_one(
        &e,
        "ops.yaml:4",
        "f",
        "`intermediate` names `x`, which is not an output",
    );
    let e = load("- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  no_need_buffer : out\n");
    expect_one(
        &e,
        "ops.yaml:4",
        "f",
        "`no_need_buffer` names `out`, which is not a tensor input",
    );
}

#[test]
fn tensor_after_attribute() {
    let e = load("- op : f\n  args : (Tensor x, int axis, Tensor y)\n  output : Tensor(out)\n");
    let k = expect_one(
        &e,
        "ops.yaml:2",
        "f",
        "tensor input `y` comes after attribute `axis`",
    );
    assert_eq!(k, SpecErrorKind::ArgumentOrder);
}

#[test]
fn defaulted_attribute_before_non_defaulted() {
    let e = load("- op : f\n  args : (Tensor x, int a = 1, float b)\n  output : Tensor(out)\n");
    let k = expect_one(
        &e,
        "ops.yaml:2",
        "f",
        "attribute `b` has no default value but follows `a`",
    );
    assert_eq!(k, SpecErrorKind::ArgumentOrder);
}

#[test]
fn bad_compat_entries() {
    let ops = "- op : scale\n  args : (Tensor x, Scalar scale = 1.0)\n  output : Tensor(out)\n";
    let cases: [(&str, &str, &str, &str); 9] = [
        ("- op : scale\n  colour : red\n", "op_compat.yaml:2", "scale", "unknown key `colour` in a compat entry"),
        ("- op : scale\n  inputs : [X]\n", "op_compat.yaml:2", "scale", "expected a map `name : LegacyName`"),
        ("- op : scale\n  scalar :\n    scale :\n      data_typ : float\n", "op_compat.yaml:4", "scale", "unknown key `data_typ` in `scalar.scale`"),
        ("- op : scale\n  scalar :\n    factor :\n      data_type : float\n      support_tensor : true\n", "op_compat.yaml:1", "scale", "names attribute `factor`, which op `scale` (ops.yaml:1) does not have"),
        ("- op : scale\n  int_array :\n    scale :\n      tensor_name : S\n", "op_compat.yaml:1", "scale", "`int_array.scale` has no `data_type`"),
        ("- op : scale\n  scalar :\n    scale :\n      support_tensor : yes please\n", "op_compat.yaml:4", "scale", "expected `true` or `false`"),
        ("- op : scale\n  scalar :\n    scale : float\n", "op_compat.yaml:3", "scale", "`scalar.scale` is a scalar; expected a map with keys data_type, tensor_name, tensors_name, support_tensor"),
        ("- op : scale\n  scalar :\n    scale :\n      data_type : [float]\n", "op_compat.yaml:4", "scale", "`scalar.scale.data_type` is a list; expected a name"),
        ("- op : scale\n  scalar :\n    2x :\n      data_type : float\n", "op_compat.yaml:3", "scale", "`scalar` item `2x` is not an attribute name"),
    ];
    for (compat, at, op, what) in cases {
        let e = load_with("ops.yaml", ops, Some(compat));
        let k = expect_one(&e, at, op, what);
        assert!(
            matches!(k, SpecErrorKind::Compat | SpecErrorKind::UnknownKey),
            "{compat}: {k:?}"
        );
    }
    // An unparseable op name has no op label to give, so the text is used.
    let e = load_with("ops.yaml", ops, Some("- op : scale (\n"));
    expect_one(
        &e,
        "op_compat.yaml:1",
        "scale (",
        "expected `name` or `name (legacy_name)`",
    );
    let e = load_with("ops.yaml", ops, Some("- inputs : {x : X}\n"));
    assert!(
        e[0].to_string()
            .starts_with("op_compat.yaml:1: compat entry without `op`"),
        "{e:?}"
    );
}

#[test]
fn yaml_syntax_errors_and_wrong_shapes() {
    let e = load("- op : f\n  args : [unclosed\n");
    assert_eq!(e.len(), 1);
    assert!(e[0].to_string().starts_with("ops.yaml:"), "{e:?}");
    assert_eq!(e[0].kind, SpecErrorKind::Syntax);
    let e = load("op : f\n");
    assert!(
        e[0].to_string()
            .starts_with("ops.yaml:1: the file is a map"),
        "{e:?}"
    );
    let e = load("- just a string\n");
    assert!(
        e[0].to_string()
            .contains("ops.yaml:1: an op entry is a scalar"),
        "{e:?}"
    );
    let e = load("- op : f\n  backward_op : g\n  args : ()\n  output : Tensor\n");
    assert!(
        e[0].to_string().contains("both `op` and `backward_op`"),
        "{e:?}"
    );
    let e = load("- op : 1x\n  args : ()\n  output : Tensor\n");
    assert!(e[0].to_string().contains("not a valid name"), "{e:?}");
}

#[test]
fn a_repeated_key_counts_once_the_last_one_as_in_pyyaml() {
    // Paddle's own static_ops.yaml repeats `interfaces` on `unique`; PyYAML keeps the last.
    let text = "- op : f\n  args : (Tensor x)\n  output : Tensor(out)\n  args : (Tensor y)\n  interfaces : paddle::dialect::ParseKernelKeyInterface\n  interfaces : paddle::dialect::InferSymbolicShapeInterface\n";
    let set = load_op_set(
        "pd_op",
        &[YamlSource {
            path: "ops.yaml",
            text,
        }],
        None,
    )
    .unwrap();
    let f = set.get("f").unwrap();
    assert_eq!(f.inputs[0].name, "y");
    assert!(f.has_interface("InferSymbolicShapeInterface"));
    assert!(!f.has_interface("ParseKernelKeyInterface"));
}

#[test]
fn all_errors_are_reported_together_in_file_order() {
    let text = "\
- op : a
  args : (Tensor x, foo y)
  output : Tensor(out)
- op : b
  args : (Tensor x)
  output : Tensor(out)
  optional : z
- op : c
  args : (Tensor x)
  output : Tensor(out)
  shape : round
";
    let compat = "- op : c\n  bogus : 1\n";
    let e = load_with("ops.yaml", text, Some(compat));
    let lines: Vec<String> = e.iter().map(|e| format!("{}:{}", e.file, e.line)).collect();
    assert_eq!(
        lines,
        [
            "ops.yaml:2",
            "ops.yaml:7",
            "ops.yaml:11",
            "op_compat.yaml:2"
        ]
    );
    let all = load_op_set(
        "pd_op",
        &[YamlSource {
            path: "ops.yaml",
            text,
        }],
        None,
    )
    .unwrap_err();
    assert_eq!(all.len(), 3);
    assert_eq!(all.to_string().lines().count(), 3);
}

#[test]
fn a_broken_entry_does_not_cascade() {
    // abs_grad has a bad argument; abs_double_grad (whose forward it is) and abs (which names
    // it as backward) are not reported again, but a duplicate of it still is.
    let text = "\
- backward_op : abs_grad
  forward : abs (Tensor x) -> Tensor(out)
  args : (Tensor x, Tensr out_grad)
  output : Tensor(x_grad)
  backward : abs_double_grad
- backward_op : abs_double_grad
  forward : abs_grad (Tensor x, Tensor grad_out) -> Tensor(grad_x)
  args : (Tensor x, Tensor grad_x_grad)
  output : Tensor(grad_out_grad)
- backward_op : abs_grad
  forward : abs (Tensor x) -> Tensor(out)
  args : (Tensor x, Tensor out_grad)
  output : Tensor(x_grad)
";
    let e = load(text);
    assert_eq!(e.len(), 2, "{e:#?}");
    expect(&e, "ops.yaml:3", "abs_grad", "unknown type `Tensr`");
    expect(
        &e,
        "ops.yaml:10",
        "abs_grad",
        "defined twice (first at ops.yaml:1)",
    );
}

#[test]
fn garbage_never_panics() {
    // Deterministic mutations of a realistic entry: every result is Ok or a located error.
    let base = "\
- op : conv2d
  args : (Tensor input, Tensor filter, int[] strides={1, 1}, str data_format=\"NCHW\", float eps = 1.0e-6f, Scalar(int64_t) axis = (2 << 12) - 1)
  output : Tensor(out), Tensor[](outs){input.size()}
  infer_meta :
    func : ConvInferMeta
    param : [input, filter]
  kernel :
    func : conv2d {dense, dense -> dense, dense}, conv2d_sr {dense, selected_rows -> dense, dense}
    data_type : complex(input) > filter
    backend : input
  inplace : (input -> out)
  optional : filter
  backward : conv2d_grad
- backward_op : conv2d_grad
  forward : conv2d (Tensor input, Tensor filter) -> Tensor(out), Tensor[](outs)
  args : (Tensor input, Tensor filter, Tensor out_grad)
  output : Tensor(input_grad), Tensor(filter_grad)
  invoke : conv2d(input, filter)
";
    assert!(
        load(
            base.replace("conv2d_grad\n-", "conv2d_grad\n  colour: x\n-")
                .as_str()
        )
        .len()
            == 1
    );
    let bytes = base.as_bytes();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let specials = b"(){}[],:->=\"' \n#&*!|%@`\\";
    for _ in 0..3000 {
        let mut m = bytes.to_vec();
        for _ in 0..1 + next() % 4 {
            let pos = (next() % m.len() as u64) as usize;
            match next() % 3 {
                0 => {
                    m.remove(pos);
                }
                1 => m.insert(pos, specials[(next() % specials.len() as u64) as usize]),
                _ => m[pos] = specials[(next() % specials.len() as u64) as usize],
            }
        }
        let Ok(text) = String::from_utf8(m) else {
            continue;
        };
        if let Err(errors) = load_op_set(
            "pd_op",
            &[YamlSource {
                path: "f.yaml",
                text: &text,
            }],
            Some(YamlSource {
                path: "c.yaml",
                text: &text,
            }),
        ) {
            for e in errors.iter() {
                let s = e.to_string();
                assert!(
                    s.starts_with("f.yaml:") || s.starts_with("c.yaml:"),
                    "unlocated error {s}"
                );
                assert!(e.line >= 1, "{s}");
                assert!(!e.message.is_empty());
            }
        }
    }
}
