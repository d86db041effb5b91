#!/usr/bin/env python3
"""Lists every Rust function over 80 lines outside tests, and fails when there is one.

A function is counted from its `fn` line to the closing brace at its own indentation (as
rustfmt lays code out); a file's `#[cfg(test)]` module, tests/ and benches/ are left out.
A long function is split by meaning (parsing from checking, computing from printing, one
function per case); see ARCHITECTURE.md.

    python3 scripts/check-function-length.py      # exit 0: none; 1: lists them
"""
import os
import re
import sys

LIMIT = 80
ROOTS = ["crates", "python/src"]
FN = re.compile(r"^(\s*)(pub(\([^)]*\))?\s+)?(const\s+)?(unsafe\s+)?fn\s+(\w+)")


def declaration_only(lines, i):
    """Whether the `fn` starting at line i ends with `;` before any `{` (no body)."""
    for line in lines[i:]:
        code = line.split("//")[0].rstrip()
        if "{" in code:
            return False
        if code.endswith(";"):
            return True
    return False


def long_functions(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    end = next((i for i, l in enumerate(lines) if l.startswith("#[cfg(test)]")), len(lines))
    i = 0
    while i < end:
        m = FN.match(lines[i])
        if m and declaration_only(lines, i):
            # A trait's method without a body: nothing to count, and no closing brace to
            # look for (the next one found would belong to another item).
            pass
        elif m:
            indent = m.group(1)
            j = i
            while j < end and lines[j].rstrip() != indent + "}":
                j += 1
            if j - i + 1 > LIMIT:
                yield j - i + 1, i + 1, m.group(6)
            i = j
        i += 1


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    found = []
    for root in ROOTS:
        for d, _, files in os.walk(root):
            parts = d.split(os.sep)
            if "tests" in parts or "benches" in parts or "target" in parts:
                continue
            for f in sorted(files):
                if f.endswith(".rs"):
                    p = os.path.join(d, f)
                    found += [(n, p, line, name) for n, line, name in long_functions(p)]
    for n, p, line, name in sorted(found, reverse=True):
        print(f"{p}:{line}: `{name}` is {n} lines (limit {LIMIT})")
    if found:
        return 1
    print(f"no function over {LIMIT} lines in {', '.join(ROOTS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
