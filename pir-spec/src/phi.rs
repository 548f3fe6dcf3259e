//! Paddle's phi enums: data types, layouts and places.
//!
//! They appear in yaml defaults (`DataType::INT64`, `"NCHW"`, `CPUPlace()`), in IR attributes
//! (`DataTypeAttribute`, `DataLayoutAttribute`, `PlaceAttribute`) and in tensor types
//! (`tensor<2x3xf32>`), so they live here, below both the yaml front end and the runtime.

use std::fmt;

/// `phi::DataType`: the element type of a tensor.
///
/// ```
/// use pir_spec::phi::DataType;
/// assert_eq!(DataType::Float32.name(), "float32");
/// assert_eq!(DataType::Float32.type_suffix(), "f32");
/// assert_eq!(DataType::from_yaml("DataType::INT64"), Some(DataType::Int64));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[repr(u8)]
pub enum DataType {
    /// `Undefined` (no element type yet).
    Undefined = 0,
    /// `bool`.
    Bool,
    /// `uint8`.
    UInt8,
    /// `int8`.
    Int8,
    /// `uint16`.
    UInt16,
    /// `int16`.
    Int16,
    /// `uint32`.
    UInt32,
    /// `int32`.
    Int32,
    /// `uint64`.
    UInt64,
    /// `int64`.
    Int64,
    /// `float32`.
    Float32,
    /// `float64`.
    Float64,
    /// `complex64`.
    Complex64,
    /// `complex128`.
    Complex128,
    /// `pstring`.
    PString,
    /// `float16`.
    Float16,
    /// `bfloat16`.
    BFloat16,
    /// `float8_e4m3fn`.
    Float8E4M3FN,
    /// `float8_e5m2`.
    Float8E5M2,
}

impl DataType {
    /// Every data type, in `phi::DataType` order.
    pub const ALL: [DataType; 19] = [
        DataType::Undefined,
        DataType::Bool,
        DataType::UInt8,
        DataType::Int8,
        DataType::UInt16,
        DataType::Int16,
        DataType::UInt32,
        DataType::Int32,
        DataType::UInt64,
        DataType::Int64,
        DataType::Float32,
        DataType::Float64,
        DataType::Complex64,
        DataType::Complex128,
        DataType::PString,
        DataType::Float16,
        DataType::BFloat16,
        DataType::Float8E4M3FN,
        DataType::Float8E5M2,
    ];

