//! Reading a JSON program into a [`Program`] (Paddle's `ProgramReader`).
//!
//! Ops are created by name through the context's registry with the result types the file
//! records (nothing is inferred). Value ids are resolved as Paddle resolves them: one id space
//! for the whole program, results numbered from 1 and block arguments from -1 down, `0` a null
//! operand; an op's results become visible after its regions. Unlike Paddle, an operand naming an
//! id no earlier value defines, or a value id defined twice, is an error rather than a silent null
//! value. Attributes keep the first of two entries of the same name, as Paddle's map insertion
//! does; an attribute entry without `AT` (deleted by a patch) is skipped, as in Paddle. Keys
//! Paddle ignores are ignored (`DA` / `QA` outside the parameter op, a result's missing `%`
//! makes the result unnamed). Where Paddle would only take a dialect id, a registered dialect's
//! name is accepted too (`pd_op.relu`, as Paddle's writer spells ops of dialects without an id).
//! A leading byte-order mark is skipped.
//!
//! No patches are applied: files of older serialization versions are read as written, which is
//! what Paddle does for ops none of its patches touch. Files of newer versions are refused.
//!
//! ```
//! use pir_runtime::IrContext;
//! let ctx = IrContext::new();
//! op_defs::pd_op::register(&ctx).unwrap();
//! let json = r##"{"base_code":{"magic":"pir","trainable":true,"version":4},"program":{"regions":[
//!   {"#":"region_0","blocks":[{"#":"block_0","args":[],"ops":[
//!     {"#":"p","A":[0,1,1,"w"],"DA":[],"O":{"%":1,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[3],"NCHW",[],0]}},"OA":[1,0,1],"QA":[]},
//!     {"#":"1.relu","A":[],"I":[{"%":1}],"O":[{"%":2,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[3],"NCHW",[],0]}}],
//!      "OA":[{"AT":{"#":"0.a_array","D":[{"#":"0.a_bool","D":false}]},"N":"stop_gradient"}]}]}]}]}}"##;
//! let prog = pir_json::read_program(&ctx, json).unwrap();
//! pir_runtime::verify(&prog).unwrap();
//! assert!(prog.to_string().contains(r##"(%1) = "pd_op.relu" (%0) {stop_gradient:[false]} : (tensor<3xf32>) -> tensor<3xf32>"##));
//!
//! let bad = json.replace(r##""I":[{"%":1}]"##, r##""I":[{"%":7}]"##);
//! let err = pir_json::read_program(&ctx, &bad).unwrap_err();
//! assert_eq!(err.to_string(), r##"op 1 ("1.relu") at $.program.regions[0].blocks[0].ops[1].I[0]["%"]: value %7 is not defined by an earlier op result or block argument"##);
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use pir_runtime::{
    Attribute, BlockId, InsertPoint, IrContext, OpDef, OpId, OperationArgs, Program, Type, Value,
};

use crate::attributes::read_attr;
use crate::error::JsonError;
use crate::node::{Elements, Node};
use crate::schema::{
    decompress_dialect, split_tag, ATTR, ATTRS, BLOCKS, BLOCK_ARGS, BLOCK_OPS, DIST_ATTRS, ID,
    KEYWORD_BLOCK_ARGS, MAGIC, NAME, OPERANDS, PARAMETER_OP, PIR_VERSION, QUANT_ATTRS, REGIONS,
    RESULTS, RESULT_ATTRS, TYPE, VALUE_ID,
};
use crate::tree::Json;
use crate::types::read_type;

/// A program read from a JSON file, with the file's header.
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// let json = pir_json::write_program(&pir_runtime::Program::new(&ctx));
/// let m: pir_json::Module = pir_json::read_module(&ctx, &json).unwrap();
/// assert_eq!((m.version, m.trainable), (pir_json::PIR_VERSION, true));
/// assert_eq!(m.program.to_string(), "{\n}\n");
/// ```
#[derive(Debug)]
pub struct Module {
    /// The program.
    pub program: Program,
    /// `base_code.version`: the serialization version the file was written with.
    pub version: u64,
    /// `base_code.trainable`: whether the file records the `stop_gradient` / `persistable`
    /// attributes (`OA`). `false` when absent, as in Paddle.
    pub trainable: bool,
}

