"""neardup.MinHash / LeanMinHash / bulk as drop-ins for datasketch's: one seeded script runs
against datasketch 2.0 and against neardup, and everything a user can observe must be equal —
hash values (bit for bit, every scheme), estimates, merges, unions, copies, pickles, the
LeanMinHash byte layout, and which calls raise what. Signatures of either library serve in
either library's MinHashLSH."""

from __future__ import annotations

import inspect
import pickle
import random
import struct

import numpy as np
import pytest

datasketch = pytest.importorskip("datasketch")

import neardup  # noqa: E402

SEED = 20261128
SCHEMES = ["affine32", "affine64", "legacy"]


def token_sets(seed: int = SEED, n: int = 40):
    """Families of near-copies (a third of the tokens swapped) with every token length from
    0 to 80 bytes (SHA-1 of one block and of two), and some non-ASCII tokens."""
    rng = random.Random(seed)
    out = []
    for f in range(n // 4):
        base = [("w%d" % rng.randrange(3000)).encode() * rng.randrange(1, 6) for _ in range(30)]
        base += [bytes(rng.randrange(256) for _ in range(rng.randrange(81))) for _ in range(5)]
        base.append("naïve 词".encode())
        for _ in range(4):
            out.append([t if rng.random() > 0.33 else b"x%d" % rng.randrange(3000) for t in base])
    return out


def raises(fn) -> str:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 — the class is the result compared
        return type(e).__name__
    return "ok"


def first_bytes_hash(b: bytes) -> int:
    """A user's hashfunc (module level, so that MinHash objects holding it pickle)."""
    return int.from_bytes(b[:4].ljust(4, b"\0"), "little")


def script(ns, sets, scheme):
    """Every public operation of MinHash and LeanMinHash; returns what a user observes."""
    seen = {}
    MinHash, LeanMinHash = ns.MinHash, ns.LeanMinHash
    ms = []
    for i, tokens in enumerate(sets):
        m = MinHash(num_perm=64, seed=3, scheme=scheme)
        if i % 3 == 0:
            for t in tokens:
                m.update(t)
        else:
            m.update_batch(tokens)
        ms.append(m)
    seen["values"] = [m.hashvalues.tolist() for m in ms]
    seen["dtype"] = str(ms[0].hashvalues.dtype)
    # neardup reads a short list of exact bytes in place with the GIL held, a list of 4,096
    # tokens or more with the GIL released, other buffers and iterables by copying: each way.
    big = [t for tokens in sets for t in tokens]
    while len(big) < 5000:
        big += big
    mixed = [bytearray(t) if i % 3 == 1 else memoryview(t) if i % 3 == 2 else t
             for i, t in enumerate(sets[0])]
    for name, batch in (("big batch", big), ("mixed buffers", mixed), ("tuple", tuple(sets[1])),
                        ("generator", (t for t in sets[2]))):
        m = MinHash(num_perm=64, seed=3, scheme=scheme)
        m.update_batch(batch)
        seen[name] = m.hashvalues.tolist()
    seen["permutations"] = np.asarray(ms[0].permutations).tolist()
    seen["jaccard"] = [ms[i].jaccard(ms[i + 1]) for i in range(len(ms) - 1)]
    seen["count"] = [round(m.count(), 9) for m in ms]
    seen["len"] = len(ms[0])
    seen["empty"] = [MinHash(scheme=scheme).is_empty(), ms[0].is_empty()]
    merged = ms[0].copy()
    merged.merge(ms[1])
    seen["merge"] = merged.hashvalues.tolist()
    seen["copy is equal, not the same"] = (merged.copy() == merged, merged.copy() is merged)
    seen["digest"] = ms[2].digest().tolist()
    cleared = ms[3].copy()
    cleared.clear()
    seen["clear"] = (cleared.is_empty(), cleared.hashvalues.tolist())
    seen["eq"] = (ms[0] == ms[0].copy(), ms[0] == ms[1])
    seen["union"] = MinHash.union(ms[0], ms[1], ms[2]).hashvalues.tolist()
    seen["union of one"] = raises(lambda: MinHash.union(ms[0]))
    seen["bulk"] = [m.hashvalues.tolist() for m in MinHash.bulk(sets[:9], num_perm=64, seed=3,
                                                                  scheme=scheme)]
    seen["generator"] = [m.hashvalues.tolist() for m in MinHash.generator(sets[:5], num_perm=64,
                                                                            seed=3, scheme=scheme)]
    restored = pickle.loads(pickle.dumps(ms[4]))
    seen["pickle"] = (restored == ms[4], restored.hashvalues.tolist(), restored.scheme)
    restored.update(b"after pickling")
    seen["pickle then update"] = restored.hashvalues.tolist()
    from_values = MinHash(hashvalues=ms[5].hashvalues, seed=3, scheme=scheme)
    seen["from hashvalues"] = (from_values.jaccard(ms[5]), len(from_values))
    if scheme != "affine64":
        custom = MinHash(num_perm=32, scheme=scheme, hashfunc=first_bytes_hash)
        custom.update_batch(sets[0])
        seen["custom hashfunc"] = custom.hashvalues.tolist()
        seen["custom pickled"] = pickle.loads(pickle.dumps(custom)).hashvalues.tolist()
    seen["errors"] = {
        "num_perm 0": raises(lambda: MinHash(num_perm=0)),
        "values without scheme": raises(lambda: MinHash(hashvalues=[1, 2, 3])),
        "unknown scheme": raises(lambda: MinHash(scheme="affine16")),
        "hashfunc not callable": raises(lambda: MinHash(hashfunc=3)),
        "jaccard other seed": raises(lambda: ms[0].jaccard(MinHash(num_perm=64, seed=4,
                                                                   scheme=scheme))),
        "jaccard other length": raises(lambda: ms[0].jaccard(MinHash(num_perm=32, seed=3,
                                                                     scheme=scheme))),
        "merge other scheme": raises(lambda: ms[0].merge(MinHash(
            num_perm=64, seed=3, scheme="legacy" if scheme != "legacy" else "affine32"))),
        "even a": raises(lambda: MinHash(scheme="affine32", hashvalues=[1, 2],
                                         permutations=([2, 4], [1, 1]))),
        "gpu always, one token": raises(lambda: MinHash(gpu_mode="always").update(b"x")),
        "gpu always, a batch": raises(lambda: MinHash(gpu_mode="always").update_batch([b"x"])),
    }
    lean = [LeanMinHash(m) for m in ms]
    seen["lean values"] = [m.hashvalues.tolist() for m in lean]
    seen["lean jaccard"] = [lean[i].jaccard(lean[i + 1]) for i in range(5)]
    for order in ("@", "<", ">", "!"):
        buf = bytearray(lean[0].bytesize(order))
        lean[0].serialize(buf, order)
        seen["serialize " + order] = bytes(buf)
        seen["deserialize " + order] = LeanMinHash.deserialize(buf, order).hashvalues.tolist()
    seen["lean pickle"] = pickle.loads(pickle.dumps(lean[1])).hashvalues.tolist()
    seen["lean state"] = bytes(lean[1].__getstate__())
    seen["lean hash"] = (hash(lean[2]) == hash(lean[2].copy()), lean[2] == lean[2].copy())
    seen["lean set"] = len({lean[0], lean[0].copy(), lean[1]})
    seen["lean union"] = LeanMinHash.union(lean[0], lean[1]).hashvalues.tolist()
    seen["lean from values"] = LeanMinHash(seed=3, hashvalues=ms[0].hashvalues,
                                           scheme=scheme).hashvalues.tolist()
    seen["lean errors"] = {
        "update": raises(lambda: lean[0].update(b"x")),
        "no arguments": raises(lambda: LeanMinHash()),
        "values without scheme": raises(lambda: LeanMinHash(seed=1, hashvalues=[1, 2])),
        "small buffer": raises(lambda: lean[0].serialize(bytearray(8))),
        "conflicting scheme": raises(lambda: LeanMinHash(ms[0], scheme="nope")),
    }
    return seen


@pytest.mark.parametrize("scheme", SCHEMES)
def test_same_results_as_datasketch(scheme):
    print(f"seed {SEED}")
    sets = token_sets()
    theirs = script(datasketch, sets, scheme)
    ours = script(neardup, sets, scheme)
    assert ours.keys() == theirs.keys()
    for what in theirs:
        assert ours[what] == theirs[what], what
    # Not vacuous: near-copies share many values, others few, and the errors are errors.
    assert 0.2 < np.mean(theirs["jaccard"]) < 0.8
    assert theirs["errors"]["jaccard other seed"] == "ValueError"
    assert theirs["lean errors"]["update"] == "TypeError"


def test_the_script_notices_a_missing_or_wrong_method():
    """The comparison fails when neardup loses a method or computes one value differently."""
    sets = token_sets(n=8)
    theirs = script(datasketch, sets, "affine32")

    class NoMerge(neardup.MinHash):
        merge = property(lambda self: (_ for _ in ()).throw(AttributeError("merge")))

    class Skewed(neardup.MinHash):
        def count(self):
            return super().count() + 1e-6

    for broken in (NoMerge, Skewed):
        ns = type("ns", (), {"MinHash": broken, "LeanMinHash": neardup.LeanMinHash})
        try:
            ours = script(ns, sets, "affine32")
        except AttributeError:
            continue
        assert any(ours[k] != theirs[k] for k in theirs), broken.__name__


def test_every_public_member_of_datasketch_is_there():
    for ours, theirs in ((neardup.MinHash, datasketch.MinHash),
                         (neardup.LeanMinHash, datasketch.LeanMinHash)):
        members = {m for m in dir(theirs) if not m.startswith("_")}
        assert sorted(m for m in members if not hasattr(ours, m)) == [], ours.__name__
        for name in members:
            if callable(getattr(theirs, name)):
                want = list(inspect.signature(getattr(theirs, name)).parameters)
                got = list(inspect.signature(getattr(ours, name)).parameters)
                assert got[:len(want)] == want, (ours.__name__, name)


def test_signatures_mix_in_either_librarys_index():
    """A neardup MinHash found by a datasketch query in datasketch's MinHashLSH and the
    other way round, and the same candidates in neardup's MinHashLSH."""
    sets = token_sets()
    theirs = [datasketch.MinHash(num_perm=128) for _ in sets]
    for m, tokens in zip(theirs, sets):
        m.update_batch(tokens)
    ours = neardup.MinHash.bulk(sets, num_perm=128)
    results = []
    for LSH in (datasketch.MinHashLSH, neardup.MinHashLSH):
        lsh = LSH(threshold=0.3, num_perm=128)
        for i, m in enumerate(ours):
            lsh.insert(i, m if i % 2 else theirs[i])  # half from each library
        results.append([sorted(lsh.query(theirs[i] if i % 3 else ours[i]))
                        for i in range(len(sets))])
    assert results[0] == results[1]
    assert all(i in found for i, found in enumerate(results[0]))
    assert np.mean([len(f) for f in results[0]]) > 1.5


def test_bulk_of_texts_is_update_batch_of_their_words():
    """neardup.bulk(texts) equals datasketch after update_batch of str.split()'s words (also
    Python's own separators U+001C–U+001F, which Rust does not count as white space), and
    of word n-grams joined by one space."""
    rng = random.Random(SEED)
    separators = [" ", "\t", "\n", "\x1c", "\x1f", "\u3000", "\xa0", "  "]
    texts = ["".join(rng.choice(["w%d" % rng.randrange(50), "é", "词"]) + rng.choice(separators)
                     for _ in range(rng.randrange(0, 40))) for _ in range(60)] + ["", "   "]
    for ngram in (1, 3):
        got = neardup.bulk(texts, num_perm=64, seed=9, ngram=ngram)
        for text, m in zip(texts, got):
            words = text.split()
            grams = [" ".join(words[i:i + ngram]) for i in range(len(words) - ngram + 1)]
            want = datasketch.MinHash(num_perm=64, seed=9)
            want.update_batch([g.encode() for g in grams])
            assert np.array_equal(m.hashvalues, want.hashvalues), (text, ngram)
    with pytest.raises(TypeError, match="not one str"):
        neardup.bulk("one text")


def test_lean_bytes_read_by_the_other_library():
    m = neardup.bulk(["a b c d e"], num_perm=16)[0]
    buf = bytearray(neardup.LeanMinHash(m).bytesize())
    neardup.LeanMinHash(m).serialize(buf)
    assert datasketch.LeanMinHash.deserialize(buf).hashvalues.tolist() == m.hashvalues.tolist()
    seed, length = struct.unpack_from("@qi", buf)
    assert (seed, length) == (1, -16)


def test_reprs_are_short():
    m = neardup.MinHash(num_perm=16)
    assert repr(m) == "MinHash(num_perm=16, seed=1, scheme='affine32', empty)"
    m.update(b"x")
    assert repr(neardup.LeanMinHash(m)) == "LeanMinHash(num_perm=16, seed=1, scheme='affine32')"
