"""The package's build backend: maturin's, building outside the source tree.

Cargo builds into the workspace's ``target/`` unless told otherwise, so ``pip install ./python``
left some 870 MB inside the user's checkout. Unless ``CARGO_TARGET_DIR`` is set, this backend
points it at the user's cache (``$XDG_CACHE_HOME/neardup/cargo-target``, else
``~/.cache/neardup/cargo-target``), where the next install finds what it compiled, then hands
every build hook to maturin unchanged.
"""

import os
import sys

from neardup_target_dir import cargo_target_dir

os.environ["CARGO_TARGET_DIR"] = cargo_target_dir()

import maturin  # noqa: E402  (after the environment it reads is set)

_HOOKS = ("build_sdist", "get_requires_for_build_wheel", "get_requires_for_build_sdist",
          "get_requires_for_build_editable", "prepare_metadata_for_build_wheel",
          "prepare_metadata_for_build_editable")
globals().update({name: getattr(maturin, name) for name in _HOOKS if hasattr(maturin, name)})


def _compiling(hook):
    def build(*args, **kwargs):
        print("neardup: compiling in %s (set CARGO_TARGET_DIR to choose another directory)"
              % os.environ["CARGO_TARGET_DIR"], file=sys.stderr)
        return hook(*args, **kwargs)
    build.__name__ = hook.__name__
    return build


build_wheel = _compiling(maturin.build_wheel)
if hasattr(maturin, "build_editable"):
    build_editable = _compiling(maturin.build_editable)
