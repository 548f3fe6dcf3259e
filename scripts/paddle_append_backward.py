"""Times Paddle 3.3.1's `paddle.static.append_backward` on ResNet-50 in PIR mode, for
BENCHMARKS.md (pir-autodiff's `append_backward` bench builds the same network).

Usage: python3 scripts/paddle_append_backward.py [repeats]
Each repeat builds a fresh forward program (batch 8, 3x224x224, `mean` of the logits as the
loss) and times only `append_backward(loss)`.
"""

import sys
import time

import paddle


def one_run():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [8, 3, 224, 224], "float32")
        model = paddle.vision.models.resnet50()
        loss = paddle.mean(model(x))
        n_fwd = len(main.global_block().ops)
        t0 = time.perf_counter()
        pairs = paddle.static.append_backward(loss)
        dt = time.perf_counter() - t0
        n_all = len(main.global_block().ops)
    return dt, n_fwd, n_all, sum(1 for _, g in pairs if g is not None)


def main():
    paddle.enable_static()
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    times = []
    for _ in range(repeats):
        dt, n_fwd, n_all, n_grads = one_run()
        times.append(dt)
    times.sort()
    print(f"forward ops {n_fwd}, after append_backward {n_all}, parameters with a gradient {n_grads}")
    print(f"append_backward: min {times[0] * 1e3:.1f} ms, median {times[len(times) // 2] * 1e3:.1f} ms over {repeats} runs")


if __name__ == "__main__":
    main()
