//! What values and attributes are: [`TensorKind`], [`ValueKind`] and [`AttrKind`], each with the
//! facts the front ends, the code generator and the runtime need about it (C++ names, yaml
//! spellings, `#[pir_op]` markers, the Rust types generated code uses), written once here.

use std::borrow::Cow;

/// The kind of tensor a value carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum TensorKind {
    /// `paddle::dialect::DenseTensorType`.
    Dense,
    /// `paddle::dialect::SelectedRowsType`.
    SelectedRows,
    /// `paddle::dialect::DenseTensorArrayType`.
    DenseTensorArray,
    /// `paddle::dialect::SparseCooTensorType`.
    SparseCoo,
    /// `paddle::dialect::SparseCsrTensorType`.
    SparseCsr,
}

impl TensorKind {
    /// Every tensor kind.
    ///
    /// ```
    /// use pir_spec::TensorKind;
    /// assert!(TensorKind::ALL.iter().any(|k| k.short_name() == "SparseCooTensor"));
    /// ```
    pub const ALL: [TensorKind; 5] = [
        TensorKind::Dense,
        TensorKind::SelectedRows,
        TensorKind::DenseTensorArray,
        TensorKind::SparseCoo,
        TensorKind::SparseCsr,
    ];

    /// Paddle's short type name (`DenseTensor`), as `#[pir_op]` field markers spell it.
    ///
    /// ```
    /// use pir_spec::TensorKind;
    /// assert_eq!(TensorKind::SelectedRows.short_name(), "SelectedRows");
    /// ```
    pub const fn short_name(self) -> &'static str {
        match self {
            TensorKind::Dense => "DenseTensor",
            TensorKind::SelectedRows => "SelectedRows",
            TensorKind::DenseTensorArray => "DenseTensorArray",
            TensorKind::SparseCoo => "SparseCooTensor",
            TensorKind::SparseCsr => "SparseCsrTensor",
        }
    }

    /// Paddle's C++ type name.
    #[inline]
    pub const fn type_name(self) -> &'static str {
        match self {
            TensorKind::Dense => "paddle::dialect::DenseTensorType",
            TensorKind::SelectedRows => "paddle::dialect::SelectedRowsType",
            TensorKind::DenseTensorArray => "paddle::dialect::DenseTensorArrayType",
            TensorKind::SparseCoo => "paddle::dialect::SparseCooTensorType",
            TensorKind::SparseCsr => "paddle::dialect::SparseCsrTensorType",
        }
    }
}

/// What an operand or result holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum ValueKind {
    /// One tensor (`Tensor`).
    Tensor(TensorKind),
    /// A `pir::VectorType` of tensors (`Tensor[]`), one operand or result.
    Vector(TensorKind),
}

impl ValueKind {
    /// A plain dense tensor, the common case.
    pub const DENSE: ValueKind = ValueKind::Tensor(TensorKind::Dense);

    /// Paddle's C++ type name (`pir::VectorType<paddle::dialect::DenseTensorType>` for vectors).
    pub fn type_name(self) -> Cow<'static, str> {
        match self {
            ValueKind::Tensor(t) => Cow::Borrowed(t.type_name()),
            ValueKind::Vector(TensorKind::Dense) => {
                Cow::Borrowed("pir::VectorType<paddle::dialect::DenseTensorType>")
            }
            ValueKind::Vector(t) => Cow::Owned(format!("pir::VectorType<{}>", t.type_name())),
        }
    }
}