    /// The name Paddle prints for a `DataTypeAttribute` (`float32`, `int64`, `Undefined`).
    pub const fn name(self) -> &'static str {
        match self {
            DataType::Undefined => "Undefined",
            DataType::Bool => "bool",
            DataType::UInt8 => "uint8",
            DataType::Int8 => "int8",
            DataType::UInt16 => "uint16",
            DataType::Int16 => "int16",
            DataType::UInt32 => "uint32",
            DataType::Int32 => "int32",
            DataType::UInt64 => "uint64",
            DataType::Int64 => "int64",
            DataType::Float32 => "float32",
            DataType::Float64 => "float64",
            DataType::Complex64 => "complex64",
            DataType::Complex128 => "complex128",
            DataType::PString => "pstring",
            DataType::Float16 => "float16",
            DataType::BFloat16 => "bfloat16",
            DataType::Float8E4M3FN => "float8_e4m3fn",
            DataType::Float8E5M2 => "float8_e5m2",
        }
    }

    /// The element suffix of a printed tensor type (`tensor<2xf32>` → `f32`).
    pub const fn type_suffix(self) -> &'static str {
        match self {
            DataType::Undefined => "<<NULL TYPE>>",
            DataType::Bool => "b",
            DataType::UInt8 => "u8",
            DataType::Int8 => "i8",
            DataType::UInt16 => "u16",
            DataType::Int16 => "i16",
            DataType::UInt32 => "u32",
            DataType::Int32 => "i32",
            DataType::UInt64 => "u64",
            DataType::Int64 => "i64",
            DataType::Float32 => "f32",
            DataType::Float64 => "f64",
            DataType::Complex64 => "c64",
            DataType::Complex128 => "c128",
            DataType::PString => "pstring",
            DataType::Float16 => "f16",
            DataType::BFloat16 => "bf16",
            DataType::Float8E4M3FN => "f8e4m3fn",
            DataType::Float8E5M2 => "f8e5m2",
        }
    }

    /// Parses a lower-case name as printed (`float32`), also accepting Paddle's Python aliases
    /// (`float`, `int`, `double`, `half`, `uint16` for bfloat16 is *not* accepted).
    pub fn from_name(s: &str) -> Option<DataType> {
        let s = s.strip_prefix("paddle.").unwrap_or(s);
        Some(match s {
            "float" => DataType::Float32,
            "double" => DataType::Float64,
            "half" => DataType::Float16,
            "int" => DataType::Int32,
            "long" => DataType::Int64,
            "undefined" | "Undefined" => DataType::Undefined,
            _ => return DataType::ALL.into_iter().find(|d| d.name() == s),
        })
    }

    /// Parses a yaml/C++ spelling: `DataType::INT64`, `phi::DataType::FLOAT32`, `INT64`.
    pub fn from_yaml(s: &str) -> Option<DataType> {
        let s = s.trim();
        let s = s.strip_prefix("phi::").unwrap_or(s);
        let s = s.strip_prefix("DataType::").unwrap_or(s);
        Some(match s {
            "UNDEFINED" => DataType::Undefined,
            "BOOL" => DataType::Bool,
            "UINT8" => DataType::UInt8,
            "INT8" => DataType::Int8,
            "UINT16" => DataType::UInt16,
            "INT16" => DataType::Int16,
            "UINT32" => DataType::UInt32,
            "INT32" => DataType::Int32,
            "UINT64" => DataType::UInt64,
            "INT64" => DataType::Int64,
            "FLOAT32" => DataType::Float32,
            "FLOAT64" => DataType::Float64,
            "COMPLEX64" => DataType::Complex64,
            "COMPLEX128" => DataType::Complex128,
            "PSTRING" => DataType::PString,
            "FLOAT16" => DataType::Float16,
            "BFLOAT16" => DataType::BFloat16,
            "FLOAT8_E4M3FN" => DataType::Float8E4M3FN,
            "FLOAT8_E5M2" => DataType::Float8E5M2,
            _ => return None,
        })
    }

    /// The upper-case C++ enumerator (`INT64`), for generated code and messages.
    pub const fn cpp_name(self) -> &'static str {
        match self {
            DataType::Undefined => "UNDEFINED",
            DataType::Bool => "BOOL",
            DataType::UInt8 => "UINT8",
            DataType::Int8 => "INT8",
            DataType::UInt16 => "UINT16",
            DataType::Int16 => "INT16",
            DataType::UInt32 => "UINT32",
            DataType::Int32 => "INT32",
            DataType::UInt64 => "UINT64",
            DataType::Int64 => "INT64",
            DataType::Float32 => "FLOAT32",
            DataType::Float64 => "FLOAT64",
            DataType::Complex64 => "COMPLEX64",
            DataType::Complex128 => "COMPLEX128",
            DataType::PString => "PSTRING",
            DataType::Float16 => "FLOAT16",
            DataType::BFloat16 => "BFLOAT16",
            DataType::Float8E4M3FN => "FLOAT8_E4M3FN",
            DataType::Float8E5M2 => "FLOAT8_E5M2",
        }
    }

    /// Size of one element in bytes (0 for `Undefined` and `pstring`).
    pub const fn size_of(self) -> usize {
        match self {
            DataType::Undefined | DataType::PString => 0,
            DataType::Bool | DataType::UInt8 | DataType::Int8 => 1,
            DataType::Float8E4M3FN | DataType::Float8E5M2 => 1,
            DataType::UInt16 | DataType::Int16 | DataType::Float16 | DataType::BFloat16 => 2,
            DataType::UInt32 | DataType::Int32 | DataType::Float32 => 4,
            DataType::UInt64 | DataType::Int64 | DataType::Float64 | DataType::Complex64 => 8,
            DataType::Complex128 => 16,
        }
    }

    /// Whether this is a floating-point type (including the 8- and 16-bit ones).
    pub const fn is_float(self) -> bool {
        matches!(
            self,
            DataType::Float16
                | DataType::BFloat16
                | DataType::Float32
                | DataType::Float64
                | DataType::Float8E4M3FN
                | DataType::Float8E5M2
        )
    }

    /// Whether this is an integer type (signed or unsigned, not bool).
    pub const fn is_integer(self) -> bool {
        matches!(
            self,
            DataType::UInt8
                | DataType::Int8
                | DataType::UInt16
                | DataType::Int16
                | DataType::UInt32
                | DataType::Int32
                | DataType::UInt64
                | DataType::Int64
        )
    }

    /// Whether this is `complex64` or `complex128`.
    pub const fn is_complex(self) -> bool {
        matches!(self, DataType::Complex64 | DataType::Complex128)
    }

    /// The real type of a complex type (`complex64` → `float32`); other types unchanged.
    pub const fn to_real(self) -> DataType {
        match self {
            DataType::Complex64 => DataType::Float32,
            DataType::Complex128 => DataType::Float64,
            d => d,
        }
    }

    /// The complex type of a real type (`float32` → `complex64`); other types unchanged.
    pub const fn to_complex(self) -> DataType {
        match self {
            DataType::Float32 => DataType::Complex64,
            DataType::Float64 => DataType::Complex128,
            d => d,
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `phi::DataLayout`.
///
/// ```
/// use pir_spec::phi::DataLayout;
/// assert_eq!(DataLayout::from_name("NCHW"), Some(DataLayout::Nchw));
/// assert_eq!(DataLayout::Nchw.name(), "NCHW");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[repr(u8)]
pub enum DataLayout {
    /// `UNDEFINED` / `ANY` / `kAnyLayout`.
    Undefined = 0,
    /// `NHWC`.
    Nhwc,
    /// `NCHW` (the default layout of a dense tensor type).
    #[default]
    Nchw,
    /// `NCDHW`.
    Ncdhw,
    /// `NDHWC`.
    Ndhwc,
    /// `ONEDNN`.
    OneDnn,
    /// `SPARSE_COO`.
    SparseCoo,
    /// `SPARSE_CSR`.
    SparseCsr,
    /// `PSTRING_UNION`.
    PstringUnion,
    /// `STRIDED`.
    Strided,
}

impl DataLayout {
    /// Every layout.
    pub const ALL: [DataLayout; 10] = [
        DataLayout::Undefined,
        DataLayout::Nhwc,
        DataLayout::Nchw,
        DataLayout::Ncdhw,
        DataLayout::Ndhwc,
        DataLayout::OneDnn,
        DataLayout::SparseCoo,
        DataLayout::SparseCsr,
        DataLayout::PstringUnion,
        DataLayout::Strided,
    ];

    /// The name Paddle prints (`DataLayoutToString`).
    pub const fn name(self) -> &'static str {
        match self {
            DataLayout::Undefined => "Undefined(AnyLayout)",
            DataLayout::Nhwc => "NHWC",
            DataLayout::Nchw => "NCHW",
            DataLayout::Ncdhw => "NCDHW",
            DataLayout::Ndhwc => "NDHWC",
            DataLayout::OneDnn => "ONEDNN",
            DataLayout::SparseCoo => "SPARSE_COO",
            DataLayout::SparseCsr => "SPARSE_CSR",
            DataLayout::PstringUnion => "PSTRING_UNION",
            DataLayout::Strided => "STRIDED",
        }
    }

    /// Parses `NCHW`, `DataLayout::NCHW`, `kNCHW`, `ANY`, `UNDEFINED`, `AnyLayout`.
    pub fn from_name(s: &str) -> Option<DataLayout> {
        let s = s.trim().trim_matches('"');
        let s = s.strip_prefix("phi::").unwrap_or(s);
        let s = s.strip_prefix("DataLayout::").unwrap_or(s);
        let s = s
            .strip_prefix('k')
            .filter(|r| r.starts_with(char::is_uppercase))
            .unwrap_or(s);
        Some(match s {
            "ANY" | "UNDEFINED" | "AnyLayout" | "Undefined(AnyLayout)" => DataLayout::Undefined,
            "MKLDNN" => DataLayout::OneDnn,
            _ => return DataLayout::ALL.into_iter().find(|l| l.name() == s),
        })
    }
}

impl fmt::Display for DataLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `phi::AllocationType`: the kind of device of a [`Place`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[repr(u8)]
pub enum AllocationType {
    /// `UNDEFINED`.
    #[default]
    Undefined = 0,
    /// `CPU`.
    Cpu = 1,
    /// `GPU`.
    Gpu = 2,
    /// `GPUPINNED`.
    GpuPinned = 3,
    /// `XPU`.
    Xpu = 4,
    /// `IPU`.
    Ipu = 7,
    /// `CUSTOM`.
    Custom = 9,
}

impl AllocationType {
    /// The lower-case name used inside `Place(...)`.
    pub const fn name(self) -> &'static str {
        match self {
            AllocationType::Undefined => "undefined",
            AllocationType::Cpu => "cpu",
            AllocationType::Gpu => "gpu",
            AllocationType::GpuPinned => "gpu_pinned",
            AllocationType::Xpu => "xpu",
            AllocationType::Ipu => "ipu",
            AllocationType::Custom => "custom_device",
        }
    }
}

/// `phi::Place`: a device kind and a device id.
///
/// Printed as Paddle prints it: `Place(cpu)`, `Place(gpu:0)`, `Place(undefined:0)`.
///
/// ```
/// use pir_spec::phi::Place;
/// assert_eq!(Place::cpu().to_string(), "Place(cpu)");
/// assert_eq!(Place::default().to_string(), "Place(undefined:0)");
/// assert_eq!(Place::from_yaml("CPUPlace()"), Some(Place::cpu()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Place {
    /// The device kind.
    pub kind: AllocationType,
    /// The device id (0 for CPU).
    pub device: i8,
}

