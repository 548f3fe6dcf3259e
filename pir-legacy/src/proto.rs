//! The messages of Paddle's legacy program format, as hand-written `prost` messages: the way to
//! *write* a program (tests, benchmarks and tools build programs with them and encode them).
//! Reading is [`LegacyProgram::decode`](crate::LegacyProgram::decode), which decodes the wire
//! data straight into the typed model.
//!
//! These mirror the `paddle.framework.proto` schema (`framework.proto`, proto2) field by field:
//! same message nesting, same field numbers, same scalar kinds. Two deliberate choices:
//!
//! * **`required` fields are modelled as `Option`**, so that a message missing one can be
//!   written; the decoder reports it as
//!   [`DecodeError::MissingField`](crate::DecodeError::MissingField), exactly where Paddle's own
//!   `ParseFromString` would reject the message.
//! * **Repeated scalars are unpacked** (`packed = "false"`), proto2's default and what Paddle
//!   writes. The decoder accepts both the packed and the unpacked encoding.
//!
//! Enum-typed fields are raw `i32`s, so a message can hold a value the schema does not define
//! (the decoder reports it as
//! [`DecodeError::UnknownEnumValue`](crate::DecodeError::UnknownEnumValue)).
//!
//! ```
//! use pir_legacy::proto::{ProgramDesc, BlockDesc};
//! use prost::Message;
//!
//! let program = ProgramDesc {
//!     blocks: vec![BlockDesc { idx: Some(0), parent_idx: Some(-1), ..Default::default() }],
//!     ..Default::default()
//! };
//! let bytes = program.encode_to_vec();
//! let decoded = pir_legacy::LegacyProgram::decode(&bytes).unwrap();
//! assert_eq!(decoded.global_block().parent, None);
//! ```

/// `Version`: the framework version that wrote the program (e.g. `3003001` for 3.3.1).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Version {
    /// `optional int64 version = 1 [default = 0]`.
    #[prost(int64, optional, tag = "1", default = "0")]
    pub version: Option<i64>,
}

/// `AttrType`: the declared kind of an [`op_desc::Attr`] (and of a [`var_desc::Attr`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum AttrType {
    /// `INT = 0`: `i`.
    Int = 0,
    /// `FLOAT = 1`: `f`.
    Float = 1,
    /// `STRING = 2`: `s`.
    String = 2,
    /// `INTS = 3`: `ints`.
    Ints = 3,
    /// `FLOATS = 4`: `floats`.
    Floats = 4,
    /// `STRINGS = 5`: `strings`.
    Strings = 5,
    /// `BOOLEAN = 6`: `b`.
    Boolean = 6,
    /// `BOOLEANS = 7`: `bools`.
    Booleans = 7,
    /// `BLOCK = 8`: `block_idx`.
    Block = 8,
    /// `LONG = 9`: `l`.
    Long = 9,
    /// `BLOCKS = 10`: `blocks_idx`.
    Blocks = 10,
    /// `LONGS = 11`: `longs`.
    Longs = 11,
    /// `FLOAT64S = 12`: `float64s`.
    Float64s = 12,
    /// `VAR = 13`: `var_name`.
    Var = 13,
    /// `VARS = 14`: `vars_name`.
    Vars = 14,
    /// `FLOAT64 = 15`: `float64`.
    Float64 = 15,
    /// `SCALAR = 16`: `scalar`.
    Scalar = 16,
    /// `SCALARS = 17`: `scalars`.
    Scalars = 17,
}

impl AttrType {
    /// The upper-case name used by `framework.proto` (and by Paddle's `_ops.json` dumps, which
    /// spell `BOOLEAN` as `BOOL`).
    ///
    /// ```
    /// assert_eq!(pir_legacy::proto::AttrType::Longs.proto_name(), "LONGS");
    /// ```
    pub const fn proto_name(self) -> &'static str {
        match self {
            AttrType::Int => "INT",
            AttrType::Float => "FLOAT",
            AttrType::String => "STRING",
            AttrType::Ints => "INTS",
            AttrType::Floats => "FLOATS",
            AttrType::Strings => "STRINGS",
            AttrType::Boolean => "BOOLEAN",
            AttrType::Booleans => "BOOLEANS",
            AttrType::Block => "BLOCK",
            AttrType::Long => "LONG",
            AttrType::Blocks => "BLOCKS",
            AttrType::Longs => "LONGS",
            AttrType::Float64s => "FLOAT64S",
            AttrType::Var => "VAR",
            AttrType::Vars => "VARS",
            AttrType::Float64 => "FLOAT64",
            AttrType::Scalar => "SCALAR",
            AttrType::Scalars => "SCALARS",
        }
    }
}

