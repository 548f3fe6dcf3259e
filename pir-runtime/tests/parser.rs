//! The text parser's grammar with stand-in ops (no generated dialect): regions and `else`,
//! `^` block arguments, block arguments first printed where they are used, labelled operands,
//! `[id:N]`, values whose type only a later use writes, op hooks, registered type keywords and
//! printed op names, the attribute syntaxes, and a hundred thousand nested regions.

use pir_runtime::parser::{self, ParseErrorKind, TextSyntax, TypeParser};
use pir_runtime::phi::{DataLayout, DataType, Place};
use pir_runtime::{AttrKey, IrContext, OpDef, OpId, Program, Type, TypeKey};

static IF: OpDef = OpDef::new("pd_op.if", "pd_op");
static WHILE: OpDef = OpDef::new("pd_op.while", "pd_op");
static YIELD: OpDef = OpDef::new("cf.yield", "cf");
static DATA: OpDef = OpDef::new("pd_op.data", "pd_op");
static FULL: OpDef = OpDef::new("pd_op.full", "pd_op");
static SCALE: OpDef = OpDef::new("pd_op.scale", "pd_op");
static LESS: OpDef = OpDef::new("pd_op.less_than", "pd_op");
static LOOP: OpDef = OpDef::new("toy.loop", "toy");
static KERNEL: OpDef = OpDef::new("pd_kernel.phi_kernel", "pd_kernel");

fn context() -> std::sync::Arc<IrContext> {
    let ctx = IrContext::new();
    ctx.register_ops("pd_op", &[&IF, &WHILE, &DATA, &FULL, &SCALE, &LESS])
        .unwrap();
    ctx.register_ops("cf", &[&YIELD]).unwrap();
    ctx.register_ops("toy", &[&LOOP]).unwrap();
    ctx.register_ops("pd_kernel", &[&KERNEL]).unwrap();
    ctx
}

/// Paddle's print of `while_loop(i < n, [i + 1, v * 2.0])`, `pd_op.while`'s custom form.
const WHILE_TEXT: &str = r#"{
    (%0) = "pd_op.data" () {dtype:float32,name:"x",place:Place(undefined:0),shape:[4],stop_gradient:[true]} : () -> tensor<4xf32>
    (%1) = "pd_op.full" () {dtype:int64,place:Place(undefined:0),shape:[1],stop_gradient:[true],value:0} : () -> tensor<1xi64>
    (%2) = "pd_op.full" () {dtype:int64,place:Place(undefined:0),shape:[1],stop_gradient:[true],value:3} : () -> tensor<1xi64>
    (%3) = "pd_op.less_than" (%1, %2) {stop_gradient:[true]} : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xb>
    (%4, %5) = "pd_op.while" (cond=%3, inputs=%1, %0) { 
    ^%arg_0 {stop_gradient:true}, %arg_1 {stop_gradient:true}
        (%6) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>
        (%7) = "pd_op.scale" (%arg_0, %6) {bias:1,bias_after_scale:true,stop_gradient:[true]} : (tensor<1xi64>, tensor<1xf32>) -> tensor<1xi64>
        (%8) = "pd_op.scale" (%arg_1, %6) {bias:0,bias_after_scale:true,stop_gradient:[true]} : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
        (%9) = "pd_op.less_than" (%7, %2) {stop_gradient:[true]} : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xb>
        () = "cf.yield" (%9, %7, %8) {} : (tensor<1xb>, tensor<1xi64>, tensor<4xf32>) -> 
    }
    (%10) = "pd_op.scale" (%5, %6x) {} : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
}
"#;

