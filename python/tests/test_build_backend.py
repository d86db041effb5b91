"""The build backend compiles outside the source tree: in CARGO_TARGET_DIR when the user sets
it, else in the user's cache — never in the checkout's ``target/``."""

import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BACKEND = os.path.join(HERE, "..", "build_backend", "neardup_target_dir.py")


def cargo_target_dir():
    spec = importlib.util.spec_from_file_location("neardup_target_dir", BACKEND)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.cargo_target_dir


def test_the_users_choice_wins_then_the_cache():
    where = cargo_target_dir()
    assert where({"CARGO_TARGET_DIR": "/x/t", "XDG_CACHE_HOME": "/c"}) == "/x/t"
    assert where({"XDG_CACHE_HOME": "/c"}) == os.path.join("/c", "neardup", "cargo-target")
    home = os.path.join(os.path.expanduser("~"), ".cache", "neardup", "cargo-target")
    assert where({}) == home
    assert where({"CARGO_TARGET_DIR": ""}) == home
    checkout = os.path.abspath(os.path.join(HERE, "..", ".."))
    assert not os.path.abspath(where({})).startswith(checkout + os.sep)
