//! `pir ops list | show | dump`.

use std::fmt::Write as _;

use clap::Subcommand;
use pir_spec::{DefaultValue, InputKind, OpSchema};

use super::catalog::{self, OpEntry};
use crate::error::CliError;

/// `pir ops ...`
#[derive(Subcommand)]
pub enum OpsCommand {
    /// List ops, one name per line.
    List {
        /// Only ops of this dialect.
        #[arg(long)]
        dialect: Option<String>,
        /// Only ops with this trait (Paddle's name, e.g. `InplaceTrait`; `Inplace` works too).
        #[arg(long = "trait")]
        trait_: Option<String>,
        /// Only ops with this interface (e.g. `InferMetaInterface`; `InferMeta` works too).
        #[arg(long)]
        interface: Option<String>,
    },
    /// Show one op: signature, inputs, attributes, outputs, runtime info, traits, interfaces,
    /// backward op and where it is defined.
    Show {
        /// The op (`pd_op.conv2d`, or `conv2d`).
        name: String,
    },
    /// Dump every op with a GetOpInfo tuple, as op_info_dev.json shapes its entries.
    Dump {
        /// Print JSON (the only format for now; required so that scripts say what they expect).
        #[arg(long, required = true)]
        json: bool,
    },
}

/// Runs a `pir ops` command.
pub fn run(cmd: OpsCommand) -> Result<(), CliError> {
    match cmd {
        OpsCommand::List {
            dialect,
            trait_,
            interface,
        } => {
            let ops = catalog::registered()?;
            let wants = |list: &[String], want: &Option<String>, suffix: &str| match want {
                None => true,
                Some(w) => list.iter().any(|n| n == w || *n == format!("{w}{suffix}")),
            };
            let mut n = 0;
            let mut out = String::new();
            for op in &ops {
                if dialect.as_ref().is_some_and(|d| *d != op.dialect) {
                    continue;
                }
                if !wants(&op.traits, &trait_, "Trait")
                    || !wants(&op.interfaces, &interface, "Interface")
                {
                    continue;
                }
                out.push_str(&op.name);
                out.push('\n');
                n += 1;
            }
            crate::output::stdout(&out)?;
            if n == 0 {
                eprintln!("no op matches");
            }
            Ok(())
        }
        OpsCommand::Show { name } => {
            let ops = catalog::registered()?;
            let op = find(&ops, &name)?;
            crate::output::stdout(&show(op))
        }
        OpsCommand::Dump { json: _ } => {
            let ops = catalog::registered()?;
            let entries: Vec<serde_json::Value> = ops.iter().filter_map(dump_entry).collect();
            let skipped = ops.len() - entries.len();
            let mut text = serde_json::to_string_pretty(&entries)
                .map_err(|e| CliError::Usage(e.to_string()))?;
            text.push('\n');
            crate::output::stdout(&text)?;
            if skipped > 0 {
                eprintln!(
                    "note: {skipped} op(s) without a GetOpInfo tuple (builtin ops) are not listed"
                );
            }
            Ok(())
        }
    }
}

fn find<'a>(ops: &'a [OpEntry], name: &str) -> Result<&'a OpEntry, CliError> {
    ops.iter()
        .find(|o| o.name == name || o.name.split_once('.').is_some_and(|(_, n)| n == name))
        .ok_or_else(|| {
            let close: Vec<&str> = ops
                .iter()
                .map(|o| o.name.as_str())
                .filter(|n| n.contains(name.rsplit('.').next().unwrap_or(name)))
                .take(5)
                .collect();
            CliError::NotFound(if close.is_empty() {
                format!("no op named `{name}` (try `pir ops list`)")
            } else {
                format!("no op named `{name}`; similar: {}", close.join(", "))
            })
        })
}

/// The JSON entry of one op: op_info_dev.json's keys.
pub fn dump_entry(op: &OpEntry) -> Option<serde_json::Value> {
    let s = op.schema.as_ref()?;
    let t = s.op_info_tuple();
    let mut m = serde_json::Map::new();
    m.insert("op_name".into(), t.op_name.into());
    let v = |x: serde_json::Result<serde_json::Value>| x.unwrap_or(serde_json::Value::Null);
    m.insert("inputs".into(), v(serde_json::to_value(&t.inputs)));
    m.insert("attributes".into(), v(serde_json::to_value(&t.attributes)));
    m.insert("outputs".into(), v(serde_json::to_value(&t.outputs)));
    m.insert(
        "runtime_info".into(),
        v(serde_json::to_value(&t.runtime_info)),
    );
    m.insert("traits".into(), op.traits.clone().into());
    m.insert("interfaces".into(), op.interfaces.clone().into());
    Some(serde_json::Value::Object(m))
}

fn default_text(d: &DefaultValue) -> String {
    let list = |items: Vec<String>| format!("{{{}}}", items.join(", "));
    match d {
        DefaultValue::Bool(b) => b.to_string(),
        DefaultValue::Int(i) => i.to_string(),
        DefaultValue::Float(f) => f.to_string(),
        DefaultValue::Str(s) => format!("{s:?}"),
        DefaultValue::IntList(v) => list(v.iter().map(|x| x.to_string()).collect()),
        DefaultValue::FloatList(v) => list(v.iter().map(|x| x.to_string()).collect()),
        DefaultValue::BoolList(v) => list(v.iter().map(|x| x.to_string()).collect()),
        DefaultValue::StrList(v) => list(v.iter().map(|x| format!("{x:?}")).collect()),
        DefaultValue::DataType(d) => format!("DataType::{}", d.cpp_name()),
        DefaultValue::DataLayout(l) => format!("{:?}", l.name()),
        DefaultValue::Place(p) => p.to_string(),
    }
}

