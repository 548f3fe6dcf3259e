//! The phi kernel registry of a Paddle build (`core._get_all_register_op_kernels('phi')`, saved
//! as `phi_kernels_cpu.json`): kernel name → the data types it is registered for on CPU.

use rustc_hash::FxHashMap;

use pir_runtime::phi::DataType;

/// Kernels and the element types each is registered for (plain CPU kernels).
///
/// ```
/// use pir_passes::kernel::registry::KernelRegistry;
/// use pir_runtime::phi::DataType;
/// let json = r#"{"kernels": {"relu": ["{data_type[float]; data_layout[Undefined(AnyLayout)]; place[Place(cpu)]; library_type[PLAIN]}"]}}"#;
/// let reg = KernelRegistry::from_json(json).unwrap();
/// assert_eq!(reg.supports("relu", DataType::Float32), Some(true));
/// assert_eq!(reg.supports("relu", DataType::Int8), Some(false));
/// assert_eq!(reg.supports("softmax", DataType::Float32), None);
/// ```
#[derive(Clone, Debug, Default)]
pub struct KernelRegistry {
    kernels: FxHashMap<String, Vec<DataType>>,
}

/// Paddle's C++ element type names as the registry prints them.
fn data_type(cpp: &str) -> Option<DataType> {
    let s = cpp
        .trim()
        .trim_start_matches("::phi::dtype::")
        .trim_start_matches("phi::dtype::");
    Some(match s {
        "float" => DataType::Float32,
        "double" => DataType::Float64,
        "float16" => DataType::Float16,
        "bfloat16" => DataType::BFloat16,
        "int" => DataType::Int32,
        "int64_t" => DataType::Int64,
        "int16_t" => DataType::Int16,
        "int8_t" => DataType::Int8,
        "uint8_t" => DataType::UInt8,
        "bool" => DataType::Bool,
        "complex<float>" => DataType::Complex64,
        "complex<double>" => DataType::Complex128,
        _ => return None,
    })
}

impl KernelRegistry {
    /// Reads the registry's JSON (`{"kernels": {name: ["{data_type[..]; ...}", ...]}}`).
    ///
    /// # Errors
    ///
    /// A message naming what is malformed.
    pub fn from_json(text: &str) -> Result<KernelRegistry, String> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("kernel registry: {e}"))?;
        let kernels = v
            .get("kernels")
            .and_then(|k| k.as_object())
            .ok_or("kernel registry: no `kernels` object")?;
        let mut out = FxHashMap::default();
        for (name, keys) in kernels {
            let keys = keys
                .as_array()
                .ok_or_else(|| format!("kernel registry: `{name}` is not a list"))?;
            let mut types = Vec::new();
            for k in keys.iter().filter_map(|k| k.as_str()) {
                let plain_cpu =
                    k.contains("place[Place(cpu)]") && k.contains("library_type[PLAIN]");
                let dt = k
                    .split_once("data_type[")
                    .and_then(|(_, r)| r.split_once("];"))
                    .and_then(|(t, _)| data_type(t));
                if let (true, Some(dt)) = (plain_cpu, dt) {
                    types.push(dt);
                }
            }
            out.insert(name.clone(), types);
        }
        Ok(KernelRegistry { kernels: out })
    }

    /// Whether kernel `name` is registered for `dtype`; `None` if the registry does not list
    /// the name (the Python listing names some kernels by their legacy op type).
    pub fn supports(&self, name: &str, dtype: DataType) -> Option<bool> {
        self.kernels.get(name).map(|t| t.contains(&dtype))
    }

    /// How many kernels.
    pub fn len(&self) -> usize {
        self.kernels.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.kernels.is_empty()
    }
}
