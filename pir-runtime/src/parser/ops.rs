//! Ops, blocks and regions.
//!
//! ```text
//! program  := '{' block-body '}'
//! block    := '{' ['^' arg {',' arg}] op* '}'          arg := %name ['{' attrs '}']
//! op       := '(' [%name {',' %name}] ')' '=' '"' NAME '"' ['[id:' N ']']
//!             '(' [operand {',' operand}] ')' ['{' attrs '}'] [':' '(' types ')']
//!             ['->' type{',' type}] region*
//! operand  := [label '='] (%name ['{' attrs '}'] | '<<NULL VALUE>>')
//! region   := ['else'] block
//! ```
//!
//! The general form Paddle prints is `(%1) = "pd_op.relu" (%0) {attrs} : (T) -> T`; ops with
//! custom printers leave parts out (`pd_op.if` prints no operand types, `pd_op.while` labels
//! its operands `cond=` / `inputs=`, prints its block's arguments on a `^` line and no result
//! types), and the grammar takes all of these shapes. What the text leaves out is recovered
//! where it can be: a value whose type is not written (a block argument, a result without
//! `->`) takes the type its first use writes in an operand-type list, and an
//! [`OpHook`](super::OpHook) can complete the rest. A block argument first printed where it is
//! used (`%arg_0 {}` as an operand, as Paddle's general printer does) is an argument of the
//! innermost block being read.
//!
//! Ops are created through the context's registry as soon as their line is read, so a program
//! is parsed in one pass; the number of regions of an op is found by matching its braces ahead
//! (each brace is matched once). Nested blocks are an explicit stack, not recursion, so depth
//! costs no native stack.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use super::dicts::DictMemo;
use super::error::{line_column, ParseError, ParseErrorKind};
use super::lexer::{starts_with_at, Cursor};
use super::scope::Scope;
use super::syntax::TextSyntax;
use super::types::TypeParser;
use super::ParsedProgram;
use crate::attributes::Attribute;
use crate::context::IrContext;
use crate::op_def::OpDef;
use crate::printer::OpIds;
use crate::program::{BlockId, InsertPoint, OpId, OperationArgs, Program, Value};
use crate::types::{Type, TypeDisplay};

const NULL_VALUE: &str = "<<NULL VALUE>>";

/// An op whose regions are being read.
struct Pending<'t> {
    op: OpId,
    name: &'t str,
    /// The region being read.
    region: usize,
    num_regions: usize,
    /// Result names, defined once the regions are read.
    results: SmallVec<[(&'t str, usize); 4]>,
}

/// A block being read.
struct Frame<'t> {
    block: BlockId,
    /// Where its `{` is.
    open: usize,
    /// The scope mark to leave it with.
    mark: usize,
    /// The op it belongs to; `None` for the program's block.
    owner: Option<Pending<'t>>,
}