/// The IR kind of an attribute (what `VerifySig` checks and the GetOpInfo `type_name` says).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum AttrKind {
    /// `pir::BoolAttribute`.
    Bool,
    /// `pir::Int32Attribute`.
    Int32,
    /// `pir::Int64Attribute`.
    Int64,
    /// `pir::LongAttribute` (yaml `long`).
    Long,
    /// `pir::Size_tAttribute` (yaml `size_t`).
    SizeT,
    /// `pir::FloatAttribute`.
    Float,
    /// `pir::DoubleAttribute`.
    Double,
    /// `pir::StrAttribute`.
    Str,
    /// `pir::ArrayAttribute<pir::BoolAttribute>`.
    BoolArray,
    /// `pir::ArrayAttribute<pir::Int32Attribute>`.
    Int32Array,
    /// `pir::ArrayAttribute<pir::Int64Attribute>`.
    Int64Array,
    /// `pir::ArrayAttribute<pir::FloatAttribute>`.
    FloatArray,
    /// `pir::ArrayAttribute<pir::DoubleAttribute>`.
    DoubleArray,
    /// `pir::ArrayAttribute<pir::StrAttribute>`.
    StrArray,
    /// `paddle::dialect::IntArrayAttribute`.
    IntArray,
    /// `paddle::dialect::ScalarAttribute` (any of bool/int32/int64/float/double/complex).
    Scalar,
    /// `pir::ArrayAttribute<paddle::dialect::ScalarAttribute>`.
    ScalarArray,
    /// `paddle::dialect::DataTypeAttribute`.
    DataType,
    /// `paddle::dialect::DataLayoutAttribute`.
    DataLayout,
    /// `paddle::dialect::PlaceAttribute`.
    Place,
}

/// Everything the crates need to know about one attribute kind: one row of [`AttrKind::facts`].
struct Facts {
    /// Paddle's C++ type (GetOpInfo's `type_name`).
    cpp: &'static str,
    /// The canonical yaml spelling.
    yaml: &'static str,
    /// GetOpInfo's `data_type` for the canonical spelling.
    data_type: &'static str,
    /// The `#[pir_op]` field marker.
    marker: Option<&'static str>,
    /// The Rust type of one value: a primitive, or a path under `pir_runtime`.
    rust: &'static str,
    /// Whether the value is a list (passed as a slice, returned as a `Vec`).
    list: bool,
    /// The `pir_runtime::op_support::AttrArg` variant carrying it.
    arg: &'static str,
    /// The kind of each element, for `pir::ArrayAttribute` kinds.
    element: Option<AttrKind>,
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
const fn row(
    cpp: &'static str,
    yaml: &'static str,
    data_type: &'static str,
    marker: &'static str,
    rust: &'static str,
    list: bool,
    arg: &'static str,
    element: Option<AttrKind>,
) -> Facts {
    let marker = if marker.is_empty() {
        None
    } else {
        Some(marker)
    };
    Facts {
        cpp,
        yaml,
        data_type,
        marker,
        rust,
        list,
        arg,
        element,
    }
}

impl AttrKind {
    /// Every kind, in declaration order.
    ///
    /// ```
    /// use pir_spec::AttrKind;
    /// assert_eq!(AttrKind::ALL.len(), 20);
    /// ```
    pub const ALL: [AttrKind; 20] = [
        AttrKind::Bool,
        AttrKind::Int32,
        AttrKind::Int64,
        AttrKind::Long,
        AttrKind::SizeT,
        AttrKind::Float,
        AttrKind::Double,
        AttrKind::Str,
        AttrKind::BoolArray,
        AttrKind::Int32Array,
        AttrKind::Int64Array,
        AttrKind::FloatArray,
        AttrKind::DoubleArray,
        AttrKind::StrArray,
        AttrKind::IntArray,
        AttrKind::Scalar,
        AttrKind::ScalarArray,
        AttrKind::DataType,
        AttrKind::DataLayout,
        AttrKind::Place,
    ];

