//! A fast reader for the yaml Paddle writes: block maps and lists by indentation, plain
//! scalars (also over several lines), one-line quoted scalars without escapes, flow lists
//! and maps, comments.
//!
//! It gives the tree [`super::reader`] builds from yaml-rust2's events, the same nodes at
//! the same lines, at a tenth of the cost. Anything else (anchors, tags, block scalars, tabs,
//! escapes, empty values, documents, every syntax error, ...) makes it give up (`None`), and
//! the caller reads the text with yaml-rust2, so the result, errors included, never depends
//! on which reader ran. A test holds the two readers against each other.

use std::borrow::Cow;

use super::reader::{Node, NodeKind};

/// Deepest nesting read here (Paddle's files use 4 levels); deeper goes to yaml-rust2, which
/// reports it.
const MAX_DEPTH: usize = 32;

/// The tree of `text` (`Some(None)` for a document without content), or `None` when the
/// text uses anything this reader leaves to yaml-rust2.
pub(crate) fn read(text: &str) -> Option<Option<Node<'_>>> {
    let mut r = Reader {
        s: text.as_bytes(),
        text,
        pos: 0,
        line: 1,
        depth: 0,
    };
    // Tabs, carriage returns, other control characters and non-ASCII text (Paddle's files
    // have none) are yaml-rust2's: one pass over the text, so the line scans below need not
    // look for them.
    if text.bytes().any(|c| (c < b' ' && c != b'\n') || c >= 0x7f) {
        return None;
    }
    if !r.next_content_line()? {
        return Some(None);
    }
    let root = r.block_node(-1)?;
    // Everything must have been read: content left (less indented than the root) is
    // yaml-rust2's to judge.
    if r.next_content_line()? {
        return None;
    }
    Some(Some(root))
}

struct Reader<'a> {
    s: &'a [u8],
    text: &'a str,
    /// Byte offset; at the start of a line between block nodes.
    pos: usize,
    /// 1-based line of `pos`.
    line: u32,
    depth: usize,
}

fn is_flow(c: u8) -> bool {
    matches!(c, b',' | b'[' | b']' | b'{' | b'}')
}

fn is_blank(c: Option<u8>) -> bool {
    matches!(c, None | Some(b' ' | b'\n'))
}

impl<'a> Reader<'a> {
    fn at(&self, i: usize) -> Option<u8> {
        self.s.get(i).copied()
    }

    /// The offset of the end of the line holding `i` (its `\n`, or the end).
    fn line_end(&self, i: usize) -> usize {
        self.s[i..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(self.s.len(), |n| i + n)
    }

    /// Moves `pos` (at a line start) over blank and comment lines to the next line with
    /// content; false at the end of the text. `None` for what this reader leaves alone
    /// (document markers and directives).
    fn next_content_line(&mut self) -> Option<bool> {
        loop {
            if self.pos >= self.s.len() {
                return Some(false);
            }
            let end = self.line_end(self.pos);
            let line = &self.s[self.pos..end];
            if line.starts_with(b"---") || line.starts_with(b"...") || line.first() == Some(&b'%') {
                return None;
            }
            match line.iter().find(|&&c| c != b' ') {
                None | Some(b'#') => {
                    self.pos = end + 1;
                    self.line += 1;
                }
                Some(_) => return Some(true),
            }
        }
    }

    /// The indentation of the line at `pos`.
    fn indent(&self) -> usize {
        self.s[self.pos..]
            .iter()
            .take_while(|&&c| c == b' ')
            .count()
    }

    /// Moves to the start of the next line after checking the rest of this one (from `i`) is
    /// blank or a comment.
    fn end_line(&mut self, i: usize) -> Option<()> {
        let end = self.line_end(i);
        let rest = &self.s[i..end];
        let first = rest.iter().position(|&c| c != b' ');
        match first {
            None => {}
            Some(k) if rest[k] == b'#' && (k > 0 || i == 0 || self.s[i - 1] == b' ') => {}
            Some(_) => return None,
        }
        self.pos = end + 1;
        self.line += 1;
        Some(())
    }

    fn deeper(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    /// The block node starting at the content line at `pos`, indented more than `parent`.
    fn block_node(&mut self, parent: isize) -> Option<Node<'a>> {
        let indent = self.indent();
        if indent as isize <= parent {
            return None;
        }
        let start = self.pos + indent;
        self.deeper()?;
        let node = if self.at(start) == Some(b'-') && is_blank(self.at(start + 1)) {
            self.block_seq(indent)
        } else if self.key_end(start).is_some() {
            self.block_map(indent, start)
        } else {
            self.inline_value(start, parent)
        };
        self.depth -= 1;
        node
    }

    /// Where the key starting at `i` ends (its `:`), if the line at `i` is `key : ...`.
    fn key_end(&self, i: usize) -> Option<usize> {
        let first = self.at(i)?;
        if !starts_plain(first, self.at(i + 1), false) {
            return None;
        }
        let mut j = i;
        while let Some(c) = self.at(j) {
            match c {
                b'\n' => return None,
                b':' if is_blank(self.at(j + 1)) => return Some(j),
                b'#' if self.s[j - 1] == b' ' => return None,
                _ => j += 1,
            }
        }
        None
    }

    /// A block list at column `indent`; `pos` is at the line of its first `-`.
    fn block_seq(&mut self, indent: usize) -> Option<Node<'a>> {
        let line = self.line;
        let mut items = Vec::new();
        loop {
            let dash = self.pos + indent;
            let mut start = dash + 1;
            while self.at(start) == Some(b' ') {
                start += 1;
            }
            match self.at(start) {
                None | Some(b'\n' | b'#') => return None,
                Some(b'-') if is_blank(self.at(start + 1)) => return None,
                _ => {}
            }
            let item = if self.key_end(start).is_some() {
                self.deeper()?;
                let m = self.block_map(start - self.pos, start);
                self.depth -= 1;
                m?
            } else {
                self.inline_value(start, indent as isize)?
            };
            items.push(item);
            if !self.next_content_line()? {
                break;
            }
            let next = self.indent();
            if next < indent {
                break;
            }
            if next > indent {
                return None;
            }
            if !(self.at(self.pos + indent) == Some(b'-')
                && is_blank(self.at(self.pos + indent + 1)))
            {
                // A key at the list's own column ends it (an indentless list under a key,
                // which this reader leaves alone: the parent sees a line it cannot place).
                break;
            }
        }
        Some(Node {
            kind: NodeKind::Seq(items),
            line,
        })
    }