fn show(op: &OpEntry) -> String {
    let mut out = String::new();
    let Some(s) = &op.schema else {
        let _ = writeln!(
            out,
            "{}  (hand-written {} op, no GetOpInfo)",
            op.name, op.dialect
        );
        let _ = writeln!(out, "traits:     {}", op.traits.join(", "));
        let _ = writeln!(out, "interfaces: {}", op.interfaces.join(", "));
        return out;
    };
    show_schema(&mut out, s, op);
    out
}

fn show_schema(out: &mut String, s: &OpSchema, op: &OpEntry) {
    show_header(out, s);
    show_inputs(out, s);
    show_attributes(out, s);
    show_outputs(out, s);
    show_runtime(out, &s.runtime);
    show_relations(out, s, op);
}

/// The op's name, class, kind and definition site, then its doc line.
fn show_header(out: &mut String, s: &OpSchema) {
    let kind = match s.kind {
        pir_spec::OpKind::Forward => "forward",
        pir_spec::OpKind::Backward => "backward",
    };
    let _ = write!(out, "{}  ({}, {kind} op", s.name, s.class_name);
    if let Some(l) = &s.source {
        let _ = write!(out, ", defined at {}:{}", l.file, l.line);
    }
    let _ = writeln!(out, ")");
    if !s.doc.is_empty() {
        let _ = writeln!(out, "  {}", s.doc);
    }
}

/// One line per input: index, name, type and flags (a mutable attribute's type and default).
fn show_inputs(out: &mut String, s: &OpSchema) {
    let _ = writeln!(out, "inputs:");
    if s.inputs.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for (i, x) in s.inputs.iter().enumerate() {
        let mut flags = Vec::new();
        if x.optional {
            flags.push("optional".to_string());
        }
        if x.no_need_buffer {
            flags.push("no_need_buffer".to_string());
        }
        if let InputKind::MutableAttribute(m) = &x.kind {
            flags.push(format!("mutable attribute, {}", m.data_type));
            if let Some(d) = &m.default {
                flags.push(format!("default {}", default_text(d)));
            }
        }
        if x.with_grad_semantic {
            flags.push("has grad".to_string());
        }
        let _ = writeln!(
            out,
            "  {i:<2} {:<20} {}  [{}]",
            x.name,
            x.kind.type_name(),
            flags.join(", ")
        );
    }
}

/// One line per attribute: name, type, C++ data type and default.
fn show_attributes(out: &mut String, s: &OpSchema) {
    let _ = writeln!(out, "attributes:");
    if s.attributes.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for a in s.attributes.iter() {
        let d = a
            .default
            .as_ref()
            .map(|d| format!(" = {}", default_text(d)))
            .unwrap_or_default();
        let dt = if a.data_type.is_empty() {
            String::new()
        } else {
            format!(" <{}>", a.data_type)
        };
        let _ = writeln!(out, "  {:<23} {}{dt}{d}", a.name, a.kind.type_name());
    }
}

/// One line per output: index, name, type and flags.
fn show_outputs(out: &mut String, s: &OpSchema) {
    let _ = writeln!(out, "outputs:");
    for (i, o) in s.outputs.iter().enumerate() {
        let mut flags = Vec::new();
        if o.optional {
            flags.push("optional");
        }
        if o.intermediate {
            flags.push("intermediate");
        }
        let _ = writeln!(
            out,
            "  {i:<2} {:<20} {}  [{}]",
            o.name,
            o.kind.type_name(),
            flags.join(", ")
        );
    }
}

/// The runtime info: infer-meta and kernel calls, kernel keys, inplace and view pairs.
fn show_runtime(out: &mut String, r: &pir_spec::RuntimeInfo) {
    let _ = writeln!(out, "runtime:");
    let _ = writeln!(
        out,
        "  infer_meta  {}({})",
        r.infer_meta_func,
        r.infer_meta_param.join(", ")
    );
    let _ = writeln!(
        out,
        "  kernel      {}({})",
        r.kernel_func,
        r.kernel_param.join(", ")
    );
    if !r.kernel_key_dtype.is_empty() {
        let _ = writeln!(out, "  key dtype   {}", r.kernel_key_dtype.join(", "));
    }
    if !r.kernel_key_backend.is_empty() {
        let _ = writeln!(out, "  key backend {}", r.kernel_key_backend.join(", "));
    }
    let pairs = |p: &[(pir_spec::Str, pir_spec::Str)]| {
        p.iter()
            .map(|(o, i)| format!("{i} -> {o}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !r.inplace.is_empty() {
        let _ = writeln!(out, "  inplace     {}", pairs(&r.inplace));
    }
    if !r.view.is_empty() {
        let _ = writeln!(out, "  view        {}", pairs(&r.view));
    }
}

/// The op's traits and interfaces, and its backward / forward / invoked ops.
fn show_relations(out: &mut String, s: &OpSchema, op: &OpEntry) {
    let _ = writeln!(
        out,
        "traits:       {}",
        if op.traits.is_empty() {
            "(none)".into()
        } else {
            op.traits.join(", ")
        }
    );
    let _ = writeln!(out, "interfaces:   {}", op.interfaces.join(", "));
    if let Some(b) = &s.backward {
        let _ = writeln!(out, "backward:     {b}");
    }
    if let Some(f) = &s.forward {
        let _ = writeln!(out, "forward:      {f}");
    }
    if let Some(i) = &s.invoke {
        let _ = writeln!(out, "invoke:       {i}");
    }
}
