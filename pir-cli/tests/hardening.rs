//! Issue 18 through the CLI: `pir verify` refuses dims no Paddle program holds and says why;
//! `pir verify --check-types` names the op and result of a wrong recorded type and of an op
//! whose infer-meta refuses its operands. Programs come from a generator, not from files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pir"))
        .args(args)
        .output()
        .expect("run pir")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn write_tmp(name: &str, contents: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

fn dims(d: &[i64]) -> String {
    d.iter().map(|d| format!("{d}x")).collect()
}

/// A program in Paddle's text form: `pd_op.data` ops of the given shapes, then `body` lines
/// (`%N` numbering continues after the data ops).
fn program(datas: &[&[i64]], body: &[String]) -> String {
    let mut s = String::from("{\n");
    for (i, d) in datas.iter().enumerate() {
        let shape: Vec<_> = d.iter().map(i64::to_string).collect();
        s += &format!(
            "    (%{i}) = \"pd_op.data\" [id:{}] () {{dtype:float32,name:\"x{i}\",place:Place(undefined:0),shape:[{}],stop_gradient:[true]}} : () -> tensor<{}f32>\n",
            10 + i,
            shape.join(","),
            dims(d)
        );
    }
    for line in body {
        s += &format!("    {line}\n");
    }
    s + "}\n"
}

fn unary(name: &str, out: usize, x: usize, x_dims: &[i64], ty: &str) -> String {
    format!(
        "(%{out}) = \"pd_op.{name}\" (%{x}) {{stop_gradient:[true]}} : (tensor<{}f32>) -> {ty}",
        dims(x_dims)
    )
}

#[test]
fn check_types_names_the_op_and_result_of_wrong_recorded_types() {
    let relu = unary("relu", 2, 0, &[-1, 3], "tensor<7x7x7xi32>");
    let add = "(%3) = \"pd_op.add\" (%0, %1) {stop_gradient:[true]} : (tensor<-1x3xf32>, tensor<5xf32>) -> tensor<-1x3xf32>".to_string();
    let src = program(&[&[-1, 3], &[5]], &[relu, add]);
    let path = write_tmp("harden_types.txt", &src);
    let file = path.to_str().unwrap();
    let o = pir(&["verify", file]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = pir(&["verify", "--check-types", file]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains(
        "  differs: pd_op.relu (op 2 of block 0): result 0 (`out`) is recorded as tensor<7x7x7xi32> but infers to tensor<-1x3xf32>\n"
    ), "{err}");
    assert!(err.contains(
        "  refused: pd_op.add (op 3 of block 0): result(s) (`out`) cannot be inferred: pd_op.add (ElementwiseInferMeta): "
    ), "{err}");
    assert!(
        err.ends_with(&format!(
            "error: {file}: check-types found 1 result type(s) that differ from their infer-meta and 1 op(s) whose infer-meta refuses them\n"
        )),
        "{err}"
    );
}

#[test]
fn verify_refuses_dims_paddle_never_writes_and_keeps_those_it_does() {
    for (shape, dim, why) in [
        (
            &[-5, 3][..],
            "-5",
            "a dim below -1 is only written by Paddle as the product",
        ),
        (
            &[i64::MAX],
            "9223372036854775807",
            "size in bytes does not fit in an int64",
        ),
        (
            &[1 << 40, 1 << 30],
            "1073741824",
            "size in bytes does not fit in an int64",
        ),
    ] {
        let path = write_tmp("harden_dims.txt", &program(&[shape], &[]));
        let file = path.to_str().unwrap();
        let o = pir(&["verify", file]);
        assert_eq!(o.status.code(), Some(1), "{shape:?}");
        let err = text(&o.stderr);
        assert!(
            err.contains(&format!(
                "pd_op.data (op 0 of block 0): result 0: type tensor<{}f32> has dim {dim}: ",
                dims(shape)
            )) && err.contains(why),
            "{err}"
        );
    }
    // Products of -1 on a result computed from an input: Paddle's cumsum with flatten on -1x3
    // writes -3. The CLI's op set has no such op, so a relu stands in: verify (structure) keeps
    // the dim; only --check-types would compare it with relu's infer-meta.
    let relu = unary("relu", 1, 0, &[-1, 3], "tensor<-3xf32>");
    let src = program(&[&[-1, 3]], &[relu]);
    let path = write_tmp("harden_products.txt", &src);
    let o = pir(&["verify", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}
