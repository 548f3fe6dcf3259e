//! `pir-autodiff`: Paddle 3's program autodiff (`paddle.autograd.ir_backward`) on pir-rs.
//!
//! - [`grad`]: `ir_backward.grad(outputs, inputs)`; [`append_backward`]:
//!   `paddle.static.append_backward(loss)`. Both append the backward ops to the program's
//!   top-level block exactly as Paddle does: the seed `full` + `full_like`, grad ops in
//!   inverse topological order, `builtin.combine` + `pd_op.add_n` for values used more than
//!   once, `stop_gradient` on every new op, pruning of ops no wanted gradient needs;
//!   `pd_op.if` / `pd_op.while` differentiated block by block, the forward values a backward
//!   block reads carried by the `cf` stack ops ([`control_flow`]); tensor arrays
//!   differentiated through a gradient array updated in place (`create_array_like` zeros,
//!   `add_n_array` sums, the array ops' hand-written Vjps in `op-defs`).
//! - Each op's Vjp is a table ([`pir_spec::vjp::VjpRule`]) derived from the op's schema and its
//!   backward op's schema (`backward.yaml`), interpreted by one generic function,
//!   [`vjp::run_rule`].

pub mod backward;
pub mod control_flow;
pub mod error;
pub mod rules;
pub mod stop_gradient;
pub mod vjp;

pub use backward::{append_backward, grad, grad_with_grad_outputs};
pub use error::AutodiffError;