/// Reads a program from Paddle's JSON format (either `readable` setting).
///
/// The context must have the dialects of the program's ops registered (for Paddle programs:
/// `op_defs::pd_op::register(&ctx)`).
///
/// # Errors
///
/// [`JsonError`], located by JSON path and op, for invalid or truncated JSON, a missing key, a
/// value of the wrong shape, an unknown op, dialect, type or attribute tag, an undefined or
/// duplicate value id, or content pir-rs cannot hold.
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// let json = r##"{"base_code":{"magic":"pir","trainable":true,"version":4},
///   "program":{"regions":[{"#":"region_0","blocks":[{"#":"block_0","args":[],"ops":[]}]}]}}"##;
/// let prog = pir_json::read_program(&ctx, json).unwrap();
/// assert_eq!(prog.to_string(), "{\n}\n");
/// ```
pub fn read_program(ctx: &Arc<IrContext>, json: &str) -> Result<Program, JsonError> {
    Ok(read_module(ctx, json)?.program)
}

/// Reads a program and the file's header ([`Module`]).
///
/// # Errors
///
/// As [`read_program`]; also [`JsonError::UnsupportedVersion`] for versions newer than
/// [`PIR_VERSION`].
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// let json = r##"{"base_code":{"magic":"pir","version":4},
///   "program":{"regions":[{"#":"region_0","blocks":[{"#":"block_0","args":[],"ops":[]}]}]}}"##;
/// let m = pir_json::read_module(&ctx, json).unwrap();
/// assert_eq!((m.version, m.trainable), (4, false));
/// ```
pub fn read_module(ctx: &Arc<IrContext>, json: &str) -> Result<Module, JsonError> {
    let doc = crate::node::parse(json)?;
    let root = Node::root(&doc);
    let base = root.key("base_code", "the file header {\"magic\":\"pir\",...}")?;
    let magic = base.key("magic", "\"pir\"")?;
    if magic.str("\"pir\"")? != MAGIC {
        return Err(magic.unexpected("\"pir\""));
    }
    let version = base
        .key("version", "the serialization version")?
        .u64("a version number (a non-negative integer)")?;
    if version > PIR_VERSION {
        return Err(JsonError::UnsupportedVersion {
            found: version,
            supported: PIR_VERSION,
        });
    }
    let trainable = match base.opt_key("trainable", "a bool")? {
        Some(t) => t.bool("a bool")?,
        None => false,
    };
    let program_node = root.key("program", "the program object")?;
    let regions = program_node.key(REGIONS, "the program's regions")?;
    let mut regions_it = regions.exact_elements(1, "an array of exactly 1 region")?;
    let Some(region) = regions_it.next() else {
        return Err(regions.unexpected("an array of exactly 1 region"));
    };
    let blocks = region.key(BLOCKS, "the region's blocks")?;
    let mut blocks_it = blocks.exact_elements(1, "an array of exactly 1 block")?;
    let Some(block) = blocks_it.next() else {
        return Err(blocks.unexpected("an array of exactly 1 block"));
    };

    let mut program = Program::new(ctx);
    let top = program.block();
    let mut reader = Reader {
        ctx,
        values: HashMap::new(),
    };
    reader.read_block(&mut program, &block, top)?;
    Ok(Module {
        program,
        version,
        trainable,
    })
}

struct Reader<'c> {
    ctx: &'c Arc<IrContext>,
    /// Value ids to values, over the whole program.
    values: HashMap<i64, Value>,
}

/// An op's result types and the value ids they define, in result order.
type ResultSlots = (Vec<Option<Type>>, Vec<Option<i64>>);

const ATTR_LIST: &str = "an array of {\"N\": name, \"AT\": attribute} objects";

