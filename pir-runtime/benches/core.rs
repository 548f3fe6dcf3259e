//! Runtime benchmarks on a chain of 1,000,000 unary ops in one block, each consuming the
//! previous result (issue: runtime core). Run: `cargo bench -p pir-runtime --bench core`.
//! Per-op figures are divan's `item` throughput; bytes/op is printed before the table.

use std::borrow::Cow;
use std::hint::black_box;
use std::sync::Arc;

use divan::counter::ItemsCount;
use divan::Bencher;
use pir_runtime::op_def::OpDef;
use pir_runtime::phi::DataType;
use pir_runtime::pir_spec::{
    InputKind, InputSpec, OpKind, OpSchema, OutputSpec, RuntimeInfo, ValueKind,
};
use pir_runtime::{AttrKey, Builder, IrContext, Program, Type, Value};

const N: usize = 1_000_000;
const USES: usize = 100_000;

// A generated-style unary op: schema table + generic verifier, like `pd_op.relu`.
static UNARY_SCHEMA: OpSchema = OpSchema {
    dialect: Cow::Borrowed("bench"),
    op_name: Cow::Borrowed("unary"),
    name: Cow::Borrowed("bench.unary"),
    class_name: Cow::Borrowed("UnaryOp"),
    origin_name: Cow::Borrowed("unary"),
    kind: OpKind::Forward,
    inputs: Cow::Borrowed(&[InputSpec {
        name: Cow::Borrowed("x"),
        kind: InputKind::Value(ValueKind::DENSE),
        optional: false,
        no_need_buffer: false,
        with_grad_semantic: true,
        doc: Cow::Borrowed(""),
    }]),
    attributes: Cow::Borrowed(&[]),
    outputs: Cow::Borrowed(&[OutputSpec {
        name: Cow::Borrowed("out"),
        kind: ValueKind::DENSE,
        optional: false,
        intermediate: false,
        size_expr: None,
        doc: Cow::Borrowed(""),
    }]),
    runtime: RuntimeInfo {
        infer_meta_func: Cow::Borrowed(""),
        infer_meta_param: Cow::Borrowed(&[]),
        kernel_func: Cow::Borrowed(""),
        kernel_param: Cow::Borrowed(&[]),
        kernel_key_dtype: Cow::Borrowed(&[]),
        kernel_key_backend: Cow::Borrowed(&[]),
        inplace: Cow::Borrowed(&[]),
        view: Cow::Borrowed(&[]),
        skip_transform_inputs: Cow::Borrowed(&[]),
    },
    traits: Cow::Borrowed(&[]),
    interfaces: Cow::Borrowed(&[]),
    backward: None,
    forward: None,
    invoke: None,
    verify_signature: true,
    compat: None,
    extra: Cow::Borrowed(&[]),
    source: None,
    doc: Cow::Borrowed(""),
};

static UNARY: OpDef = OpDef {
    schema: Some(&UNARY_SCHEMA),
    ..OpDef::new("bench.unary", "bench")
};
static SOURCE: OpDef = OpDef::new("bench.source", "bench");

fn setup() -> (Arc<IrContext>, Type) {
    let ctx = IrContext::new();
    let t = ctx.dense_tensor_type(DataType::Float32, &[-1, 3, 224, 224]);
    (ctx, t)
}

/// Appends a source op and a chain of `n` unary ops; returns the source value.
fn build_chain(prog: &mut Program, t: Type, n: usize) -> Value {
    let empty = prog.ctx().empty_dict();
    let mut b = Builder::at_end(prog);
    let src = b.create_with(&SOURCE, &[], empty, &[Some(t)], 0).unwrap();
    let first = b.program().op(src).result(0);
    let mut v = first;
    for _ in 0..n {
        let op = b
            .create_with(&UNARY, &[Some(v)], empty, &[Some(t)], 0)
            .unwrap();
        v = b.program().op(op).result(0);
    }
    first
}

