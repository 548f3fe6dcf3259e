//! Paddle 3.3.1's text format, byte for byte (`pir::IrPrinter`).
//!
//! Values are numbered the first time they are printed (`%0`, `%1`, ...; block arguments
//! `%arg_0 {attrs}`), attributes print sorted by name without `op_callstack` and
//! `sym_shape_str`, floats print as C++'s `ostream` does, and ops with regions print their blocks
//! indented by four more spaces. Output is buffered; types and attribute dictionaries are
//! printed once and then copied from a cache indexed by handle, and numbers are formatted with
//! `itoa`, which keeps printing fast on large programs.
//!
//! ```
//! use pir_runtime::{Builder, IrContext, Program, builtin, phi::DataType};
//! let ctx = IrContext::new();
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let t = ctx.dense_tensor_type(DataType::Float32, &[6, 5]);
//! let w = builtin::parameter(&mut b, "fc_0.w_0", t).unwrap();
//! builtin::set_parameter(&mut b, w, "fc_0.w_0").unwrap();
//! let expected = concat!(
//!     "{\n",
//!     "    (%0) = \"builtin.parameter\" () {parameter_name:\"fc_0.w_0\"} : () -> tensor<6x5xf32>\n",
//!     "    () = \"builtin.set_parameter\" (%0) {parameter_name:\"fc_0.w_0\"} : (tensor<6x5xf32>) -> \n",
//!     "}\n",
//! );
//! assert_eq!(prog.to_string(), expected);
//! ```

use std::fmt::{self, Write};

use crate::attributes::{write_attr, AttrData, Attribute};
use crate::program::{BlockId, OpId, OpParts, OpRef, Program, RegionId, Value, ValueDef};
use crate::types::{write_type, Type};

/// Attributes the printer leaves out, as Paddle's does.
const HIDDEN_ATTRIBUTES: [&str; 2] = ["op_callstack", "sym_shape_str"];

const UNNAMED: u32 = u32::MAX;
/// A name with this bit set is an index into [`Printer`]'s aliases.
const ALIAS: u32 = 1 << 31;
/// A name with this bit set is a block argument's number (`%arg_N`). Numbers stay below it:
/// a program of 2^30 values would need tens of gigabytes.
const BLOCK_ARG: u32 = 1 << 30;

/// The deepest indentation printed, in levels of four spaces. Paddle indents every nesting
/// level, which makes the text quadratic in the nesting depth (a hundred thousand nested
/// regions would print 20 GB of spaces); deeper blocks print at this indentation, which keeps
/// the output linear. Real programs nest a few levels, far below it, and print exactly as
/// Paddle's; the parser does not read indentation.
pub const MAX_INDENT_LEVELS: usize = 32;
const FLUSH_AT: usize = 1 << 16;

/// A span of the printer's string cache.
#[derive(Clone, Copy)]
struct Cached {
    start: u32,
    len: u32,
}

const NOT_CACHED: Cached = Cached {
    start: u32::MAX,
    len: 0,
};

/// Paddle's op ids (`Operation::id()`), which Paddle prints as ` [id:N]` after the op name
/// when printing with ids (`FLAGS_pir_debug`). The parser records the ids it reads here, and a
/// [`Printer`] given them prints them back.
///
/// ```
/// use pir_runtime::{builtin, printer::{print_program_with_ids, OpIds}, Builder, IrContext, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
/// let w = builtin::parameter(&mut Builder::at_end(&mut prog), "w", t).unwrap();
/// let mut ids = OpIds::default();
/// ids.set(prog.defining_op(w).unwrap(), 2203);
/// let mut s = String::new();
/// print_program_with_ids(&mut s, &prog, &ids).unwrap();
/// assert!(s.contains("(%0) = \"builtin.parameter\" [id:2203] () {"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpIds {
    ids: rustc_hash::FxHashMap<OpId, u64>,
}

impl OpIds {
    /// Records `id` for `op`.
    pub fn set(&mut self, op: OpId, id: u64) {
        self.ids.insert(op, id);
    }

    /// The id of `op`, if recorded.
    pub fn get(&self, op: OpId) -> Option<u64> {
        self.ids.get(&op).copied()
    }

