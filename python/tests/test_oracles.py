"""Each function against a brute-force oracle written here in plain Python/NumPy."""

import itertools

import numpy as np
import pyarrow as pa
import pytest

import neardup


def brute_band_pairs(keys):
    return sorted(
        (a, b)
        for a, b in itertools.combinations(range(len(keys)), 2)
        if (keys[a] == keys[b]).any()
    )


def test_band_keys_give_the_lsh_candidates(texts):
    sigs = neardup.minhash(texts, num_perm=64, k=3)
    keys = neardup.band_keys(sigs, 8, 8)
    assert keys.shape == (len(texts), 8) and keys.dtype == np.uint64
    empty = {i for i, t in enumerate(texts) if not t.strip()}
    oracle = [p for p in brute_band_pairs(keys) if not (set(p) & empty)]
    got = neardup.detect(texts, "minhash-lsh", num_perm=64, k=3, bands=8, rows=8, verify="none")
    assert [(a, b) for a, b, _ in got] == oracle
    assert len(oracle) > 20
    # Band j depends only on values j·r … (j+1)·r − 1.
    changed = sigs.copy()
    changed[:, 0] ^= 1
    again = neardup.band_keys(changed, 8, 8)
    assert (again[:, 0] != keys[:, 0]).all() and (again[:, 1:] == keys[:, 1:]).all()
    # Non-contiguous input gives the same keys.
    wide = np.repeat(sigs, 2, axis=1)[:, ::2]
    assert not wide.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(neardup.band_keys(wide, 8, 8), keys)


def test_band_keys_validate():
    with pytest.raises(ValueError, match="exceeds num_perm"):
        neardup.band_keys(np.zeros((2, 16), dtype=np.uint32), 5, 4)
    with pytest.raises(TypeError, match="uint32"):
        neardup.band_keys(np.zeros((2, 16), dtype=np.int64), 4, 4)


def hamming(a, b):
    return sum(bin(int(x) ^ int(y)).count("1") for x, y in zip(a, b))


