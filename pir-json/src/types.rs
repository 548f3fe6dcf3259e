//! Types (`"TT"`): `{"#":"0.t_f32"}`, `{"#":"0.t_vec","D":[TYPE,...]}`,
//! `{"#":"0.t_dtensor","D":[DTYPE,[dims],"NCHW",[lod],offset]}`, `{"#":"NULL"}`, and the pd_op
//! types `1.t_selected_rows` and `1.t_dense_tensor_array`.
//!
//! | tag | type | printed |
//! |---|---|---|
//! | `0.t_bool` `0.t_f16` `0.t_bf16` `0.t_f32` `0.t_f64` `0.t_i8` `0.t_ui8` `0.t_i16` `0.t_i32` `0.t_i64` `0.t_c64` `0.t_c128` `0.t_f8e4m3fn` `0.t_f8e5m2` | builtin element types | `b` `f16` `bf16` `f32` ... |
//! | `0.t_vec` | `vec[...]` | `vec[tensor<2xf32>,...]` |
//! | `0.t_dtensor` | dense tensor (dtype, dims, layout, LoD, offset) | `tensor<-1x4xf32>` |
//! | `1.t_selected_rows` | selected rows (same data) | `pd_op.selectedrows<...>` |
//! | `1.t_dense_tensor_array` | tensor array (dtype, dims, layout) | `pd_op.tensor_array<f32>` |
//! | `1.t_sparse_coo_tensor` | sparse COO (dtype, dims, non-zero dims, layout, indices, values) | `pd_op.sparsecootensor<4x5xf32>` |
//! | `1.t_sparse_csr_tensor` | sparse CSR (dtype, dims, layout, crows, cols, values) | `pd_op.sparsecsrtensor<3x3xf32>` |
//! | `NULL` | null type | `<<NULL TYPE>>` |
//!
//! pir-rs extensions, written only for what Paddle cannot express (and read back): element types
//! Paddle has no builtin type for (`0.t_ui16`, `0.t_ui32`, `0.t_ui64`, `0.t_pstring`,
//! `0.t_undefined`), and a downstream dialect's type as `{"#":"<dialect>.<name>","D":[ATTR,...]}`
//! with the dialect's *name* (read back when that dialect is registered). Paddle's
//! distributed, control-flow and index types are valid input that pir-rs cannot hold: reading them
//! is a [`JsonError::Unsupported`].
//!
//! ```
//! use pir_json::types::{type_from_json, type_to_json};
//! use pir_runtime::{IrContext, phi::DataType};
//! let ctx = IrContext::new();
//! let json = r##"{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[-1,4],"NCHW",[],0]}"##;
//! let t = type_from_json(&ctx, json).unwrap();
//! assert_eq!(t, Some(ctx.dense_tensor_type(DataType::Float32, &[-1, 4])));
//! assert_eq!(type_to_json(&ctx, t), json);
//! assert_eq!(type_from_json(&ctx, r##"{"#":"NULL"}"##).unwrap(), None);
//! ```

use pir_runtime::phi::{DataLayout, DataType};
use pir_runtime::types::{SparseCooType, SparseCsrType, TensorKey, TypeKey};
use pir_runtime::{IrContext, Type, TypeData};

use crate::attributes::{read_attr, write_attr};
use crate::emit::{dump, J};
use crate::error::JsonError;
use crate::node::Node;
use crate::schema::{decompress_dialect, split_tag, DATA, ID, NULL};

