//! Attributes (`"AT"`): `{"#":TAG,"D":DATA}`.
//!
//! | tag | `D` | attribute | printed |
//! |---|---|---|---|
//! | `0.a_bool` | `true` | `pir::BoolAttribute` | `true` |
//! | `0.a_i32`, `0.a_i64`, `0.a_index` | `-1` | Int32 / Int64 / Index | `-1` |
//! | `0.a_f32`, `0.a_f64` | `0.8999999761581421` (or `"VD":"NaN"`, `"INF"`, `"-INF"`) | Float / Double | `0.9` |
//! | `0.a_c64`, `0.a_c128` | `[re, im]` (pir-rs: a non-finite part as `"NaN"`, `"INF"`, `"-INF"`, where Paddle writes `null`) | Complex64 / Complex128 | `real:1 imag:0` |
//! | `0.a_str` | `"NCHW"` | `pir::StrAttribute` | `"NCHW"` |
//! | `0.a_array` | `[ATTR,...]` | `pir::ArrayAttribute` | `[1,1]` |
//! | `0.a_type` | `TYPE` | `pir::TypeAttribute` | `tensor<2xf32>` |
//! | `1.a_intarray` | `[-1,4]` | IntArray | `[-1,4]` |
//! | `1.a_dtype` | `"float32"` | DataType | `float32` |
//! | `1.a_place` | `[1,0,""]` (allocation type, device id, custom device type) | Place | `Place(cpu)` |
//! | `1.a_layout` | `"NCHW"` | DataLayout (Paddle writes it, its reader does not read it) | `NCHW` |
//! | `1.a_scalar` | `["float32", 1.5]` | read only: becomes the builtin number it holds, as in Paddle | `1.5` |
//!
//! pir-rs extension: a dictionary attribute, which Paddle's format cannot express, is written
//! `{"#":"pir_rs.a_dict","D":[{"AT":ATTR,"N":name},...]}` and read back.
//!
//! ```
//! use pir_json::attributes::{attribute_from_json, attribute_to_json};
//! let ctx = pir_runtime::IrContext::new();
//! let a = attribute_from_json(&ctx, r##"{"#":"0.a_f32","D":0.8999999761581421}"##).unwrap();
//! assert_eq!(a, ctx.f32_attr(0.9));
//! assert_eq!(a.display(&ctx).to_string(), "0.9");
//! assert_eq!(attribute_to_json(&ctx, ctx.place_attr(pir_runtime::phi::Place::cpu())),
//!            r##"{"#":"1.a_place","D":[1,0,""]}"##);
//! ```

use pir_runtime::attributes::AttrKey;
use pir_runtime::phi::{AllocationType, DataLayout, DataType, Place};
use pir_runtime::{AttrData, Attribute, IrContext};

use crate::emit::{dump, J};
use crate::error::JsonError;
use crate::node::Node;
use crate::schema::{ATTR, DATA, ID, NAME, NULL, VOID_DATA};
use crate::types::{read_type, write_type};

/// The tag of the dictionary extension.
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// let d = ctx.dict_attr(&[("k", ctx.bool_attr(true))]);
/// let json = pir_json::attributes::attribute_to_json(&ctx, d);
/// assert!(json.starts_with(&format!(r##"{{"#":"{}""##, pir_json::attributes::DICT_TAG)));
/// assert_eq!(pir_json::attributes::attribute_from_json(&ctx, &json).unwrap(), d);
/// ```
pub const DICT_TAG: &str = "pir_rs.a_dict";

/// Reads an attribute from its JSON text (`{"#":"0.a_i32","D":1}`).
///
/// # Errors
///
/// [`JsonError`] for invalid JSON, an unknown tag, or data of the wrong shape.
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// let a = pir_json::attributes::attribute_from_json(&ctx, r##"{"#":"1.a_intarray","D":[-1,4]}"##).unwrap();
/// assert_eq!(a, ctx.int_array_attr(&[-1, 4]));
/// let e = pir_json::attributes::attribute_from_json(&ctx, r##"{"#":"0.a_i32","D":"1"}"##).unwrap_err();
/// assert_eq!(e.to_string(), r##"at $.D: expected a 32-bit integer, found a string "1""##);
/// ```
pub fn attribute_from_json(ctx: &IrContext, json: &str) -> Result<Attribute, JsonError> {
    let v = crate::node::parse(json)?;
    read_attr(ctx, &Node::root(&v))
}