    /// How many ops have an id.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no op has an id.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// Prints a program, or parts of one, in Paddle's text format. Custom op printers
/// ([`OpDef::print`](crate::op_def::OpDef::print)) receive it.
///
/// ```
/// use pir_runtime::{builtin, printer::Printer, Builder, IrContext, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let mut b = Builder::at_end(&mut prog);
/// let x = builtin::parameter(&mut b, "x", ctx.dense_tensor_type(DataType::Float32, &[2])).unwrap();
/// let v = builtin::combine(&mut b, &[x, x]).unwrap();
/// let mut out = String::new();
/// let mut p = Printer::new(&prog, &mut out);
/// p.print_operation(prog.defining_op(v).unwrap()).unwrap(); // names %0 on first sight
/// p.flush().unwrap();
/// assert_eq!(out, "(%0) = \"builtin.combine\" (%1, %1) {} : (tensor<2xf32>, tensor<2xf32>) -> vec[tensor<2xf32>,tensor<2xf32>]");
/// ```
pub struct Printer<'a> {
    prog: &'a Program,
    /// Where flushes go; `None`: `buf` is the whole output (see [`print_program_to_string`]).
    out: Option<&'a mut dyn Write>,
    buf: String,
    /// Buffered bytes before a flush.
    flush_at: usize,
    names: Vec<u32>,
    next_result: u32,
    next_arg: u32,
    indent: usize,
    cache: String,
    type_cache: Vec<Cached>,
    dict_cache: Vec<Cached>,
    /// The fixed parts of op lines, by op signature (see [`Printer::print_operation_with_no_region`]).
    line_cache: rustc_hash::FxHashMap<LineKey, LineParts>,
    /// What [`LineParts`] index.
    lines: Vec<LineText>,
    /// The last op line's key and parts, tried before the map.
    last_line: (LineKey, LineParts),
    op_ids: Option<&'a OpIds>,
    /// What is left to print, top last (nested blocks and the lines around them).
    work: Vec<Work>,
    /// What the op being printed scheduled, in order (moved to `work` when it is done).
    deferred: Vec<Work>,
    /// Names given by [`Printer::add_value_alias`] (`%stack_0`), indexed by `name & !ALIAS`.
    aliases: Vec<Box<str>>,
    /// Per counting key, the ops counted so far (see [`Printer::op_index`]).
    op_counters: rustc_hash::FxHashMap<(&'static str, OpId), usize>,
    /// How many ops each counting key has seen.
    op_counts: rustc_hash::FxHashMap<&'static str, usize>,
}

/// One item of the printer's work stack.
#[derive(Clone, Copy, Debug)]
enum Work {
    /// The ops of a block from this one on, one per line.
    Ops(Option<OpId>),
    /// Text after the current indentation.
    Line(&'static str),
    /// Text as is.
    Text(&'static str),
    /// One level deeper.
    Indent,
    /// One level shallower.
    Dedent,
}

/// An op's signature: its definition, attribute dictionary, operand and result counts, operand
/// and result types (0 for a null type), packed two to a word.
type LineKey = [u64; 4];

/// The fixed parts of an op line, around the result and operand names.
struct LineText {
    /// The indentation and `(`.
    pre: Box<str>,
    /// `) = "name" (`.
    head: Box<str>,
    /// `) {attrs} : (types) -> types` and a newline.
    tail: Box<str>,
}

/// An index into [`Printer`]'s line texts.
type LineParts = u32;

/// Where [`LineKey`]'s second word keeps the indentation (in levels) of the cached line.
const KEY_INDENT_SHIFT: u32 = 56;

/// Ops with more operands and results than this print without the line cache.
const LINE_CACHE_MAX: usize = 4;

/// Writes `prog` in Paddle's text format.
///
/// ```
/// use pir_runtime::{builtin, printer::print_program, Builder, IrContext, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// let t = ctx.dense_tensor_type(DataType::Int32, &[]);
/// builtin::parameter(&mut Builder::at_end(&mut prog), "n", t).unwrap();
/// let mut s = String::new();
/// print_program(&mut s, &prog).unwrap();
/// assert_eq!(s, prog.to_string()); // what Display does
/// assert_eq!(s, "{\n    (%0) = \"builtin.parameter\" () {parameter_name:\"n\"} : () -> tensor<i32>\n}\n");
/// ```
pub fn print_program(out: &mut dyn Write, prog: &Program) -> fmt::Result {
    let mut p = Printer::new(prog, out);
    p.print_program()?;
    p.flush()
}

/// `prog` in Paddle's text format, as a new string ([`Program::to_string`]): printed straight
/// into the string, with no buffer to copy from (a program of a million ops prints 100 MB).
///
/// ```
/// use pir_runtime::{builtin, printer::print_program_to_string, Builder, IrContext, Program, phi::DataType};
/// let ctx = IrContext::new();
/// let mut prog = Program::new(&ctx);
/// builtin::parameter(&mut Builder::at_end(&mut prog), "w", ctx.dense_tensor_type(DataType::Float32, &[2])).unwrap();
/// assert_eq!(print_program_to_string(&prog), format!("{prog}"));
/// ```
pub fn print_program_to_string(prog: &Program) -> String {
    // About 100 bytes an op line; capacity the lines do not use is never touched.
    let mut p = Printer::with_output(prog, None, String::with_capacity(128 * prog.num_ops() + 64));
    p.flush_at = usize::MAX;
    // Writing to a String cannot fail.
    let _ = p.print_program();
    let mut out = p.buf;
    out.shrink_to_fit();
    out
}

/// Writes `prog` in Paddle's text format with the op ids of `ids` (` [id:N]` after the names
/// of the ops that have one), as Paddle prints with `FLAGS_pir_debug`.
pub fn print_program_with_ids(out: &mut dyn Write, prog: &Program, ids: &OpIds) -> fmt::Result {
    let mut p = Printer::new(prog, out);
    p.set_op_ids(ids);
    p.print_program()?;
    p.flush()
}

impl<'a> Printer<'a> {
    /// A printer of `prog` writing to `out`. Call [`Printer::flush`] when done.
    ///
    /// ```
    /// use pir_runtime::{printer::Printer, IrContext, Program};
    /// let ctx = IrContext::new();
    /// let prog = Program::new(&ctx);
    /// let mut out = String::new();
    /// let mut p = Printer::new(&prog, &mut out);
    /// p.print_program().unwrap();
    /// p.flush().unwrap(); // nothing reaches `out` before this
    /// assert_eq!(out, "{\n}\n");
    /// ```
    pub fn new(prog: &'a Program, out: &'a mut dyn Write) -> Printer<'a> {
        Printer::with_output(prog, Some(out), String::with_capacity(FLUSH_AT + 4096))
    }

    fn with_output(prog: &'a Program, out: Option<&'a mut dyn Write>, buf: String) -> Printer<'a> {
        Printer {
            prog,
            out,
            buf,
            flush_at: FLUSH_AT,
            names: vec![UNNAMED; prog.num_values_allocated()],
            next_result: 0,
            next_arg: 0,
            indent: 0,
            cache: String::new(),
            type_cache: Vec::new(),
            dict_cache: Vec::new(),
            line_cache: Default::default(),
            lines: Vec::new(),
            // Matches no op: an op's first key word is its definition's address.
            last_line: ([0; 4], 0),
            op_ids: None,
            work: Vec::new(),
            deferred: Vec::new(),
            aliases: Vec::new(),
            op_counters: Default::default(),
            op_counts: Default::default(),
        }
    }