#[test]
fn while_loop_with_block_arguments_and_labels() {
    let ctx = context();
    // `%6` is defined inside the loop body, so it is out of scope after the loop.
    let text = WHILE_TEXT.replace("(%5, %6x)", "(%5, %6)");
    let err = parser::parse_program(&ctx, &text).unwrap_err();
    assert_eq!(
        err.to_string(),
        "14:32: op `pd_op.scale`: value `%6` is not defined by an earlier op result or block argument in scope"
    );
    let text = WHILE_TEXT.replace("(%5, %6x)", "(%5, %2)");
    let text = text.replace(
        "(tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>\n}",
        "(tensor<4xf32>, tensor<1xi64>) -> tensor<4xf32>\n}",
    );
    let prog = parser::parse_program(&ctx, &text).unwrap();
    let ops: Vec<OpId> = prog.block_ops(prog.block()).collect();
    assert_eq!(ops.len(), 6);
    let w = prog.op(ops[4]);
    assert_eq!(
        (w.name(), w.num_operands(), w.num_regions()),
        ("pd_op.while", 3, 1)
    );
    let body = prog.region_blocks(w.region(0))[0];
    assert_eq!(prog.block_len(body), 5);
    // Block arguments: attributes from the `^` line, types from their first use.
    let args = prog.block_args(body);
    let t = |s: &str| parser::parse_type(&ctx, s).unwrap();
    assert_eq!(prog.value_type(args[0]), t("tensor<1xi64>"));
    assert_eq!(prog.value_type(args[1]), t("tensor<4xf32>"));
    assert_eq!(
        prog.block_arg_attrs(body, 0),
        Some(ctx.dict_attr(&[("stop_gradient", ctx.bool_attr(true))]))
    );
    // The loop's results have no printed types; `%5`'s first use gives it one.
    assert_eq!(prog.value_type(w.result(1)), t("tensor<4xf32>"));
    assert_eq!(prog.value_type(w.result(0)), None);
}

#[test]
fn if_with_else_and_nested_regions() {
    let ctx = context();
    let text = r#"{
    (%0) = "pd_op.data" () {dtype:bool,name:"c",place:Place(undefined:0),shape:[],stop_gradient:[true]} : () -> tensor<b>
    (%1) = "pd_op.if" (%0) {stop_gradient:[true]} -> tensor<4xf32> {
        (%2) = "pd_op.if" (%0) {} -> tensor<4xf32> {
            (%3) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[4],stop_gradient:[true],value:1} : () -> tensor<4xf32>
            () = "cf.yield" (%3) {} : (tensor<4xf32>) -> 
        } else {
            (%4) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[4],stop_gradient:[true],value:2} : () -> tensor<4xf32>
            () = "cf.yield" (%4) {} : (tensor<4xf32>) -> 
        }
        () = "cf.yield" (%2) {} : (tensor<4xf32>) -> 
    } else {
        (%5) = "pd_op.full" () {dtype:float32,place:Place(cpu),shape:[4],stop_gradient:[true],value:3} : () -> tensor<4xf32>
        () = "cf.yield" (%5) {} : (tensor<4xf32>) -> 
    }
}
"#;
    let prog = parser::parse_program(&ctx, text).unwrap();
    let outer = prog.last_op(prog.block()).unwrap();
    let o = prog.op(outer);
    assert_eq!((o.name(), o.num_regions()), ("pd_op.if", 2));
    let then = prog.region_blocks(o.region(0))[0];
    let inner = prog.first_op(then).unwrap();
    assert_eq!(prog.op(inner).num_regions(), 2);
    assert_eq!(prog.block_len(prog.region_blocks(o.region(1))[0]), 2);
    // The general printer writes regions after the op line; that form parses back the same.
    let printed = prog.to_string();
    assert!(printed.contains(" -> tensor<4xf32>\n    {\n"), "{printed}");
    let again = parser::parse_program(&ctx, &printed).unwrap();
    assert_eq!(parser::first_difference(&prog, &again), None);
    assert_eq!(again.to_string(), printed);
}