/// Element types: Paddle's builtin type names, then pir-rs's extensions.
const SCALAR_TAGS: [(DataType, &str); 19] = [
    (DataType::Bool, "t_bool"),
    (DataType::Float16, "t_f16"),
    (DataType::BFloat16, "t_bf16"),
    (DataType::Float32, "t_f32"),
    (DataType::Float64, "t_f64"),
    (DataType::Int8, "t_i8"),
    (DataType::UInt8, "t_ui8"),
    (DataType::Int16, "t_i16"),
    (DataType::Int32, "t_i32"),
    (DataType::Int64, "t_i64"),
    (DataType::Complex64, "t_c64"),
    (DataType::Complex128, "t_c128"),
    (DataType::Float8E4M3FN, "t_f8e4m3fn"),
    (DataType::Float8E5M2, "t_f8e5m2"),
    (DataType::Undefined, "t_undefined"),
    (DataType::UInt16, "t_ui16"),
    (DataType::UInt32, "t_ui32"),
    (DataType::UInt64, "t_ui64"),
    (DataType::PString, "t_pstring"),
];

fn scalar_tag(d: DataType) -> &'static str {
    SCALAR_TAGS
        .iter()
        .find(|(t, _)| *t == d)
        .map_or("t_undefined", |(_, n)| n)
}

fn scalar_of_tag(name: &str) -> Option<DataType> {
    SCALAR_TAGS
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(d, _)| *d)
}

/// Reads a type from its JSON text (`{"#":"0.t_f32"}`); `None` is the null type.
///
/// # Errors
///
/// [`JsonError`] for invalid JSON, an unknown tag, or data of the wrong shape.
///
/// ```
/// let ctx = pir_runtime::IrContext::new();
/// let t = pir_json::types::type_from_json(&ctx, r##"{"#":"0.t_vec","D":[{"#":"0.t_i64"}]}"##).unwrap();
/// assert_eq!(t.unwrap().display(&ctx).to_string(), "vec[i64]");
/// assert!(pir_json::types::type_from_json(&ctx, r##"{"#":"0.t_f33"}"##).is_err());
/// ```
pub fn type_from_json(ctx: &IrContext, json: &str) -> Result<Option<Type>, JsonError> {
    let v = crate::node::parse(json)?;
    read_type(ctx, &Node::root(&v))
}

/// Writes a type (`None`: the null type) as one line of JSON, as Paddle writes it.
///
/// ```
/// use pir_runtime::{IrContext, phi::DataType};
/// let ctx = IrContext::new();
/// let t = ctx.scalar_type(DataType::UInt8);
/// assert_eq!(pir_json::types::type_to_json(&ctx, Some(t)), r##"{"#":"0.t_ui8"}"##);
/// assert_eq!(pir_json::types::type_to_json(&ctx, None), r##"{"#":"NULL"}"##);
/// ```
pub fn type_to_json(ctx: &IrContext, ty: Option<Type>) -> String {
    dump(&write_type(ctx, ty), None)
}