@pytest.mark.parametrize("bits,k", [(64, 3), (128, 6)])
def test_simhash_pairs_equal_brute_force_hamming(texts, bits, k):
    fps = neardup.simhash(texts, bits=bits)
    assert fps.shape == (len(texts), bits // 64) and fps.dtype == np.uint64
    empty = {i for i, t in enumerate(texts) if not t.strip()}
    oracle = [
        (a, b)
        for a, b in itertools.combinations(range(len(texts)), 2)
        if a not in empty and b not in empty and hamming(fps[a], fps[b]) <= k
    ]
    got = neardup.detect(texts, "simhash", bits=bits, max_distance=k)
    assert [(a, b) for a, b, _ in got] == oracle
    assert len(oracle) > 10


def test_minhash_agreement_estimates_jaccard():
    seed = 7
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    words = [f"t{i}" for i in rng.permutation(4000)]
    # Word 1-shingles: |A| = |B| = 1000 sharing 600 → J = 600 / 1400.
    a = " ".join(words[:1000])
    b = " ".join(words[400:1400])
    sigs = neardup.minhash([a, b], num_perm=1024, k=1, seed=seed)
    estimate = float((sigs[0] == sigs[1]).mean())
    j = 600 / 1400
    sd = (j * (1 - j) / 1024) ** 0.5
    assert abs(estimate - j) < 4 * sd, (estimate, j)


def test_arrow_inputs_equal_lists(texts):
    expected = neardup.minhash(texts, k=3)
    for arrow in [
        pa.array(texts),
        pa.array(texts, type=pa.large_string()),
        pa.chunked_array([texts[:10], texts[10:]]),
    ]:
        np.testing.assert_array_equal(neardup.minhash(arrow, k=3), expected)
    # Slices keep their offset.
    np.testing.assert_array_equal(
        neardup.minhash(pa.array(texts).slice(5, 20), k=3), expected[5:25]
    )
    np.testing.assert_array_equal(neardup.minhash(np.array(texts), k=3), expected)
    np.testing.assert_array_equal(neardup.minhash(iter(texts), k=3), expected)
    assert neardup.minhash([], k=3).shape == (0, 128)


@pytest.mark.parametrize(
    "bad,error,message",
    [
        ("one string", TypeError, "not one str"),
        (["ok", 3], TypeError, r"texts\[1\] is int"),
        ([None], TypeError, r"texts\[0\] is NoneType"),
        (pa.array(["ok", None]), ValueError, r"texts\[1\] is null"),
        (pa.array([1, 2]), TypeError, "not a string array"),
        (42, TypeError, "not int"),
    ],
)
def test_bad_texts_raise_clearly(bad, error, message):
    with pytest.raises(error, match=message):
        neardup.minhash(bad)


def test_every_algorithm_runs_and_finds_exact_copies(texts):
    names = [a["name"] for a in neardup.algorithms()]
    assert "minhash-lsh" in names and "spotsigs" in names
    copies = {
        (a, b)
        for a, b in itertools.combinations(range(len(texts)), 2)
        if texts[a] and texts[a] == texts[b]
    }
    assert copies
    for name in names:
        pairs = {(a, b) for a, b, _ in neardup.detect(texts, name)}
        missed = copies - pairs
        assert not missed, f"{name} missed exact copies {sorted(missed)[:5]}"
    with pytest.raises(ValueError, match="unknown algorithm"):
        neardup.detect(texts, "no-such-algorithm")
    with pytest.raises(ValueError, match="threshold"):
        neardup.detect(texts, "minhash-lsh", threshold=2)


def test_minhash_lsh_index_equals_brute_force():
    seed = 11
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    num_perm, b, r = 12, 4, 3
    # A small value alphabet makes band collisions frequent.
    sigs = rng.integers(0, 3, size=(60, num_perm), dtype=np.uint32)
    lsh = neardup.MinHashLSH(num_perm=num_perm, params=(b, r))
    for i, s in enumerate(sigs):
        lsh.insert(f"k{i}", s)
    bands = sigs.reshape(60, b, r)

    def oracle(q, alive):
        qb = q.reshape(b, r)
        return [f"k{i}" for i in alive if (bands[i] == qb).all(axis=1).any()]

    alive = list(range(60))
    for q in sigs[:20]:
        assert lsh.query(q) == oracle(q, alive)
    for i in range(0, 60, 3):
        lsh.remove(f"k{i}")
    alive = [i for i in alive if i % 3]
    assert len(lsh) == len(alive) and "k0" not in lsh and "k1" in lsh
    for q in sigs:
        assert lsh.query(q) == oracle(q, alive)
    # Verification keeps candidates whose agreement reaches the threshold.
    lsh_v = neardup.MinHashLSH(threshold=0.5, num_perm=num_perm, params=(b, r))
    for i, s in enumerate(sigs):
        lsh_v.insert(i, s)
    for q in sigs[:20]:
        want = [i for i in oracle_ids(bands, q, b, r) if (sigs[i] == q).mean() >= 0.5]
        assert lsh_v.query(q, verify=True) == want


def oracle_ids(bands, q, b, r):
    qb = q.reshape(b, r)
    return [i for i in range(len(bands)) if (bands[i] == qb).all(axis=1).any()]


def test_minhash_lsh_datasketch_conventions():
    lsh = neardup.MinHashLSH(threshold=0.8, num_perm=128)
    assert (lsh.b, lsh.r) == (9, 13)  # datasketch's _optimal_param(0.8, 128)

    class FakeDatasketchMinHash:
        hashvalues = np.arange(128, dtype=np.uint32)
        scheme, seed = "affine32", 1

        def __len__(self):
            return len(self.hashvalues)

    lsh.insert("x", FakeDatasketchMinHash())
    assert lsh.query(FakeDatasketchMinHash()) == ["x"]
    with pytest.raises(ValueError, match="already exists"):
        lsh.insert("x", FakeDatasketchMinHash())
    with pytest.raises(ValueError, match="does not exist"):
        lsh.remove("y")
    with pytest.raises(ValueError, match="cannot mix array signatures"):
        lsh.query(np.arange(128, dtype=np.uint32))
    texts = neardup.MinHashLSH(threshold=0.8, num_perm=128)
    with pytest.raises(ValueError, match="num_perm = 128"):
        texts.insert("z", np.zeros(64, dtype=np.uint32))
    texts.insert("t", "a text is sketched with neardup.minhash")
    assert "t" in texts.query("a text is sketched with neardup.minhash")
    assert list(lsh.keys) == ["x"] and not lsh.is_empty()
