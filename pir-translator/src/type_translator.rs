//! TypeTranslator: the IR type of a legacy variable (Paddle's `type_translator.cc`).
//!
//! | legacy kind | IR type |
//! |---|---|
//! | `DENSE_TENSOR` | `DenseTensorType(dtype, dims, NCHW, lod {}, offset 0)` — `tensor<-1x3xf32>` |
//! | `DENSE_TENSOR_ARRAY` | `DenseTensorArrayType(dtype, dims, NCHW)` |
//! | `SELECTED_ROWS` | `SelectedRowsType(dtype, dims, NCHW, lod {}, offset 0)` |
//!
//! The lod level is ignored; `-1` dims are kept. Other kinds (`FEED_MINIBATCH`, `FETCH_LIST`,
//! sparse tensors, ...) have no type here.

use pir_runtime::phi::DataType;
use pir_runtime::{IrContext, Type};

use pir_legacy::{LegacyVar, VarKind};

/// Why a variable has no IR type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TypeTranslateError {
    /// The variable's kind has no IR type in this translator.
    #[error("variables of kind {0} have no IR type in this translator")]
    UnsupportedKind(&'static str),
    /// The variable declares its kind but no tensor description (dims and element type).
    #[error("the {0} variable has no tensor description (dims and element type)")]
    NoTensorDesc(&'static str),
    /// The element type has no phi data type.
    #[error("element type {0} has no phi data type")]
    UnsupportedDataType(&'static str),
}

/// The phi element type and dims of a tensor variable (any kind with a tensor description).
pub fn tensor_meta(var: &LegacyVar) -> Result<(DataType, &[i64]), TypeTranslateError> {
    let tensor = var
        .tensor()
        .ok_or(TypeTranslateError::NoTensorDesc(var.kind.proto_name()))?;
    let dtype = tensor
        .dtype()
        .ok_or(TypeTranslateError::UnsupportedDataType(
            tensor.data_type.proto_name(),
        ))?;
    Ok((dtype, &tensor.dims))
}

/// The IR type of `var`.
///
/// ```
/// use pir_translator::{translate_var_type, LegacyVar, TensorDesc, VarDetail, VarKind};
/// let ctx = pir_runtime::IrContext::new();
/// let var = LegacyVar {
///     name: "x".into(),
///     kind: VarKind::DenseTensor,
///     detail: VarDetail::DenseTensor {
///         tensor: TensorDesc { data_type: VarKind::Fp32, dims: vec![-1, 3] },
///         lod_level: 0,
///     },
///     persistable: false,
///     need_check_feed: false,
///     is_parameter: false,
///     stop_gradient: true,
///     attrs: vec![],
/// };
/// let t = translate_var_type(&ctx, &var).unwrap();
/// assert_eq!(t.display(&ctx).to_string(), "tensor<-1x3xf32>");
/// ```
pub fn translate_var_type(ctx: &IrContext, var: &LegacyVar) -> Result<Type, TypeTranslateError> {
    match var.kind {
        VarKind::DenseTensor => {
            let (dtype, dims) = tensor_meta(var)?;
            Ok(ctx.dense_tensor_type(dtype, dims))
        }
        VarKind::DenseTensorArray => {
            let (dtype, dims) = tensor_meta(var)?;
            Ok(ctx.dense_tensor_array_type(dtype, dims, pir_runtime::phi::DataLayout::Nchw))
        }
        VarKind::SelectedRows => {
            let (dtype, dims) = tensor_meta(var)?;
            Ok(ctx.selected_rows_type(dtype, dims))
        }
        kind => Err(TypeTranslateError::UnsupportedKind(kind.proto_name())),
    }
}