/// Writes an attribute as one line of JSON, as Paddle writes it.
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// let strides = ctx.array_attr(&[ctx.i32_attr(1), ctx.i32_attr(1)]);
/// assert_eq!(pir_json::attributes::attribute_to_json(&ctx, strides),
///            r##"{"#":"0.a_array","D":[{"#":"0.a_i32","D":1},{"#":"0.a_i32","D":1}]}"##);
/// ```
pub fn attribute_to_json(ctx: &IrContext, attr: Attribute) -> String {
    dump(&write_attr(ctx, attr), None)
}

/// Reads an attribute object.
pub(crate) fn read_attr(ctx: &IrContext, n: &Node<'_, '_>) -> Result<Attribute, JsonError> {
    let tag_node = n.key(ID, "the attribute's tag")?;
    let tag = tag_node.str("an attribute tag string such as \"0.a_i32\"")?;
    let data = || n.key(DATA, "the attribute's value");
    Ok(match tag {
        "0.a_bool" => ctx.bool_attr(data()?.bool("a bool")?),
        "0.a_i32" => ctx.i32_attr(data()?.i32("a 32-bit integer")?),
        "0.a_i64" => ctx.i64_attr(data()?.i64("a 64-bit integer")?),
        "0.a_index" => ctx.index_attr(data()?.i64("a 64-bit integer")?),
        // Paddle keeps a float's value as a double in the file; narrowing gives it back.
        "0.a_f32" => ctx.f32_attr(read_float(n)? as f32),
        "0.a_f64" => ctx.f64_attr(read_float(n)?),
        "0.a_str" => ctx.str_attr(data()?.str("a string")?),
        "0.a_array" => {
            let d = data()?;
            let mut items = Vec::new();
            for e in d.elements("an array of attribute objects")? {
                items.push(read_attr(ctx, &e)?);
            }
            ctx.array_attr(&items)
        }
        "0.a_type" => {
            let d = data()?;
            match read_type(ctx, &d)? {
                Some(t) => ctx.type_attr(t),
                None => return Err(d.unsupported("a type attribute holding the null type")),
            }
        }
        "0.a_c64" => {
            let (re, im) = read_complex(&data()?)?;
            ctx.intern_attr(AttrKey::Complex64(re as f32, im as f32))
        }
        "0.a_c128" => {
            let (re, im) = read_complex(&data()?)?;
            ctx.intern_attr(AttrKey::Complex128(re, im))
        }
        "1.a_intarray" => {
            let d = data()?;
            let mut v = Vec::new();
            for e in d.elements("an array of integers")? {
                v.push(e.i64("a 64-bit integer")?);
            }
            ctx.int_array_attr(&v)
        }
        "1.a_dtype" => {
            let d = data()?;
            let expected = "a data type name such as \"float32\"";
            let dt = dtype_from_json(d.str(expected)?).ok_or_else(|| d.unexpected(expected))?;
            ctx.dtype_attr(dt)
        }
        "1.a_layout" => {
            let d = data()?;
            let expected = "a data layout name such as \"NCHW\"";
            let l =
                DataLayout::from_name(d.str(expected)?).ok_or_else(|| d.unexpected(expected))?;
            ctx.layout_attr(l)
        }
        "1.a_place" => ctx.place_attr(read_place(&data()?)?),
        "1.a_scalar" => read_scalar(ctx, &data()?)?,
        DICT_TAG => {
            let d = data()?;
            let mut entries: Vec<(&str, Attribute)> = Vec::new();
            for e in d.elements("an array of {\"N\": name, \"AT\": attribute} objects")? {
                let name = e.key(NAME, "the entry's name")?.str("a string")?;
                let value = read_attr(ctx, &e.key(ATTR, "the entry's attribute")?)?;
                entries.push((name, value));
            }
            ctx.dict_attr(&entries)
        }
        NULL => return Err(n.unsupported("a null attribute (`{\"#\":\"NULL\"}`)")),
        "0.a_tensorname" | "0.a_pointer" => {
            return Err(tag_node.unsupported(format!("the attribute kind `{tag}`")))
        }
        t if t.starts_with("4.") => {
            return Err(tag_node.unsupported(format!("the distributed attribute `{tag}`")))
        }
        _ => {
            return Err(JsonError::UnknownTag {
                location: tag_node.location(),
                kind: "attribute",
                tag: tag.to_string(),
            })
        }
    })
}

