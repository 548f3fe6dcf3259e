//! The format's dialect ids and version (Paddle's `schema.h` / `schema.cc`); its key names are
//! listed here for reference.
//!
//! ```
//! use pir_json::schema::{compress_dialect, decompress_dialect};
//! assert_eq!(compress_dialect("pd_op"), "1");
//! assert_eq!(decompress_dialect("0"), Some("builtin"));
//! assert_eq!(compress_dialect("toy"), "toy"); // unknown dialects keep their name, as in Paddle
//! ```

/// The serialization version Paddle 3.3.1 writes (`base_code.version`), and the newest this
/// crate reads.
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// let json = pir_json::write_program(&pir_runtime::Program::new(&ctx));
/// assert!(json.contains(&format!("\"version\":{}", pir_json::PIR_VERSION)));
/// ```
pub const PIR_VERSION: u64 = 4;

/// `base_code.magic`.
pub(crate) const MAGIC: &str = "pir";

/// Identifier of a region, block, op, type or attribute; a block argument's value id.
pub(crate) const ID: &str = "#";
/// A value id in an operand or result.
pub(crate) const VALUE_ID: &str = "%";
/// The regions of the program or of an op.
pub(crate) const REGIONS: &str = "regions";
/// The blocks of a region.
pub(crate) const BLOCKS: &str = "blocks";
/// The arguments of a block.
pub(crate) const BLOCK_ARGS: &str = "args";
/// The keyword arguments of a block.
pub(crate) const KEYWORD_BLOCK_ARGS: &str = "kwargs";
/// The ops of a block.
pub(crate) const BLOCK_OPS: &str = "ops";
/// An op's operands.
pub(crate) const OPERANDS: &str = "I";
/// An op's results.
pub(crate) const RESULTS: &str = "O";
/// An op's attributes (its yaml attributes, then `op_dist_attr`, `op_role`, `struct_name`).
pub(crate) const ATTRS: &str = "A";
/// An op's `stop_gradient` / `persistable` attributes.
pub(crate) const RESULT_ATTRS: &str = "OA";
/// The compressed parameter op's dist attributes.
pub(crate) const DIST_ATTRS: &str = "DA";
/// The compressed parameter op's quant attributes.
pub(crate) const QUANT_ATTRS: &str = "QA";
/// A value's type.
pub(crate) const TYPE: &str = "TT";
/// An attribute's name.
pub(crate) const NAME: &str = "N";
/// An attribute's value.
pub(crate) const ATTR: &str = "AT";
/// The contents of a type or attribute.
pub(crate) const DATA: &str = "D";
/// A non-finite float (`"NaN"`, `"INF"`, `"-INF"`) in place of `D`.
pub(crate) const VOID_DATA: &str = "VD";
/// The null type or attribute.
pub(crate) const NULL: &str = "NULL";
/// The compressed `builtin.parameter` op.
pub(crate) const PARAMETER_OP: &str = "p";

/// Attributes written in an op's `A` after its yaml attributes: Paddle's dist attributes
/// (`GetOpDistAttr`) ...
pub(crate) const DIST_ATTR_NAMES: [&str; 2] = ["op_dist_attr", "op_role"];
/// ... and quant attributes (`GetOpQuantAttr`).
pub(crate) const QUANT_ATTR_NAMES: [&str; 1] = ["struct_name"];

/// Paddle's `DialectIdMap`.
const DIALECT_IDS: [(&str, &str); 7] = [
    ("builtin", "0"),
    ("pd_op", "1"),
    ("cf", "2"),
    ("custom_op", "3"),
    ("pd_dist", "4"),
    ("test", "-1"),
    ("test1", "-2"),
];

/// The id a dialect's name is written as; unknown dialects keep their name (as Paddle does).
///
/// ```
/// assert_eq!(pir_json::schema::compress_dialect("builtin"), "0");
/// assert_eq!(pir_json::schema::compress_dialect("my_dialect"), "my_dialect");
/// ```
pub fn compress_dialect(name: &str) -> &str {
    DIALECT_IDS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(name, |(_, id)| id)
}

/// The dialect name of a dialect id, if it is one of Paddle's.
///
/// ```
/// assert_eq!(pir_json::schema::decompress_dialect("1"), Some("pd_op"));
/// assert_eq!(pir_json::schema::decompress_dialect("5"), None);
/// ```
pub fn decompress_dialect(id: &str) -> Option<&'static str> {
    DIALECT_IDS.iter().find(|(_, i)| *i == id).map(|(n, _)| *n)
}

/// Splits `"1.conv2d"` into `("1", "conv2d")` at the first dot.
pub(crate) fn split_tag(tag: &str) -> Option<(&str, &str)> {
    tag.split_once('.')
}
