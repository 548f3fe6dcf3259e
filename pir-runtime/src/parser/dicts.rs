//! Attribute dictionaries of ops and block arguments: `{name:value,...}`.
//!
//! Dictionaries are where a program's text spends most of its bytes, and they repeat: ops of
//! one kind print the same names in the same order, mostly with the same values. So the parser
//! remembers, per op definition, the last dictionary it read: its names (checked unique), how
//! each is read ([`Hint`]), each value's text and attribute, and the dictionary. A name or
//! value that matches its predecessor is taken without scanning or hashing, and a dictionary
//! that matches entirely is the same attribute. Other values are looked up by text in a cache
//! shared by all ops; strings, which are mostly unique names, are read directly.

use smallvec::SmallVec;

use super::attributes::{entry_name, AttrParser, Hint, Names};
use super::error::{ParseError, ParseErrorKind};
use super::lexer::starts_with_at;
use super::ops::{extent, Extent, ProgramParser};
use crate::attributes::Attribute;
use crate::op_def::OpDef;

/// One entry of the last dictionary of an op definition.
#[derive(Clone, Copy)]
struct Slot<'t> {
    name: &'t str,
    hint: Hint<'static>,
    /// The value's text and attribute.
    value: Option<(&'t str, Attribute)>,
}

/// The last dictionary read for an op definition.
#[derive(Default)]
pub(super) struct DictMemo<'t> {
    /// Its entries; their names are unique.
    slots: Vec<Slot<'t>>,
    /// Whether the names are in increasing order.
    sorted: bool,
    /// The dictionary, if it was read whole.
    dict: Option<Attribute>,
}

/// Whether `text[at..]` starts with `s` followed by `end` or `end2`.
#[inline]
fn followed_by(text: &[u8], at: usize, s: &str, end: u8, end2: u8) -> bool {
    starts_with_at(text, at, s.as_bytes())
        && text
            .get(at + s.len())
            .is_some_and(|&b| b == end || b == end2)
}

