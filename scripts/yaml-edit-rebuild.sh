#!/usr/bin/env bash
# Shows that editing yaml regenerates the ops on the next `cargo build` (cargo tracks the files
# the macro reads), and times the clean build and the rebuild after a one-line edit.
#
#   scripts/yaml-edit-rebuild.sh [YAML_DIR]
#
# YAML_DIR is a folder in Paddle's layout (default: $PIR_PADDLE_YAML, then ../shared/paddle-yaml):
# every generator file present (ops.yaml, backward.yaml, fused_*, inconsistent/*, sparse_*) and
# op_compat.yaml, read with `folder = ...` as paddle-corpus reads it. Works on copies in a
# temporary directory; the repository is untouched.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-${PIR_PADDLE_YAML:-$root/../shared/paddle-yaml}}
[ -f "$src/ops.yaml" ] || { echo "no ops.yaml in $src" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/yaml/inconsistent" "$work/demo/src"
for f in ops.yaml backward.yaml fused_ops.yaml fused_backward.yaml inconsistent/static_ops.yaml \
    inconsistent/static_backward.yaml inconsistent/update_ops.yaml sparse_ops.yaml \
    sparse_backward.yaml op_compat.yaml; do
    if [ -f "$src/$f" ]; then cp "$src/$f" "$work/yaml/$f"; fi
done

cat > "$work/demo/Cargo.toml" <<EOF
[package]
name = "yaml-edit-rebuild-demo"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
pir-runtime = { path = "$root/pir-runtime" }
pir-macros = { path = "$root/pir-macros" }

[workspace]
EOF
cat > "$work/demo/src/main.rs" <<'EOF'
#![allow(missing_docs)]
mod ops {
    pir_macros::define_ops_from_yaml! {
        dialect = "pd_op",
        folder = "../yaml",
    }
}
fn main() {
    use pir_runtime::Dialect;
    let defs = ops::PdOpDialect::op_defs();
    let added = defs.iter().any(|d| d.name == "pd_op.edit_rebuild_probe");
    println!("{} ops generated; pd_op.edit_rebuild_probe present: {added}", defs.len());
}
EOF
cd "$work/demo"
export CARGO_TARGET_DIR="$work/target" CARGO_TERM_COLOR=never
now() { date +%s.%N; }
t0=$(now); cargo build -q 2>/dev/null; t1=$(now)
echo "clean debug build (dependencies included): $(echo "$t1 - $t0" | bc) s"
"$CARGO_TARGET_DIR/debug/yaml-edit-rebuild-demo"
touch src/main.rs
t0=$(now); cargo build -q 2>/dev/null; t1=$(now)
echo "rebuild of the generating crate alone: $(echo "$t1 - $t0" | bc) s"
printf '\n- op : edit_rebuild_probe\n  args : (Tensor probe_x)\n  output : Tensor(out)\n  infer_meta :\n    func : UnchangedInferMeta\n  kernel :\n    func : edit_rebuild_probe\n' >> "$work/yaml/ops.yaml"
t0=$(now); cargo build -q 2>/dev/null; t1=$(now)
echo "rebuild after appending one op to ops.yaml: $(echo "$t1 - $t0" | bc) s"
"$CARGO_TARGET_DIR/debug/yaml-edit-rebuild-demo"
sed -i 's/^  args : (Tensor probe_x)$/  args : (Tensor probe_x, int axis = 0)/' "$work/yaml/ops.yaml"
t0=$(now); cargo build -q 2>/dev/null; t1=$(now)
echo "rebuild after a one-line edit (a new attribute): $(echo "$t1 - $t0" | bc) s"
"$CARGO_TARGET_DIR/debug/yaml-edit-rebuild-demo"
