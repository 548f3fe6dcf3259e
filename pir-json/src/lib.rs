//! `pir-json`: Paddle 3's PIR JSON program format, as PaddlePaddle 3.3.1 writes it
//! (`paddle.jit.save` in PIR mode, `serialize_pir_program`): read a `.json` program into a
//! [`Program`](pir_runtime::Program) and write one back.
//!
//! ```text
//! {"base_code":{"magic":"pir","trainable":true,"version":4},
//!  "program":{"regions":[{"#":"region_0","blocks":[{"#":"block_0","args":[],"ops":[OP,...]}]}]}}
//! ```
//!
//! An op is `{"#":"1.conv2d","I":[{"%":9},{"%":8}],"O":[{"%":10,"TT":TYPE}],"A":[ATTR...],
//! "OA":[ATTR...]}` (dialect ids: `0` builtin, `1` pd_op, `2` cf, `3` custom_op, `4` pd_dist;
//! `{"%":0}` is a null operand), or the compressed parameter op `{"#":"p","A":[0,1,1,"w"],
//! "OA":[1,0,1],"O":{"%":1,"TT":TYPE},"DA":[],"QA":[]}`. Types are in [`types`], attributes in
//! [`attributes`], key names and dialect ids in [`schema`].
//!
//! - [`read_program`] / [`read_module`]: ops are created by name through the context's registry
//!   with the result types the file records. Every problem is a [`JsonError`] naming the JSON
//!   path, the op (position and name), and what was expected versus found; no input panics.
//! - [`write_program`] / [`write_program_with`]: the same bytes Paddle writes for the same
//!   program, so reading a Paddle file and writing it gives the file back, and
//!   read → write → read is stable.
//!
//! ```
//! use pir_runtime::IrContext;
//! let ctx = IrContext::new();
//! op_defs::pd_op::register(&ctx).unwrap();
//! let json = concat!(
//!     r##"{"base_code":{"magic":"pir","trainable":true,"version":4},"program":{"regions":[{"#":"region_0","blocks":[{"#":"block_0","args":[],"ops":["##,
//!     r##"{"#":"1.full","A":[{"AT":{"#":"1.a_intarray","D":[1]},"N":"shape"},{"AT":{"#":"0.a_f64","D":1.0},"N":"value"},"##,
//!     r##"{"AT":{"#":"1.a_dtype","D":"float32"},"N":"dtype"},{"AT":{"#":"1.a_place","D":[1,0,""]},"N":"place"}],"I":[],"##,
//!     r##""O":[{"%":1,"TT":{"#":"0.t_dtensor","D":[{"#":"0.t_f32"},[1],"NCHW",[],0]}}],"##,
//!     r##""OA":[{"AT":{"#":"0.a_array","D":[{"#":"0.a_bool","D":true}]},"N":"stop_gradient"}]}]}]}]}}"##,
//! );
//! let prog = pir_json::read_program(&ctx, json).unwrap();
//! pir_runtime::verify(&prog).unwrap();
//! assert_eq!(prog.to_string(), concat!(
//!     "{\n",
//!     "    (%0) = \"pd_op.full\" () {dtype:float32,place:Place(cpu),shape:[1],stop_gradient:[true],value:1} : () -> tensor<1xf32>\n",
//!     "}\n",
//! ));
//! assert_eq!(pir_json::write_program(&prog), json);
//! ```

pub mod attributes;
mod emit;
pub mod error;
mod node;
pub mod reader;
pub mod schema;
mod tree;
pub mod types;
pub mod writer;

pub use error::JsonError;
pub use reader::{read_module, read_program, Module};
pub use schema::PIR_VERSION;
pub use writer::{write_program, write_program_with, WriteOptions};