impl<'t> ProgramParser<'t, '_> {
    /// `{name:value,...}` of an op of definition `def` (or of a block argument: `None`), with
    /// the memo of index `memo` (see [`DictMemo`]).
    pub(super) fn attr_dict(
        &mut self,
        def: Option<&'static OpDef>,
        memo: usize,
    ) -> Result<Attribute, ParseError> {
        self.cur.skip_ws();
        let pos = self.cur.pos();
        if self.cur.text().as_bytes()[pos..].starts_with(b"{}") {
            self.cur.set_pos(pos + 2);
            return Ok(self.ctx.empty_dict());
        }
        let mut m = std::mem::take(&mut self.memos[memo]);
        let dict = self.read_dict(def, &mut m)?;
        self.memos[memo] = m;
        Ok(dict)
    }

    fn read_dict(
        &mut self,
        def: Option<&'static OpDef>,
        memo: &mut DictMemo<'t>,
    ) -> Result<Attribute, ParseError> {
        self.cur.expect(b'{', "`{`")?;
        let mut entries: SmallVec<[(&'t str, Attribute); 8]> = SmallVec::new();
        if self.cur.eat(b'}') {
            return Ok(self.ctx.empty_dict());
        }
        // While the names are the memo's, they need no check; while the values are too, the
        // dictionary is the memo's.
        let mut following = true;
        let mut same_values = true;
        let mut names = Names::default();
        loop {
            let i = entries.len();
            let name = self.entry(def, memo, &mut following, &mut names, i)?;
            let value = self
                .slot_value(memo, i, &mut same_values)
                .map_err(|e| in_attribute(e, name))?;
            entries.push((name, value));
            if self.cur.eat(b'}') {
                break;
            }
            self.cur.expect(b',', "`,` or `}` in the attributes")?;
        }
        if following && same_values && entries.len() == memo.slots.len() {
            if let Some(d) = memo.dict {
                return Ok(d);
            }
        }
        if !following {
            memo.sorted = names.sorted();
        }
        memo.slots.truncate(entries.len());
        // Printed dictionaries are sorted: intern them without sorting again.
        let dict = if memo.sorted {
            self.ctx.dict_attr_sorted(&entries)
        } else {
            self.ctx.dict_attr(&entries)
        };
        memo.dict = Some(dict);
        Ok(dict)
    }

    /// Entry `i`'s name and `:`, recording it in the memo's slot `i`.
    fn entry(
        &mut self,
        def: Option<&'static OpDef>,
        memo: &mut DictMemo<'t>,
        following: &mut bool,
        names: &mut Names<'t>,
        i: usize,
    ) -> Result<&'t str, ParseError> {
        self.cur.skip_ws();
        let pos = self.cur.pos();
        let text = self.cur.text();
        if *following {
            if let Some(slot) = memo.slots.get(i) {
                if followed_by(text.as_bytes(), pos, slot.name, b':', b':') {
                    self.cur.set_pos(pos + slot.name.len() + 1);
                    return Ok(slot.name);
                }
            }
            *following = false;
            for s in &memo.slots[..i.min(memo.slots.len())] {
                names.first_time(s.name);
            }
        }
        let name = entry_name(&mut self.cur)?;
        if !names.first_time(name) {
            return Err(self.err(
                pos,
                ParseErrorKind::DuplicateAttribute {
                    name: name.to_string(),
                },
            ));
        }
        self.cur.expect(b':', "`:` after the attribute name")?;
        memo.slots.truncate(i);
        memo.slots.push(Slot {
            name,
            hint: Hint::of(self.syntax, def, name),
            value: None,
        });
        Ok(name)
    }

    /// The value of entry `i`, whose name is in the memo's slot `i`.
    fn slot_value(
        &mut self,
        memo: &mut DictMemo<'t>,
        i: usize,
        same: &mut bool,
    ) -> Result<Attribute, ParseError> {
        self.cur.skip_ws();
        let start = self.cur.pos();
        let text = self.cur.text();
        let slot = memo.slots[i];
        if let Some((t, a)) = slot.value {
            if followed_by(text.as_bytes(), start, t, b',', b'}') {
                self.cur.set_pos(start + t.len());
                return Ok(a);
            }
        }
        *same = false;
        let a = self.attr_value(slot.hint)?;
        memo.slots[i].value = Some((&text[start..self.cur.pos()], a));
        Ok(a)
    }

    /// An attribute value read as `hint` says, once per distinct text and hint.
    fn attr_value(&mut self, hint: Hint<'static>) -> Result<Attribute, ParseError> {
        let Some((kind, data_type)) = hint.cache_key() else {
            return AttrParser::new(&mut self.cur, &self.ctx, self.syntax, 0).parse_hinted(hint);
        };
        let start = self.cur.pos();
        let text = self.cur.text();
        // Strings are mostly unique (names): reading them costs no more than a lookup.
        if text.as_bytes().get(start) == Some(&b'"') {
            return AttrParser::new(&mut self.cur, &self.ctx, self.syntax, 0).parse_hinted(hint);
        }
        let end = extent(text.as_bytes(), start, Extent::Value);
        let key = (kind, data_type.as_ptr() as usize, &text[start..end]);
        if let Some(&a) = self.values.get(&key) {
            self.cur.set_pos(end);
            return Ok(a);
        }
        let a = AttrParser::new(&mut self.cur, &self.ctx, self.syntax, 0).parse_hinted(hint)?;
        if self.cur.pos() == end {
            self.values.insert(key, a);
        }
        Ok(a)
    }
}

/// A syntax error inside the value of attribute `name`, reported with the name.
fn in_attribute(e: ParseError, name: &str) -> ParseError {
    match e.kind {
        ParseErrorKind::Expected { expected, found } => ParseError {
            kind: ParseErrorKind::BadAttribute {
                name: name.to_string(),
                expected,
                found,
            },
            ..e
        },
        _ => e,
    }
}
