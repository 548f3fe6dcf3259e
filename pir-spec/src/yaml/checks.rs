//! Checks across entries: forward/backward pairs agree (`cross_check`), and op_compat
//! entries name attributes their op has (`check_compat`).

use std::collections::HashMap;

use crate::schema::OpKind;
use crate::yaml::args::{Arg, Signature};
use crate::yaml::compat::{CompatEntry, CompatIndex};
use crate::yaml::entry::OpEntry;
use crate::yaml::error::{Diag, SpecErrorKind};
use crate::yaml::lower::Ctx;

/// Checks each forward/backward pair as Paddle's `cross_validate` and
/// `get_input_grad_semantic` do: the op's `backward :` link, then a backward op's `forward :`
/// link and signature.
pub(crate) fn cross_check(cx: &Ctx<'_>, diag: &mut Diag) {
    for e in cx.entries {
        if check_backward_link(cx, diag, e) {
            check_forward_link(cx, diag, e);
        }
    }
}

/// The `backward :` links must not loop (`a_grad` → `b_grad` → `a_grad`): every backward
/// chain ends. Each entry names at most one backward op, so one walk per entry with a
/// finished-mark visits every link once. The loop is reported once, on its first entry.
pub(crate) fn check_backward_cycles(cx: &Ctx<'_>, diag: &mut Diag) {
    const NEW: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; cx.entries.len()];
    let index = |name: &str| cx.by_name.get(name).copied();
    for start in 0..cx.entries.len() {
        let mut path = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at {
            match state[i] {
                DONE => break,
                ON_PATH => {
                    let from = path.iter().position(|&p| p == i).unwrap_or(0);
                    let cycle: Vec<&str> = path[from..]
                        .iter()
                        .chain(std::iter::once(&i))
                        .map(|&p| cx.entries[p].name.as_str())
                        .collect();
                    let e = &cx.entries[i];
                    // A self-loop is reported by `check_backward_link`.
                    if cycle.len() > 2 {
                        mismatch(
                            cx,
                            diag,
                            e,
                            e.line_of("backward"),
                            format!(
                                "the `backward :` links loop: {}; a backward chain must end",
                                cycle.join(" -> ")
                            ),
                        );
                    }
                    break;
                }
                _ => {
                    state[i] = ON_PATH;
                    path.push(i);
                    at = cx.entries[i].backward.as_deref().and_then(index);
                }
            }
        }
        for p in path {
            state[p] = DONE;
        }
    }
}

/// `backward : b` must name a `backward_op` entry whose `forward` is this op. `false` when it
/// names the op itself (nothing more is checked for the entry).
fn check_backward_link(cx: &Ctx<'_>, diag: &mut Diag, e: &OpEntry) -> bool {
    let Some(b) = e.backward.as_ref().filter(|b| !cx.broken.contains(*b)) else {
        return true;
    };
    let line = e.line_of("backward");
    if b == &e.name {
        mismatch(
            cx,
            diag,
            e,
            line,
            format!("`backward : {b}` names the op itself"),
        );
        return false;
    }
    let Some(be) = cx.get(b) else {
        return true;
    };
    if be.kind != OpKind::Backward {
        mismatch(
            cx,
            diag,
            e,
            line,
            format!("`backward : {b}` names an `op` entry; expected a `backward_op` entry"),
        );
    } else if let Some(sig) = &be.forward {
        if sig.name != e.name {
            mismatch(
                cx,
                diag,
                e,
                line,
                format!(
                    "backward op `{b}` ({}:{}) says its forward is `{}`, not `{}`",
                    cx.files[be.file],
                    be.line_of("forward"),
                    sig.name,
                    e.name
                ),
            );
        }
    }
    true
}

