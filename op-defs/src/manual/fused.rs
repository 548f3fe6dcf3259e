//! The hand-written fused GEMM ops (`manual_op.h`): `fused_gemm_epilogue` (matmul + bias +
//! activation) and its gradient.
//!
//! ```
//! use op_defs::pd_op::{self, FusedGemmEpilogueOp, FusedGemmEpilogueOpAttrs};
//! use pir_runtime::{builtin, phi::DataType, Builder, IrContext, Program};
//!
//! let ctx = IrContext::new();
//! pd_op::register(&ctx).unwrap();
//! let mut prog = Program::new(&ctx);
//! let mut b = Builder::at_end(&mut prog);
//! let t = |d: &[i64]| ctx.dense_tensor_type(DataType::Float32, d);
//! let x = builtin::parameter(&mut b, "x", t(&[2, 3])).unwrap();
//! let w = builtin::parameter(&mut b, "w", t(&[3, 4])).unwrap();
//! let bias = builtin::parameter(&mut b, "b", t(&[4])).unwrap();
//! let op = FusedGemmEpilogueOp::build(&mut b, x, w, bias, FusedGemmEpilogueOpAttrs::default())
//!     .unwrap();
//! assert_eq!(b.program().value_type(op.out(b.program())), Some(t(&[2, 4])));
//! // activation "none": no reserve space (a null result, as Paddle builds it).
//! assert_eq!(b.program().value_type(op.reserve_space(b.program())), None);
//! ```

use pir_macros::pir_op;

/// `fused_gemm_epilogue(x, y, bias)`: `activation(x × y + bias)`; `reserve_space` holds what the
/// gradient of the activation needs, and is null when `activation` is `"none"`.
#[pir_op(
    name = "pd_op.fused_gemm_epilogue",
    interfaces(Vjp),
    compat = "../ops-yaml/op_compat.yaml",
    infer_meta(func = "FusedGemmEpilogueInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "fused_gemm_epilogue")
)]
pub struct FusedGemmEpilogueOp {
    /// The left operand (rank ≥ 2).
    #[input(grad)]
    x: DenseTensor,
    /// The right operand (rank 2).
    #[input(grad)]
    y: DenseTensor,
    /// The bias (`[N]`).
    #[input(grad)]
    bias: DenseTensor,
    /// Transpose `x`'s last two dims.
    #[attr(default = false)]
    trans_x: bool,
    /// Transpose `y`.
    #[attr(default = false)]
    trans_y: bool,
    /// `"none"`, `"relu"` or `"gelu"`.
    #[attr(default = "none")]
    activation: String,
    /// The result.
    #[output]
    out: DenseTensor,
    /// The activation's auxiliary data.
    #[output]
    reserve_space: Option<DenseTensor>,
}

/// `fused_gemm_epilogue_grad(x, y, reserve_space, out_grad)`: the gradients of `x`, `y` and the
/// bias.
#[pir_op(
    name = "pd_op.fused_gemm_epilogue_grad",
    compat = "../ops-yaml/op_compat.yaml",
    infer_meta(func = "FusedGemmEpilogueGradInferMeta", registry = crate::infer_meta::REGISTRY),
    kernel(func = "fused_gemm_epilogue_grad")
)]
pub struct FusedGemmEpilogueGradOp {
    /// The forward left operand.
    #[input]
    x: DenseTensor,
    /// The forward right operand.
    #[input]
    y: DenseTensor,
    /// The forward auxiliary data (absent for activation `"none"`).
    #[input]
    reserve_space: Option<DenseTensor>,
    /// The gradient of the result.
    #[input]
    out_grad: DenseTensor,
    /// Whether the forward op transposed `x`.
    #[attr(default = false)]
    trans_x: bool,
    /// Whether the forward op transposed `y`.
    #[attr(default = false)]
    trans_y: bool,
    /// `"none"`, `"relu_grad"` or `"gelu_grad"`.
    #[attr(default = "none")]
    activation_grad: String,
    /// The gradient of `x`.
    #[output]
    x_grad: DenseTensor,
    /// The gradient of `y`.
    #[output]
    y_grad: DenseTensor,
    /// The gradient of the bias.
    #[output]
    bias_grad: DenseTensor,
}