/// Reads a type; `None` for `{"#":"NULL"}`.
pub(crate) fn read_type(ctx: &IrContext, n: &Node<'_, '_>) -> Result<Option<Type>, JsonError> {
    let tag_node = n.key(ID, "the type's tag")?;
    let tag = tag_node.str("a type tag string such as \"0.t_f32\"")?;
    if tag == NULL {
        return Ok(None);
    }
    let unknown = || JsonError::UnknownTag {
        location: tag_node.location(),
        kind: "type",
        tag: tag.to_string(),
    };
    let Some((dialect, name)) = split_tag(tag) else {
        return Err(unknown());
    };
    let ty = match (dialect, name) {
        ("0", "t_vec") => {
            let data = n.key(DATA, "the vector's element types")?;
            let mut elems = Vec::new();
            for e in data.elements("an array of element types")? {
                match read_type(ctx, &e)? {
                    Some(t) => elems.push(t),
                    None => return Err(e.unsupported("a null type inside a vector type")),
                }
            }
            ctx.vector_type(&elems)
        }
        ("0", "t_dtensor") => {
            let t = read_tensor(ctx, n)?;
            ctx.intern_type(TypeKey::DenseTensor(t.key()))
        }
        ("1", "t_selected_rows") => {
            let t = read_tensor(ctx, n)?;
            ctx.intern_type(TypeKey::SelectedRows(t.key()))
        }
        ("1", "t_dense_tensor_array") => {
            let data = n.key(DATA, "[dtype, dims, layout]")?;
            let expected = "an array of 3 elements [dtype, dims, layout]";
            let parts = data.exact_elements(3, expected)?;
            let (Some(d), Some(dims), Some(layout)) = (parts.at(0), parts.at(1), parts.at(2))
            else {
                return Err(data.unexpected(expected));
            };
            let dtype = read_element_type(ctx, &d)?;
            let dims = read_dims(&dims)?;
            let layout = read_layout(&layout)?;
            ctx.dense_tensor_array_type(dtype, &dims, layout)
        }
        ("0", "t_index") => return Err(tag_node.unsupported("the index type (`0.t_index`)")),
        ("1", "t_sparse_coo_tensor") => read_sparse_coo(ctx, n)?,
        ("1", "t_sparse_csr_tensor") => read_sparse_csr(ctx, n)?,
        // The cf dialect's types have no data (Paddle's `ReadControlFlowType`).
        ("2", t) => match CF_TYPES.iter().find(|(tag, _)| *tag == t) {
            Some((_, name)) => ctx.intern_type(TypeKey::Custom("cf", name, &[])),
            None => return Err(unknown()),
        },
        ("4", _) => return Err(tag_node.unsupported(format!("the distributed type `{tag}`"))),
        ("0", s) => match scalar_of_tag(s) {
            Some(d) => ctx.scalar_type(d),
            None => return Err(unknown()),
        },
        (d, name) if decompress_dialect(d).is_none() && ctx.has_dialect(d) => {
            // pir-rs extension: a registered downstream dialect's type.
            let mut params = Vec::new();
            if let Some(data) = n.opt_key(DATA, "the type's parameters")? {
                for p in data.elements("an array of attribute objects")? {
                    params.push(read_attr(ctx, &p)?);
                }
            }
            ctx.intern_type(TypeKey::Custom(d, name, &params))
        }
        _ => return Err(unknown()),
    };
    Ok(Some(ty))
}

/// The parts of a dense tensor or selected-rows type.
struct TensorParts {
    dtype: DataType,
    dims: Vec<i64>,
    layout: DataLayout,
    lod: Vec<Vec<u64>>,
    offset: u64,
}

impl TensorParts {
    fn key(&self) -> TensorKey<'_> {
        TensorKey {
            dtype: self.dtype,
            dims: &self.dims,
            layout: self.layout,
            lod: &self.lod,
            offset: self.offset,
        }
    }
}

fn read_tensor(ctx: &IrContext, n: &Node<'_, '_>) -> Result<TensorParts, JsonError> {
    let data = n.key(DATA, "[dtype, dims, layout, lod, offset]")?;
    let expected = "an array of 5 elements [dtype, dims, layout, lod, offset]";
    let parts = data.exact_elements(5, expected)?;
    let (Some(d), Some(dims), Some(layout), Some(lod), Some(offset)) = (
        parts.at(0),
        parts.at(1),
        parts.at(2),
        parts.at(3),
        parts.at(4),
    ) else {
        return Err(data.unexpected(expected));
    };
    let dtype = read_element_type(ctx, &d)?;
    let dims = read_dims(&dims)?;
    let layout = read_layout(&layout)?;
    let mut levels = Vec::new();
    for level in lod.elements("the LoD: an array of arrays of offsets")? {
        let mut l = Vec::new();
        for x in level.elements("a LoD level: an array of non-negative integers")? {
            l.push(x.u64("a LoD offset (a non-negative integer)")?);
        }
        levels.push(l);
    }
    let offset = offset.u64("the offset (a non-negative integer)")?;
    Ok(TensorParts {
        dtype,
        dims,
        layout,
        lod: levels,
        offset,
    })
}