#[test]
fn block_arguments_first_printed_where_used() {
    let ctx = context();
    let mut prog = Program::new(&ctx);
    let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    let attrs = ctx.dict_attr(&[("name", ctx.str_attr("i"))]);
    let lp = prog
        .create_op_at(
            pir_runtime::OperationArgs {
                def: &LOOP,
                operands: &[],
                attributes: ctx.empty_dict(),
                result_types: &[],
                num_regions: 1,
            },
            pir_runtime::InsertPoint::BlockEnd(prog.block()),
        )
        .unwrap();
    let body = prog.add_block(prog.op(lp).region(0));
    let a = prog.add_block_arg(body, Some(t));
    prog.set_block_arg_attrs(body, 0, attrs);
    let b = prog.add_block_arg(body, Some(t));
    pir_runtime::Builder::at_block_end(&mut prog, body)
        .create_with(
            &YIELD,
            &[Some(b), Some(a), Some(b)],
            ctx.empty_dict(),
            &[],
            0,
        )
        .unwrap();
    let text = prog.to_string();
    assert!(
        text.contains("(%arg_0 {}, %arg_1 {name:\"i\"}, %arg_0)"),
        "{text}"
    );
    let parsed = parser::parse_program(&ctx, &text).unwrap();
    let pbody = prog_body(&parsed);
    // Declared in order of first use, so they are swapped; the print is unchanged.
    assert_eq!(parsed.block_args(pbody).len(), 2);
    assert_eq!(parsed.block_arg_attrs(pbody, 1), Some(attrs));
    assert_eq!(parsed.value_type(parsed.block_args(pbody)[0]), Some(t));
    assert_eq!(parsed.to_string(), text);
}

fn prog_body(prog: &Program) -> pir_runtime::BlockId {
    let lp = prog.first_op(prog.block()).unwrap();
    prog.region_blocks(prog.op(lp).region(0))[0]
}

#[test]
fn op_ids_read_and_print_back() {
    let ctx = context();
    let text = "{\n    (%0) = \"pd_op.full\" [id:2204] () {dtype:float32,place:Place(cpu),shape:[1],value:1} : () -> tensor<1xf32>\n    (%1) = \"pd_op.scale\" (%0, %0) {bias:0} : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>\n}\n";
    let parsed = parser::parse_module(&ctx, text).unwrap();
    let first = parsed.program.first_op(parsed.program.block()).unwrap();
    assert_eq!(parsed.op_ids.get(first), Some(2204));
    assert_eq!(parsed.op_ids.len(), 1);
    assert_eq!(parsed.to_string(), text);
    let err = parser::parse_program(&ctx, &text.replace("[id:2204]", "[id:-3]")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "2:29: op `pd_op.full`: `-3` does not fit in an op id (non-negative)"
    );
}

fn cpu_tensor(p: &mut TypeParser<'_, '_>, _: &str) -> Result<Type, parser::ParseError> {
    p.cursor().expect(b'<', "`<`")?;
    let (dims, dtype) = p.dims_and_dtype()?;
    p.cursor().expect(b'>', "`>`")?;
    let ctx = p.ctx();
    let params = [ctx.int_array_attr(&dims), ctx.dtype_attr(dtype)];
    Ok(ctx.intern_type(TypeKey::Custom("pd_kernel", "cpu_tensor", &params)))
}

fn kernel_op(ctx: &IrContext, name: &str) -> Option<&'static OpDef> {
    name.ends_with("(phi_kernel)")
        .then(|| ctx.op_def("pd_kernel.phi_kernel"))
        .flatten()
}

fn kernel_key(
    p: &mut parser::AttrParser<'_, '_>,
) -> Result<pir_runtime::Attribute, parser::ParseError> {
    // `<backend:CPU|layout:NCHW|dtype:float32>`, kept as a string for this test.
    let c = p.cursor();
    c.expect(b'<', "`<`")?;
    let start = c.pos();
    let end = c.text()[start..]
        .find('>')
        .ok_or_else(|| c.expected("`>`"))?;
    c.expect_str(&c.text()[start..start + end])?;
    c.expect(b'>', "`>`")?;
    Ok(p.ctx().str_attr(&p.cursor().text()[start..start + end]))
}

