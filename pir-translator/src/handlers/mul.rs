//! `mul` / `mul_grad` (Paddle's `MulOpTranscriber`, `MulGradOpTranscriber`): the operands are
//! flattened to 2-D with `reshape`, the op becomes `pd_op.matmul` / `pd_op.matmul_grad`
//! (`transpose_x = transpose_y = false`), and the results are reshaped back and remapped.

use std::borrow::Cow;

use pir_legacy::AttrValue;
use pir_runtime::{OpDef, OpId, Value};
use smallvec::SmallVec;

use crate::op_translator::{
    general, AttrList, OpContext, OpTranscriber, Operands, Outputs, Param, TargetOp,
};
use crate::translate_error::TranslateError;
use crate::variable_map::VariableDefiningInfo;

fn num_col_dims(cx: &OpContext<'_, '_>, name: &str, rank: usize) -> Result<usize, TranslateError> {
    let Some(AttrValue::Int(n)) = cx.attr(name) else {
        return Err(cx.invalid(format!("attribute `{name}` is missing or not an INT")));
    };
    usize::try_from(*n)
        .ok()
        .filter(|&n| n <= rank)
        .ok_or_else(|| {
            cx.invalid(format!(
                "attribute `{name}` is {n}, but the input has rank {rank}"
            ))
        })
}

fn product(cx: &OpContext<'_, '_>, dims: &[i64]) -> Result<i64, TranslateError> {
    dims.iter()
        .try_fold(1i64, |acc, &d| acc.checked_mul(d))
        .map(|p| p.max(-1))
        .ok_or_else(|| cx.invalid("the product of the input dims overflows"))
}

/// `[max(prod(dims[..n]), -1), max(prod(dims[n..]), -1)]`.
fn flattened(cx: &OpContext<'_, '_>, dims: &[i64], n: usize) -> Result<[i64; 2], TranslateError> {
    Ok([product(cx, &dims[..n])?, product(cx, &dims[n..])?])
}

struct Flattened {
    x: Value,
    y: Value,
    x2: [i64; 2],
    y2: [i64; 2],
}

fn flatten_x_y(cx: &mut OpContext<'_, '_>) -> Result<Flattened, TranslateError> {
    let (x, x_dims) = cx.dense_input("X")?;
    let xn = num_col_dims(cx, "x_num_col_dims", x_dims.len())?;
    let (y, y_dims) = cx.dense_input("Y")?;
    let yn = num_col_dims(cx, "y_num_col_dims", y_dims.len())?;
    let x2 = flattened(cx, &x_dims, xn)?;
    let x = cx.reshape(x, &x2)?;
    let y2 = flattened(cx, &y_dims, yn)?;
    let y = cx.reshape(y, &y2)?;
    Ok(Flattened { x, y, x2, y2 })
}

/// `mul` → `reshape(X)`, `reshape(Y)`, `pd_op.matmul`, `reshape(out)`; `mul_grad` (`grad`)
/// → reshapes of `X`, `Y`, `Out@GRAD`, `pd_op.matmul_grad`, and reshapes of the gradients
/// back to the dims of `X` and `Y`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mul {
    /// `mul_grad` rather than `mul`.
    pub grad: bool,
}

impl Mul {
    fn target(&self) -> &'static str {
        if self.grad {
            "pd_op.matmul_grad"
        } else {
            "pd_op.matmul"
        }
    }

    /// `Out` maps to `out` reshaped to `X`'s leading and `Y`'s trailing dims.
    fn reshape_out(&self, cx: &mut OpContext<'_, '_>) -> Result<(), TranslateError> {
        let [out_name] = cx.output("Out") else {
            return Ok(());
        };
        let out = cx.value_info(Param::output("Out"), out_name)?.value;
        let (_, x_dims) = cx.dense_input("X")?;
        let (_, y_dims) = cx.dense_input("Y")?;
        let xn = num_col_dims(cx, "x_num_col_dims", x_dims.len())?;
        let yn = num_col_dims(cx, "y_num_col_dims", y_dims.len())?;
        let shape: SmallVec<[i64; 6]> = x_dims[..xn].iter().chain(&y_dims[yn..]).copied().collect();
        let reshaped = cx.reshape(out, &shape)?;
        cx.push(out_name, VariableDefiningInfo::new(reshaped));
        Ok(())
    }

    /// `X@GRAD` and `Y@GRAD` map to the gradients reshaped to the dims of `X` and `Y`.
    fn reshape_grads<'a>(
        &self,
        cx: &mut OpContext<'a, '_>,
        op: OpId,
        outputs: &Outputs<'a>,
    ) -> Result<(), TranslateError> {
        for (grad, input) in [("X@GRAD", "X"), ("Y@GRAD", "Y")] {
            if cx.output(grad).is_empty() {
                continue;
            }
            let grad_name = cx.single_output(grad)?;
            let value = outputs.value_of(cx, op, grad, grad_name)?;
            let [input_name, ..] = cx.input(input) else {
                return Err(cx.invalid(format!("input `{input}` is missing")));
            };
            let var = cx.var_desc(input_name)?;
            let dims: SmallVec<[i64; 6]> = var
                .shape()
                .map(SmallVec::from_slice)
                .ok_or_else(|| cx.var_error(input_name, "it has no tensor description"))?;
            let reshaped = cx.reshape(value, &dims)?;
            cx.push(grad_name, VariableDefiningInfo::new(reshaped));
        }
        Ok(())
    }
}

impl OpTranscriber for Mul {
    fn look_up(&self, cx: &OpContext<'_, '_>) -> Result<&'static OpDef, TranslateError> {
        cx.op_def(self.target())
    }

    fn required_ops(&self, _: &OpContext<'_, '_>) -> Vec<String> {
        [self.target(), "pd_op.reshape", "pd_op.full_int_array"]
            .map(String::from)
            .to_vec()
    }

    fn translate_attributes(
        &self,
        cx: &mut OpContext<'_, '_>,
        _: TargetOp,
    ) -> Result<AttrList, TranslateError> {
        let f = cx.ctx().bool_attr(false);
        Ok(AttrList::from_iter([
            (Cow::Borrowed("transpose_x"), f),
            (Cow::Borrowed("transpose_y"), f),
        ]))
    }

    fn generate_inputs(
        &self,
        cx: &mut OpContext<'_, '_>,
        _: TargetOp,
    ) -> Result<Operands, TranslateError> {
        let f = flatten_x_y(cx)?;
        let mut operands = Operands::from_iter([Some(f.x), Some(f.y)]);
        if self.grad {
            let (out_grad, _) = cx.dense_input("Out@GRAD")?;
            operands.push(Some(cx.reshape(out_grad, &[f.x2[0], f.y2[1]])?));
        }
        Ok(operands)
    }

    fn record_results<'a>(
        &self,
        cx: &mut OpContext<'a, '_>,
        op: OpId,
        outputs: &Outputs<'a>,
    ) -> Result<(), TranslateError> {
        general::record_results(cx, op, outputs)?;
        if self.grad {
            self.reshape_grads(cx, op, outputs)
        } else {
            self.reshape_out(cx)
        }
    }
}