/// `Complex`: a complex128 value inside a [`Scalar`].
#[derive(Clone, PartialEq, prost::Message)]
pub struct Complex {
    /// `required double r = 1` (real part).
    #[prost(double, optional, tag = "1")]
    pub r: Option<f64>,
    /// `required double i = 2` (imaginary part).
    #[prost(double, optional, tag = "2")]
    pub i: Option<f64>,
}

/// `Scalar`: a typed number, the value of `SCALAR`/`SCALARS` attributes.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Scalar {
    /// `required Type type = 1` ([`scalar::Type`]).
    #[prost(enumeration = "scalar::Type", optional, tag = "1")]
    pub r#type: Option<i32>,
    /// `optional bool b = 2` (for `BOOLEAN`).
    #[prost(bool, optional, tag = "2")]
    pub b: Option<bool>,
    /// `optional int64 i = 3` (for `LONG`).
    #[prost(int64, optional, tag = "3")]
    pub i: Option<i64>,
    /// `optional double r = 4` (for `FLOAT64`).
    #[prost(double, optional, tag = "4")]
    pub r: Option<f64>,
    /// `optional Complex c = 5` (for `COMPLEX128`).
    #[prost(message, optional, tag = "5")]
    pub c: Option<Complex>,
}

/// Nested types of [`Scalar`].
pub mod scalar {
    /// `Scalar.Type`: which value field of a [`Scalar`](super::Scalar) is meaningful.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum Type {
        /// `BOOLEAN = 1`: `b`.
        Boolean = 1,
        /// `LONG = 2`: `i`.
        Long = 2,
        /// `FLOAT64 = 3`: `r`.
        Float64 = 3,
        /// `COMPLEX128 = 4`: `c`.
        Complex128 = 4,
    }
}

/// `OpDesc`: one operator of a block.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OpDesc {
    /// `repeated Var inputs = 1`: parameter name → argument (variable) names, in file order.
    #[prost(message, repeated, tag = "1")]
    pub inputs: Vec<op_desc::Var>,
    /// `repeated Var outputs = 2`.
    #[prost(message, repeated, tag = "2")]
    pub outputs: Vec<op_desc::Var>,
    /// `required string type = 3`: the legacy op type (`conv2d`, `elementwise_add`, ...).
    #[prost(string, optional, tag = "3")]
    pub r#type: Option<String>,
    /// `repeated Attr attrs = 4`.
    #[prost(message, repeated, tag = "4")]
    pub attrs: Vec<op_desc::Attr>,
    /// `optional bool is_target = 5 [default = false]`.
    #[prost(bool, optional, tag = "5", default = "false")]
    pub is_target: Option<bool>,
}