/// `D` as a number, or `VD` as `"NaN"`, `"INF"` or `"-INF"`.
fn read_float(n: &Node<'_, '_>) -> Result<f64, JsonError> {
    if let Some(vd) = n.opt_key(VOID_DATA, "a non-finite value")? {
        let expected = "\"NaN\", \"INF\" or \"-INF\"";
        return match vd.str(expected)? {
            // Paddle writes `NaN`; its reader compares with `NAN`.
            "NaN" | "NAN" | "nan" => Ok(f64::NAN),
            "INF" => Ok(f64::INFINITY),
            "-INF" => Ok(f64::NEG_INFINITY),
            _ => Err(vd.unexpected(expected)),
        };
    }
    n.key(DATA, "the attribute's value")?.f64("a number")
}

fn read_complex(d: &Node<'_, '_>) -> Result<(f64, f64), JsonError> {
    let expected = "an array of 2 numbers [real, imag]";
    let parts = d.exact_elements(2, expected)?;
    match (parts.at(0), parts.at(1)) {
        (Some(re), Some(im)) => Ok((complex_part(&re)?, complex_part(&im)?)),
        _ => Err(d.unexpected(expected)),
    }
}

/// A number, or (pir-rs extension, where Paddle would write `null`) `"NaN"`, `"INF"`, `"-INF"`.
fn complex_part(n: &Node<'_, '_>) -> Result<f64, JsonError> {
    let expected = "a number (or \"NaN\", \"INF\", \"-INF\")";
    match n.value.as_str() {
        Some(s) => match s {
            "NaN" | "NAN" | "nan" => Ok(f64::NAN),
            "INF" => Ok(f64::INFINITY),
            "-INF" => Ok(f64::NEG_INFINITY),
            _ => Err(n.unexpected(expected)),
        },
        _ => n.f64(expected),
    }
}

fn non_finite_name(v: f64) -> &'static str {
    if v.is_nan() {
        "NaN"
    } else if v > 0.0 {
        "INF"
    } else {
        "-INF"
    }
}

/// A complex part: a number, or its `VD` spelling when not finite.
fn complex_part_j(v: f64) -> J {
    if v.is_finite() {
        J::Float(v)
    } else {
        J::str(non_finite_name(v))
    }
}

fn read_place(d: &Node<'_, '_>) -> Result<Place, JsonError> {
    let expected = "an array of 3 elements [allocation type, device id, custom device type]";
    let parts = d.exact_elements(3, expected)?;
    let (Some(kind), Some(device), Some(dev_type)) = (parts.at(0), parts.at(1), parts.at(2)) else {
        return Err(d.unexpected(expected));
    };
    let kind_expected =
        "an allocation type: 0 undefined, 1 cpu, 2 gpu, 3 gpu_pinned, 4 xpu, 7 ipu, 9 custom";
    let kind = match kind.i64(kind_expected)? {
        0 => AllocationType::Undefined,
        1 => AllocationType::Cpu,
        2 => AllocationType::Gpu,
        3 => AllocationType::GpuPinned,
        4 => AllocationType::Xpu,
        7 => AllocationType::Ipu,
        9 => AllocationType::Custom,
        5 | 6 | 8 => return Err(kind.unsupported(format!("the allocation type {}", kind.value))),
        _ => return Err(kind.unexpected(kind_expected)),
    };
    let device = device.i8("a device id (an 8-bit integer)")?;
    if !dev_type.str("a custom device type string")?.is_empty() {
        return Err(dev_type.unsupported("a place with a custom device type"));
    }
    Ok(Place { kind, device })
}