/// `1.t_sparse_coo_tensor`: `[dtype, dims, non_zero_dims, layout, indices, elements]`, the
/// last two dense tensor types (Paddle does not write `coalesced`; it reads back false).
fn read_sparse_coo(ctx: &IrContext, n: &Node<'_, '_>) -> Result<Type, JsonError> {
    let expected = "an array of 6 elements [dtype, dims, non_zero_dims, layout, indices, elements]";
    let data = n.key(DATA, expected)?;
    let parts = data.exact_elements(6, expected)?;
    let part = |i: usize| parts.at(i).ok_or_else(|| data.unexpected(expected));
    let coo = SparseCooType {
        dtype: read_element_type(ctx, &part(0)?)?,
        dims: read_dims(&part(1)?)?.into(),
        non_zero_dims: read_dims(&part(2)?)?.into(),
        layout: read_layout(&part(3)?)?,
        indices: read_dense_part(ctx, &part(4)?)?,
        elements: read_dense_part(ctx, &part(5)?)?,
        coalesced: false,
    };
    Ok(ctx.intern_type(TypeKey::SparseCoo(&coo)))
}

/// `1.t_sparse_csr_tensor`: `[dtype, dims, layout, crows, cols, elements]`, the last three
/// dense tensor types.
fn read_sparse_csr(ctx: &IrContext, n: &Node<'_, '_>) -> Result<Type, JsonError> {
    let expected = "an array of 6 elements [dtype, dims, layout, crows, cols, elements]";
    let data = n.key(DATA, expected)?;
    let parts = data.exact_elements(6, expected)?;
    let part = |i: usize| parts.at(i).ok_or_else(|| data.unexpected(expected));
    let csr = SparseCsrType {
        dtype: read_element_type(ctx, &part(0)?)?,
        dims: read_dims(&part(1)?)?.into(),
        layout: read_layout(&part(2)?)?,
        crows: Some(read_dense_part(ctx, &part(3)?)?),
        cols: Some(read_dense_part(ctx, &part(4)?)?),
        elements: Some(read_dense_part(ctx, &part(5)?)?),
    };
    Ok(ctx.intern_type(TypeKey::SparseCsr(&csr)))
}

/// A part of a sparse tensor type: a dense tensor type.
fn read_dense_part(ctx: &IrContext, n: &Node<'_, '_>) -> Result<Type, JsonError> {
    let expected = "a dense tensor type {\"#\":\"0.t_dtensor\",...}";
    match read_type(ctx, n)? {
        Some(t) if t.is_dense_tensor() => Ok(t),
        Some(t) => Err(n.unexpected_found(expected, format!("the type {}", t.display(ctx)))),
        None => Err(n.unexpected_found(expected, "the null type")),
    }
}

fn read_element_type(ctx: &IrContext, n: &Node<'_, '_>) -> Result<DataType, JsonError> {
    match read_type(ctx, n)? {
        Some(t) => match ctx.type_data(t) {
            TypeData::Scalar(d) => Ok(*d),
            _ => Err(n.unexpected_found(
                "an element type such as {\"#\":\"0.t_f32\"}",
                format!("the type {}", t.display(ctx)),
            )),
        },
        None => Err(n.unexpected_found(
            "an element type such as {\"#\":\"0.t_f32\"}",
            "the null type",
        )),
    }
}

fn read_dims(n: &Node<'_, '_>) -> Result<Vec<i64>, JsonError> {
    let mut dims = Vec::new();
    for d in n.elements("the dims: an array of integers")? {
        dims.push(d.i64("a dim (an integer, -1 for dynamic)")?);
    }
    Ok(dims)
}

fn read_layout(n: &Node<'_, '_>) -> Result<DataLayout, JsonError> {
    let expected = "a data layout name such as \"NCHW\"";
    DataLayout::from_name(n.str(expected)?).ok_or_else(|| n.unexpected(expected))
}

/// The cf dialect's types: JSON tag after `2.`, printed name after `cf.` (`cf_type.h`).
const CF_TYPES: [(&str, &str); 3] = [
    ("t_stack", "stack"),
    ("t_inlet", "inlet"),
    ("t_outlet", "outlet"),
];