    /// Prints the ids of `ids` after op names (see [`OpIds`]).
    pub fn set_op_ids(&mut self, ids: &'a OpIds) {
        self.op_ids = Some(ids);
    }

    /// ` [id:N]` if `op` has an id to print; custom printers call it after the op's name.
    pub fn print_op_id(&mut self, op: OpId) -> fmt::Result {
        if let Some(id) = self.op_ids.and_then(|ids| ids.get(op)) {
            self.buf.push_str(" [id:");
            let mut b = itoa::Buffer::new();
            self.buf.push_str(b.format(id));
            self.buf.push(']');
        }
        Ok(())
    }

    /// The program being printed.
    pub fn program(&self) -> &'a Program {
        self.prog
    }

    /// Writes buffered output to the destination.
    pub fn flush(&mut self) -> fmt::Result {
        if let Some(out) = self.out.as_mut() {
            if !self.buf.is_empty() {
                out.write_str(&self.buf)?;
                self.buf.clear();
            }
        }
        Ok(())
    }

    #[inline]
    fn maybe_flush(&mut self) -> fmt::Result {
        if self.buf.len() >= self.flush_at {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes raw text.
    #[inline]
    pub fn write_str(&mut self, s: &str) -> fmt::Result {
        self.buf.push_str(s);
        Ok(())
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.buf.push_str(itoa::Buffer::new().format(n));
    }

    /// Writes the current indentation: four spaces a level, as Paddle does, up to
    /// [`MAX_INDENT_LEVELS`] levels.
    pub fn write_indent(&mut self) -> fmt::Result {
        const SPACES: &str = "                                ";
        let mut n = self.indent.min(MAX_INDENT_LEVELS) * 4;
        while n > 0 {
            let k = n.min(SPACES.len());
            self.buf.push_str(&SPACES[..k]);
            n -= k;
        }
        Ok(())
    }

    /// Indents one level more.
    pub fn indent_more(&mut self) {
        self.indent += 1;
    }

    /// Indents one level less.
    pub fn indent_less(&mut self) {
        self.indent = self.indent.saturating_sub(1);
    }

    /// `IrPrinter::PrintProgram`: the module's region.
    pub fn print_program(&mut self) -> fmt::Result {
        let module = self.prog.op(self.prog.module_op());
        for r in module.regions() {
            self.print_region(r)?;
        }
        Ok(())
    }

    /// `PrintRegion`: each block.
    pub fn print_region(&mut self, region: RegionId) -> fmt::Result {
        for &b in self.prog.region_blocks(region).iter() {
            self.print_block(b)?;
        }
        Ok(())
    }

    /// `PrintBlock`: `{`, the ops one per line, `}`.
    pub fn print_block(&mut self, block: BlockId) -> fmt::Result {
        self.defer_block(block);
        self.run_deferred()
    }

    /// Prints the ops of `block` (one per line, indented) without braces.
    pub fn print_block_body(&mut self, block: BlockId) -> fmt::Result {
        self.deferred.push(Work::Ops(self.prog.first_op(block)));
        self.run_deferred()
    }

    /// Schedules `block` as [`Printer::print_block`] prints it (`{`, its ops one level deeper,
    /// `}`), after what the current op prints itself. For custom printers of ops with regions:
    /// nested blocks are printed from the printer's own work stack, never by recursion, so
    /// nesting depth costs no native stack.
    pub fn defer_block(&mut self, block: BlockId) {
        self.deferred.push(Work::Line("{\n"));
        self.defer_block_ops(block);
        self.deferred.push(Work::Line("}\n"));
    }

    /// Schedules the ops of `block`, one per line and one level deeper than the current op,
    /// after what the current op prints itself (see [`Printer::defer_block`]).
    pub fn defer_block_ops(&mut self, block: BlockId) {
        self.deferred.push(Work::Indent);
        self.deferred.push(Work::Ops(self.prog.first_op(block)));
        self.deferred.push(Work::Dedent);
    }

    /// Schedules `text`, after the current indentation, after what is already scheduled
    /// (`} else {\n` between an `if`'s blocks, its closing `}`).
    pub fn defer_line(&mut self, text: &'static str) {
        self.deferred.push(Work::Line(text));
    }

    /// Prints what custom printers scheduled, and what that schedules in turn, from one
    /// explicit stack.
    fn run_deferred(&mut self) -> fmt::Result {
        let base = self.work.len();
        self.take_deferred();
        while self.work.len() > base {
            match self.work.pop() {
                Some(Work::Ops(first)) => self.print_ops_from(first)?,
                Some(Work::Line(text)) => {
                    self.write_indent()?;
                    self.buf.push_str(text);
                }
                Some(Work::Text(text)) => self.buf.push_str(text),
                Some(Work::Indent) => self.indent += 1,
                Some(Work::Dedent) => self.indent = self.indent.saturating_sub(1),
                None => break,
            }
        }
        Ok(())
    }

    /// Moves what was scheduled onto the work stack, first-scheduled on top.
    fn take_deferred(&mut self) {
        let at = self.work.len();
        self.work.append(&mut self.deferred);
        self.work[at..].reverse();
    }

    /// Prints ops from `first` on, one per line, until one schedules nested blocks: then the
    /// rest of the block waits on the work stack under them.
    fn print_ops_from(&mut self, first: Option<OpId>) -> fmt::Result {
        let mut cur = first;
        while let Some(op) = cur {
            let p = self.prog.op_parts(op);
            cur = p.next;
            if p.def.print.is_none()
                && p.num_regions == 0
                && self.op_ids.is_none()
                && p.num_operands() + p.num_results as usize <= LINE_CACHE_MAX
            {
                // The common line, read in one look (what print_operation does, in short),
                // indentation and newline included.
                self.print_cached_line(op, &p)?;
                self.maybe_flush()?;
                continue;
            }
            self.print_operation_head(op)?;
            if self.deferred.is_empty() {
                self.buf.push('\n');
                self.maybe_flush()?;
                continue;
            }
            // The rest of this block, then the op's newline, wait under what it scheduled.
            self.work.push(Work::Ops(cur));
            self.work.push(Work::Text("\n"));
            self.take_deferred();
            self.maybe_flush()?;
            return Ok(());
        }
        Ok(())
    }

    /// The line of an op without regions or a printer of its own, with at most
    /// `LINE_CACHE_MAX` operands and results (see [`Printer::print_operation_with_no_region`]).
    fn print_cached_line(&mut self, op: OpId, p: &OpParts<'_>) -> fmt::Result {
        let (n_operands, n_results) = (p.num_operands(), p.num_results as usize);
        let (mut w2, mut w3) = (0u64, 0u64);
        let mut put = |i: usize, word: u32| {
            let bits = u64::from(word) << (32 * (i % 2));
            if i < 2 {
                w2 |= bits;
            } else {
                w3 |= bits;
            }
        };
        for i in 0..n_operands {
            put(i, p.operand_type_word(i));
        }
        for i in 0..p.num_results {
            put(n_operands + i as usize, p.result_type_word(i));
        }
        let levels = self.indent.min(MAX_INDENT_LEVELS) as u64;
        let key: LineKey = [
            p.def as *const _ as usize as u64,
            u64::from(p.attrs.raw())
                | (n_operands as u64) << 32
                | (n_results as u64) << 48
                | levels << KEY_INDENT_SHIFT,
            w2,
            w3,
        ];
        let line = self.line_parts_for(key, op)? as usize;
        self.buf.push_str(&self.lines[line].pre);
        for i in 0..p.num_results {
            if i > 0 {
                self.buf.push_str(", ");
            }
            let v = p.result(i);
            // Results are named here, on their op's line, unless a custom printer named them
            // already (an alias); they are never block arguments.
            match self.names.get(v.index()) {
                Some(&UNNAMED) => self.name_result(v.index()),
                _ => self.print_value(Some(v))?,
            }
        }
        self.buf.push_str(&self.lines[line].head);
        for i in 0..n_operands {
            if i > 0 {
                self.buf.push_str(", ");
            }
            let v = p.operand(i);
            // Most operands are values numbered on an earlier line.
            match v.and_then(|v| self.names.get(v.index())) {
                Some(&name) if name < BLOCK_ARG => self.write_number_name(name),
                _ => self.print_value(v)?,
            }
        }
        self.buf.push_str(&self.lines[line].tail);
        Ok(())
    }

    /// The cached fixed parts of the line of signature `key` (op `op`'s), made if new.
    #[inline(always)]
    fn line_parts_for(&mut self, key: LineKey, op: OpId) -> Result<LineParts, fmt::Error> {
        // Word by word: comparing the arrays whole reads them wider than they were written,
        // which stalls store forwarding.
        let last = &self.last_line.0;
        if last[0] == key[0] && last[1] == key[1] && last[2] == key[2] && last[3] == key[3] {
            return Ok(self.last_line.1);
        }
        self.line_parts_looked_up(key, op)
    }

    /// [`Printer::line_parts_for`] past the last line's signature: the map, or new parts.
    #[inline(never)]
    fn line_parts_looked_up(&mut self, key: LineKey, op: OpId) -> Result<LineParts, fmt::Error> {
        let p = match self.line_cache.get(&key) {
            Some(&p) => p,
            None => {
                let levels = (key[1] >> KEY_INDENT_SHIFT) as usize;
                let p = self.line_parts(self.prog.op(op), levels)?;
                self.line_cache.insert(key, p);
                p
            }
        };
        self.last_line = (key, p);
        Ok(p)
    }

    /// `PrintOperation`: indentation, then the op's custom printer or the general form, with
    /// its regions.
    pub fn print_operation(&mut self, op: OpId) -> fmt::Result {
        self.print_operation_head(op)?;
        self.run_deferred()
    }

    /// Indentation, then the op's custom printer or the general form; nested blocks are left
    /// scheduled (see [`Printer::defer_block`]).
    fn print_operation_head(&mut self, op: OpId) -> fmt::Result {
        self.write_indent()?;
        let r = self.prog.op(op);
        match r.def().print {
            Some(f) => f(self, r),
            None => self.print_general_head(op),
        }
    }

    /// `PrintGeneralOperation`: the op line, then its regions.
    pub fn print_general_operation(&mut self, op: OpId) -> fmt::Result {
        self.print_general_head(op)?;
        self.run_deferred()
    }

    fn print_general_head(&mut self, op: OpId) -> fmt::Result {
        self.print_operation_with_no_region(op)?;
        let r = self.prog.op(op);
        if r.num_regions() > 0 {
            self.buf.push('\n');
        }
        for region in r.regions() {
            for &b in self.prog.region_blocks(region) {
                self.defer_block(b);
            }
        }
        Ok(())
    }

    /// `(results) = "name" (operands) {attrs} : (operand types) -> result types`.
    ///
    /// Everything but the value names depends on the op's signature (definition, attributes,
    /// operand and result types), which ops of a program share a lot: those parts are printed
    /// once per signature and copied after.
    pub fn print_operation_with_no_region(&mut self, op: OpId) -> fmt::Result {
        let r = self.prog.op(op);
        let (n_operands, n_results) = (r.num_operands(), r.num_results());
        // Op ids differ per op, so lines printed with them are not shared.
        if n_operands + n_results > LINE_CACHE_MAX || self.op_ids.is_some() {
            return self.print_operation_uncached(r);
        }
        let raw = |t: Option<Type>| t.map_or(0, |t| u64::from(t.raw()));
        let (mut w2, mut w3) = (0u64, 0u64);
        for (i, t) in r.operand_types().chain(r.result_types()).enumerate() {
            let bits = raw(t) << (32 * (i % 2));
            if i < 2 {
                w2 |= bits;
            } else {
                w3 |= bits;
            }
        }
        let key: LineKey = [
            r.def() as *const _ as usize as u64,
            u64::from(r.attributes().raw()) | (n_operands as u64) << 32 | (n_results as u64) << 48,
            w2,
            w3,
        ];
        let line = self.line_parts_for(key, op)? as usize;
        // The cached head starts with the results' closing parenthesis.
        self.buf.push('(');
        for (i, v) in r.results().enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            self.print_value(Some(v))?;
        }
        self.buf.push_str(&self.lines[line].head);
        for (i, v) in r.operands().enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            self.print_value(v)?;
        }
        // Without the newline.
        let tail = &self.lines[line].tail;
        self.buf.push_str(&tail[..tail.len() - 1]);
        Ok(())
    }

