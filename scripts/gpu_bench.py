#!/usr/bin/env python3
"""The figures of CudaBenchmark, measured with PyTorch on cuda:0, for scripts/gpu-check.sh.

Same sizes, same medians of timed rounds after warm-up, each round ended by a synchronisation;
float32 matrix products in full precision (TF32 off, PyTorch's default); the MNIST MLP and CNN of
the samples (784-512-256-10; two 3x3 convolutions with max-pooling, then 128 and 10) trained with
SGD (lr 0.05, momentum 0.9) on 16 random batches of 128 held on the device, in eager mode.
Prints one tab-separated line per figure: metric, value, unit. Argument: quick.
"""
import statistics
import sys
import time

import torch

QUICK = len(sys.argv) > 1 and sys.argv[1] == "quick"
DEV = torch.device("cuda:0")
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def line(metric, value, unit):
    print(f"{metric}\t{value:.3f}\t{unit}", flush=True)


def seconds(warmups, rounds, work):
    for _ in range(warmups):
        work()
    torch.cuda.synchronize()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def matmul(n):
    g = torch.Generator(device=DEV).manual_seed(n)
    a = torch.randn(n, n, device=DEV, generator=g)
    b = torch.randn(n, n, device=DEV, generator=g)
    reps = 2 if QUICK else max(3, int(2e11 / (2.0 * n * n * n)))

    def work():
        for _ in range(reps):
            torch.matmul(a, b)

    line(f"matmul_f32_n{n}_gflops", 2.0 * n ** 3 * reps / seconds(2, 5, work) / 1e9, "GFLOP/s")


def elementwise(n):
    a = torch.rand(n, device=DEV)
    b = torch.rand(n, device=DEV)
    reps = 10
    s = seconds(3, 5, lambda: [torch.add(a, b) for _ in range(reps)])
    line("add_f32_gbps", 3.0 * 4 * n * reps / s / 1e9, "GB/s")
    r = seconds(3, 5, lambda: [torch.relu(a) for _ in range(reps)])
    line("relu_f32_gbps", 2.0 * 4 * n * reps / r / 1e9, "GB/s")


def copies(n):
    pinned = torch.rand(n).pin_memory()
    pageable = torch.rand(n)
    nbytes = 4.0 * n
    line("h2d_pinned_gbps", nbytes / seconds(2, 5, lambda: pinned.to(DEV, non_blocking=True)) / 1e9, "GB/s")
    line("h2d_pageable_gbps", nbytes / seconds(2, 5, lambda: pageable.to(DEV)) / 1e9, "GB/s")
    on_device = pinned.to(DEV)
    line("d2h_pinned_gbps", nbytes / seconds(2, 5, lambda: on_device.to("cpu", non_blocking=True)) / 1e9, "GB/s")
    line("d2h_pageable_gbps", nbytes / seconds(2, 5, lambda: on_device.to("cpu")) / 1e9, "GB/s")


def small_ops(ops):
    x = torch.ones(1, device=DEV)
    s = seconds(2, 5, lambda: [x + x for _ in range(ops)])
    line("small_op_us", s / ops * 1e6, "us/op")


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = torch.nn.Linear(784, 512), torch.nn.Linear(512, 256), torch.nn.Linear(256, 10)

    def forward(self, x):
        x = x.flatten(1)
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class Cnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 32, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(32, 64, 3, padding=1)
        self.fc1, self.fc2 = torch.nn.Linear(64 * 7 * 7, 128), torch.nn.Linear(128, 10)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.max_pool2d(torch.relu(self.conv2(x)), 2)
        return self.fc2(torch.relu(self.fc1(x.flatten(1))))


def training(model, rounds, batches):
    model = model.to(DEV)
    torch.manual_seed(0)
    inputs = [torch.rand(128, 1, 28, 28, device=DEV) for _ in range(16)]
    targets = [torch.randint(0, 10, (128,), device=DEV) for _ in range(16)]
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = torch.nn.CrossEntropyLoss()

    def one_round():
        start = time.perf_counter()
        total = torch.zeros((), device=DEV)
        for b in range(batches):
            loss = criterion(model(inputs[b % 16]), targets[b % 16])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.detach()
        total.item()
        return batches * 128 / (time.perf_counter() - start)

    one_round()
    return statistics.median(one_round() for _ in range(rounds))


def main():
    print(f"# PyTorch {torch.__version__}, {torch.cuda.get_device_name(0)}, TF32 off", flush=True)
    for n in ([256, 512] if QUICK else [1024, 2048, 4096, 8192]):
        matmul(n)
    elementwise(1 << 20 if QUICK else 1 << 25)
    copies(1 << 22 if QUICK else 1 << 28)
    small_ops(200 if QUICK else 5000)
    rounds = 2 if QUICK else 5
    line("train_mlp_samples_per_s", training(Mlp(), rounds, 3 if QUICK else 200), "samples/s")
    line("train_cnn_samples_per_s", training(Cnn(), rounds, 1 if QUICK else 50), "samples/s")


if __name__ == "__main__":
    main()