fn main() {
    let (ctx, t) = setup();
    let mut prog = Program::new(&ctx);
    build_chain(&mut prog, t, N);
    let grown = prog.storage_bytes();
    let mut exact = Program::with_capacity(&ctx, N + 1);
    build_chain(&mut exact, t, N);
    println!(
        "memory: {:.1} bytes/op (vectors grown by push), {:.1} bytes/op (Program::with_capacity)",
        grown as f64 / N as f64,
        exact.storage_bytes() as f64 / N as f64
    );
    divan::main();
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn create_insert(bencher: Bencher<'_, '_>) {
    let (ctx, t) = setup();
    bencher
        .counter(ItemsCount::new(N))
        .with_inputs(|| Program::new(&ctx))
        .bench_local_values(|mut prog| {
            build_chain(&mut prog, t, N);
            prog
        });
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn verify(bencher: Bencher<'_, '_>) {
    let (ctx, t) = setup();
    let mut prog = Program::new(&ctx);
    build_chain(&mut prog, t, N);
    bencher
        .counter(ItemsCount::new(N))
        .bench_local(|| pir_runtime::verify(black_box(&prog)).unwrap());
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn print(bencher: Bencher<'_, '_>) {
    let (ctx, t) = setup();
    let mut prog = Program::new(&ctx);
    build_chain(&mut prog, t, N);
    let mut out = String::with_capacity(200 * N);
    bencher.counter(ItemsCount::new(N)).bench_local(|| {
        out.clear();
        pir_runtime::printer::print_program(&mut out, black_box(&prog)).unwrap();
        out.len()
    });
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn erase(bencher: Bencher<'_, '_>) {
    let (ctx, t) = setup();
    bencher
        .counter(ItemsCount::new(N))
        .with_inputs(|| {
            let mut prog = Program::new(&ctx);
            build_chain(&mut prog, t, N);
            prog
        })
        .bench_local_values(|mut prog| {
            // Users before definitions: erase from the end of the block.
            let block = prog.block();
            while let Some(op) = prog.last_op(block) {
                prog.erase_op(op).unwrap();
            }
            prog
        });
}

#[divan::bench(sample_count = 20, sample_size = 1)]
fn replace_all_uses(bencher: Bencher<'_, '_>) {
    let (ctx, t) = setup();
    bencher
        .counter(ItemsCount::new(USES))
        .with_inputs(|| {
            let mut prog = Program::new(&ctx);
            let empty = ctx.empty_dict();
            let mut b = Builder::at_end(&mut prog);
            let a = b.create_with(&SOURCE, &[], empty, &[Some(t)], 0).unwrap();
            let a = b.program().op(a).result(0);
            let c = b.create_with(&SOURCE, &[], empty, &[Some(t)], 0).unwrap();
            let c = b.program().op(c).result(0);
            for _ in 0..USES {
                b.create_with(&UNARY, &[Some(a)], empty, &[Some(t)], 0)
                    .unwrap();
            }
            (prog, a, c)
        })
        .bench_local_values(|(mut prog, a, c)| {
            prog.replace_all_uses_with(a, c);
            prog
        });
}

#[divan::bench]
fn interned_type_lookup(bencher: Bencher<'_, '_>) {
    let (ctx, _) = setup();
    let dims = [-1i64, 3, 224, 224];
    bencher.bench_local(|| ctx.dense_tensor_type(black_box(DataType::Float32), black_box(&dims)));
}

#[divan::bench]
fn interned_attribute_lookup(bencher: Bencher<'_, '_>) {
    let (ctx, _) = setup();
    ctx.str_attr("NCHW");
    bencher.bench_local(|| ctx.str_attr(black_box("NCHW")));
}

#[divan::bench(sample_count = 20, sample_size = 1)]
fn intern_new_attribute(bencher: Bencher<'_, '_>) {
    const K: usize = 100_000;
    bencher
        .counter(ItemsCount::new(K))
        .with_inputs(|| (0..K as i64).collect::<Vec<_>>())
        .bench_local_values(|values| {
            // A fresh context each sample, so every value is new.
            let ctx = IrContext::new();
            for v in values {
                black_box(ctx.intern_attr(AttrKey::Int64(v)));
            }
            ctx
        });
}