#[test]
fn kernel_dialect_shapes_need_only_registrations() {
    let ctx = context();
    let text = "{\n    (%0) = \"conv2d(phi_kernel)\" () {kernel_key:<backend:CPU|layout:NCHW|dtype:float32>,kernel_name:\"conv2d\",origin_id:2210} : () -> cpu_tensor<-1x8x32x32xf32>\n}\n";
    let err = parser::parse_program(&ctx, text).unwrap_err();
    assert!(
        matches!(err.kind, ParseErrorKind::UnknownOp { .. }),
        "{err}"
    );
    let mut syntax = TextSyntax::new();
    syntax.register_op_resolver(kernel_op);
    let err = parser::parse_module_with(&ctx, text, &syntax).unwrap_err();
    assert_eq!(
        err.to_string(),
        "2:48: op `conv2d(phi_kernel)`: attribute `kernel_key`: expected an attribute value, found `<`"
    );
    syntax.register_attr(None, "kernel_key", parser::AttrSyntax::Custom(kernel_key));
    let err = parser::parse_module_with(&ctx, text, &syntax).unwrap_err();
    assert_eq!(
        err.kind,
        ParseErrorKind::UnknownType {
            name: "cpu_tensor".into()
        }
    );
    syntax.register_type("cpu_tensor", cpu_tensor);
    let prog = parser::parse_module_with(&ctx, text, &syntax)
        .unwrap()
        .program;
    let op = prog.op(prog.first_op(prog.block()).unwrap());
    assert_eq!(op.name(), "pd_kernel.phi_kernel");
    assert_eq!(op.attr("origin_id"), Some(ctx.i64_attr(2210)));
    assert_eq!(
        op.attr("kernel_key"),
        Some(ctx.str_attr("backend:CPU|layout:NCHW|dtype:float32"))
    );
    assert_eq!(
        op.result_type(0).unwrap().display(&ctx).to_string(),
        "pd_kernel.cpu_tensor<[-1,8,32,32],float32>"
    );
}

fn while_types(prog: &mut Program, op: OpId) -> Result<(), String> {
    // pd_op.while: the results and the body's arguments have the types of the inputs.
    let r = prog.op(op);
    let inputs: Vec<_> = r
        .operands()
        .skip(1)
        .map(|v| v.and_then(|v| prog.value_type(v)))
        .collect();
    let results: Vec<_> = r.results().collect();
    let body = prog.region_blocks(r.region(0))[0];
    let args = prog.block_args(body).to_vec();
    if inputs.len() != results.len() || inputs.len() != args.len() {
        return Err(format!(
            "{} inputs but {} results",
            inputs.len(),
            results.len()
        ));
    }
    for ((v, a), t) in results.into_iter().zip(args).zip(inputs) {
        prog.set_value_type(v, t);
        prog.set_value_type(a, t);
    }
    Ok(())
}

#[test]
fn op_hooks_complete_what_the_text_leaves_out() {
    let ctx = context();
    let mut syntax = TextSyntax::new();
    syntax.register_op_hook("pd_op.while", while_types);
    let text = WHILE_TEXT.replace("    (%10) = \"pd_op.scale\" (%5, %6x) {} : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>\n", "");
    let prog = parser::parse_module_with(&ctx, &text, &syntax)
        .unwrap()
        .program;
    let w = prog.op(prog.last_op(prog.block()).unwrap());
    let t = |s: &str| parser::parse_type(&ctx, s).unwrap();
    assert_eq!(prog.value_type(w.result(0)), t("tensor<1xi64>"));
    assert_eq!(prog.value_type(w.result(1)), t("tensor<4xf32>"));
    // A hook's refusal is an error at the op.
    let bad = text.replace("inputs=%1, %0", "inputs=%1");
    let bad = bad.replace("%arg_1 {stop_gradient:true}", "%arg_1 {}");
    let err = parser::parse_module_with(&ctx, &bad, &syntax).unwrap_err();
    assert_eq!(
        err.kind,
        ParseErrorKind::Rejected {
            message: "1 inputs but 2 results".into()
        }
    );
    assert_eq!(err.op.as_deref(), Some("`pd_op.while`"));
}

