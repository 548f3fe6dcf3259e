// Keyword and colliding field names, doc comments, attributes kept on the handle, a unit struct.
#![deny(missing_docs)]
//! Crate docs.
use pir_macros::pir_op;

/// An op whose names need care.
///
/// Second paragraph.
#[pir_op(name = "test.odd_names")]
#[allow(clippy::all)]
pub struct OddNamesOp {
    /// A keyword name.
    #[input]
    r#type: DenseTensor,
    /// Named like a generated method.
    #[input]
    build: DenseTensor,
    #[attr(default = 1)]
    r#in: i32,
    #[output]
    r#out: DenseTensor,
}

/// An op with nothing.
#[pir_op(name = "test.nop", traits(SideEffect))]
pub struct NopOp;

fn main() {
    let s = OddNamesOp::schema();
    let names: Vec<&str> = s.inputs.iter().map(|i| &*i.name).collect();
    assert_eq!(names, ["type", "build"]);
    assert_eq!(&*s.attributes[0].name, "in");
    assert_eq!(s.doc, "An op whose names need care.\n\nSecond paragraph.");
    assert_eq!(s.inputs[1].doc, "Named like a generated method.");
    let a = OddNamesOpAttrs::default();
    assert_eq!(a.r#in, 1);
    assert!(NopOp::schema().inputs.is_empty());
    let _ = OddNamesOp::build_;
    let _ = OddNamesOp::r#type;
}
