// Every attribute type, with defaults, and the typed build's attribute struct.
use pir_macros::pir_op;
use pir_runtime::meta::Scalar;
use pir_runtime::phi::{DataLayout, DataType, Place};
use pir_runtime::pir_spec::{AttrKind, DefaultValue};

#[pir_op(name = "test.everything")]
pub struct EverythingOp {
    #[input]
    x: DenseTensor,
    #[attr(default = true)]
    flag: bool,
    #[attr(default = -1)]
    axis: i32,
    #[attr(default = 1000)]
    rows: i64,
    #[attr(default = 3)]
    count: usize,
    #[attr(default = 0.5)]
    ratio: f32,
    #[attr(default = 1e-8)]
    epsilon: f64,
    #[attr(default = "NCHW")]
    data_format: String,
    #[attr(default = [true, false])]
    mask: Vec<bool>,
    #[attr(default = [1, 1])]
    strides: Vec<i32>,
    #[attr(default = [-1, 2])]
    dims: Vec<i64>,
    #[attr(default = [0.5, 1])]
    weights: Vec<f32>,
    #[attr(default = [2.5])]
    scales: Vec<f64>,
    #[attr(default = ["a", "b"])]
    names: Vec<String>,
    #[attr(default = [])]
    values: Vec<Scalar>,
    #[attr(default = [2, 3])]
    shape: IntArray,
    #[attr(default = 0.9)]
    beta: Scalar,
    #[attr(data_type = "int64_t", default = 7)]
    seed: Scalar,
    #[attr(default = DataType::FLOAT32)]
    dtype: DataType,
    #[attr(default = DataLayout::Nhwc)]
    layout: DataLayout,
    #[attr(default = Place::gpu(1))]
    place: Place,
    #[output]
    out: DenseTensor,
}

/// Attributes without defaults: `new` takes them.
#[pir_op(name = "test.cast")]
pub struct CastOp {
    #[input]
    x: DenseTensor,
    #[attr]
    dtype: DataType,
    #[attr(default = false)]
    fast: bool,
    #[output]
    out: DenseTensor,
}

fn main() {
    let a = EverythingOpAttrs::default();
    assert!(a.flag);
    assert_eq!(a.axis, -1);
    assert_eq!(a.rows, 1000);
    assert_eq!(a.count, 3);
    assert_eq!(a.ratio, 0.5);
    assert_eq!(a.epsilon, 1e-8);
    assert_eq!(a.data_format, "NCHW");
    assert_eq!(a.mask, &[true, false]);
    assert_eq!(a.strides, &[1, 1]);
    assert_eq!(a.dims, &[-1, 2]);
    assert_eq!(a.weights, &[0.5, 1.0]);
    assert_eq!(a.scales, &[2.5]);
    assert_eq!(a.names, &["a", "b"]);
    assert!(a.values.is_empty());
    assert_eq!(a.shape, &[2, 3]);
    assert_eq!(a.beta, Scalar::F32(0.9));
    assert_eq!(a.seed, Scalar::I64(7));
    assert_eq!(a.dtype, DataType::Float32);
    assert_eq!(a.layout, DataLayout::Nhwc);
    assert_eq!(a.place, Place::gpu(1));

    let s = EverythingOp::schema();
    let kinds: Vec<AttrKind> = s.attributes.iter().map(|a| a.kind).collect();
    {
        use AttrKind::*;
        assert_eq!(
            kinds,
            [
                Bool, Int32, Int64, SizeT, Float, Double, Str, BoolArray, Int32Array, Int64Array,
                FloatArray, DoubleArray, StrArray, ScalarArray, IntArray, Scalar, Scalar,
                DataType, DataLayout, Place
            ]
        );
    }
    let yaml: Vec<&str> = s.attributes.iter().map(|a| &*a.yaml_type).collect();
    assert_eq!(
        yaml,
        [
            "bool", "int", "int64_t", "size_t", "float", "double", "str", "bool[]", "int[]",
            "int64_t[]", "float[]", "double[]", "str[]", "Scalar[]", "IntArray", "Scalar",
            "Scalar(int64_t)", "DataType", "DataLayout", "Place"
        ]
    );
    assert_eq!(s.attributes[1].default, Some(DefaultValue::Int(-1)));

    let c = CastOpAttrs::new(DataType::Int64);
    assert_eq!((c.dtype, c.fast), (DataType::Int64, false));
}
