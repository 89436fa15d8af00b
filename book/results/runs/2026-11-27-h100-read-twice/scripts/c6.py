# What torch.compile generates for the rows where it leads normlab most: LayerNorm bf16
# 8192 x 576, 4096 x 16384 and 4096 x 8192, RMSNorm bf16 4096 x 16384 (Inductor's Triton code and
# its launch choices, printed by TORCH_LOGS=output_code).
import torch, torch.nn.functional as F
torch.manual_seed(0)
for op, m, n in (("layernorm", 8192, 576), ("layernorm", 4096, 16384), ("rmsnorm", 4096, 16384),
                 ("layernorm", 4096, 8192)):
    x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    torch._dynamo.reset()
    if op == "layernorm":
        f = torch.compile(lambda x, w, b: F.layer_norm(x, (n,), w, b, 1e-5))
        y = f(x, w, b)
    else:
        f = torch.compile(lambda x, w: F.rms_norm(x, (n,), w, 1e-5))
        y = f(x, w)
    torch.cuda.synchronize()
    print(f"##### {op} {m} x {n} done", flush=True)