    /// The facts of this kind, one row per kind. Inlined, so that each accessor compiles to a
    /// lookup of its one field.
    #[rustfmt::skip]
    #[inline(always)]
    const fn facts(self) -> Facts {
        use AttrKind as K;
        const V: &str = "std::vector<int64_t>";
        match self {
            //                       C++ type, yaml, data_type, #[pir_op] marker, Rust type, list, AttrArg, element
            K::Bool => row("pir::BoolAttribute", "bool", "", "bool", "bool", false, "Bool", None),
            K::Int32 => row("pir::Int32Attribute", "int", "", "i32", "i32", false, "I32", None),
            K::Int64 => row("pir::Int64Attribute", "int64_t", "", "i64", "i64", false, "I64", None),
            K::Long => row("pir::LongAttribute", "long", "", "", "i64", false, "I64", None),
            K::SizeT => row("pir::Size_tAttribute", "size_t", "", "usize", "i64", false, "I64", None),
            K::Float => row("pir::FloatAttribute", "float", "", "f32", "f32", false, "F32", None),
            K::Double => row("pir::DoubleAttribute", "double", "", "f64", "f64", false, "F64", None),
            K::Str => row("pir::StrAttribute", "str", "", "String", "str", false, "Str", None),
            K::BoolArray => row("pir::ArrayAttribute<pir::BoolAttribute>", "bool[]", "", "Vec<bool>", "bool", true, "Bools", Some(K::Bool)),
            K::Int32Array => row("pir::ArrayAttribute<pir::Int32Attribute>", "int[]", "", "Vec<i32>", "i32", true, "I32s", Some(K::Int32)),
            K::Int64Array => row("pir::ArrayAttribute<pir::Int64Attribute>", "int64_t[]", "", "Vec<i64>", "i64", true, "I64s", Some(K::Int64)),
            K::FloatArray => row("pir::ArrayAttribute<pir::FloatAttribute>", "float[]", "", "Vec<f32>", "f32", true, "F32s", Some(K::Float)),
            K::DoubleArray => row("pir::ArrayAttribute<pir::DoubleAttribute>", "double[]", "", "Vec<f64>", "f64", true, "F64s", Some(K::Double)),
            K::StrArray => row("pir::ArrayAttribute<pir::StrAttribute>", "str[]", "", "Vec<String>", "str", true, "Strs", Some(K::Str)),
            K::IntArray => row("paddle::dialect::IntArrayAttribute", "IntArray", V, "IntArray", "i64", true, "I64s", None),
            K::Scalar => row("paddle::dialect::ScalarAttribute", "Scalar", "float", "Scalar", "meta::Scalar", false, "Scalar", None),
            K::ScalarArray => row("pir::ArrayAttribute<paddle::dialect::ScalarAttribute>", "Scalar[]", "std::vector<Scalar>", "Vec<Scalar>", "meta::Scalar", true, "Scalars", Some(K::Scalar)),
            K::DataType => row("paddle::dialect::DataTypeAttribute", "DataType", "", "DataType", "phi::DataType", false, "DataType", None),
            K::DataLayout => row("paddle::dialect::DataLayoutAttribute", "DataLayout", "", "DataLayout", "phi::DataLayout", false, "DataLayout", None),
            K::Place => row("paddle::dialect::PlaceAttribute", "Place", "", "Place", "phi::Place", false, "Place", None),
        }
    }

    /// Paddle's C++ type name, as GetOpInfo reports it.
    ///
    /// ```
    /// assert_eq!(pir_spec::AttrKind::SizeT.type_name(), "pir::Size_tAttribute");
    /// ```
    #[inline]
    pub const fn type_name(self) -> &'static str {
        self.facts().cpp
    }

    /// For array kinds, the kind of each element.
    ///
    /// ```
    /// use pir_spec::AttrKind;
    /// assert_eq!(AttrKind::StrArray.element(), Some(AttrKind::Str));
    /// assert_eq!(AttrKind::IntArray.element(), None); // one IntArrayAttribute, not an array
    /// ```
    #[inline]
    pub const fn element(self) -> Option<AttrKind> {
        self.facts().element
    }

