#!/usr/bin/env bash
# Times the two compile-time targets of issue 11 on the full corpus dialect:
#
#   1. a clean debug build of `pir-paddle-corpus` (its four part crates and every dependency,
#      syn and pir-runtime included) in a fresh target directory;
#   2. the rebuild after a one-line edit of ops.yaml (`scale`'s default `bias_after_scale=true`
#      becomes `false`; a yaml without that line gets a comment line appended instead: cargo
#      rebuilds the same crates either way, since every part tracks every yaml file).
#
#   scripts/compile-time.sh [YAML_DIR]
#
# YAML_DIR is Paddle's yaml folder (default: $PIR_PADDLE_YAML, then ../shared/paddle-yaml). The
# script copies it to a temporary directory and edits only the copy; the build goes to a
# temporary target directory (or $COMPILE_TIME_TARGET_DIR, to keep it), so neither the
# repository nor its target/ is changed. It builds as the workflow does: CARGO_INCREMENTAL=0 and
# CARGO_PROFILE_DEV_DEBUG=0 unless set otherwise in the environment.
#
# Each line gives wall time, user and system CPU time (GNU time) and the load average before
# the build; on a shared machine the CPU time is the steadier figure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-${PIR_PADDLE_YAML:-$root/../shared/paddle-yaml}}
[ -f "$src/ops.yaml" ] || { echo "no ops.yaml in $src" >&2; exit 2; }
command -v /usr/bin/time > /dev/null || { echo "needs GNU time at /usr/bin/time" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src" "$work/yaml"

export PIR_PADDLE_YAML="$work/yaml"
export CARGO_TARGET_DIR=${COMPILE_TIME_TARGET_DIR:-$work/target}
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
export CARGO_PROFILE_DEV_DEBUG=${CARGO_PROFILE_DEV_DEBUG:-0}
export CARGO_TERM_COLOR=never

echo "commit $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- . || echo ' (with uncommitted changes)'), $(nproc) cores, $(rustc --version)"
measure() {
    local label=$1 load
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    /usr/bin/time -f "%e %U %S" -o "$work/time" \
        cargo build -q -p pir-paddle-corpus --manifest-path "$root/Cargo.toml"
    read -r wall user sys < "$work/time"
    printf '%-34s wall %7.1f s   CPU %7.1f s (user %.1f + sys %.1f)   load before %s\n' \
        "$label" "$wall" "$(echo "$user + $sys" | bc)" "$user" "$sys" "$load"
}

measure "clean build (dependencies included)"

line='  args : (Tensor x, Scalar scale=1.0, Scalar bias=0.0, bool bias_after_scale=true)'
if grep -qxF "$line" "$work/yaml/ops.yaml"; then
    sed -i "s/^${line//[()]/.}\$/${line/=true)/=false)}/" "$work/yaml/ops.yaml"
    grep -qxF "${line/=true)/=false)}" "$work/yaml/ops.yaml" || { echo "edit failed" >&2; exit 1; }
else
    echo "# one-line edit" >> "$work/yaml/ops.yaml"
fi
measure "rebuild after a one-line yaml edit"