/// `{"#":"2.t_stack"}` for a cf type (Paddle's `WriteControlFlowType`: the tag alone).
fn write_cf_type(dialect: &str, name: &str, params: &[pir_runtime::Attribute]) -> Option<J> {
    if dialect != "cf" || !params.is_empty() {
        return None;
    }
    let (tag, _) = CF_TYPES.iter().find(|(_, n)| *n == name)?;
    Some(J::obj(vec![(ID, J::Str(format!("2.{tag}")))]))
}

/// Writes a type as Paddle's `writeType` does.
pub(crate) fn write_type(ctx: &IrContext, ty: Option<Type>) -> J {
    let Some(t) = ty else {
        return J::obj(vec![(ID, J::str(NULL))]);
    };
    let tensor = |tag: &str, tt: &pir_runtime::TensorType| {
        J::obj(vec![
            (ID, J::str(tag)),
            (
                DATA,
                J::Arr(vec![
                    write_type(ctx, Some(ctx.scalar_type(tt.dtype))),
                    J::Arr(tt.dims.iter().map(|&d| J::Int(d)).collect()),
                    J::str(tt.layout.name()),
                    J::Arr(
                        tt.lod
                            .iter()
                            .map(|l| J::Arr(l.iter().map(|&x| J::UInt(x)).collect()))
                            .collect(),
                    ),
                    J::UInt(tt.offset),
                ]),
            ),
        ])
    };
    match ctx.type_data(t) {
        TypeData::Scalar(d) => J::obj(vec![(ID, J::Str(format!("0.{}", scalar_tag(*d))))]),
        TypeData::Vector(elems) => J::obj(vec![
            (ID, J::str("0.t_vec")),
            (
                DATA,
                J::Arr(elems.iter().map(|&e| write_type(ctx, Some(e))).collect()),
            ),
        ]),
        TypeData::DenseTensor(tt) => tensor("0.t_dtensor", tt),
        TypeData::SelectedRows(tt) => tensor("1.t_selected_rows", tt),
        TypeData::DenseTensorArray {
            dtype,
            dims,
            layout,
        } => J::obj(vec![
            (ID, J::str("1.t_dense_tensor_array")),
            (
                DATA,
                J::Arr(vec![
                    write_type(ctx, Some(ctx.scalar_type(*dtype))),
                    J::Arr(dims.iter().map(|&d| J::Int(d)).collect()),
                    J::str(layout.name()),
                ]),
            ),
        ]),
        TypeData::SparseCoo(coo) => J::obj(vec![
            (ID, J::str("1.t_sparse_coo_tensor")),
            (
                DATA,
                J::Arr(vec![
                    write_type(ctx, Some(ctx.scalar_type(coo.dtype))),
                    J::Arr(coo.dims.iter().map(|&d| J::Int(d)).collect()),
                    J::Arr(coo.non_zero_dims.iter().map(|&d| J::Int(d)).collect()),
                    J::str(coo.layout.name()),
                    write_type(ctx, Some(coo.indices)),
                    write_type(ctx, Some(coo.elements)),
                ]),
            ),
        ]),
        TypeData::SparseCsr(csr) => J::obj(vec![
            (ID, J::str("1.t_sparse_csr_tensor")),
            (
                DATA,
                J::Arr(vec![
                    write_type(ctx, Some(ctx.scalar_type(csr.dtype))),
                    J::Arr(csr.dims.iter().map(|&d| J::Int(d)).collect()),
                    J::str(csr.layout.name()),
                    write_type(ctx, csr.crows),
                    write_type(ctx, csr.cols),
                    write_type(ctx, csr.elements),
                ]),
            ),
        ]),
        TypeData::Custom {
            dialect,
            name,
            params,
        } => write_cf_type(dialect, name, params).unwrap_or_else(|| {
            J::obj(vec![
                (ID, J::Str(format!("{dialect}.{name}"))),
                (
                    DATA,
                    J::Arr(params.iter().map(|&p| write_attr(ctx, p)).collect()),
                ),
            ])
        }),
    }
}