impl Reader<'_> {
    fn define(&mut self, n: &Node<'_, '_>, id: i64, v: Value) -> Result<(), JsonError> {
        if id == 0 {
            return Err(JsonError::BadValueId {
                location: n.location(),
                id,
                reason: "is reserved for null operands and cannot name a value",
            });
        }
        if self.values.insert(id, v).is_some() {
            return Err(JsonError::BadValueId {
                location: n.location(),
                id,
                reason: "is defined twice",
            });
        }
        Ok(())
    }

    fn read_block(
        &mut self,
        prog: &mut Program,
        n: &Node<'_, '_>,
        block: BlockId,
    ) -> Result<(), JsonError> {
        n.key(ID, "the block's name")?
            .str("a block name string such as \"block_0\"")?;
        for arg in n
            .key(BLOCK_ARGS, "the block's arguments")?
            .elements("an array of block arguments {\"#\": id, \"TT\": type}")?
        {
            let id_node = arg.key(ID, "the argument's value id")?;
            let id = id_node.i64("a value id (an integer)")?;
            let ty = read_type(self.ctx, &arg.key(TYPE, "the argument's type")?)?;
            let v = prog.add_block_arg(block, ty);
            self.define(&id_node, id, v)?;
        }
        if let Some(kw) = n.opt_key(KEYWORD_BLOCK_ARGS, "the block's keyword arguments")? {
            if kw.elements("an array of keyword arguments")?.len() > 0 {
                return Err(kw.unsupported("a block with keyword arguments (`kwargs`)"));
            }
        }
        let ops = n.key(BLOCK_OPS, "the block's ops")?;
        let elements = ops.elements("an array of op objects")?;
        for (i, op) in elements.enumerate() {
            // The parser left each op as text: build its tree now, drop it when read.
            let tree;
            let op = match op.value {
                Json::Raw(raw) => {
                    tree = crate::tree::parse_op(raw)?;
                    op.with_value(&tree)
                }
                _ => op,
            };
            let name = op.value.get(ID).and_then(Json::as_str).unwrap_or("");
            self.read_op(prog, &op, block)
                .map_err(|e| e.in_op(i, name))?;
        }
        Ok(())
    }

    fn read_attr_list(
        &self,
        n: &Node<'_, '_>,
        entries: &mut Vec<(String, Attribute)>,
    ) -> Result<(), JsonError> {
        for e in n.elements(ATTR_LIST)? {
            let name = e
                .key(NAME, "the attribute's name")?
                .str("an attribute name string")?;
            // An entry without `AT` was deleted by a patch; Paddle skips it.
            let Some(at) = e.opt_key(ATTR, "the attribute")? else {
                continue;
            };
            entries.push((name.to_string(), read_attr(self.ctx, &at)?));
        }
        Ok(())
    }

    fn read_op(
        &mut self,
        prog: &mut Program,
        n: &Node<'_, '_>,
        block: BlockId,
    ) -> Result<(), JsonError> {
        let tag_node = n.key(ID, "the op's name")?;
        let tag = tag_node.str("an op name string such as \"1.conv2d\" or \"p\"")?;
        if tag == PARAMETER_OP {
            return self.read_parameter_op(prog, n, block);
        }
        let def = self.op_def_of(&tag_node, tag)?;
        let operands = self.read_operands(n)?;
        let results = n.key(RESULTS, "the op's results")?;
        let (types, ids) = self.read_result_types(&results)?;
        let attributes = self.read_op_attrs(n)?;

        let regions = n.opt_key(REGIONS, "the op's regions")?;
        let region_nodes = match &regions {
            Some(r) => Some(r.elements("an array of regions")?),
            None => None,
        };
        let num_regions = region_nodes.as_ref().map_or(0, |r| r.len());
        if num_regions > usize::from(u16::MAX) {
            return Err(tag_node.unsupported(format!("an op with {num_regions} regions")));
        }
        let op = prog
            .create_op_at(
                OperationArgs {
                    def,
                    operands: &operands,
                    attributes,
                    result_types: &types,
                    num_regions,
                },
                InsertPoint::BlockEnd(block),
            )
            .map_err(|source| JsonError::Ir {
                location: n.location(),
                source,
            })?;
        if let Some(region_nodes) = region_nodes {
            self.read_regions(prog, op, region_nodes)?;
        }
        self.define_results(prog, op, &results, ids)
    }

    /// The definition of the op tagged `tag` (`"<dialect id>.<op>"`); an unknown dialect or op
    /// is an error at the tag.
    fn op_def_of(&self, tag_node: &Node<'_, '_>, tag: &str) -> Result<&'static OpDef, JsonError> {
        let Some((dialect_id, op_name)) = split_tag(tag) else {
            return Err(
                tag_node.unexpected("an op name \"<dialect id>.<op>\" such as \"1.conv2d\"")
            );
        };
        let dialect = match decompress_dialect(dialect_id) {
            Some(d) => d,
            // Paddle writes ops of dialects without an id under the dialect's name.
            None if self.ctx.has_dialect(dialect_id) => dialect_id,
            None => {
                return Err(JsonError::UnknownDialect {
                    location: tag_node.location(),
                    dialect: dialect_id.to_string(),
                    tag: tag.to_string(),
                })
            }
        };
        let full_name = format!("{dialect}.{op_name}");
        let Some(def) = self.ctx.op_def(&full_name) else {
            return Err(JsonError::UnknownOp {
                location: tag_node.location(),
                name: full_name,
            });
        };
        Ok(def)
    }

    /// The op's operands, each a value defined earlier or (id 0) an absent optional one.
    fn read_operands(&self, n: &Node<'_, '_>) -> Result<Vec<Option<Value>>, JsonError> {
        let mut operands: Vec<Option<Value>> = Vec::new();
        for o in n
            .key(OPERANDS, "the op's operands")?
            .elements("an array of operands {\"%\": value id}")?
        {
            let id_node = o.key(VALUE_ID, "the operand's value id")?;
            let id = id_node.i64("a value id (an integer)")?;
            if id == 0 {
                operands.push(None);
                continue;
            }
            match self.values.get(&id) {
                Some(&v) => operands.push(Some(v)),
                None => {
                    return Err(JsonError::UndefinedValue {
                        location: id_node.location(),
                        id,
                    })
                }
            }
        }
        Ok(operands)
    }

    /// The types of the op's results and the value ids they define (a result without one is
    /// not referred to).
    fn read_result_types(&self, results: &Node<'_, '_>) -> Result<ResultSlots, JsonError> {
        let mut types: Vec<Option<Type>> = Vec::new();
        let mut ids: Vec<Option<i64>> = Vec::new();
        for r in results.elements("an array of results {\"%\": value id, \"TT\": type}")? {
            let id = match r.opt_key(VALUE_ID, "the result's value id")? {
                Some(id_node) => Some(id_node.i64("a value id (an integer)")?),
                None => None,
            };
            ids.push(id);
            types.push(read_type(self.ctx, &r.key(TYPE, "the result's type")?)?);
        }
        Ok((types, ids))
    }

    /// The op's attribute dictionary: its `A` list, then its result attributes `OA`.
    fn read_op_attrs(&self, n: &Node<'_, '_>) -> Result<Attribute, JsonError> {
        let mut entries: Vec<(String, Attribute)> = Vec::new();
        self.read_attr_list(&n.key(ATTRS, "the op's attributes")?, &mut entries)?;
        if let Some(oa) = n.opt_key(RESULT_ATTRS, "the op's result attributes")? {
            self.read_attr_list(&oa, &mut entries)?;
        }
        Ok(dict(self.ctx, &entries))
    }

    /// Reads the blocks of each of `op`'s regions from its region nodes.
    fn read_regions(
        &mut self,
        prog: &mut Program,
        op: OpId,
        region_nodes: Elements<'_, '_>,
    ) -> Result<(), JsonError> {
        let region_ids: Vec<_> = prog.op(op).regions().collect();
        for (region_node, region) in region_nodes.zip(region_ids) {
            region_node
                .key(ID, "the region's name")?
                .str("a region name string such as \"region_1\"")?;
            for b in region_node
                .key(BLOCKS, "the region's blocks")?
                .elements("an array of blocks")?
            {
                let nb = prog.add_block(region);
                self.read_block(prog, &b, nb)?;
            }
        }
        Ok(())
    }

    /// Binds the value ids `ids` of the results to `op`'s result values.
    fn define_results(
        &mut self,
        prog: &Program,
        op: OpId,
        results: &Node<'_, '_>,
        ids: Vec<Option<i64>>,
    ) -> Result<(), JsonError> {
        let values: Vec<Value> = prog.op(op).results().collect();
        for ((r, id), v) in results
            .elements("an array of results")?
            .zip(ids)
            .zip(values)
        {
            if let Some(id) = id {
                let at = r.key(VALUE_ID, "the result's value id")?;
                self.define(&at, id, v)?;
            }
        }
        Ok(())
    }

    /// The compressed `builtin.parameter`: `"A":[is_distributed, is_parameter, need_clip,
    /// "parameter_name"]`, `"OA":[persistable, stop_gradient, trainable]`, `"O":{"%":id,"TT":T}`,
    /// `"DA"` / `"QA"` attribute lists.
    fn read_parameter_op(
        &mut self,
        prog: &mut Program,
        n: &Node<'_, '_>,
        block: BlockId,
    ) -> Result<(), JsonError> {
        let ctx = self.ctx;
        let result = n.key(RESULTS, "the parameter's result {\"%\": id, \"TT\": type}")?;
        let id_node = result.key(VALUE_ID, "the result's value id")?;
        let id = id_node.i64("a value id (an integer)")?;
        let ty = read_type(ctx, &result.key(TYPE, "the result's type")?)?;
        let entries = self.parameter_attrs(n)?;
        let def = ctx
            .op_def("builtin.parameter")
            .ok_or_else(|| JsonError::UnknownOp {
                location: n.location(),
                name: "builtin.parameter".into(),
            })?;
        let op = prog
            .create_op_at(
                OperationArgs {
                    def,
                    operands: &[],
                    attributes: dict(ctx, &entries),
                    result_types: &[ty],
                    num_regions: 0,
                },
                InsertPoint::BlockEnd(block),
            )
            .map_err(|source| JsonError::Ir {
                location: n.location(),
                source,
            })?;
        let v = prog.op(op).result(0);
        self.define(&id_node, id, v)
    }

    /// The parameter op's attribute entries: the `A` flags and name, the `DA` / `QA` lists,
    /// then the `OA` flags.
    fn parameter_attrs(&self, n: &Node<'_, '_>) -> Result<Vec<(String, Attribute)>, JsonError> {
        let ctx = self.ctx;
        // Paddle stores each flag as a one-element bool array.
        let flag = |node: Option<Node<'_, '_>>| -> Result<Attribute, JsonError> {
            match node {
                Some(node) => Ok(ctx.bool_array_attr(&[node.flag("a flag (0 or 1)")?])),
                None => Err(n.unexpected("a parameter op with its flags")),
            }
        };
        let mut entries: Vec<(String, Attribute)> = Vec::new();
        let attrs = n.key(
            ATTRS,
            "[is_distributed, is_parameter, need_clip, parameter_name]",
        )?;
        let a = attrs.exact_elements(
            4,
            "an array of 4 elements [is_distributed, is_parameter, need_clip, \"parameter_name\"]",
        )?;
        for (i, name) in ["is_distributed", "is_parameter", "need_clip"]
            .into_iter()
            .enumerate()
        {
            entries.push((name.to_string(), flag(a.at(i))?));
        }
        match a.at(3) {
            Some(pn) => {
                let s = pn.str("the parameter's name (a string)")?;
                entries.push(("parameter_name".to_string(), ctx.str_attr(s)));
            }
            None => return Err(attrs.unexpected("an array of 4 elements")),
        }
        for key in [DIST_ATTRS, QUANT_ATTRS] {
            if let Some(list) = n.opt_key(key, "an attribute list")? {
                self.read_attr_list(&list, &mut entries)?;
            }
        }
        if let Some(oa) = n.opt_key(RESULT_ATTRS, "[persistable, stop_gradient, trainable]")? {
            let o = oa.exact_elements(
                3,
                "an array of 3 flags [persistable, stop_gradient, trainable]",
            )?;
            for (i, name) in ["persistable", "stop_gradient", "trainable"]
                .into_iter()
                .enumerate()
            {
                entries.push((name.to_string(), flag(o.at(i))?));
            }
        }
        Ok(entries)
    }
}

/// The attribute dictionary of `entries` in file order; of two entries of the same name the
/// first wins, as with Paddle's `AttributeMap::insert`.
fn dict(ctx: &IrContext, entries: &[(String, Attribute)]) -> Attribute {
    let mut sorted: Vec<(&str, Attribute)> =
        entries.iter().map(|(n, a)| (n.as_str(), *a)).collect();
    // Stable: entries of one name stay in file order, and dedup keeps the first.
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    sorted.dedup_by(|later, earlier| later.0 == earlier.0);
    ctx.dict_attr(&sorted)
}