/// Nested types of [`OpDesc`].
pub mod op_desc {
    /// `OpDesc.Attr`: one attribute; `type` says which value field is meaningful.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Attr {
        /// `required string name = 1`.
        #[prost(string, optional, tag = "1")]
        pub name: Option<String>,
        /// `required AttrType type = 2` ([`AttrType`](super::AttrType)).
        #[prost(enumeration = "super::AttrType", optional, tag = "2")]
        pub r#type: Option<i32>,
        /// `optional int32 i = 3`.
        #[prost(int32, optional, tag = "3")]
        pub i: Option<i32>,
        /// `optional float f = 4`.
        #[prost(float, optional, tag = "4")]
        pub f: Option<f32>,
        /// `optional string s = 5`.
        #[prost(string, optional, tag = "5")]
        pub s: Option<String>,
        /// `repeated int32 ints = 6`.
        #[prost(int32, repeated, packed = "false", tag = "6")]
        pub ints: Vec<i32>,
        /// `repeated float floats = 7`.
        #[prost(float, repeated, packed = "false", tag = "7")]
        pub floats: Vec<f32>,
        /// `repeated string strings = 8`.
        #[prost(string, repeated, tag = "8")]
        pub strings: Vec<String>,
        /// `optional bool b = 10`.
        #[prost(bool, optional, tag = "10")]
        pub b: Option<bool>,
        /// `repeated bool bools = 11`.
        #[prost(bool, repeated, packed = "false", tag = "11")]
        pub bools: Vec<bool>,
        /// `optional int32 block_idx = 12`.
        #[prost(int32, optional, tag = "12")]
        pub block_idx: Option<i32>,
        /// `optional int64 l = 13`.
        #[prost(int64, optional, tag = "13")]
        pub l: Option<i64>,
        /// `repeated int32 blocks_idx = 14`.
        #[prost(int32, repeated, packed = "false", tag = "14")]
        pub blocks_idx: Vec<i32>,
        /// `repeated int64 longs = 15`.
        #[prost(int64, repeated, packed = "false", tag = "15")]
        pub longs: Vec<i64>,
        /// `repeated double float64s = 16`.
        #[prost(double, repeated, packed = "false", tag = "16")]
        pub float64s: Vec<f64>,
        /// `optional string var_name = 17`.
        #[prost(string, optional, tag = "17")]
        pub var_name: Option<String>,
        /// `repeated string vars_name = 18`.
        #[prost(string, repeated, tag = "18")]
        pub vars_name: Vec<String>,
        /// `optional double float64 = 19`.
        #[prost(double, optional, tag = "19")]
        pub float64: Option<f64>,
        /// `optional Scalar scalar = 20`.
        #[prost(message, optional, tag = "20")]
        pub scalar: Option<super::Scalar>,
        /// `repeated Scalar scalars = 21`.
        #[prost(message, repeated, tag = "21")]
        pub scalars: Vec<super::Scalar>,
    }

    /// `OpDesc.Var`: one input or output parameter and the variables bound to it.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Var {
        /// `required string parameter = 1` (`X`, `Out`, `Filter`, ...).
        #[prost(string, optional, tag = "1")]
        pub parameter: Option<String>,
        /// `repeated string arguments = 2` (variable names; may be empty).
        #[prost(string, repeated, tag = "2")]
        pub arguments: Vec<String>,
    }
}

/// `OpProto`: the registered signature of an operator (not part of a saved program; provided
/// for completeness of the schema).
#[derive(Clone, PartialEq, prost::Message)]
pub struct OpProto {
    /// `required string type = 1`.
    #[prost(string, optional, tag = "1")]
    pub r#type: Option<String>,
    /// `repeated Var inputs = 2`.
    #[prost(message, repeated, tag = "2")]
    pub inputs: Vec<op_proto::Var>,
    /// `repeated Var outputs = 3`.
    #[prost(message, repeated, tag = "3")]
    pub outputs: Vec<op_proto::Var>,
    /// `repeated Attr attrs = 4`.
    #[prost(message, repeated, tag = "4")]
    pub attrs: Vec<op_proto::Attr>,
    /// `required string comment = 5`.
    #[prost(string, optional, tag = "5")]
    pub comment: Option<String>,
}

