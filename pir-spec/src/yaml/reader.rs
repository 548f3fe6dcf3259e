//! A yaml reader that keeps the 1-based line of every node.
//!
//! `yaml-rust2`'s document API (`Yaml`) drops positions, so this builds a small tree from the
//! parser's marked events instead. Anchors, aliases and tags are not used by Paddle's yaml and are
//! rejected, so every value has exactly one place in the file.

use std::borrow::Cow;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};

/// Deepest nesting accepted (Paddle's files use 4 levels).
const MAX_DEPTH: usize = 64;
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// One yaml node with the line it starts on. Scalars borrow the text where they can (the
/// fast reader's plain one-line scalars).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node<'t> {
    pub(crate) kind: NodeKind<'t>,
    /// 1-based line.
    pub(crate) line: u32,
}

/// The shape of a node.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum NodeKind<'t> {
    /// A scalar; `plain` is false for quoted and block scalars.
    Scalar { value: Cow<'t, str>, plain: bool },
    /// A sequence.
    Seq(Vec<Node<'t>>),
    /// A mapping, keys in file order (keys are scalars).
    Map(Vec<(Node<'t>, Node<'t>)>),
}

impl Node<'_> {
    /// The text of a scalar.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar { value, .. } => Some(value),
            _ => None,
        }
    }

    /// Whether this is `~`, `null` or an empty plain scalar.
    pub(crate) fn is_null(&self) -> bool {
        matches!(&self.kind, NodeKind::Scalar { value, plain: true }
            if value.is_empty() || value == "~" || value == "null" || value == "Null" || value == "NULL")
    }

    /// A short description of the node's shape for messages.
    pub(crate) fn shape(&self) -> &'static str {
        match &self.kind {
            NodeKind::Scalar { .. } if self.is_null() => "nothing",
            NodeKind::Scalar { .. } => "a scalar",
            NodeKind::Seq(_) => "a list",
            NodeKind::Map(_) => "a map",
        }
    }
}

/// A yaml syntax problem at a line.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ReadError {
    pub(crate) line: u32,
    pub(crate) message: String,
}

fn line_of(mark: &Marker) -> u32 {
    u32::try_from(mark.line()).unwrap_or(u32::MAX).max(1)
}

enum Frame {
    Seq(Node<'static>),
    Map(Node<'static>, Option<Node<'static>>),
}

struct Builder {
    stack: Vec<Frame>,
    docs: Vec<Node<'static>>,
    error: Option<ReadError>,
}

impl Builder {
    fn fail(&mut self, line: u32, message: impl Into<String>) {
        if self.error.is_none() {
            self.error = Some(ReadError {
                line,
                message: message.into(),
            });
        }
    }

    fn finish(&mut self, node: Node<'static>) {
        match self.stack.last_mut() {
            None => self.docs.push(node),
            Some(Frame::Seq(seq)) => {
                if let NodeKind::Seq(items) = &mut seq.kind {
                    items.push(node);
                }
            }
            Some(Frame::Map(map, pending)) => match pending.take() {
                None => {
                    if !matches!(node.kind, NodeKind::Scalar { .. }) {
                        let line = node.line;
                        self.fail(line, "a map key must be a plain name, not a list or map");
                        return;
                    }
                    *pending = Some(node);
                }
                Some(key) => {
                    if let NodeKind::Map(entries) = &mut map.kind {
                        entries.push((key, node));
                    }
                }
            },
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        let line = line_of(&mark);
        match ev {
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart
            | Event::DocumentEnd => {}
            Event::Alias(_) => self.fail(line, "yaml aliases (`*name`) are not supported"),
            Event::Scalar(value, style, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    self.fail(line, "yaml anchors and tags are not supported");
                    return;
                }
                let plain = style == TScalarStyle::Plain;
                self.finish(Node {
                    kind: NodeKind::Scalar {
                        value: Cow::Owned(value),
                        plain,
                    },
                    line,
                });
            }
            Event::SequenceStart(anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    self.fail(line, "yaml anchors and tags are not supported");
                    return;
                }
                self.stack.push(Frame::Seq(Node {
                    kind: NodeKind::Seq(Vec::new()),
                    line,
                }));
            }
            Event::MappingStart(anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    self.fail(line, "yaml anchors and tags are not supported");
                    return;
                }
                self.stack.push(Frame::Map(
                    Node {
                        kind: NodeKind::Map(Vec::new()),
                        line,
                    },
                    None,
                ));
            }
            Event::SequenceEnd | Event::MappingEnd => match self.stack.pop() {
                Some(Frame::Seq(node)) | Some(Frame::Map(node, None)) => self.finish(node),
                Some(Frame::Map(_, Some(key))) => {
                    self.fail(key.line, "map key without a value");
                }
                None => self.fail(line, "unbalanced yaml structure"),
            },
        }
    }
}

