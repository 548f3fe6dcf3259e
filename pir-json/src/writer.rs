//! Writing a [`Program`] in Paddle's JSON format (Paddle's `ProgramWriter` and
//! `WriteModule`), byte for byte as Paddle 3.3.1 writes the same program.
//!
//! What is written follows Paddle's writer, including what it leaves out:
//!
//! - Value ids: results from 1 up and block arguments from -1 down, in program order (an op's
//!   results before its regions); regions and blocks are named `region_N` / `block_N` in the same
//!   order.
//! - `A` of a `pd_op` op with a schema: its yaml attributes in declaration order, then
//!   `op_dist_attr`, `op_role`, `struct_name`; other attributes of such ops are not written. `A` of
//!   other ops: every attribute but `stop_gradient`, `persistable` and `op_callstack`, by name.
//! - `OA`: `persistable` and `stop_gradient` (only with [`WriteOptions::trainable`]).
//! - `builtin.parameter` is written in the compressed `p` form, with Paddle's defaults for absent
//!   flags (`is_distributed` 0, `is_parameter` 1, `need_clip` 0, `persistable` 1,
//!   `stop_gradient` 1, `trainable` 1). A parameter op the `p` form cannot hold (other attributes,
//!   flags that are not one-bool arrays, no `parameter_name`) is written in the general form
//!   `0.parameter` instead, which Paddle reads too, rather than failing as Paddle's writer does.
//!
//! ```
//! use pir_runtime::{builtin, Builder, IrContext, Program, phi::DataType};
//! let ctx = IrContext::new();
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let w = builtin::parameter(&mut b, "w", ctx.dense_tensor_type(DataType::Float32, &[2])).unwrap();
//! builtin::shadow_output(&mut b, w, "out").unwrap();
//! let json = pir_json::write_program(&prog);
//! assert_eq!(json, concat!(
//!     r##"{"base_code":{"magic":"pir","trainable":true,"version":4},"program":{"regions":[{"#":"region_0","blocks":[{"#":"block_0","args":[],"ops":["##,
//!     r##"{"#":"p","A":[0,1,0,"w"],"DA":[],"O":{"%":1,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[2],"NCHW",[],0]}},"OA":[1,1,1],"QA":[]},"##,
//!     r##"{"#":"0.shadow_output","A":[{"AT":{"#":"0.a_str","D":"out"},"N":"output_name"}],"I":[{"%":1}],"O":[],"OA":[]}]}]}]}}"##,
//! ));
//! ```

use pir_runtime::interfaces::OpYamlInfo;
use pir_runtime::{AttrData, Attribute, BlockId, IrContext, OpId, OpRef, Program, RegionId};

use crate::attributes::write_attr;
use crate::emit::{dump, J};
use crate::schema::{
    compress_dialect, ATTR, ATTRS, BLOCKS, BLOCK_ARGS, BLOCK_OPS, DIST_ATTRS, DIST_ATTR_NAMES, ID,
    MAGIC, NAME, OPERANDS, PARAMETER_OP, PIR_VERSION, QUANT_ATTRS, QUANT_ATTR_NAMES, REGIONS,
    RESULTS, RESULT_ATTRS, TYPE, VALUE_ID,
};
use crate::types::write_type;

/// How to write a program.
///
/// ```
/// let opts = pir_json::WriteOptions { readable: true, ..Default::default() };
/// assert!(opts.trainable);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// `true`: indent by four spaces (Paddle's `readable=True`); `false`: one line (the
    /// default, as `paddle.jit.save`).
    pub readable: bool,
    /// Write the `stop_gradient` / `persistable` attributes (`OA`) and record
    /// `base_code.trainable` (default `true`, as `paddle.jit.save`).
    pub trainable: bool,
}

impl Default for WriteOptions {
    fn default() -> WriteOptions {
        WriteOptions {
            readable: false,
            trainable: true,
        }
    }
}

/// Writes `prog` as Paddle 3.3.1's `paddle.jit.save` does (`readable=False`, trainable): one
/// line of JSON.
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// let prog = pir_runtime::Program::new(&ctx);
/// let json = pir_json::write_program(&prog);
/// assert!(json.starts_with(r##"{"base_code":{"magic":"pir","trainable":true,"version":4}"##));
/// let back = pir_json::read_program(&ctx, &json).unwrap();
/// assert_eq!(back.to_string(), prog.to_string());
/// ```
pub fn write_program(prog: &Program) -> String {
    write_program_with(prog, &WriteOptions::default())
}