    /// Prints the fixed parts of `r`'s line, at `levels` of indentation, into the cache.
    fn line_parts(&mut self, r: OpRef<'_>, levels: usize) -> Result<LineParts, fmt::Error> {
        // Print them with the general code, into the main buffer, then move them.
        let at = self.buf.len();
        for _ in 0..levels {
            self.buf.push_str("    ");
        }
        self.buf.push('(');
        let pre = self.buf.len() - at;
        self.buf.push_str(") = \"");
        self.buf.push_str(r.name());
        self.buf.push_str("\" (");
        let mid = self.buf.len() - at;
        self.buf.push_str(") ");
        self.print_attribute_map(r.attributes())?;
        self.buf.push_str(" :");
        self.print_operand_types(r)?;
        self.buf.push_str(" -> ");
        self.print_result_types(r)?;
        self.buf.push('\n');
        let (pre, rest) = self.buf[at..].split_at(pre);
        let (head, tail) = rest.split_at(mid - pre.len());
        self.lines.push(LineText {
            pre: pre.into(),
            head: head.into(),
            tail: tail.into(),
        });
        self.buf.truncate(at);
        Ok((self.lines.len() - 1) as LineParts)
    }

    fn print_operation_uncached(&mut self, r: OpRef<'_>) -> fmt::Result {
        self.print_op_results(r)?;
        self.buf.push_str(" = \"");
        self.buf.push_str(r.name());
        self.buf.push('"');
        self.print_op_id(r.id())?;
        self.print_op_operands(r)?;
        self.buf.push(' ');
        self.print_attribute_map(r.attributes())?;
        self.buf.push_str(" :");
        self.print_operand_types(r)?;
        self.buf.push_str(" -> ");
        self.print_result_types(r)
    }

