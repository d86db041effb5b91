"""Where the package's build backend has cargo compile (importable without maturin)."""

import os


def cargo_target_dir(environ=os.environ) -> str:
    """``CARGO_TARGET_DIR`` when set, else the user's cache
    (``$XDG_CACHE_HOME/neardup/cargo-target``, else ``~/.cache/neardup/cargo-target``)."""
    if environ.get("CARGO_TARGET_DIR"):
        return environ["CARGO_TARGET_DIR"]
    cache = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "neardup", "cargo-target")
