"""config-fuzz.py: the Hugging Face config.json reader (llm.from_hf) under
seeded random mutations of four valid configs (Llama, Mistral, Qwen2,
GPT-2): every input gives a Config or a ConfigError with an exit status
(issue 40: the fuzz targets gain the config.json reader), never another
exception. Deterministic (seed 1, REMATSIM_FUZZ_RUNS runs, default 3000);
a failure prints the input that broke it."""
import json
import math
import os
import random
import sys
import tempfile

from rematsim_torch import llm

BASES = [
    {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
     "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32,
     "num_key_value_heads": 32, "vocab_size": 32000, "max_position_embeddings": 4096,
     "rms_norm_eps": 1e-5, "hidden_act": "silu", "tie_word_embeddings": False},
    {"architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 4096,
     "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
     "num_key_value_heads": 8, "vocab_size": 32000, "max_position_embeddings": 32768,
     "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "hidden_act": "silu"},
    {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 896,
     "intermediate_size": 4864, "num_attention_heads": 14, "num_hidden_layers": 24,
     "num_key_value_heads": 2, "vocab_size": 151936, "max_position_embeddings": 32768,
     "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "tie_word_embeddings": True,
     "hidden_act": "silu"},
    {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": 768, "n_head": 12,
     "n_layer": 12, "n_positions": 1024, "vocab_size": 50257, "layer_norm_epsilon": 1e-5,
     "activation_function": "gelu_new", "resid_pdrop": 0.1, "embd_pdrop": 0.1},
]
ODD = [0, -1, 1, 3, 2 ** 31, 2 ** 63, 10 ** 40, -(2 ** 70), 0.5, -0.0, 1e308, float("inf"),
       float("nan"), True, False, None, "", "silu", "gelu", "x" * 300, [], [1], {}, {"a": 1},
       "LlamaForCausalLM", ["GPT2LMHeadModel"], "\u0000\u001b[31m"]
KEYS = ["head_dim", "mlp_bias", "attention_bias", "n_inner", "rope_theta", "model_type",
        "architectures", "num_key_value_heads", "hidden_act", "unknown_field", "\u001b"]


def mutate(rng, j):
    j = json.loads(json.dumps(j))
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(4)
        keys = list(j)
        if op == 0 and keys:
            j[rng.choice(keys)] = rng.choice(ODD)
        elif op == 1 and keys:
            del j[rng.choice(keys)]
        elif op == 2:
            j[rng.choice(KEYS + keys)] = rng.choice(ODD)
        elif keys:
            k = rng.choice(keys)
            if isinstance(j[k], int) and not isinstance(j[k], bool):
                j[k] = j[k] * rng.choice([0, 2, 3, 7, 1000]) + rng.choice([-1, 0, 1])
    return j


def text_of(rng, j):
    t = json.dumps(j)  # NaN and Infinity as Python's json writes them
    r = rng.random()
    if r < 0.1:
        return t[:rng.randrange(len(t) + 1)]  # truncated
    if r < 0.15:
        i = rng.randrange(len(t) + 1)
        return t[:i] + rng.choice(["\u0000", "}", "{", ",", "\"", "\\", "\udcff"[:0]]) + t[i:]
    if r < 0.18:
        return rng.choice(["[]", "null", "1", "\"s\"", "", "{}"])
    return t


def main():
    runs = int(os.environ.get("REMATSIM_FUZZ_RUNS", "3000"))
    rng = random.Random(1)
    seen = {"config": 0, "error": 0}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "config.json")
        for b in BASES:  # the bases themselves read (else every run is refused)
            with open(path, "w") as f:
                json.dump(b, f)
            llm.from_hf(path)
        for i in range(runs):
            text = text_of(rng, mutate(rng, rng.choice(BASES)))
            with open(path, "w") as f:
                f.write(text)
            try:
                c = llm.from_hf(path)
                c.parameters()
                c.describe()
                if not (math.isfinite(c.eps) and c.eps > 0
                        and math.isfinite(c.rope_theta) and c.rope_theta > 0):
                    print("not ok - run %d: read with eps %r, rope_theta %r\n%s"
                          % (i, c.eps, c.rope_theta, text))
                    return 1
                seen["config"] += 1
            except llm.ConfigError as e:
                if not isinstance(e.status, int) or not 64 <= e.status <= 66 or not str(e):
                    print("not ok - run %d: ConfigError without a status or message: %r\n%s"
                          % (i, e.status, text))
                    return 1
                seen["error"] += 1
            except Exception as e:  # the finding: anything else
                print("not ok - run %d: %s: %s\ninput: %s" % (i, type(e).__name__, e, text))
                return 1
    print("ok - %d mutated configs: %d read, %d refused with a status, no other exception"
          % (runs, seen["config"], seen["error"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