impl Place {
    /// `CPUPlace()`.
    pub const fn cpu() -> Place {
        Place {
            kind: AllocationType::Cpu,
            device: 0,
        }
    }

    /// `GPUPlace(id)`.
    pub const fn gpu(device: i8) -> Place {
        Place {
            kind: AllocationType::Gpu,
            device,
        }
    }

    /// Parses a yaml default: `{}`, `CPUPlace()`, `GPUPlace()`, `GPUPlace(1)`, `Place()`.
    pub fn from_yaml(s: &str) -> Option<Place> {
        let s = s.trim();
        let s = s.strip_prefix("phi::").unwrap_or(s);
        if s == "{}" || s == "Place()" || s.is_empty() {
            return Some(Place::default());
        }
        let (head, rest) = s.split_once('(')?;
        let arg = rest.strip_suffix(')')?.trim();
        let device: i8 = if arg.is_empty() { 0 } else { arg.parse().ok()? };
        let kind = match head {
            "CPUPlace" => AllocationType::Cpu,
            "GPUPlace" => AllocationType::Gpu,
            "GPUPinnedPlace" => AllocationType::GpuPinned,
            "XPUPlace" => AllocationType::Xpu,
            "IPUPlace" => AllocationType::Ipu,
            "CustomPlace" => AllocationType::Custom,
            _ => return None,
        };
        Some(Place { kind, device })
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            AllocationType::Cpu => f.write_str("Place(cpu)"),
            AllocationType::GpuPinned => f.write_str("Place(gpu_pinned)"),
            k => write!(f, "Place({}:{})", k.name(), self.device),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_type_names_round_trip() {
        for d in DataType::ALL {
            assert_eq!(DataType::from_name(d.name()), Some(d), "{d:?}");
            assert_eq!(DataType::from_yaml(d.cpp_name()), Some(d), "{d:?}");
        }
        assert_eq!(
            DataType::from_name("paddle.float32"),
            Some(DataType::Float32)
        );
        assert_eq!(
            DataType::from_yaml("phi::DataType::BFLOAT16"),
            Some(DataType::BFloat16)
        );
        assert_eq!(DataType::from_yaml("DataType::NOPE"), None);
    }

    #[test]
    fn layouts_parse_all_spellings() {
        for l in DataLayout::ALL {
            assert_eq!(DataLayout::from_name(l.name()), Some(l));
        }
        assert_eq!(DataLayout::from_name("\"NHWC\""), Some(DataLayout::Nhwc));
        assert_eq!(
            DataLayout::from_name("DataLayout::kNCHW"),
            Some(DataLayout::Nchw)
        );
        assert_eq!(
            DataLayout::from_name("AnyLayout"),
            Some(DataLayout::Undefined)
        );
        assert_eq!(DataLayout::from_name("NWC"), None);
    }

    #[test]
    fn places_print_like_paddle() {
        assert_eq!(Place::gpu(0).to_string(), "Place(gpu:0)");
        assert_eq!(Place::from_yaml("{}"), Some(Place::default()));
        assert_eq!(Place::from_yaml("GPUPlace(1)"), Some(Place::gpu(1)));
        assert_eq!(Place::from_yaml("Nowhere()"), None);
    }
}