#[test]
fn attribute_syntaxes_by_value() {
    let ctx = context();
    let a = |s: &str| parser::parse_attribute(&ctx, s).unwrap();
    assert_eq!(a("true"), ctx.bool_attr(true));
    assert_eq!(a("-7"), ctx.i32_attr(-7));
    assert_eq!(a("4294967296"), ctx.i64_attr(1 << 32));
    assert_eq!(a("1e-05"), ctx.f64_attr(1e-5));
    assert_eq!(a("-inf"), ctx.f64_attr(f64::NEG_INFINITY));
    let nan = a("-nan");
    assert_eq!(nan.display(&ctx).to_string(), "-nan");
    assert_eq!(a("\"a\\\"b\\c\""), ctx.str_attr("a\"b\\c"));
    assert_eq!(a("[]"), ctx.array_attr(&[]));
    assert_eq!(a("float16"), ctx.dtype_attr(DataType::Float16));
    assert_eq!(a("Undefined"), ctx.dtype_attr(DataType::Undefined));
    assert_eq!(a("NHWC"), ctx.layout_attr(DataLayout::Nhwc));
    assert_eq!(
        a("Undefined(AnyLayout)"),
        ctx.layout_attr(DataLayout::Undefined)
    );
    assert_eq!(a("Place(gpu:1)"), ctx.place_attr(Place::gpu(1)));
    assert_eq!(
        a("Place(gpu_pinned)").display(&ctx).to_string(),
        "Place(gpu_pinned)"
    );
    assert_eq!(
        a("real:1.5 imag:-2"),
        ctx.intern_attr(AttrKey::Complex128(1.5, -2.0))
    );
    let t = ctx.dense_tensor_type(DataType::Int8, &[0, -1]);
    assert_eq!(a("tensor<0x-1xi8>"), ctx.type_attr(t));
    assert_eq!(
        a("bf16"),
        ctx.type_attr(ctx.scalar_type(DataType::BFloat16))
    );
    assert_eq!(
        a("{b:[1,2],a:\"x\"}"),
        ctx.dict_attr(&[
            ("a", ctx.str_attr("x")),
            ("b", ctx.array_attr(&[ctx.i32_attr(1), ctx.i32_attr(2)]))
        ])
    );
    // Printed and parsed back, every one of these is a fixpoint.
    for s in [
        "1e+06",
        "0.272166",
        "-0.5",
        "1.23457e+08",
        "[true,false]",
        "Place(undefined:0)",
    ] {
        assert_eq!(a(s).display(&ctx).to_string(), s);
    }
}

#[test]
fn types_by_keyword() {
    let ctx = context();
    let t = |s: &str| parser::parse_type(&ctx, s).unwrap();
    assert_eq!(
        t("tensor<f32>"),
        Some(ctx.dense_tensor_type(DataType::Float32, &[]))
    );
    assert_eq!(
        t("tensor<0xi64>"),
        Some(ctx.dense_tensor_type(DataType::Int64, &[0]))
    );
    assert_eq!(
        t("pd_op.selectedrows<-1x8xf16>"),
        Some(ctx.selected_rows_type(DataType::Float16, &[-1, 8]))
    );
    assert_eq!(
        t("pd_op.tensor_array<c64>"),
        Some(ctx.dense_tensor_array_type(DataType::Complex64, &[], DataLayout::Nchw))
    );
    assert_eq!(t("vec[]"), Some(ctx.vector_type(&[])));
    let null_elems = t("vec[<<NULL TYPE>>,<<NULL TYPE>>]").unwrap();
    assert_eq!(
        null_elems.display(&ctx).to_string(),
        "vec[<<NULL TYPE>>,<<NULL TYPE>>]"
    );
    let custom = t("toy.grid<4,\"a>b\">").unwrap();
    assert_eq!(custom.display(&ctx).to_string(), "toy.grid<4,\"a>b\">");
    for bad in [
        "tensor",
        "tensor<2x>",
        "vec[f32",
        "tensor<2xf32",
        "tensor<2.5xf32>",
    ] {
        assert!(parser::parse_type(&ctx, bad).is_err(), "{bad}");
    }
}

#[test]
fn deeply_nested_regions_parse_without_recursion() {
    // 100,000 nested `toy.loop` regions: the block stack is on the heap, and every brace is
    // matched once.
    const DEPTH: usize = 100_000;
    let mut text = String::from("{\n");
    for _ in 0..DEPTH {
        text.push_str("() = \"toy.loop\" () {} : () -> \n{\n");
    }
    for _ in 0..DEPTH {
        text.push_str("}\n");
    }
    text.push_str("}\n");
    let ctx = context();
    let prog = parser::parse_program(&ctx, &text).unwrap();
    assert_eq!(prog.num_ops(), DEPTH + 1);
    // Deep attribute nesting is refused with a clear error instead.
    let deep = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
    let err = parser::parse_attribute(&ctx, &deep).unwrap_err();
    assert_eq!(err.kind, ParseErrorKind::TooDeep { limit: 64 });
}
