import torch

import tle.runtime as rt

device = rt.Device(0)                       # the GPU's primary context, PyTorch's too
kernel = device.load("first.ptx").kernel()  # and first.json beside it
print(kernel.name, kernel.block, [arg.type for arg in kernel.signature])

n = 64                                      # rows per CTA
x = torch.randn(132 * n, 256, device="cuda")
y = torch.empty_like(x)
grid = (x.shape[0] // n,)
expected = torch.cat([x[:, :128] * 2 + 1, x[:, 128:] * 3], dim=1)

kernel.launch(grid, [x, y, n])              # returns when the kernel is done
assert torch.equal(y, expected)

y.zero_()
kernel.launch_async(grid, [x, y, n])        # on PyTorch's current stream, at once
torch.cuda.synchronize()
assert torch.equal(y, expected)

median_ms, min_ms, max_ms = kernel.time(grid, [x, y, n])
print(f"first: ok, {median_ms * 1e3:.1f} us a launch")