/// A backward op's `forward :` must name a loaded op (when it is itself a backward op) that
/// declares this op as its backward, with a matching signature.
fn check_forward_link(cx: &Ctx<'_>, diag: &mut Diag, e: &OpEntry) {
    let Some(sig) = e.forward.as_ref().filter(|f| !cx.broken.contains(&f.name)) else {
        return;
    };
    let line = e.line_of("forward");
    let Some(f) = cx.get(&sig.name) else {
        // Higher-order backward ops (`abs_double_grad`'s forward is `abs_grad`) live in the
        // backward files themselves, so their forward must be in the set.
        if sig.name.ends_with("_grad") || sig.name.ends_with("_grad_") {
            mismatch(cx, diag, e, line, format!(
                    "forward op `{}` is not defined in the loaded files; a backward op's forward that is itself a backward op must be defined alongside it",
                    sig.name
                ),
            );
        }
        return;
    };
    let Some(fb) = &f.backward else {
        return;
    };
    if fb != &e.name {
        mismatch(
            cx,
            diag,
            e,
            line,
            format!(
                "forward op `{}` ({}:{}) declares `backward : {fb}`, not `{}`",
                f.name,
                cx.files[f.file],
                f.line_of("backward"),
                e.name
            ),
        );
        return;
    }
    for p in signature_problems(sig, f) {
        mismatch(
            cx,
            diag,
            e,
            line,
            format!(
                "`forward` signature disagrees with op `{}` ({}:{}): {p}",
                f.name, cx.files[f.file], f.line
            ),
        );
    }
}

/// A forward/backward pair that disagrees, reported on entry `e`'s `line`.
fn mismatch(cx: &Ctx<'_>, diag: &mut Diag, e: &OpEntry, line: u32, msg: String) {
    cx.err(diag, e, line, SpecErrorKind::ForwardBackward, msg);
}

/// Where a `forward:` signature disagrees with the forward op's own args and outputs.
fn signature_problems(sig: &Signature, f: &OpEntry) -> Vec<String> {
    let sig_inputs: Vec<&Arg> = sig.args.iter().filter(|a| a.ty.is_tensor()).collect();
    let sig_attrs: Vec<&Arg> = sig.args.iter().filter(|a| !a.ty.is_tensor()).collect();
    let mut problems = Vec::new();
    if sig_inputs.len() != f.inputs.len() {
        problems.push(format!(
            "it lists {} tensor inputs, `{}` has {}",
            sig_inputs.len(),
            f.name,
            f.inputs.len()
        ));
    }
    for (a, b) in sig_inputs.iter().zip(&f.inputs) {
        if a.ty != b.ty {
            problems.push(format!(
                "input `{}` is `{}` here but `{}` `{}` in `{}`",
                a.name,
                a.ty.spelling(),
                b.ty.spelling(),
                b.name,
                f.name
            ));
        }
    }
    // Attribute types are not compared: Paddle's own files disagree there (`int[]` vs
    // `int64_t[]` in pool2d/pool2d_grad) and its pd_op generator does not check them.
    if sig_attrs.len() > f.attrs.len() {
        problems.push(format!(
            "it lists {} attributes, `{}` has {}",
            sig_attrs.len(),
            f.name,
            f.attrs.len()
        ));
    }
    if sig.outputs.len() != f.outputs.len() {
        problems.push(format!(
            "it lists {} outputs, `{}` has {}",
            sig.outputs.len(),
            f.name,
            f.outputs.len()
        ));
    }
    for (a, b) in sig.outputs.iter().zip(&f.outputs) {
        if a.kind != b.kind {
            problems.push(format!(
                "output `{}` is `{}` here but `{}` `{}` in `{}`",
                a.name, a.spelling, b.spelling, b.name, f.name
            ));
        }
    }
    problems
}

/// Checks a compat entry against the forward op it names.
pub(crate) fn check_compat(
    files: &[&str],
    compat_file: &str,
    compat: &[CompatEntry],
    entries: &[OpEntry],
    by_name: &HashMap<&str, usize>,
    diag: &mut Diag,
) {
    // Paddle's `get_compat` takes the first entry naming an op; op_compat.yaml itself has
    // repeated entries (`shape`, `dgc`, ...), so later ones are not errors, only unused.
    let index = CompatIndex::new(compat);
    for (ci, c) in compat.iter().enumerate() {
        if index.get(&c.op) != Some(ci) {
            continue;
        }
        let Some(&i) = by_name.get(c.op.as_str()) else {
            continue;
        };
        let e = &entries[i];
        for m in c.scalar.iter().chain(c.int_array.iter()) {
            let known = e.has_attr(&m.name) || (m.name == "depth" && e.name == "one_hot");
            if !known {
                diag.push(
                    compat_file,
                    c.line,
                    Some(&c.op),
                    SpecErrorKind::Compat,
                    format!(
                        "`{}` names attribute `{}`, which op `{}` ({}:{}) does not have",
                        if c.scalar.iter().any(|x| x.name == m.name) {
                            "scalar"
                        } else {
                            "int_array"
                        },
                        m.name,
                        e.name,
                        files[e.file],
                        e.line
                    ),
                );
            }
        }
    }
}