/// Nested types of [`OpProto`].
pub mod op_proto {
    /// `OpProto.Var`: an input/output slot of an operator signature.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Var {
        /// `required string name = 1`.
        #[prost(string, optional, tag = "1")]
        pub name: Option<String>,
        /// `required string comment = 2`.
        #[prost(string, optional, tag = "2")]
        pub comment: Option<String>,
        /// `optional bool duplicable = 3 [default = false]`.
        #[prost(bool, optional, tag = "3", default = "false")]
        pub duplicable: Option<bool>,
        /// `optional bool intermediate = 4 [default = false]`.
        #[prost(bool, optional, tag = "4", default = "false")]
        pub intermediate: Option<bool>,
        /// `optional bool dispensable = 5 [default = false]`.
        #[prost(bool, optional, tag = "5", default = "false")]
        pub dispensable: Option<bool>,
        /// `optional bool extra = 6 [default = false]`.
        #[prost(bool, optional, tag = "6", default = "false")]
        pub extra: Option<bool>,
        /// `optional bool quant = 7 [default = false]`.
        #[prost(bool, optional, tag = "7", default = "false")]
        pub quant: Option<bool>,
    }

    /// `OpProto.Attr`: an attribute slot of an operator signature.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Attr {
        /// `required string name = 1`.
        #[prost(string, optional, tag = "1")]
        pub name: Option<String>,
        /// `required AttrType type = 2`.
        #[prost(enumeration = "super::AttrType", optional, tag = "2")]
        pub r#type: Option<i32>,
        /// `required string comment = 3`.
        #[prost(string, optional, tag = "3")]
        pub comment: Option<String>,
        /// `optional bool generated = 4 [default = false]`.
        #[prost(bool, optional, tag = "4", default = "false")]
        pub generated: Option<bool>,
        /// `optional bool extra = 5 [default = false]`.
        #[prost(bool, optional, tag = "5", default = "false")]
        pub extra: Option<bool>,
        /// `optional bool quant = 6 [default = false]`.
        #[prost(bool, optional, tag = "6", default = "false")]
        pub quant: Option<bool>,
        /// `optional bool support_tensor = 7 [default = false]`.
        #[prost(bool, optional, tag = "7", default = "false")]
        pub support_tensor: Option<bool>,
    }
}

/// `VarType`: the kind of a variable plus the description matching that kind.
#[derive(Clone, PartialEq, prost::Message)]
pub struct VarType {
    /// `required Type type = 1` ([`var_type::Type`]).
    #[prost(enumeration = "var_type::Type", optional, tag = "1")]
    pub r#type: Option<i32>,
    /// `optional TensorDesc selected_rows = 2` (for `SELECTED_ROWS`).
    #[prost(message, optional, tag = "2")]
    pub selected_rows: Option<var_type::TensorDesc>,
    /// `optional DenseTensorDesc dense_tensor = 3` (for `DENSE_TENSOR`; `lod_tensor` in old
    /// schemas, same field number).
    #[prost(message, optional, tag = "3")]
    pub dense_tensor: Option<var_type::DenseTensorDesc>,
    /// `optional DenseTensorArrayDesc tensor_array = 4` (for `DENSE_TENSOR_ARRAY`).
    #[prost(message, optional, tag = "4")]
    pub tensor_array: Option<var_type::DenseTensorArrayDesc>,
    /// `optional ReaderDesc reader = 5` (for `READER`).
    #[prost(message, optional, tag = "5")]
    pub reader: Option<var_type::ReaderDesc>,
    /// `optional Tuple tuple = 7` (for `TUPLE`).
    #[prost(message, optional, tag = "7")]
    pub tuple: Option<var_type::Tuple>,
    /// `optional TensorDesc string = 8` (for `STRING`).
    #[prost(message, optional, tag = "8")]
    pub string: Option<var_type::TensorDesc>,
    /// `optional TensorDesc strings = 9` (for `STRINGS`).
    #[prost(message, optional, tag = "9")]
    pub strings: Option<var_type::TensorDesc>,
    /// `optional TensorDesc vocab = 10` (for `VOCAB`).
    #[prost(message, optional, tag = "10")]
    pub vocab: Option<var_type::TensorDesc>,
    /// `optional TensorDesc sparse_coo = 11` (for `SPARSE_COO`).
    #[prost(message, optional, tag = "11")]
    pub sparse_coo: Option<var_type::TensorDesc>,
    /// `optional TensorDesc sparse_csr = 12` (for `SPARSE_CSR`).
    #[prost(message, optional, tag = "12")]
    pub sparse_csr: Option<var_type::TensorDesc>,
}