/// One op line, read but not yet created.
struct OpLine<'t> {
    def: &'static OpDef,
    name: &'t str,
    id: Option<u64>,
    results: SmallVec<[(&'t str, usize); 4]>,
    attrs: Attribute,
    /// Result types, `None` when the line has no `->` part.
    result_types: Option<SmallVec<[Option<Type>; 4]>>,
    num_regions: usize,
}

pub(crate) struct ProgramParser<'t, 's> {
    pub(super) cur: Cursor<'t>,
    pub(super) ctx: Arc<IrContext>,
    pub(super) syntax: &'s TextSyntax,
    prog: Program,
    op_ids: OpIds,
    scope: Scope<'t>,
    /// Values whose type the text has not written yet.
    untyped: FxHashSet<Value>,
    defs: FxHashMap<&'t str, &'static OpDef>,
    types: FxHashMap<&'t str, Option<Type>>,
    /// The last attribute dictionary of each op definition (index 0: block arguments).
    pub(super) memos: Vec<DictMemo<'t>>,
    /// The index in `memos` of each op definition (by address).
    memo_of: FxHashMap<usize, usize>,
    /// Attribute values by (hint: kind and the address of the schema's data type, text).
    pub(super) values: FxHashMap<(u8, usize, &'t str), Attribute>,
    /// The types read last, most recent first, tried before the type cache.
    recent_types: [(&'t str, Option<Type>); 2],
    /// The op names read last, most recent first.
    recent_ops: [(&'t str, &'static OpDef, usize); 4],
    /// Matching `}` of region braces already scanned.
    braces: FxHashMap<usize, usize>,
    stack: Vec<Frame<'t>>,
    /// The op being read, for error messages: its name, or where its line starts.
    current: Result<&'t str, usize>,
    operands: Vec<Option<Value>>,
    operand_pos: Vec<usize>,
}

/// Bytes that matter when finding where a type or attribute value ends; all others are 0, so
/// the scans skip them in a tight, predictable loop.
const OPEN: u8 = 1;
const CLOSE: u8 = 2;
const QUOTE: u8 = 3;
const SPACE: u8 = 4;
const COMMA: u8 = 5;
const BRACE_OPEN: u8 = 6;
const BRACE_CLOSE: u8 = 7;

static BYTE_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'<' as usize] = OPEN;
    t[b'[' as usize] = OPEN;
    t[b'(' as usize] = OPEN;
    t[b'>' as usize] = CLOSE;
    t[b']' as usize] = CLOSE;
    t[b')' as usize] = CLOSE;
    t[b'"' as usize] = QUOTE;
    t[b' ' as usize] = SPACE;
    t[b'\n' as usize] = SPACE;
    t[b'\t' as usize] = SPACE;
    t[b'\r' as usize] = SPACE;
    t[b',' as usize] = COMMA;
    t[b'{' as usize] = BRACE_OPEN;
    t[b'}' as usize] = BRACE_CLOSE;
    t
};

/// What [`extent`] looks for the end of.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Extent {
    /// A type: it ends at `,`, `)`, `{`, `}` or whitespace outside `<>`, `[]` and `()`
    /// (`<<NULL TYPE>>` is balanced).
    Type,
    /// An attribute value: it ends at `,` or `}` outside brackets, braces, parentheses and
    /// angle brackets.
    Value,
}

/// Where the type or attribute value written at `start` ends, skipping strings.
pub(super) fn extent(b: &[u8], start: usize, of: Extent) -> usize {
    let ty = of == Extent::Type;
    let mut depth = 0usize;
    let mut i = start;
    loop {
        while i < b.len() && BYTE_CLASS[b[i] as usize] == 0 {
            i += 1;
        }
        let Some(&c) = b.get(i) else { return i };
        match BYTE_CLASS[c as usize] {
            QUOTE => match Cursor::string_end(b, i) {
                Some(end) => {
                    i = end;
                    continue;
                }
                None => return b.len(),
            },
            OPEN => depth += 1,
            BRACE_OPEN if ty && depth == 0 => return i,
            BRACE_OPEN => depth += 1,
            CLOSE | BRACE_CLOSE if depth > 0 => depth -= 1,
            CLOSE if ty => return i,
            BRACE_CLOSE | COMMA if depth == 0 => return i,
            SPACE if ty && depth == 0 => return i,
            _ => {}
        }
        i += 1;
    }
}

/// Whether the byte after a complete type text ends it (see [`extent`]).
#[inline]
fn ends_type(b: Option<&u8>) -> bool {
    matches!(
        b,
        None | Some(b',' | b')' | b'{' | b' ' | b'\n' | b'\t' | b'\r')
    )
}

impl<'t, 's> ProgramParser<'t, 's> {
    pub(crate) fn new(
        ctx: &Arc<IrContext>,
        text: &'t str,
        syntax: &'s TextSyntax,
    ) -> ProgramParser<'t, 's> {
        ProgramParser {
            cur: Cursor::new(text),
            ctx: ctx.clone(),
            syntax,
            // About one op per line, and printed op lines are about 100 bytes or more.
            prog: Program::with_capacity(ctx, text.len() / 96),
            op_ids: OpIds::default(),
            scope: Scope::new(text.len()),
            untyped: FxHashSet::default(),
            defs: FxHashMap::default(),
            types: FxHashMap::default(),
            memos: vec![DictMemo::default()],
            memo_of: FxHashMap::default(),
            values: FxHashMap::default(),
            recent_types: [("", None); 2],
            recent_ops: [("", &crate::builtin::MODULE_DEF, 0); 4],
            braces: FxHashMap::default(),
            stack: Vec::new(),
            current: Err(0),
            operands: Vec::new(),
            operand_pos: Vec::new(),
        }
    }

    pub(super) fn err(&self, pos: usize, kind: ParseErrorKind) -> ParseError {
        self.cur.error_at(pos, kind)
    }

    /// Adds the op being read to an error.
    fn in_op(&self, e: ParseError) -> ParseError {
        let text = self.cur.text();
        e.in_op(|| match self.current {
            Ok(name) => format!("`{name}`"),
            Err(pos) => {
                let (l, c) = line_column(text, pos);
                format!("starting at {l}:{c}")
            }
        })
    }

    pub(crate) fn run(mut self) -> Result<ParsedProgram, ParseError> {
        if self.cur.text().starts_with('\u{feff}') {
            self.cur.set_pos(3);
        }
        self.cur.skip_ws();
        let open = self.cur.pos();
        self.cur.expect(b'{', "`{` (the program's block)")?;
        let top = self.prog.block();
        self.stack.push(Frame {
            block: top,
            open,
            mark: 0,
            owner: None,
        });
        self.block_args(top)?;
        loop {
            match self.cur.peek() {
                Some(b'}') => {
                    self.cur.set_pos(self.cur.pos() + 1);
                    if self.close_block()? {
                        break;
                    }
                }
                Some(b'(') => {
                    self.current = Err(self.cur.pos());
                    self.op().map_err(|e| self.in_op(e))?;
                }
                Some(b'^') => {
                    let pos = self.cur.pos();
                    return Err(self.err(pos, ParseErrorKind::MisplacedBlockArgs));
                }
                None => {
                    let open = self.stack.last().map_or(0, |f| f.open);
                    return Err(self.err(open, ParseErrorKind::UnclosedBrace));
                }
                Some(_) => {
                    return Err(self
                        .cur
                        .expected("an op (`(%results) = \"name\" (%operands) ...`) or `}`"))
                }
            }
        }
        if !self.cur.at_end() {
            let pos = self.cur.pos();
            let found = self.cur.found();
            return Err(self.err(pos, ParseErrorKind::TrailingInput { found }));
        }
        Ok(ParsedProgram {
            program: self.prog,
            op_ids: self.op_ids,
        })
    }

    /// Closes the innermost block; `true` when it was the program's.
    fn close_block(&mut self) -> Result<bool, ParseError> {
        let Some(frame) = self.stack.pop() else {
            return Ok(true);
        };
        // The program's block: nothing is read after it, so its names need not be forgotten.
        let Some(mut pending) = frame.owner else {
            return Ok(true);
        };
        self.scope.leave(frame.mark);
        self.current = Ok(pending.name);
        pending.region += 1;
        if pending.region < pending.num_regions {
            self.cur.eat_keyword("else");
            self.open_region(pending).map_err(|e| self.in_op(e))?;
        } else {
            self.finish(pending).map_err(|e| self.in_op(e))?;
        }
        Ok(false)
    }

    /// Opens the block of region `pending.region` at the `{` next in the text.
    fn open_region(&mut self, pending: Pending<'t>) -> Result<(), ParseError> {
        self.cur.skip_ws();
        let open = self.cur.pos();
        self.cur.expect(b'{', "`{` opening the op's next region")?;
        let region = self.prog.op(pending.op).region(pending.region);
        let block = self.prog.add_block(region);
        self.stack.push(Frame {
            block,
            open,
            mark: self.scope.mark(),
            owner: Some(pending),
        });
        self.block_args(block)
    }

    /// Defines an op's results and runs its hook, once its regions are read.
    fn finish(&mut self, pending: Pending<'t>) -> Result<(), ParseError> {
        for (i, &(name, pos)) in pending.results.iter().enumerate() {
            let v = self.prog.op(pending.op).result(i);
            self.define(name, v, pos)?;
        }
        let def = self.prog.op(pending.op).def();
        if let Some(hook) = self.syntax.op_hook(def.name) {
            hook(&mut self.prog, pending.op).map_err(|message| {
                let pos = self.cur.pos();
                self.err(pos, ParseErrorKind::Rejected { message })
            })?;
        }
        Ok(())
    }

    fn define(&mut self, name: &'t str, v: Value, pos: usize) -> Result<(), ParseError> {
        self.scope.define(name, v, pos).map_err(|first| {
            let (first_line, first_column) = line_column(self.cur.text(), first);
            self.err(
                pos,
                ParseErrorKind::RedefinedValue {
                    name: format!("%{name}"),
                    first_line,
                    first_column,
                },
            )
        })
    }

    /// `^%arg_0 {attrs}, %arg_1 {attrs}` at the start of a block, if present.
    fn block_args(&mut self, block: BlockId) -> Result<(), ParseError> {
        if !self.cur.eat(b'^') {
            return Ok(());
        }
        loop {
            self.cur.skip_ws();
            let pos = self.cur.pos();
            let Some(name) = self.cur.value_name() else {
                if self.prog.block_args(block).is_empty() {
                    return Ok(()); // `^` with no arguments
                }
                return Err(self.cur.expected("a block argument (`%name`)"));
            };
            self.block_arg(block, name, pos)?;
            if !self.cur.eat(b',') {
                return Ok(());
            }
        }
    }

    /// Declares block argument `%name` (its `{attrs}` follow, if any) of `block`.
    fn block_arg(
        &mut self,
        block: BlockId,
        name: &'t str,
        pos: usize,
    ) -> Result<Value, ParseError> {
        let attrs = if self.cur.peek() == Some(b'{') {
            Some(self.attr_dict(None, 0)?)
        } else {
            None
        };
        let v = self.prog.add_block_arg(block, None);
        if let Some(a) = attrs {
            let index = self.prog.block_args(block).len() - 1;
            self.prog.set_block_arg_attrs(block, index, a);
        }
        self.define(name, v, pos)?;
        self.untyped.insert(v);
        Ok(v)
    }

    /// Reads one op line and creates the op; its regions follow.
    fn op(&mut self) -> Result<(), ParseError> {
        let line = self.op_line()?;
        let untyped: SmallVec<[Option<Type>; 4]>;
        let result_types: &[Option<Type>] = match &line.result_types {
            Some(t) => t,
            None => {
                untyped = line.results.iter().map(|_| None).collect();
                &untyped
            }
        };
        let op = self
            .prog
            .create_op_at(
                OperationArgs {
                    def: line.def,
                    operands: &self.operands,
                    attributes: line.attrs,
                    result_types,
                    num_regions: line.num_regions,
                },
                InsertPoint::BlockEnd(self.innermost_block()),
            )
            .map_err(|e| {
                let pos = self.cur.pos();
                self.err(pos, ParseErrorKind::Ir(e))
            })?;
        if let Some(id) = line.id {
            self.op_ids.set(op, id);
        }
        if line.result_types.is_none() {
            for v in self.prog.op(op).results() {
                self.untyped.insert(v);
            }
        }
        let pending = Pending {
            op,
            name: line.name,
            region: 0,
            num_regions: line.num_regions,
            results: line.results,
        };
        if line.num_regions == 0 {
            self.finish(pending)
        } else {
            self.open_region(pending)
        }
    }

    fn innermost_block(&self) -> BlockId {
        self.stack.last().map_or(self.prog.block(), |f| f.block)
    }

    /// `(results) = "name" [id:N] (operands) {attrs} : (types) -> types`, and how many regions
    /// follow. Operands are left in `self.operands`.
    fn op_line(&mut self) -> Result<OpLine<'t>, ParseError> {
        let results_pos = self.cur.pos();
        let results = self.result_names()?;
        self.cur.expect(b'=', "`=` after the results")?;
        let (def, name, memo) = self.op_name()?;
        let id = self.op_id()?;
        let operands_pos = self.operand_list()?;
        if let Some(s) = def.schema {
            if s.inputs.len() != self.operands.len() {
                return Err(self.err(
                    operands_pos,
                    ParseErrorKind::OperandCount {
                        expected: s.inputs.len(),
                        inputs: join(s.inputs.iter().map(|i| &*i.name)),
                        found: self.operands.len(),
                    },
                ));
            }
            if s.outputs.len() != results.len() {
                return Err(self.err(
                    results_pos,
                    ParseErrorKind::ResultCount {
                        expected: s.outputs.len(),
                        outputs: join(s.outputs.iter().map(|o| &*o.name)),
                        found: results.len(),
                    },
                ));
            }
        }
        let attrs = if self.dict_follows() {
            self.attr_dict(Some(def), memo)?
        } else {
            self.ctx.empty_dict()
        };
        if self.cur.eat(b':') {
            self.operand_types()?;
        }
        let result_types = if self.cur.eat_str("->") {
            Some(self.result_types(results.len())?)
        } else {
            None
        };
        let num_regions = match self.cur.peek() {
            Some(b'{') => self.count_regions(self.cur.pos())?,
            _ => 0,
        };
        Ok(OpLine {
            def,
            name,
            id,
            results,
            attrs,
            result_types,
            num_regions,
        })
    }

    /// `(%a, %b)` before `=`.
    fn result_names(&mut self) -> Result<SmallVec<[(&'t str, usize); 4]>, ParseError> {
        self.cur.expect(b'(', "`(` starting the op's results")?;
        let mut names = SmallVec::new();
        if self.cur.eat(b')') {
            return Ok(names);
        }
        loop {
            self.cur.skip_ws();
            let pos = self.cur.pos();
            let Some(name) = self.cur.value_name() else {
                return Err(self.cur.expected("a result name (`%name`)"));
            };
            names.push((name, pos));
            if self.cur.eat(b')') {
                return Ok(names);
            }
            self.cur.expect(b',', "`,` or `)` in the results")?;
        }
    }

    /// `"pd_op.relu"`, looked up in the registry (then in the syntax's name resolvers).
    /// The op's definition, its name as written and the index of its dictionary memo.
    fn op_name(&mut self) -> Result<(&'static OpDef, &'t str, usize), ParseError> {
        self.cur.skip_ws();
        let pos = self.cur.pos();
        let b = self.cur.text().as_bytes();
        // The ops read last, tried before scanning and hashing the name.
        if b.get(pos) == Some(&b'"') {
            for i in 0..self.recent_ops.len() {
                let (name, def, memo) = self.recent_ops[i];
                let end = pos + 1 + name.len();
                if !name.is_empty()
                    && b.get(end) == Some(&b'"')
                    && starts_with_at(b, pos + 1, name.as_bytes())
                {
                    self.recent_ops[..=i].rotate_right(1);
                    self.cur.set_pos(end + 1);
                    self.current = Ok(name);
                    return Ok((def, name, memo));
                }
            }
        }
        let (def, name) = self.op_name_slow(pos)?;
        let next = self.memos.len();
        let memo = *self
            .memo_of
            .entry(def as *const OpDef as usize)
            .or_insert(next);
        if memo == next {
            self.memos.push(DictMemo::default());
        }
        self.recent_ops.rotate_right(1);
        self.recent_ops[0] = (name, def, memo);
        Ok((def, name, memo))
    }

    fn op_name_slow(&mut self, pos: usize) -> Result<(&'static OpDef, &'t str), ParseError> {
        let quoted = self.cur.quoted()?;
        // The name as written, borrowed from the text (names never contain `\"`).
        let name: &'t str = &self.cur.text()[pos + 1..self.cur.pos() - 1];
        self.current = Ok(name);
        if let Some(&def) = self.defs.get(name) {
            return Ok((def, name));
        }
        let def = self
            .ctx
            .op_def(&quoted)
            .or_else(|| self.syntax.resolve_op(&self.ctx, &quoted))
            .ok_or_else(|| {
                self.err(
                    pos + 1,
                    ParseErrorKind::UnknownOp {
                        name: quoted.to_string(),
                    },
                )
            })?;
        self.defs.insert(name, def);
        Ok((def, name))
    }

    /// `[id:N]` after the op name, if present.
    fn op_id(&mut self) -> Result<Option<u64>, ParseError> {
        if !self.cur.eat(b'[') {
            return Ok(None);
        }
        if !self.cur.eat_keyword("id") {
            return Err(self.cur.expected("`id:` in an op id `[id:N]`"));
        }
        self.cur.expect(b':', "`:`")?;
        self.cur.skip_ws();
        let pos = self.cur.pos();
        let n = self.cur.int()?;
        let id = u64::try_from(n).map_err(|_| {
            self.err(
                pos,
                ParseErrorKind::OutOfRange {
                    text: n.to_string(),
                    what: "an op id (non-negative)",
                },
            )
        })?;
        self.cur.expect(b']', "`]` closing the op id")?;
        Ok(Some(id))
    }

    /// `(%a, <<NULL VALUE>>, cond=%c)` into `self.operands`; returns where the list starts.
    fn operand_list(&mut self) -> Result<usize, ParseError> {
        self.operands.clear();
        self.operand_pos.clear();
        self.cur.skip_ws();
        let start = self.cur.pos();
        self.cur.expect(b'(', "`(` starting the operands")?;
        if self.cur.eat(b')') {
            return Ok(start);
        }
        loop {
            self.skip_label();
            self.cur.skip_ws();
            let pos = self.cur.pos();
            let v = self.operand()?;
            self.operands.push(v);
            self.operand_pos.push(pos);
            if self.cur.eat(b')') {
                return Ok(start);
            }
            self.cur.expect(b',', "`,` or `)` in the operands")?;
        }
    }

    /// Skips an operand label (`cond=`, `inputs=`).
    fn skip_label(&mut self) {
        let save = self.cur.pos();
        if self.cur.ident().is_some() && self.cur.eat(b'=') {
            return;
        }
        self.cur.set_pos(save);
    }

    fn operand(&mut self) -> Result<Option<Value>, ParseError> {
        if self.cur.eat_str(NULL_VALUE) {
            return Ok(None);
        }
        let pos = self.cur.pos();
        let Some(name) = self.cur.value_name() else {
            return Err(self
                .cur
                .expected("an operand (`%name` or `<<NULL VALUE>>`)"));
        };
        let declares = self.cur.peek() == Some(b'{');
        match (self.scope.get(name), declares) {
            (Some(v), false) => Ok(Some(v)),
            (None, true) => {
                // A block argument printed where it is first used.
                let block = self.innermost_block();
                self.block_arg(block, name, pos).map(Some)
            }
            // `{attrs}` marks a first print, but the name is taken.
            (Some(v), true) => Err(self.define(name, v, pos).err().unwrap_or_else(|| {
                self.err(
                    pos,
                    ParseErrorKind::UndefinedValue {
                        name: format!("%{name}"),
                    },
                )
            })),
            (None, false) => Err(self.err(
                pos,
                ParseErrorKind::UndefinedValue {
                    name: format!("%{name}"),
                },
            )),
        }
    }

    /// Whether an attribute dictionary (not a region) starts here: `{` directly followed by
    /// `}` or an attribute name.
    fn dict_follows(&mut self) -> bool {
        if self.cur.peek() != Some(b'{') {
            return false;
        }
        match self.cur.peek_raw_at(1) {
            Some(b'}') => true,
            Some(b) => b.is_ascii_alphabetic() || b == b'_',
            None => false,
        }
    }

    /// A type in an op's type lists, read once per distinct text.
    fn type_here(&mut self) -> Result<Option<Type>, ParseError> {
        self.cur.skip_ws();
        let start = self.cur.pos();
        let text = self.cur.text();
        let b = text.as_bytes();
        // Types repeat from one op to the next: try the last two before hashing.
        for i in 0..self.recent_types.len() {
            let (s, t) = self.recent_types[i];
            if !s.is_empty()
                && starts_with_at(b, start, s.as_bytes())
                && ends_type(b.get(start + s.len()))
            {
                self.recent_types.swap(0, i);
                self.cur.set_pos(start + s.len());
                return Ok(t);
            }
        }
        let end = extent(text.as_bytes(), start, Extent::Type);
        let key = &text[start..end];
        let t = match self.types.get(key) {
            Some(&t) => {
                self.cur.set_pos(end);
                t
            }
            None => {
                let t = TypeParser::new(&mut self.cur, &self.ctx, self.syntax, 0).parse_type()?;
                if self.cur.pos() != end {
                    return Err(self.cur.expected("the end of the type (`,` or `)`)"));
                }
                self.types.insert(key, t);
                t
            }
        };
        self.recent_types[1] = self.recent_types[0];
        self.recent_types[0] = (key, t);
        Ok(t)
    }

    /// `(T0, T1)` after `:`: checked against the operands, and typing untyped ones.
    fn operand_types(&mut self) -> Result<(), ParseError> {
        self.cur.skip_ws();
        let start = self.cur.pos();
        self.cur.expect(b'(', "`(` starting the operand types")?;
        let mut i = 0;
        if !self.cur.eat(b')') {
            loop {
                self.cur.skip_ws();
                let pos = self.cur.pos();
                let t = self.type_here()?;
                if i < self.operands.len() {
                    self.check_operand_type(i, t, pos)?;
                }
                i += 1;
                if self.cur.eat(b')') {
                    break;
                }
                self.cur.expect(b',', "`,` or `)` in the operand types")?;
            }
        }
        if i != self.operands.len() {
            return Err(self.err(
                start,
                ParseErrorKind::OperandTypeCount {
                    operands: self.operands.len(),
                    types: i,
                },
            ));
        }
        Ok(())
    }

    fn check_operand_type(
        &mut self,
        i: usize,
        t: Option<Type>,
        pos: usize,
    ) -> Result<(), ParseError> {
        let actual = match self.operands[i] {
            None => None,
            Some(v) => {
                if !self.untyped.is_empty() && self.untyped.remove(&v) {
                    self.prog.set_value_type(v, t);
                    return Ok(());
                }
                self.prog.value_type(v)
            }
        };
        if actual == t {
            return Ok(());
        }
        let ctx = &self.ctx;
        let text = self.cur.text();
        let op_pos = self.operand_pos[i];
        let value = match self.operands[i] {
            Some(_) => text[op_pos..]
                .split(|c: char| c == ',' || c == ')' || c.is_whitespace())
                .next()
                .unwrap_or("")
                .to_string(),
            None => NULL_VALUE.to_string(),
        };
        Err(self.err(
            pos,
            ParseErrorKind::OperandTypeMismatch {
                index: i,
                value,
                actual: TypeDisplay { ctx, ty: actual }.to_string(),
                written: TypeDisplay { ctx, ty: t }.to_string(),
            },
        ))
    }

    /// `T0, T1` after `->`: exactly one type per result.
    fn result_types(&mut self, n: usize) -> Result<SmallVec<[Option<Type>; 4]>, ParseError> {
        let mut types = SmallVec::new();
        for i in 0..n {
            if (i > 0 && !self.cur.eat(b',')) || !self.type_starts_here() {
                let pos = self.cur.pos();
                return Err(self.err(
                    pos,
                    ParseErrorKind::ResultTypeCount {
                        results: n,
                        types: i,
                    },
                ));
            }
            types.push(self.type_here()?);
        }
        // More types than results?
        let pos = self.cur.pos();
        let mut extra = 0;
        while (n + extra > 0 && self.cur.eat(b','))
            || (n == 0 && extra == 0 && self.type_starts_here())
        {
            self.type_here()?;
            extra += 1;
        }
        if extra > 0 {
            return Err(self.err(
                pos,
                ParseErrorKind::ResultTypeCount {
                    results: n,
                    types: n + extra,
                },
            ));
        }
        Ok(types)
    }

    /// Whether a type (a keyword or `<<NULL TYPE>>`) is next, on the same line.
    fn type_starts_here(&mut self) -> bool {
        let b = self.cur.text().as_bytes();
        let mut i = self.cur.pos();
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        match b.get(i) {
            Some(&c) => c.is_ascii_alphabetic() || c == b'_' || c == b'<',
            None => false,
        }
    }

    /// How many regions follow the op line: blocks `{...}` in a row, `else` between them.
    fn count_regions(&mut self, first: usize) -> Result<usize, ParseError> {
        let b = self.cur.text().as_bytes();
        let skip = |mut i: usize| {
            while i < b.len() && matches!(b[i], b' ' | b'\n' | b'\t' | b'\r') {
                i += 1;
            }
            i
        };
        let mut n = 0;
        let mut open = first;
        loop {
            n += 1;
            let close = self.matching_brace(open)?;
            let mut next = skip(close);
            if b[next..].starts_with(b"else")
                && !b
                    .get(next + 4)
                    .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
            {
                next = skip(next + 4);
            }
            if b.get(next) != Some(&b'{') {
                return Ok(n);
            }
            if n == usize::from(u16::MAX) {
                return Err(self.err(
                    next,
                    ParseErrorKind::Ir(crate::error::IrError::Invalid(format!(
                        "an op has more than {n} regions"
                    ))),
                ));
            }
            open = next;
        }
    }

    /// The offset after the `}` matching the `{` at `open`. Braces of regions met on the way
    /// are remembered, so nested regions are not scanned again.
    fn matching_brace(&mut self, open: usize) -> Result<usize, ParseError> {
        if let Some(&end) = self.braces.get(&open) {
            return Ok(end);
        }
        let b = self.cur.text().as_bytes();
        let mut stack: Vec<usize> = Vec::new();
        let mut i = open;
        while i < b.len() {
            match b[i] {
                b'{' => stack.push(i),
                b'}' => {
                    let Some(o) = stack.pop() else { break };
                    // Only region braces can be asked for again; attribute dictionaries
                    // (`{}`, `{name:...}`) are not remembered.
                    let dict = b
                        .get(o + 1)
                        .is_some_and(|&c| c == b'}' || c == b'_' || c.is_ascii_alphabetic());
                    if o != open && !dict {
                        self.braces.insert(o, i + 1);
                    }
                    if stack.is_empty() {
                        return Ok(i + 1);
                    }
                }
                b'"' => match Cursor::string_end(b, i) {
                    Some(end) => {
                        i = end;
                        continue;
                    }
                    None => return Err(self.err(i, ParseErrorKind::UnterminatedString)),
                },
                _ => {}
            }
            i += 1;
        }
        Err(self.err(open, ParseErrorKind::UnclosedBrace))
    }
}

fn join<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.collect::<Vec<_>>().join(", ")
}