    /// The canonical yaml spelling (`int[]`; `Scalar`, which `Scalar(int)` refines).
    ///
    /// ```
    /// assert_eq!(pir_spec::AttrKind::Int64Array.yaml_name(), "int64_t[]");
    /// ```
    #[inline]
    pub const fn yaml_name(self) -> &'static str {
        self.facts().yaml
    }

    /// GetOpInfo's `data_type` for the canonical spelling: the C++ build-argument type of
    /// `IntArray` (`std::vector<int64_t>`), `Scalar` (`float`) and `Scalar[]`; empty otherwise.
    ///
    /// ```
    /// use pir_spec::AttrKind;
    /// assert_eq!(AttrKind::Scalar.data_type(), "float");
    /// assert_eq!(AttrKind::Int32.data_type(), "");
    /// ```
    #[inline]
    pub const fn data_type(self) -> &'static str {
        self.facts().data_type
    }

    /// The field type a `#[pir_op]` struct writes for this kind (`Vec<i32>`, `IntArray`);
    /// `None` for `Long`, which only yaml spells.
    ///
    /// ```
    /// use pir_spec::AttrKind;
    /// assert_eq!(AttrKind::SizeT.pir_op_marker(), Some("usize"));
    /// assert_eq!(AttrKind::Long.pir_op_marker(), None);
    /// ```
    #[inline]
    pub const fn pir_op_marker(self) -> Option<&'static str> {
        self.facts().marker
    }

    /// The Rust type of one value of this kind in generated code and in pir-runtime's typed
    /// builds and accessors: a primitive (`i64`, `str`, borrowed) or a path under `pir_runtime`
    /// (`meta::Scalar`, `phi::DataType`). List kinds hold several ([`AttrKind::is_rust_list`]).
    ///
    /// ```
    /// use pir_spec::AttrKind;
    /// assert_eq!(AttrKind::SizeT.rust_type(), "i64");
    /// assert_eq!(AttrKind::ScalarArray.rust_type(), "meta::Scalar");
    /// ```
    #[inline]
    pub const fn rust_type(self) -> &'static str {
        self.facts().rust
    }

    /// Whether a value is a list in Rust: a slice in typed builds, a `Vec` from accessors
    /// (every array kind, and `IntArray`).
    ///
    /// ```
    /// use pir_spec::AttrKind;
    /// assert!(AttrKind::IntArray.is_rust_list() && !AttrKind::Scalar.is_rust_list());
    /// ```
    #[inline]
    pub const fn is_rust_list(self) -> bool {
        self.facts().list
    }

    /// Whether the typed build borrows the value (strings and lists).
    ///
    /// ```
    /// use pir_spec::AttrKind;
    /// assert!(AttrKind::Str.borrows() && !AttrKind::Place.borrows());
    /// ```
    #[inline]
    pub const fn borrows(self) -> bool {
        let f = self.facts();
        f.list || matches!(f.rust.as_bytes(), b"str")
    }

    /// The variant of `pir_runtime::op_support::AttrArg` that carries a value.
    ///
    /// ```
    /// use pir_spec::AttrKind;
    /// assert_eq!(AttrKind::IntArray.attr_arg(), "I64s");
    /// ```
    #[inline]
    pub const fn attr_arg(self) -> &'static str {
        self.facts().arg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_kind_once_in_order() {
        for (i, k) in AttrKind::ALL.iter().enumerate() {
            assert_eq!(*k as usize, i);
        }
        for (i, k) in TensorKind::ALL.iter().enumerate() {
            assert_eq!(*k as usize, i);
        }
    }

    #[test]
    fn array_kinds_are_arrays_of_their_element() {
        for k in AttrKind::ALL {
            if let Some(e) = k.element() {
                assert_eq!(
                    k.type_name(),
                    format!("pir::ArrayAttribute<{}>", e.type_name())
                );
                assert_eq!(k.yaml_name(), format!("{}[]", e.yaml_name()));
                assert_eq!(k.rust_type(), e.rust_type());
                assert!(k.is_rust_list() && !e.is_rust_list());
                let marker = k.pir_op_marker().unwrap();
                assert_eq!(marker, format!("Vec<{}>", e.pir_op_marker().unwrap()));
            }
        }
    }

    #[test]
    fn tensor_short_names_are_the_cpp_names_without_namespace_and_suffix() {
        for t in TensorKind::ALL {
            let cpp = format!("paddle::dialect::{}Type", t.short_name());
            assert_eq!(t.type_name(), cpp);
        }
    }

    #[cfg(feature = "yaml")]
    #[test]
    fn yaml_names_parse_back_to_their_kind_and_data_type() {
        use crate::yaml::args::YamlType;
        for k in AttrKind::ALL {
            let t = YamlType::parse(k.yaml_name()).unwrap();
            assert_eq!(t.attr_kind(), Some(k));
            assert_eq!(t.data_type(), k.data_type());
        }
    }
}