/// Writes `prog` with `options`.
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// let prog = pir_runtime::Program::new(&ctx);
/// let opts = pir_json::WriteOptions { readable: true, trainable: false };
/// let json = pir_json::write_program_with(&prog, &opts);
/// assert!(json.starts_with("{\n    \"base_code\": {\n        \"magic\": \"pir\",\n        \"trainable\": false,"));
/// ```
pub fn write_program_with(prog: &Program, options: &WriteOptions) -> String {
    let mut w = Writer {
        prog,
        ctx: prog.ctx(),
        ids: vec![0; prog.num_values_allocated()],
        next_value: 1,
        next_arg: -1,
        regions: 0,
        blocks: 0,
        trainable: options.trainable,
    };
    let module = prog.op(prog.module_op());
    for r in module.regions() {
        w.assign_region(r);
    }
    let regions: Vec<J> = module.regions().map(|r| w.region(r)).collect();
    let doc = J::obj(vec![
        (
            "base_code",
            J::obj(vec![
                ("magic", J::str(MAGIC)),
                ("trainable", J::Bool(options.trainable)),
                ("version", J::UInt(PIR_VERSION)),
            ]),
        ),
        ("program", J::obj(vec![(REGIONS, J::Arr(regions))])),
    ]);
    dump(&doc, options.readable.then_some(4))
}

struct Writer<'a> {
    prog: &'a Program,
    ctx: &'a IrContext,
    /// Value ids by value index; 0: none (a value defined outside the program's blocks).
    ids: Vec<i64>,
    next_value: i64,
    next_arg: i64,
    regions: usize,
    blocks: usize,
    trainable: bool,
}

/// The attributes the compressed parameter form holds (`op_callstack` is dropped, as in Paddle).
const PARAMETER_ATTRS: [&str; 8] = [
    "is_distributed",
    "is_parameter",
    "need_clip",
    "parameter_name",
    "persistable",
    "stop_gradient",
    "trainable",
    "op_callstack",
];