/// Nested types of [`VarType`].
pub mod var_type {
    /// `VarType.Type`: both the element data types (`BOOL` … `UINT64`) and the variable kinds
    /// (`DENSE_TENSOR`, `FEED_MINIBATCH`, ...), sharing one enum as in `framework.proto`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum Type {
        /// `BOOL = 0`.
        Bool = 0,
        /// `INT16 = 1`.
        Int16 = 1,
        /// `INT32 = 2`.
        Int32 = 2,
        /// `INT64 = 3`.
        Int64 = 3,
        /// `FP16 = 4`.
        Fp16 = 4,
        /// `FP32 = 5`.
        Fp32 = 5,
        /// `FP64 = 6`.
        Fp64 = 6,
        /// `DENSE_TENSOR = 7` (`LOD_TENSOR` in old schemas).
        DenseTensor = 7,
        /// `SELECTED_ROWS = 8`.
        SelectedRows = 8,
        /// `FEED_MINIBATCH = 9`.
        FeedMinibatch = 9,
        /// `FETCH_LIST = 10`.
        FetchList = 10,
        /// `STEP_SCOPES = 11`.
        StepScopes = 11,
        /// `LOD_RANK_TABLE = 12`.
        LodRankTable = 12,
        /// `DENSE_TENSOR_ARRAY = 13` (`LOD_TENSOR_ARRAY` in old schemas).
        DenseTensorArray = 13,
        /// `PLACE_LIST = 14`.
        PlaceList = 14,
        /// `READER = 15`.
        Reader = 15,
        /// `RAW = 17`.
        Raw = 17,
        /// `TUPLE = 18`.
        Tuple = 18,
        /// `SIZE_T = 19`.
        SizeT = 19,
        /// `UINT8 = 20`.
        Uint8 = 20,
        /// `INT8 = 21`.
        Int8 = 21,
        /// `BF16 = 22`.
        Bf16 = 22,
        /// `COMPLEX64 = 23`.
        Complex64 = 23,
        /// `COMPLEX128 = 24`.
        Complex128 = 24,
        /// `STRING = 25`.
        String = 25,
        /// `STRINGS = 26`.
        Strings = 26,
        /// `VOCAB = 27`.
        Vocab = 27,
        /// `FEED_LIST = 28`.
        FeedList = 28,
        /// `PSTRING = 29` (element type of `phi::StringTensor`).
        Pstring = 29,
        /// `SPARSE_COO = 30`.
        SparseCoo = 30,
        /// `SPARSE_CSR = 31`.
        SparseCsr = 31,
        /// `FP8_E4M3FN = 32`.
        Fp8E4m3fn = 32,
        /// `FP8_E5M2 = 33`.
        Fp8E5m2 = 33,
        /// `UINT32 = 37`.
        Uint32 = 37,
        /// `UINT64 = 38`.
        Uint64 = 38,
    }

    impl Type {
        /// The upper-case name used by `framework.proto` (`DENSE_TENSOR`, `FP32`, ...).
        ///
        /// ```
        /// use pir_legacy::proto::var_type::Type;
        /// assert_eq!(Type::FeedMinibatch.proto_name(), "FEED_MINIBATCH");
        /// ```
        pub const fn proto_name(self) -> &'static str {
            match self {
                Type::Bool => "BOOL",
                Type::Int16 => "INT16",
                Type::Int32 => "INT32",
                Type::Int64 => "INT64",
                Type::Fp16 => "FP16",
                Type::Fp32 => "FP32",
                Type::Fp64 => "FP64",
                Type::DenseTensor => "DENSE_TENSOR",
                Type::SelectedRows => "SELECTED_ROWS",
                Type::FeedMinibatch => "FEED_MINIBATCH",
                Type::FetchList => "FETCH_LIST",
                Type::StepScopes => "STEP_SCOPES",
                Type::LodRankTable => "LOD_RANK_TABLE",
                Type::DenseTensorArray => "DENSE_TENSOR_ARRAY",
                Type::PlaceList => "PLACE_LIST",
                Type::Reader => "READER",
                Type::Raw => "RAW",
                Type::Tuple => "TUPLE",
                Type::SizeT => "SIZE_T",
                Type::Uint8 => "UINT8",
                Type::Int8 => "INT8",
                Type::Bf16 => "BF16",
                Type::Complex64 => "COMPLEX64",
                Type::Complex128 => "COMPLEX128",
                Type::String => "STRING",
                Type::Strings => "STRINGS",
                Type::Vocab => "VOCAB",
                Type::FeedList => "FEED_LIST",
                Type::Pstring => "PSTRING",
                Type::SparseCoo => "SPARSE_COO",
                Type::SparseCsr => "SPARSE_CSR",
                Type::Fp8E4m3fn => "FP8_E4M3FN",
                Type::Fp8E5m2 => "FP8_E5M2",
                Type::Uint32 => "UINT32",
                Type::Uint64 => "UINT64",
            }
        }

        /// Whether this code names an element data type (a "POD type" in Paddle's words) rather
        /// than a variable kind. Only these are legal in [`TensorDesc::data_type`].
        ///
        /// ```
        /// use pir_legacy::proto::var_type::Type;
        /// assert!(Type::Fp32.is_data_type());
        /// assert!(!Type::DenseTensor.is_data_type());
        /// ```
        pub const fn is_data_type(self) -> bool {
            matches!(
                self,
                Type::Bool
                    | Type::Int16
                    | Type::Int32
                    | Type::Int64
                    | Type::Fp16
                    | Type::Fp32
                    | Type::Fp64
                    | Type::SizeT
                    | Type::Uint8
                    | Type::Int8
                    | Type::Bf16
                    | Type::Complex64
                    | Type::Complex128
                    | Type::Pstring
                    | Type::Fp8E4m3fn
                    | Type::Fp8E5m2
                    | Type::Uint32
                    | Type::Uint64
            )
        }
    }

    /// `VarType.TensorDesc`: element type and dims (`-1` = unknown).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TensorDesc {
        /// `required Type data_type = 1` (a data-type code, see [`Type::is_data_type`]).
        #[prost(enumeration = "Type", optional, tag = "1")]
        pub data_type: Option<i32>,
        /// `repeated int64 dims = 2`.
        #[prost(int64, repeated, packed = "false", tag = "2")]
        pub dims: Vec<i64>,
    }

    /// `VarType.DenseTensorDesc` (`LoDTensorDesc` in old schemas).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct DenseTensorDesc {
        /// `required TensorDesc tensor = 1`.
        #[prost(message, optional, tag = "1")]
        pub tensor: Option<TensorDesc>,
        /// `optional int32 legacy_lod_level = 2 [default = 0]` (`lod_level` in old schemas).
        #[prost(int32, optional, tag = "2", default = "0")]
        pub legacy_lod_level: Option<i32>,
    }

    /// `VarType.DenseTensorArrayDesc` (`LoDTensorArrayDesc` in old schemas).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct DenseTensorArrayDesc {
        /// `required TensorDesc tensor = 1`.
        #[prost(message, optional, tag = "1")]
        pub tensor: Option<TensorDesc>,
        /// `optional int32 legacy_lod_level = 2 [default = 0]`.
        #[prost(int32, optional, tag = "2", default = "0")]
        pub legacy_lod_level: Option<i32>,
    }

    /// `VarType.ReaderDesc`: the tensors a reader yields.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ReaderDesc {
        /// `repeated DenseTensorDesc dense_tensor = 1`.
        #[prost(message, repeated, tag = "1")]
        pub dense_tensor: Vec<DenseTensorDesc>,
    }

    /// `VarType.Tuple`: element kinds of a `TUPLE` variable.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Tuple {
        /// `repeated Type element_type = 1`.
        #[prost(enumeration = "Type", repeated, packed = "false", tag = "1")]
        pub element_type: Vec<i32>,
    }
}

