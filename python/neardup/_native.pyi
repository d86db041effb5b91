"""Type stubs of the Rust extension module (see ``python/src``). Use the wrappers in
``neardup`` (keyword arguments, docstrings); parameters cross here as one JSON object."""

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

__version__: str

def minhash(texts: Any, params: str) -> npt.NDArray[np.uint32]: ...
def simhash(texts: Any, params: str) -> npt.NDArray[np.uint64]: ...
def band_keys(
    signatures: npt.NDArray[np.uint32], bands: int, rows: int
) -> npt.NDArray[np.uint64]: ...
def detect(texts: Any, algorithm: str, params: str) -> List[Tuple[int, int, float]]: ...
def algorithms() -> str: ...
def dedup(
    inputs: Sequence[str],
    output: str,
    algorithm: str,
    params: str,
    text_field: str,
    id_field: str,
    keep: str,
    memory: Optional[int] = None,
    index: Optional[str] = None,
    inflated_copy: bool = True,
    clusters: Optional[str] = None,
    clusters_format: str = "parquet",
    progress: bool = False,
    max_pairs: Optional[int] = None,
    html_field: Optional[str] = None,
    extract: str = "main",
    boilerplate_lines: Optional[int] = None,
    write_text: bool = False,
) -> str: ...
def extract(
    inputs: Sequence[str],
    output: str,
    extract: str = "main",
    html_field: Optional[str] = None,
    text_field: str = "text",
    id_field: str = "id",
    boilerplate_lines: Optional[int] = None,
) -> str: ...
def publish_external(output: str, run: str) -> str: ...
def deduplicated_names(inputs: Sequence[str]) -> List[str]: ...
def write_deduplicated(input: str, target: str, removed: npt.NDArray[np.uint64]) -> None: ...
def candidate_pairs(
    position: npt.NDArray[np.uint64], key: npt.NDArray[np.uint64], doc: npt.NDArray[np.uint64]
) -> Tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]: ...
def lsh_tune(threshold: float, num_perm: int, false_positive_weight: float,
             objective: str = ..., min_probability: float = ...) -> str: ...
def hamming_designs(
    bits: int, distance: int, fingerprints: float, memory: Optional[int] = None
) -> str: ...

class MinHashIndex:
    num_perm: int
    bands: int
    rows: int
    value_words: int
    def __init__(self, num_perm: int, bands: int, rows: int, value_words: int = 1) -> None: ...
    def insert(self, id: int, signature: npt.NDArray[np.uint32]) -> None: ...
    def insert_many(
        self, ids: npt.NDArray[np.uint32], signatures: npt.NDArray[np.uint32]
    ) -> None: ...
    def remove(self, id: int) -> None: ...
    def remove_many(self, ids: npt.NDArray[np.uint32]) -> None: ...
    def signatures(self, ids: npt.NDArray[np.uint32]) -> npt.NDArray[np.uint32]: ...
    def query(
        self, signature: npt.NDArray[np.uint32], min_similarity: Optional[float] = None
    ) -> List[int]: ...
    def __len__(self) -> int: ...
    def __contains__(self, id: int) -> bool: ...

def expand_inputs(inputs: Sequence[str]) -> List[str]: ...

class StreamKernel:
    algorithm: str
    width: int
    keys_per_doc: int
    sketch_key: str
    resolved_params: str
    def __init__(self, algorithm: str, params: str) -> None: ...
    def sketch(self, texts: Any) -> Tuple[npt.NDArray[np.uint32], npt.NDArray[np.bool_]]: ...
    def sketch_file(
        self, path: str, text_field: str, id_field: str
    ) -> Tuple[
        npt.NDArray[np.uint32],
        npt.NDArray[np.bool_],
        List[Optional[str]],
        npt.NDArray[np.uint32],
        npt.NDArray[np.uint64],
    ]: ...
    def keys(self, signatures: npt.NDArray[np.uint32]) -> npt.NDArray[np.uint64]: ...
    def verify(
        self, a: npt.NDArray[np.uint32], b: npt.NDArray[np.uint32]
    ) -> npt.NDArray[np.float64]: ...
    def anchor(
        self,
        docs: npt.NDArray[np.uint64],
        roots: npt.NDArray[np.uint64],
        signatures: npt.NDArray[np.uint32],
        bytes: npt.NDArray[np.int64],
        edge_a: npt.NDArray[np.uint64],
        edge_b: npt.NDArray[np.uint64],
        keep: str,
        cut: bool,
    ) -> Tuple[npt.NDArray[np.uint64], npt.NDArray[np.float64], npt.NDArray[np.bool_]]: ...
