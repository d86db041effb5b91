"""Thread safety under concurrent.futures, and identical results for any thread count."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import neardup


def test_concurrent_calls_equal_sequential(texts):
    slices = [texts[i::4] for i in range(4)] * 4
    sequential = [neardup.minhash(s, k=3) for s in slices]
    with ThreadPoolExecutor(max_workers=8) as pool:
        concurrent = list(pool.map(lambda s: neardup.minhash(s, k=3), slices))
        pairs = list(pool.map(lambda _: neardup.detect(texts, "minhash-lsh"), range(8)))
    for a, b in zip(sequential, concurrent):
        np.testing.assert_array_equal(a, b)
    assert all(p == pairs[0] for p in pairs)


def test_concurrent_index_updates_lose_nothing(texts):
    lsh = neardup.MinHashLSH(threshold=0.7, num_perm=64, k=3)

    def insert(i):
        lsh.insert(i, texts[i])

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(insert, range(len(texts))))
    assert len(lsh) == len(texts)
    assert sorted(lsh.keys) == list(range(len(texts)))
    with ThreadPoolExecutor(max_workers=8) as pool:
        found = list(pool.map(lambda i: i in lsh.query(texts[i]), range(len(texts))))
    # Every non-empty text finds itself.
    assert all(f for f, t in zip(found, texts) if t.strip())


SCRIPT = r"""
import hashlib, sys
sys.path[:0] = [sys.argv[1]]
from conftest import make_corpus
import neardup
texts = make_corpus() * 20
h = hashlib.sha256()
h.update(neardup.minhash(texts, k=3).tobytes())
h.update(neardup.simhash(texts).tobytes())
h.update(repr(neardup.detect(texts, "minhash-lsh", threshold=0.7)).encode())
print(h.hexdigest())
"""


def test_any_thread_count_gives_identical_bytes():
    here = os.path.dirname(os.path.abspath(__file__))
    digests = set()
    for threads in ["1", "2", "5"]:
        env = dict(os.environ, RAYON_NUM_THREADS=threads)
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT, here], env=env, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        digests.add(out.stdout.strip().splitlines()[-1])
    assert len(digests) == 1, digests