/// Parses one yaml document. An empty document is `None`.
///
/// Paddle's yaml is read by [`super::fast`]; whatever it leaves alone (every syntax error
/// among it) by yaml-rust2 ([`read_events`]), which gives the same tree for what both read.
pub(crate) fn read(text: &str) -> Result<Option<Node<'_>>, ReadError> {
    match super::fast::read(text) {
        Some(doc) => Ok(doc),
        None => read_events(text),
    }
}

/// [`read`] through yaml-rust2's parser events.
pub(crate) fn read_events(text: &str) -> Result<Option<Node<'static>>, ReadError> {
    let mut builder = Builder {
        stack: Vec::new(),
        docs: Vec::new(),
        error: None,
    };
    // Pull events one at a time (the parser's `load` recurses per nesting level, which a
    // hostile file could use to overflow the stack) and stop at the first problem.
    let mut parser = Parser::new_from_str(text);
    loop {
        let (ev, mark) = parser.next_token().map_err(|e| ReadError {
            line: line_of(e.marker()),
            message: format!("invalid yaml: {}", e.info()),
        })?;
        let end = ev == Event::StreamEnd;
        builder.on_event(ev, mark);
        if let Some(err) = builder.error.take() {
            return Err(err);
        }
        if builder.stack.len() > MAX_DEPTH {
            return Err(ReadError {
                line: line_of(&mark),
                message: format!("yaml nested more than {MAX_DEPTH} levels deep"),
            });
        }
        if end {
            break;
        }
    }
    let mut docs = builder.docs.into_iter();
    let first = docs.next();
    if let Some(second) = docs.next() {
        return Err(ReadError {
            line: second.line,
            message: "expected one yaml document, found several (`---`)".into(),
        });
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar<'a>(n: &'a Node<'_>) -> &'a str {
        n.as_str().unwrap()
    }

    #[test]
    fn keeps_lines_of_entries_and_keys() {
        let text =
            "# comment\n\n- op : abs\n  args : (Tensor x)\n  kernel :\n    func : abs\n- op : b\n";
        let doc = read(text).unwrap().unwrap();
        let NodeKind::Seq(items) = &doc.kind else {
            panic!("not a seq")
        };
        assert_eq!(items.len(), 2);
        let NodeKind::Map(entries) = &items[0].kind else {
            panic!("not a map")
        };
        assert_eq!(entries[0].0.line, 3);
        assert_eq!(scalar(&entries[0].1), "abs");
        assert_eq!(entries[1].0.line, 4);
        assert_eq!(entries[2].0.line, 5);
        let NodeKind::Map(kernel) = &entries[2].1.kind else {
            panic!("kernel not a map")
        };
        assert_eq!(kernel[0].0.line, 6);
        let NodeKind::Map(second) = &items[1].kind else {
            panic!()
        };
        assert_eq!(second[0].0.line, 7);
    }

    #[test]
    fn flow_collections_and_multiline_scalars() {
        let text = "- op : a\n  inputs :\n    {x : X, y : Y}\n  extra :\n    attrs : [bool a = false, str b = \"x\"]\n  args : (Tensor x,\n    int y)\n";
        let doc = read(text).unwrap().unwrap();
        let NodeKind::Seq(items) = &doc.kind else {
            panic!()
        };
        let NodeKind::Map(entries) = &items[0].kind else {
            panic!()
        };
        let NodeKind::Map(inputs) = &entries[1].1.kind else {
            panic!()
        };
        assert_eq!(inputs.len(), 2);
        let NodeKind::Map(extra) = &entries[2].1.kind else {
            panic!()
        };
        let NodeKind::Seq(attrs) = &extra[0].1.kind else {
            panic!()
        };
        assert_eq!(scalar(&attrs[1]), "str b = \"x\"");
        assert_eq!(scalar(&entries[3].1), "(Tensor x, int y)");
        assert_eq!(entries[3].0.line, 6);
    }

    #[test]
    fn syntax_errors_have_a_line() {
        let err = read("- op : a\n  args : [unclosed\n").unwrap_err();
        assert!(err.line >= 2, "{err:?}");
        let err = read("- &a op : x\n").unwrap_err();
        assert_eq!(err.line, 1);
        // Deep nesting is an error, not a stack overflow.
        let err = read(&"- ".repeat(1_000_000)).unwrap_err();
        assert!(err.message.contains("levels deep"), "{err:?}");
        let err = read(&"[".repeat(1_000_000)).unwrap_err();
        assert_eq!(err.line, 1);
        assert!(read("").unwrap().is_none());
    }

    #[test]
    fn null_values() {
        let doc = read("a :\nb : ~\nc : ''\n").unwrap().unwrap();
        let NodeKind::Map(entries) = &doc.kind else {
            panic!()
        };
        assert!(entries[0].1.is_null());
        assert!(entries[1].1.is_null());
        assert!(!entries[2].1.is_null());
    }
}
