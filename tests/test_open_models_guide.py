"""Chapter 17, reading guide: the configuration defaults and module structures it is built on."""
import inspect
import re

import pytest
import transformers as T


def _checkpoint(cls):
    src = inspect.getsource(inspect.getmodule(cls))
    m = re.search(r'@auto_docstring\(checkpoint="([^"]+)"\)\s*(?:@\w+\s*)*class '
                  + cls.__name__ + r"\b", src)
    return m and m.group(1)


@pytest.mark.parametrize("name,checkpoint", [
    ("MistralConfig", "mistralai/Mistral-7B-v0.1"), ("GptOssConfig", "openai/gpt-oss-20b"),
    ("Olmo2Config", "allenai/OLMo-2-1124-7B"),
    ("Llama4TextConfig", "meta-llama/Llama-4-Scout-17B-16E"),
    ("LlamaConfig", "meta-llama/Llama-2-7b-hf"), ("Qwen3Config", "Qwen/Qwen3-8B")])
def test_documented_checkpoints(name, checkpoint):
    assert _checkpoint(getattr(T, name)) == checkpoint


def test_defaults_the_guide_uses():
    assert T.__version__ == "5.24.0"
    mi, go, l4, ol = T.MistralConfig(), T.GptOssConfig(), T.Llama4TextConfig(), T.Olmo2Config()
    assert (mi.num_attention_heads, mi.num_key_value_heads, mi.sliding_window) == (32, 8, 4096)
    assert (go.num_attention_heads, go.num_key_value_heads, go.sliding_window) == (64, 8, 128)
    assert go.rope_parameters["rope_type"] == "yarn" and go.rope_parameters["factor"] == 32.0
    assert (l4.num_attention_heads, l4.num_key_value_heads) == (40, 8)
    assert l4.attention_chunk_size == 8192
    assert l4.no_rope_layers[:4] == [1, 1, 1, 0]
    assert ol.num_attention_heads == ol.num_key_value_heads == 32
    g2 = T.Gemma2Config()
    assert (g2.attn_logit_softcapping, g2.final_logit_softcapping) == (50.0, 30.0)
    assert T.Gemma3TextConfig().layer_types[:6] == ["sliding_attention"] * 5 + ["full_attention"]
    ds = T.DeepseekV3Config()
    assert (ds.kv_lora_rank, ds.q_lora_rank, ds.qk_rope_head_dim) == (512, 1536, 64)


def test_feature_modules():
    from transformers.models.gpt_oss.modeling_gpt_oss import GptOssAttention
    from transformers.models.olmo2.modeling_olmo2 import Olmo2Attention
    from transformers.models.qwen3.modeling_qwen3 import Qwen3Attention
    kw = dict(hidden_size=64, num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=2,
              intermediate_size=32, vocab_size=16)
    assert GptOssAttention(T.GptOssConfig(head_dim=24, num_local_experts=2, num_experts_per_tok=1,
                                          **kw), 0).sinks.shape == (4,)
    assert Qwen3Attention(T.Qwen3Config(head_dim=24, **kw), 0).q_norm.weight.shape == (24,)
    assert Olmo2Attention(T.Olmo2Config(eos_token_id=None, pad_token_id=None, **kw),
                          0).q_norm.weight.shape == (64,)