/// `VarDesc`: one variable declared in a block.
#[derive(Clone, PartialEq, prost::Message)]
pub struct VarDesc {
    /// `required string name = 1`.
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    /// `required VarType type = 2`.
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<VarType>,
    /// `optional bool persistable = 3 [default = false]`.
    #[prost(bool, optional, tag = "3", default = "false")]
    pub persistable: Option<bool>,
    /// `optional bool need_check_feed = 4 [default = false]`: an input whose fed shape/dtype
    /// Paddle checks (set on `paddle.static.data` variables).
    #[prost(bool, optional, tag = "4", default = "false")]
    pub need_check_feed: Option<bool>,
    /// `optional bool is_parameter = 5 [default = false]`.
    #[prost(bool, optional, tag = "5", default = "false")]
    pub is_parameter: Option<bool>,
    /// `optional bool stop_gradient = 6 [default = false]`.
    #[prost(bool, optional, tag = "6", default = "false")]
    pub stop_gradient: Option<bool>,
    /// `repeated Attr attrs = 7`.
    #[prost(message, repeated, tag = "7")]
    pub attrs: Vec<var_desc::Attr>,
}

/// Nested types of [`VarDesc`].
pub mod var_desc {
    /// `VarDesc.Attr`: a variable attribute; only `INT`, `STRING` and `INTS` are representable.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Attr {
        /// `required string name = 1`.
        #[prost(string, optional, tag = "1")]
        pub name: Option<String>,
        /// `required AttrType type = 2`.
        #[prost(enumeration = "super::AttrType", optional, tag = "2")]
        pub r#type: Option<i32>,
        /// `optional int32 i = 3`.
        #[prost(int32, optional, tag = "3")]
        pub i: Option<i32>,
        /// `optional string s = 4`.
        #[prost(string, optional, tag = "4")]
        pub s: Option<String>,
        /// `repeated int32 ints = 5`.
        #[prost(int32, repeated, packed = "false", tag = "5")]
        pub ints: Vec<i32>,
    }
}

