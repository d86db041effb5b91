#!/usr/bin/env python3
"""Checks that the README's commands and `pip install ./python` build every dependency once.

Cargo resolves features per command; where two commands turn on different features of a
crate, that crate and everything above it (polars, 13 minutes on 2 cores) is compiled twice.
This asks cargo for each command's unit graph (the exact units it would compile, with their
features) and reports every dependency compiled with different features by two of them.
Workspace crates are left out: they are ours and rebuild in seconds.

    python3 scripts/check-one-build.py        # exit 0: one build; 1: lists the differences
"""
import collections
import json
import os
import subprocess
import sys

COMMANDS = {
    "reproduce": ["cargo", "build", "--release", "-p", "neardup-lab", "--bin", "neardup"],
    "tests": ["cargo", "test", "--release", "--workspace", "--no-run"],
    "install": ["cargo", "build", "--release", "-p", "neardup-lab", "--locked"],
    "wheel": ["cargo", "build", "--release", "-p", "neardup-python", "--lib"],
}
WORKSPACE = {"neardup", "neardup-dedup", "neardup-lab", "neardup-serve", "neardup-python", "workspace-hack"}


def units(command):
    env = dict(os.environ, RUSTC_BOOTSTRAP="1")
    out = subprocess.run(
        command + ["--unit-graph", "-Z", "unstable-options"],
        check=True, capture_output=True, text=True, env=env,
    ).stdout
    found = collections.defaultdict(set)
    for unit in json.loads(out)["units"]:
        if unit["mode"] != "build":
            continue
        # pkg_id: "registry+…#name@version" or "path+file://…#version"
        pkg = unit["pkg_id"].rsplit("#", 1)[-1]
        name = pkg.split("@")[0]
        if name in WORKSPACE or "@" not in pkg:
            continue
        key = (pkg, unit["target"]["name"], unit.get("platform"))
        found[key].add(tuple(sorted(unit["features"])))
    return found


def main():
    graphs = {name: units(cmd) for name, cmd in COMMANDS.items()}
    problems = 0
    names = list(graphs)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for key in sorted(set(graphs[a]) & set(graphs[b]), key=str):
                if graphs[a][key] != graphs[b][key]:
                    problems += 1
                    print(f"{key[0]} ({key[1]}): {a} {sorted(graphs[a][key])} vs {b} {sorted(graphs[b][key])}")
    total = len(set().union(*graphs.values()))
    if problems:
        print(f"{problems} dependencies built with different features: pin them in crates/workspace-hack")
        return 1
    print(f"one build: {total} dependency units, the same features in {', '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