    /// `(%0, %1)`.
    pub fn print_op_results(&mut self, r: OpRef<'_>) -> fmt::Result {
        self.buf.push('(');
        for (i, v) in r.results().enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            self.print_value(Some(v))?;
        }
        self.buf.push(')');
        Ok(())
    }

    /// ` (%a, %b)`.
    pub fn print_op_operands(&mut self, r: OpRef<'_>) -> fmt::Result {
        self.buf.push_str(" (");
        for (i, v) in r.operands().enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            self.print_value(v)?;
        }
        self.buf.push(')');
        Ok(())
    }

    /// ` (t1, t2)`.
    pub fn print_operand_types(&mut self, r: OpRef<'_>) -> fmt::Result {
        self.buf.push_str(" (");
        for (i, t) in r.operand_types().enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            self.print_type(t)?;
        }
        self.buf.push(')');
        Ok(())
    }

    /// `t1, t2` (no parentheses).
    pub fn print_result_types(&mut self, r: OpRef<'_>) -> fmt::Result {
        for (i, t) in r.result_types().enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            self.print_type(t)?;
        }
        Ok(())
    }

    /// `PrintValue`: the value's name, naming it on first print (`%N`, or `%arg_N {attrs}`).
    ///
    /// ```
    /// use pir_runtime::{builtin, printer::Printer, Builder, IrContext, Program, phi::DataType};
    /// let ctx = IrContext::new();
    /// let mut prog = Program::new(&ctx);
    /// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let x = builtin::parameter(&mut Builder::at_end(&mut prog), "x", t).unwrap();
    /// let arg = prog.add_block_arg(prog.block(), Some(t));
    /// let mut out = String::new();
    /// let mut p = Printer::new(&prog, &mut out);
    /// for v in [Some(arg), Some(x), None, Some(x), Some(arg)] {
    ///     p.print_value(v).unwrap();
    ///     p.write_str(" ").unwrap();
    /// }
    /// p.flush().unwrap();
    /// assert_eq!(out, "%arg_0 {} %0 <<NULL VALUE>> %0 %arg_0 ");
    /// ```
    #[inline]
    pub fn print_value(&mut self, v: Option<Value>) -> fmt::Result {
        let Some(v) = v else {
            self.buf.push_str("<<NULL VALUE>>");
            return Ok(());
        };
        let idx = v.index();
        if idx >= self.names.len() {
            self.names.resize(idx + 1, UNNAMED);
        }
        let name = self.names[idx];
        // A named value prints from its name alone (the flag bits say alias or block
        // argument), without reading the program's value table.
        if name < BLOCK_ARG {
            // `%N` (neither flag set, and not UNNAMED).
            self.write_number_name(name);
            return Ok(());
        }
        if name != UNNAMED {
            if name & ALIAS != 0 {
                self.buf.push_str(&self.aliases[(name & !ALIAS) as usize]);
            } else {
                self.buf.push_str("%arg_");
                self.write_u32(name & !BLOCK_ARG);
            }
            return Ok(());
        }
        if self.prog.is_block_arg(v) {
            return self.print_block_arg(v, name);
        }
        self.name_result(idx);
        Ok(())
    }

    /// Names the value of index `idx` (an op result, unnamed) `%N` with the next number, and
    /// prints the name.
    #[inline]
    fn name_result(&mut self, idx: usize) {
        let n = self.next_result;
        self.next_result += 1;
        self.names[idx] = n;
        self.write_number_name(n);
    }

    /// `%N`.
    #[inline]
    fn write_number_name(&mut self, n: u32) {
        let mut digits = itoa::Buffer::new();
        let digits = digits.format(n);
        self.buf.push('%');
        self.buf.push_str(digits);
    }

    /// Names `v` `alias` (written as is, `%stack_0`) from now on, unless it has a name
    /// already: Paddle's `IrPrinter::AddValueAlias`, which custom printers call before printing
    /// the op's line. Aliases take no number from the `%N` sequence.
    ///
    /// ```
    /// use pir_runtime::{builtin, printer::Printer, Builder, IrContext, Program, phi::DataType};
    /// let ctx = IrContext::new();
    /// let mut prog = Program::new(&ctx);
    /// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let y = builtin::parameter(&mut b, "y", t).unwrap();
    /// let mut out = String::new();
    /// let mut p = Printer::new(&prog, &mut out);
    /// p.add_value_alias(x, "%x_0");
    /// p.add_value_alias(x, "%ignored"); // the first name stays
    /// for v in [x, y, x] {
    ///     p.print_value(Some(v)).unwrap();
    ///     p.write_str(" ").unwrap();
    /// }
    /// p.flush().unwrap();
    /// assert_eq!(out, "%x_0 %0 %x_0 ");
    /// ```
    pub fn add_value_alias(&mut self, v: Value, alias: &str) {
        let idx = v.index();
        if idx >= self.names.len() {
            self.names.resize(idx + 1, UNNAMED);
        }
        if self.names[idx] == UNNAMED {
            self.names[idx] = ALIAS | self.aliases.len() as u32;
            self.aliases.push(alias.into());
        }
    }

    /// The index of `op` among the ops this printer counted under `key`, in the order they
    /// were first counted (the same op keeps its index): what Paddle's custom printers keep in
    /// a counter per printer (`StackCreateOp::Print` numbers `%stack_N` so).
    ///
    /// ```
    /// use pir_runtime::{builtin, printer::Printer, Builder, IrContext, Program, phi::DataType};
    /// let ctx = IrContext::new();
    /// let mut prog = Program::new(&ctx);
    /// let t = ctx.dense_tensor_type(DataType::Float32, &[2]);
    /// let mut b = Builder::at_end(&mut prog);
    /// let x = builtin::parameter(&mut b, "x", t).unwrap();
    /// let y = builtin::parameter(&mut b, "y", t).unwrap();
    /// let (ox, oy) = (prog.defining_op(x).unwrap(), prog.defining_op(y).unwrap());
    /// let mut out = String::new();
    /// let mut p = Printer::new(&prog, &mut out);
    /// assert_eq!((p.op_index("k", oy), p.op_index("k", ox), p.op_index("k", oy)), (0, 1, 0));
    /// assert_eq!(p.op_index("other", ox), 0);
    /// ```
    pub fn op_index(&mut self, key: &'static str, op: OpId) -> usize {
        if let Some(&i) = self.op_counters.get(&(key, op)) {
            return i;
        }
        let count = self.op_counts.entry(key).or_insert(0);
        let i = *count;
        *count += 1;
        self.op_counters.insert((key, op), i);
        i
    }

    /// `%arg_N`, and ` {attrs}` the first time.
    fn print_block_arg(&mut self, v: Value, name: u32) -> fmt::Result {
        let idx = v.index();
        self.buf.push_str("%arg_");
        if name != UNNAMED {
            self.write_u32(name & !BLOCK_ARG);
            return Ok(());
        }
        let n = self.next_arg;
        self.next_arg += 1;
        self.names[idx] = n | BLOCK_ARG;
        self.write_u32(n);
        self.buf.push_str(" {");
        if let ValueDef::BlockArg { block, index } = self.prog.value_def(v) {
            if let Some(attrs) = self.prog.block_arg_attrs(block, index as usize) {
                write_dict_entries(&mut self.buf, self.prog, attrs)?;
            }
        }
        self.buf.push('}');
        Ok(())
    }

    /// A type, or `<<NULL TYPE>>`.
    ///
    /// ```
    /// use pir_runtime::{printer::Printer, IrContext, Program, phi::DataType};
    /// let ctx = IrContext::new();
    /// let prog = Program::new(&ctx);
    /// let mut out = String::new();
    /// let mut p = Printer::new(&prog, &mut out);
    /// p.print_type(Some(ctx.dense_tensor_type(DataType::Float32, &[1]))).unwrap();
    /// p.print_type(None).unwrap();
    /// p.flush().unwrap();
    /// assert_eq!(out, "tensor<1xf32><<NULL TYPE>>");
    /// ```
    pub fn print_type(&mut self, t: Option<Type>) -> fmt::Result {
        let Some(t) = t else {
            self.buf.push_str("<<NULL TYPE>>");
            return Ok(());
        };
        let i = t.index() as usize;
        if i >= self.type_cache.len() {
            self.type_cache.resize(i + 1, NOT_CACHED);
        }
        let mut c = self.type_cache[i];
        if c.start == u32::MAX {
            let start = self.cache.len();
            write_type(&mut self.cache, self.prog.ctx(), t)?;
            c = Cached {
                start: start as u32,
                len: (self.cache.len() - start) as u32,
            };
            self.type_cache[i] = c;
        }
        self.buf
            .push_str(&self.cache[c.start as usize..(c.start + c.len) as usize]);
        Ok(())
    }

    /// An attribute.
    pub fn print_attribute(&mut self, a: Attribute) -> fmt::Result {
        write_attr(&mut self.buf, self.prog.ctx(), a)
    }

    /// `{name:value,...}` of an attribute dictionary, without the hidden attributes.
    ///
    /// ```
    /// use pir_runtime::{printer::Printer, IrContext, Program};
    /// let ctx = IrContext::new();
    /// let prog = Program::new(&ctx);
    /// let dict = ctx.dict_attr(&[("op_callstack", ctx.str_attr("...")), ("axis", ctx.i32_attr(1))]);
    /// let mut out = String::new();
    /// let mut p = Printer::new(&prog, &mut out);
    /// p.print_attribute_map(dict).unwrap();
    /// p.flush().unwrap();
    /// assert_eq!(out, "{axis:1}"); // op_callstack is hidden, as in Paddle
    /// ```
    pub fn print_attribute_map(&mut self, dict: Attribute) -> fmt::Result {
        let i = dict.index() as usize;
        if i >= self.dict_cache.len() {
            self.dict_cache.resize(i + 1, NOT_CACHED);
        }
        let mut c = self.dict_cache[i];
        if c.start == u32::MAX {
            let start = self.cache.len();
            self.cache.push('{');
            write_dict_entries(&mut self.cache, self.prog, dict)?;
            self.cache.push('}');
            c = Cached {
                start: start as u32,
                len: (self.cache.len() - start) as u32,
            };
            self.dict_cache[i] = c;
        }
        self.buf
            .push_str(&self.cache[c.start as usize..(c.start + c.len) as usize]);
        Ok(())
    }
}

fn write_dict_entries(out: &mut String, prog: &Program, dict: Attribute) -> fmt::Result {
    let ctx = prog.ctx();
    let AttrData::Dict(entries) = ctx.attr_data(dict) else {
        return Ok(());
    };
    let mut first = true;
    for (name, value) in entries.iter() {
        if HIDDEN_ATTRIBUTES.contains(&&**name) {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        out.push_str(name);
        out.push(':');
        write_attr(out, ctx, *value)?;
    }
    Ok(())
}