/// `1.a_scalar`: `[dtype, value]` (`[dtype, real, imag]` for complex). As in Paddle, the scalar
/// becomes the builtin attribute of its type.
fn read_scalar(ctx: &IrContext, d: &Node<'_, '_>) -> Result<Attribute, JsonError> {
    let expected = "an array [dtype name, value] (complex: [dtype name, real, imag])";
    let parts = d.elements(expected)?;
    let (Some(dtype), Some(v)) = (parts.at(0), parts.at(1)) else {
        return Err(d.unexpected(expected));
    };
    let dt_expected = "a data type name such as \"float32\"";
    let dt = DataType::from_name(dtype.str(dt_expected)?)
        .ok_or_else(|| dtype.unexpected(dt_expected))?;
    Ok(match dt {
        DataType::Float32 => ctx.f32_attr(v.f64("a number")? as f32),
        DataType::Float64 => ctx.f64_attr(v.f64("a number")?),
        DataType::Int32 => ctx.i32_attr(v.i32("a 32-bit integer")?),
        DataType::Int64 => ctx.i64_attr(v.i64("a 64-bit integer")?),
        DataType::Bool => ctx.bool_attr(v.bool("a bool")?),
        DataType::Complex64 | DataType::Complex128 => {
            let Some(im) = parts.at(2) else {
                return Err(d.unexpected(expected));
            };
            let (re, im) = (complex_part(&v)?, complex_part(&im)?);
            if dt == DataType::Complex64 {
                ctx.intern_attr(AttrKey::Complex64(re as f32, im as f32))
            } else {
                ctx.intern_attr(AttrKey::Complex128(re, im))
            }
        }
        other => {
            return Err(dtype.unsupported(format!(
                "a scalar attribute of dtype {} (it has no IR attribute)",
                other.name()
            )))
        }
    })
}

fn float_j(tag: &str, v: f64) -> J {
    if v.is_finite() {
        J::obj(vec![(ID, J::str(tag)), (DATA, J::Float(v))])
    } else {
        J::obj(vec![
            (ID, J::str(tag)),
            (VOID_DATA, J::str(non_finite_name(v))),
        ])
    }
}

/// Writes an attribute as Paddle's `writeAttr` does.
pub(crate) fn write_attr(ctx: &IrContext, a: Attribute) -> J {
    let tagged = |tag: &str, data: J| J::obj(vec![(ID, J::str(tag)), (DATA, data)]);
    match ctx.attr_data(a) {
        AttrData::Bool(b) => tagged("0.a_bool", J::Bool(*b)),
        AttrData::Int32(v) => tagged("0.a_i32", J::Int(i64::from(*v))),
        AttrData::Int64(v) => tagged("0.a_i64", J::Int(*v)),
        AttrData::Index(v) => tagged("0.a_index", J::Int(*v)),
        AttrData::Float(v) => float_j("0.a_f32", f64::from(*v)),
        AttrData::Double(v) => float_j("0.a_f64", *v),
        AttrData::Complex64(re, im) => tagged(
            "0.a_c64",
            J::Arr(vec![
                complex_part_j(f64::from(*re)),
                complex_part_j(f64::from(*im)),
            ]),
        ),
        AttrData::Complex128(re, im) => tagged(
            "0.a_c128",
            J::Arr(vec![complex_part_j(*re), complex_part_j(*im)]),
        ),
        AttrData::Str(s) => tagged("0.a_str", J::str(s)),
        AttrData::Array(items) => tagged(
            "0.a_array",
            J::Arr(items.iter().map(|&i| write_attr(ctx, i)).collect()),
        ),
        AttrData::Type(t) => tagged("0.a_type", write_type(ctx, Some(*t))),
        AttrData::IntArray(v) => tagged(
            "1.a_intarray",
            J::Arr(v.iter().map(|&x| J::Int(x)).collect()),
        ),
        AttrData::DataType(d) => tagged("1.a_dtype", J::str(dtype_to_json(*d))),
        AttrData::DataLayout(l) => tagged("1.a_layout", J::str(l.name())),
        AttrData::Place(p) => tagged(
            "1.a_place",
            J::Arr(vec![
                J::Int(i64::from(p.kind as u8)),
                J::Int(i64::from(p.device)),
                J::str(""),
            ]),
        ),
        AttrData::Dict(entries) => tagged(
            DICT_TAG,
            J::Arr(
                entries
                    .iter()
                    .map(|(n, v)| J::obj(vec![(NAME, J::str(n)), (ATTR, write_attr(ctx, *v))]))
                    .collect(),
            ),
        ),
    }
}

/// How Paddle's JSON spells the undefined data type (`phi::DataTypeToString`): the text format
/// prints `Undefined`, the JSON writes `Undefined(ALL_DTYPE)`.
const UNDEFINED_DTYPE: &str = "Undefined(ALL_DTYPE)";

/// A data type as Paddle's JSON writes it.
fn dtype_from_json(name: &str) -> Option<DataType> {
    if name == UNDEFINED_DTYPE {
        return Some(DataType::Undefined);
    }
    DataType::from_name(name)
}

/// A data type's JSON spelling.
fn dtype_to_json(d: DataType) -> &'static str {
    if d == DataType::Undefined {
        UNDEFINED_DTYPE
    } else {
        d.name()
    }
}