/// `BlockDesc`: variables and operators of one block.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BlockDesc {
    /// `required int32 idx = 1`: the block's own index.
    #[prost(int32, optional, tag = "1")]
    pub idx: Option<i32>,
    /// `required int32 parent_idx = 2`: `-1` for the global block.
    #[prost(int32, optional, tag = "2")]
    pub parent_idx: Option<i32>,
    /// `repeated VarDesc vars = 3`.
    #[prost(message, repeated, tag = "3")]
    pub vars: Vec<VarDesc>,
    /// `repeated OpDesc ops = 4`.
    #[prost(message, repeated, tag = "4")]
    pub ops: Vec<OpDesc>,
    /// `optional int32 forward_block_idx = 5 [default = -1]`.
    #[prost(int32, optional, tag = "5", default = "-1")]
    pub forward_block_idx: Option<i32>,
}

/// `OpVersion`: the version of one operator definition.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OpVersion {
    /// `required int32 version = 1`.
    #[prost(int32, optional, tag = "1")]
    pub version: Option<i32>,
}

/// `OpVersionMap`: operator definition versions the program was written against.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OpVersionMap {
    /// `repeated OpVersionPair pair = 1`.
    #[prost(message, repeated, tag = "1")]
    pub pair: Vec<op_version_map::OpVersionPair>,
}

/// Nested types of [`OpVersionMap`].
pub mod op_version_map {
    /// `OpVersionMap.OpVersionPair`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct OpVersionPair {
        /// `required string op_name = 1`.
        #[prost(string, optional, tag = "1")]
        pub op_name: Option<String>,
        /// `required OpVersion op_version = 2`.
        #[prost(message, optional, tag = "2")]
        pub op_version: Option<super::OpVersion>,
    }
}

/// `ProgramDesc`: a whole legacy program (`.pdmodel` contents). Field numbers 2 and 3 are
/// reserved (an old `OpCompatibleMap` lived at 3) and are skipped when present.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ProgramDesc {
    /// `repeated BlockDesc blocks = 1`; block 0 is the global block.
    #[prost(message, repeated, tag = "1")]
    pub blocks: Vec<BlockDesc>,
    /// `optional Version version = 4`.
    #[prost(message, optional, tag = "4")]
    pub version: Option<Version>,
    /// `optional OpVersionMap op_version_map = 5`.
    #[prost(message, optional, tag = "5")]
    pub op_version_map: Option<OpVersionMap>,
}