impl Writer<'_> {
    // Ids are given in the order Paddle gives them while writing; a first pass lets operands name
    // values whatever the order of definition.
    fn assign_region(&mut self, r: RegionId) {
        for &b in self.prog.region_blocks(r) {
            self.assign_block(b);
        }
    }

    fn assign_block(&mut self, b: BlockId) {
        for &a in self.prog.block_args(b) {
            self.ids[a.index()] = self.next_arg;
            self.next_arg -= 1;
        }
        for op in self.prog.block_ops(b) {
            let r = self.prog.op(op);
            for v in r.results() {
                self.ids[v.index()] = self.next_value;
                self.next_value += 1;
            }
            for region in r.regions() {
                self.assign_region(region);
            }
        }
    }

    fn id(&self, v: pir_runtime::Value) -> i64 {
        self.ids.get(v.index()).copied().unwrap_or(0)
    }

    fn region(&mut self, r: RegionId) -> J {
        let name = format!("region_{}", self.regions);
        self.regions += 1;
        let blocks: Vec<J> = self
            .prog
            .region_blocks(r)
            .iter()
            .map(|&b| self.block(b))
            .collect();
        J::obj(vec![(ID, J::Str(name)), (BLOCKS, J::Arr(blocks))])
    }

    fn block(&mut self, b: BlockId) -> J {
        let name = format!("block_{}", self.blocks);
        self.blocks += 1;
        let args: Vec<J> = self
            .prog
            .block_args(b)
            .iter()
            .map(|&a| {
                J::obj(vec![
                    (ID, J::Int(self.id(a))),
                    (TYPE, write_type(self.ctx, self.prog.value_type(a))),
                ])
            })
            .collect();
        let ops: Vec<OpId> = self.prog.block_ops(b).collect();
        let ops: Vec<J> = ops.into_iter().map(|op| self.op(op)).collect();
        J::obj(vec![
            (ID, J::Str(name)),
            (BLOCK_ARGS, J::Arr(args)),
            (BLOCK_OPS, J::Arr(ops)),
        ])
    }

    fn attr_entry(&self, name: &str, a: Attribute) -> J {
        J::obj(vec![(NAME, J::str(name)), (ATTR, write_attr(self.ctx, a))])
    }

    fn op(&mut self, op: OpId) -> J {
        let r = self.prog.op(op);
        if r.name() == "builtin.parameter" {
            if let Some(j) = self.parameter_op(r) {
                return j;
            }
        }
        let name = match r.name().split_once('.') {
            Some((dialect, rest)) => format!("{}.{rest}", compress_dialect(dialect)),
            None => r.name().to_string(),
        };
        let operands: Vec<J> = r
            .operands()
            .map(|v| J::obj(vec![(VALUE_ID, J::Int(v.map_or(0, |v| self.id(v))))]))
            .collect();
        let results: Vec<J> = r
            .results()
            .map(|v| {
                J::obj(vec![
                    (VALUE_ID, J::Int(self.id(v))),
                    (TYPE, write_type(self.ctx, self.prog.value_type(v))),
                ])
            })
            .collect();
        let mut entries = vec![
            (ID, J::Str(name)),
            (OPERANDS, J::Arr(operands)),
            (RESULTS, J::Arr(results)),
            (ATTRS, J::Arr(self.op_attrs(r))),
        ];
        if self.trainable {
            let oa = r
                .attribute_entries()
                .iter()
                .filter(|(n, _)| &**n == "stop_gradient" || &**n == "persistable")
                .map(|(n, a)| self.attr_entry(n, *a))
                .collect();
            entries.push((RESULT_ATTRS, J::Arr(oa)));
        }
        if r.num_regions() > 0 {
            let regions: Vec<RegionId> = r.regions().collect();
            let regions = regions.into_iter().map(|g| self.region(g)).collect();
            entries.push((REGIONS, J::Arr(regions)));
        }
        J::obj(entries)
    }

    /// `A`: Paddle's `WriteAttributesMapOpinfo`.
    fn op_attrs(&self, r: OpRef<'_>) -> Vec<J> {
        let def = r.def();
        match def.schema {
            Some(schema) if def.dialect == "pd_op" && def.has_interface::<OpYamlInfo>() => schema
                .attributes
                .iter()
                .map(|a| &*a.name)
                .chain(DIST_ATTR_NAMES)
                .chain(QUANT_ATTR_NAMES)
                .filter_map(|n| r.attr(n).map(|a| self.attr_entry(n, a)))
                .collect(),
            _ => r
                .attribute_entries()
                .iter()
                .filter(|(n, _)| !matches!(&**n, "stop_gradient" | "persistable" | "op_callstack"))
                .map(|(n, a)| self.attr_entry(n, *a))
                .collect(),
        }
    }

    /// The compressed `p` form, if the op fits it.
    fn parameter_op(&self, r: OpRef<'_>) -> Option<J> {
        if r.num_operands() != 0 || r.num_results() != 1 || r.num_regions() != 0 {
            return None;
        }
        let allowed = |n: &str| {
            PARAMETER_ATTRS.contains(&n)
                || DIST_ATTR_NAMES.contains(&n)
                || QUANT_ATTR_NAMES.contains(&n)
        };
        if !r.attribute_entries().iter().all(|(n, _)| allowed(n)) {
            return None;
        }
        let AttrData::Str(name) = r.attr_data("parameter_name")? else {
            return None;
        };
        // A flag: absent (Paddle's default) or a one-element bool array.
        let flag = |n: &str, default: bool| -> Option<J> {
            let b = match r.attr_data(n) {
                None => default,
                Some(AttrData::Array(items)) if items.len() == 1 => {
                    match self.ctx.attr_data(items[0]) {
                        AttrData::Bool(b) => *b,
                        _ => return None,
                    }
                }
                Some(_) => return None,
            };
            Some(J::Int(i64::from(b)))
        };
        let a = vec![
            flag("is_distributed", false)?,
            flag("is_parameter", true)?,
            flag("need_clip", false)?,
            J::str(name),
        ];
        let oa = vec![
            flag("persistable", true)?,
            flag("stop_gradient", true)?,
            flag("trainable", true)?,
        ];
        let listed = |names: &[&str]| -> Vec<J> {
            names
                .iter()
                .filter_map(|n| r.attr(n).map(|a| self.attr_entry(n, a)))
                .collect()
        };
        let v = r.result(0);
        let mut entries = vec![
            (ID, J::str(PARAMETER_OP)),
            (ATTRS, J::Arr(a)),
            (DIST_ATTRS, J::Arr(listed(&DIST_ATTR_NAMES))),
            (QUANT_ATTRS, J::Arr(listed(&QUANT_ATTR_NAMES))),
            (
                RESULTS,
                J::obj(vec![
                    (VALUE_ID, J::Int(self.id(v))),
                    (TYPE, write_type(self.ctx, self.prog.value_type(v))),
                ]),
            ),
        ];
        if self.trainable {
            entries.push((RESULT_ATTRS, J::Arr(oa)));
        }
        Some(J::obj(entries))
    }
}
