"""Shared fixtures: a seeded corpus with planted near-duplicates, and the `neardup` CLI the
results must equal (``NEARDUP_BIN``, else ``neardup`` on PATH, else the cargo target dirs)."""

import json
import os
import random
import shutil
from pathlib import Path

import pytest

SEED = 20261122
REPO = Path(__file__).resolve().parents[2]


def make_corpus(n_sources=60, seed=SEED):
    """Sources of 150 random words (a third stopwords); each source gets 0–2 edited copies (5 % of words
    replaced), some exact copies, and one empty text. Returns the texts in file order."""
    print(f"python/tests corpus seed {seed}")
    rng = random.Random(seed)
    # Stopwords too: SpotSigs' spots start at them (Theobald et al. §3.1).
    stop = "the a an is was of to in and that it for on with as by at there".split()
    vocab = [f"w{i}" for i in range(5000)] + stop * 150
    texts = []
    for _ in range(n_sources):
        base = [rng.choice(vocab) for _ in range(150)]
        texts.append(" ".join(base))
        for _ in range(rng.randrange(3)):
            texts.append(" ".join(w if rng.random() > 0.05 else rng.choice(vocab) for w in base))
        if rng.random() < 0.15:
            texts.append(" ".join(base))
    texts.insert(7, "")
    return texts


def require_ray():
    """The ray module for the Ray tests. CI installs Ray, so there a missing Ray fails;
    elsewhere the calling module is skipped."""
    if os.environ.get("CI"):
        import ray

        return ray
    return pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray with 2 CPUs for one module's tests (``pytestmark =
    pytest.mark.usefixtures("local_ray")``), shut down after them."""
    ray = require_ray()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="session")
def texts():
    return make_corpus()


@pytest.fixture()
def corpus_file(tmp_path, texts):
    path = tmp_path / "corpus.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for i, t in enumerate(texts):
            f.write(json.dumps({"id": f"d{i:04d}", "text": t, "extra": i}) + "\n")
    return path


@pytest.fixture(scope="session")
def cli():
    candidates = [os.environ.get("NEARDUP_BIN"), shutil.which("neardup")]
    for target in [os.environ.get("CARGO_TARGET_DIR"), REPO / "target"]:
        if target:
            candidates.append(str(Path(target) / "release" / "neardup"))
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    message = "the neardup CLI was not found (set NEARDUP_BIN)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)