    /// A block map whose keys are at column `indent`; its first key starts at `first`.
    fn block_map(&mut self, indent: usize, first: usize) -> Option<Node<'a>> {
        let line = self.line;
        // Paddle's entries have up to about ten keys.
        let mut entries = Vec::with_capacity(8);
        let mut start = first;
        loop {
            let colon = self.key_end(start)?;
            let key_text = self.text[start..colon].trim_end_matches(' ');
            let key = Node {
                kind: NodeKind::Scalar {
                    value: Cow::Borrowed(key_text),
                    plain: true,
                },
                line: self.line,
            };
            let mut v = colon + 1;
            while self.at(v) == Some(b' ') {
                v += 1;
            }
            let value = match self.at(v) {
                None | Some(b'\n') | Some(b'#') => {
                    // The value is on the next lines, or empty: yaml-rust2's empty scalar
                    // at the next token (the next key or the end of the block).
                    self.end_line(v)?;
                    let more = self.next_content_line()?;
                    if more && self.indent() > indent {
                        self.block_node(indent as isize)?
                    } else {
                        Node {
                            kind: NodeKind::Scalar {
                                value: Cow::Borrowed(""),
                                plain: true,
                            },
                            line: self.line,
                        }
                    }
                }
                Some(_) => self.inline_value(v, indent as isize)?,
            };
            entries.push((key, value));
            if !self.next_content_line()? {
                break;
            }
            let next = self.indent();
            if next < indent {
                break;
            }
            if next > indent {
                return None;
            }
            start = self.pos + indent;
            if self.at(start) == Some(b'-') && is_blank(self.at(start + 1)) {
                return None;
            }
        }
        Some(Node {
            kind: NodeKind::Map(entries),
            line,
        })
    }

    /// A value starting at `i` in a block whose column is `block` (continuation lines must be
    /// indented more): a flow collection, a quoted or a plain scalar. Leaves `pos` at the
    /// start of the next line.
    fn inline_value(&mut self, i: usize, block: isize) -> Option<Node<'a>> {
        let line = self.line;
        match self.at(i)? {
            b'[' | b'{' => {
                let (node, end) = self.flow_node(i, block)?;
                self.end_line(end)?;
                Some(node)
            }
            b'\'' | b'"' => {
                let (value, end) = self.quoted(i)?;
                self.end_line(end)?;
                Some(Node {
                    kind: NodeKind::Scalar {
                        value,
                        plain: false,
                    },
                    line,
                })
            }
            c if starts_plain(c, self.at(i + 1), false) => {
                let value = self.block_plain(i, block)?;
                Some(Node {
                    kind: NodeKind::Scalar { value, plain: true },
                    line,
                })
            }
            _ => None,
        }
    }

    /// A plain scalar in a block from `i`, folded over its continuation lines (those indented
    /// more than `block`). Leaves `pos` at the start of the line after it.
    fn block_plain(&mut self, i: usize, block: isize) -> Option<Cow<'a, str>> {
        let text = self.text;
        // Borrowed while the scalar is one line; folded lines make it owned.
        let mut out: Cow<'a, str> = Cow::Borrowed("");
        let mut from = i;
        loop {
            let end = self.line_end(from);
            let mut j = from;
            // The line's part of the scalar ends at `: `, ` #` or the line's end.
            let mut stop = end;
            while j < end {
                match self.s[j] {
                    b':' if is_blank(self.at(j + 1)) => return None,
                    b'#' if j > from && self.s[j - 1] == b' ' => {
                        stop = j;
                        break;
                    }
                    _ => j += 1,
                }
            }
            let part = text[from..stop].trim_end_matches(' ');
            if from == i {
                out = Cow::Borrowed(part);
            } else {
                let o = out.to_mut();
                o.push(' ');
                o.push_str(part);
            }
            self.pos = end + 1;
            self.line += 1;
            if stop < end || end >= self.s.len() {
                // A comment ends the scalar; so does the end of the text.
                return Some(out);
            }
            // A next line indented more than the block continues the scalar.
            let next_end = self.line_end(self.pos);
            let next = &self.s[self.pos..next_end];
            if next.starts_with(b"---") || next.starts_with(b"...") {
                return None;
            }
            let indent = next.iter().take_while(|&&c| c == b' ').count();
            match next.get(indent) {
                // A blank line would fold into a line break, a comment line ends the
                // scalar: both are left to yaml-rust2 when more lines follow at this depth.
                None => return self.ends_here(block).then_some(out),
                Some(b'#') => return Some(out),
                // Any other line indented more continues it, whatever its first character
                // (yaml-rust2 checks only for `#`, `: ` and document markers there).
                Some(_) => {
                    if indent as isize <= block {
                        return Some(out);
                    }
                    from = self.pos + indent;
                }
            }
        }
    }

    /// Whether, past the blank lines at `pos`, nothing continues a scalar of a block at
    /// column `block` (the next content line is not indented more).
    fn ends_here(&self, block: isize) -> bool {
        let mut p = self.pos;
        while p < self.s.len() {
            let end = self.line_end(p);
            let line = &self.s[p..end];
            let indent = line.iter().take_while(|&&c| c == b' ').count();
            match line.get(indent) {
                None => p = end + 1,
                Some(b'#') => return true,
                Some(_) => return indent as isize <= block,
            }
        }
        true
    }

    /// A quoted scalar at `i` on one line (no escapes): its text and the offset after it.
    fn quoted(&self, i: usize) -> Option<(Cow<'a, str>, usize)> {
        let text = self.text;
        let q = self.s[i];
        let mut out: Cow<'a, str> = Cow::Borrowed("");
        let mut from = i + 1;
        let mut j = i + 1;
        loop {
            match self.at(j)? {
                b'\n' | b'\\' if q == b'"' || self.s[j] == b'\n' => return None,
                c if c == q => {
                    if q == b'\'' && self.at(j + 1) == Some(b'\'') {
                        // `''` is one quote: the text is no longer a slice of the file.
                        out.to_mut().push_str(&text[from..=j]);
                        j += 2;
                        from = j;
                        continue;
                    }
                    if from == i + 1 {
                        out = Cow::Borrowed(&text[from..j]);
                    } else {
                        out.to_mut().push_str(&text[from..j]);
                    }
                    return Some((out, j + 1));
                }
                _ => j += 1,
            }
        }
    }

    /// Skips spaces, line breaks and comments inside a flow collection; a new line must be
    /// indented more than the enclosing block.
    fn flow_space(&mut self, mut i: usize, block: isize) -> Option<usize> {
        loop {
            match self.at(i)? {
                b' ' => i += 1,
                b'#' if self.s[i - 1] == b' ' || self.s[i - 1] == b'\n' => i = self.line_end(i),
                b'\n' => {
                    i += 1;
                    self.line += 1;
                    self.pos = i;
                    let indent = self.s[i..].iter().take_while(|&&c| c == b' ').count();
                    let line = &self.s[i..self.line_end(i)];
                    if indent < line.len() && indent as isize <= block {
                        return None;
                    }
                    i += indent;
                }
                _ => return Some(i),
            }
        }
    }

    /// A flow list or map at `i`: the node and the offset after its closing bracket.
    fn flow_node(&mut self, i: usize, block: isize) -> Option<(Node<'a>, usize)> {
        self.deeper()?;
        let line = self.line;
        let map = self.s[i] == b'{';
        let close = if map { b'}' } else { b']' };
        let mut items = Vec::new();
        let mut entries = Vec::new();
        let mut j = self.flow_space(i + 1, block)?;
        if self.at(j) == Some(close) {
            j += 1;
        } else {
            loop {
                if map {
                    let key_line = self.line;
                    let (key, mut end) = self.flow_plain(j)?;
                    while self.at(end) == Some(b' ') {
                        end += 1;
                    }
                    // `key : value` (a key without a value is yaml-rust2's).
                    if self.at(end) != Some(b':') || !is_blank(self.at(end + 1)) {
                        return None;
                    }
                    let v = self.flow_space(end + 1, block)?;
                    let (value, after) = self.flow_item(v, block)?;
                    let key = Node {
                        kind: NodeKind::Scalar {
                            value: key,
                            plain: true,
                        },
                        line: key_line,
                    };
                    entries.push((key, value));
                    j = after;
                } else {
                    let (item, after) = self.flow_item(j, block)?;
                    items.push(item);
                    j = after;
                }
                j = self.flow_space(j, block)?;
                match self.at(j)? {
                    b',' => {
                        j = self.flow_space(j + 1, block)?;
                        if is_flow(self.at(j)?) && !matches!(self.s[j], b'[' | b'{') {
                            // `[a, ]`, `[a, , b]`: yaml-rust2's.
                            return None;
                        }
                    }
                    c if c == close => {
                        j += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        self.depth -= 1;
        let kind = if map {
            NodeKind::Map(entries)
        } else {
            NodeKind::Seq(items)
        };
        Some((Node { kind, line }, j))
    }

    /// One item of a flow collection at `i` (a scalar or a nested collection).
    fn flow_item(&mut self, i: usize, block: isize) -> Option<(Node<'a>, usize)> {
        let line = self.line;
        match self.at(i)? {
            b'[' | b'{' => self.flow_node(i, block),
            b'\'' | b'"' => {
                let (value, end) = self.quoted(i)?;
                let kind = NodeKind::Scalar {
                    value,
                    plain: false,
                };
                Some((Node { kind, line }, end))
            }
            _ => {
                let (value, end) = self.flow_plain(i)?;
                // In a list, `a: b` would be a one-entry map: yaml-rust2's.
                if self.at(end) == Some(b':') {
                    return None;
                }
                let kind = NodeKind::Scalar { value, plain: true };
                Some((Node { kind, line }, end))
            }
        }
    }

    /// A one-line plain scalar in a flow collection at `i`: its text (trailing spaces cut)
    /// and the offset where it stops (a flow indicator or `:` ending it, or the spaces
    /// before a comment).
    fn flow_plain(&self, i: usize) -> Option<(Cow<'a, str>, usize)> {
        let first = self.at(i)?;
        if !starts_plain(first, self.at(i + 1), true) {
            return None;
        }
        let mut j = i;
        loop {
            match self.at(j)? {
                b'\n' => return None,
                b':' if is_blank(self.at(j + 1)) || self.at(j + 1).is_some_and(is_flow) => break,
                c if is_flow(c) => break,
                b'#' if self.s[j - 1] == b' ' => return None,
                _ => j += 1,
            }
        }
        let text = self.text[i..j].trim_end_matches(' ');
        if text.is_empty() {
            return None;
        }
        Some((Cow::Borrowed(text), i + text.len()))
    }
}

/// Whether a plain scalar may start with `c` (followed by `next`) here: not an indicator
/// (`-`, `?` and `:` only before a non-blank character, and `-` not before a flow indicator
/// in a flow collection).
fn starts_plain(c: u8, next: Option<u8>, flow: bool) -> bool {
    match c {
        b'-' => !(is_blank(next) || (flow && next.is_some_and(is_flow))),
        b'?' | b':' => false,
        b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
        | b'"' | b'%' | b'@' | b'`' | b' ' => false,
        c => c >= b' ',
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::reader::read_events;

    /// Checks that where the fast reader reads `text`, it gives yaml-rust2's tree; returns
    /// whether it read it.
    fn agrees(text: &str) -> bool {
        let Some(fast) = read(text) else {
            return false;
        };
        match read_events(text) {
            Ok(slow) => assert_eq!(fast, slow, "trees differ for:\n{text}"),
            Err(e) => panic!("the fast reader accepts what yaml-rust2 rejects ({e:?}):\n{text}"),
        }
        true
    }

    #[test]
    fn paddle_shapes_are_read_fast_and_alike() {
        let read_fast = [
            "",
            "# only a comment\n\n",
            "- op : a\n  output :\n  infer_meta :\n    func : F\n- op : b\n  output :\n\n# c\n- op : c\n  o :\n",
            "a :\nb :\n  c :\n",
            "- op : a\n  args : (x, str s =\n    \"\")\n  f : (x,\n    - y, [z], {w}, 'v', &u, !t, |s, >r, %q, @p, ? o)\n",
            "- op : abs\n  args : (Tensor x)\n  output : Tensor(out)\n  infer_meta :\n    func : F\n    param: [x]\n  kernel :\n    func : abs\n    data_type : x\n  inplace: (x -> out)\n",
            "- op : a # c\n  args : (Tensor x, str s = \"NCHW\", int n = (2 << 12) - 1)\n",
            "- op : a\n  args : (Tensor x,\n    Tensor y, str g = \"sigmoid\",\n      int z)\n  output : Tensor(out)\n",
            "- op : a\n  inputs :\n    {x : X, y : Y}\n  outputs : {out : Out}\n",
            "- op : a\n  extra :\n    attrs : [bool a = false, 'float[] s = {1.0f}', str b = \"\" , float c = 1.0f,\n             'str[] e = {}']\n",
            "- op : a\n  attrs : ['it''s', \"q\"]\n  m : {}\n  l : []\n",
            "- op : a\n  backend : place > output\n  data_type : dtype > x\n  n : -1\n  u : paddle::dialect::X\n",
            "- op : a\n  x : [[a, b], {c : d}]\n\n\n- op : b\n",
            "a : 1\nb :\n  - x\n  - y : 2\n    z : 3\n  - [p]\nc : d\n",
            "- a\n- b c\n  d\n- 'q'\n",
            "plain\n  continued\n",
            "- op : a   \n  args : (x)   # trailing\n",
            "- op : a\n  v : a#b\n  w : x:y\n",
        ];
        for text in read_fast {
            assert!(agrees(text), "not read fast:\n{text}");
        }
    }

    #[test]
    fn everything_else_is_left_to_yaml_rust2() {
        let left = [
            "- &x op : a\n",                      // anchor
            "- op : !t a\n",                      // tag
            "- op : a\n  doc : |\n    text\n",    // block scalar
            "- op : a\n\targs : x\n",             // tab
            "- op : \"a\\n\"\n",                  // escape
            "---\n- op : a\n",                    // document marker
            "- op : a\n  args : (x,\n\n    y)\n", // blank line in a scalar
            "key :\n- a\n- b\n",                  // indentless list
            "- op : a\n  args : [a, b,]\n",       // trailing comma
            "- op : a\n  args : [a : b]\n",       // pair in a list
            "- op : a\n  args : [unclosed\n",     // syntax error
            "- op : a\n    b : c\n",              // bad indentation
            "- op : a\n  args : x: y\n",          // `: ` in a value
            "- op : a\n  k : {a}\n",              // key without value
            "- op : 'a\n  b'\n",                  // multi-line quote
            "- op : a\n  - b\n",                  // list under a map line
            "- - a\n",                            // nested compact list
            "- op : \u{e9}\n",                    // non-ASCII
            "\u{feff}- op : a\n",                 // byte order mark
            "- op : a\r\n",                       // carriage return
        ];
        for text in left {
            assert!(read(text).is_none(), "read fast:\n{text}");
        }
        let deep = "- ".repeat(100_000);
        assert!(read(&deep).is_none());
        let flow = "[".repeat(100_000);
        assert!(read(&flow).is_none());
    }

    /// Every yaml file of the repository's `ops-yaml/` and of `$PIR_PADDLE_YAML` gives the
    /// same tree from both readers; Paddle's own files are all read fast.
    #[test]
    fn real_files_agree() {
        let mut files = Vec::new();
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ops-yaml");
        collect_yaml(&repo, &mut files);
        let paddle = std::env::var_os("PIR_PADDLE_YAML").map(std::path::PathBuf::from);
        match &paddle {
            Some(dir) => collect_yaml(dir, &mut files),
            None => eprintln!("PIR_PADDLE_YAML not set: only the repository's yaml is checked"),
        }
        assert!(!files.is_empty());
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap();
            let fast = agrees(&text);
            if paddle.as_ref().is_some_and(|d| f.starts_with(d)) {
                assert!(fast, "{} is not read fast", f.display());
            }
        }
    }

    fn collect_yaml(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                collect_yaml(&p, out);
            } else if p.extension().is_some_and(|x| x == "yaml") {
                out.push(p);
            }
        }
    }
}
