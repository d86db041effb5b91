#!/usr/bin/env python3
"""Finds import circles between the modules (files) of each Rust crate of the workspace.

A file's imports are the `crate::…`, `super::…`, `self::…` and child-module paths it names
(in `use` lines and in code) outside its `#[cfg(test)]` module, resolved to the deepest module file that exists
(`crate::a::b::Item` → src/a/b.rs or src/a/b/mod.rs, else src/a.rs …). A parent `mod.rs`
declaring its children is not an import; naming a child's item is. Circles are the strongly
connected components of that graph with more than one file.

    python3 scripts/check-imports.py      # exit 0: no circle; 1: prints each circle's edges
"""
import os
import re
import sys

CRATES = ["crates/neardup/src", "crates/neardup-dedup/src", "crates/neardup-lab/src", "crates/neardup-serve/src", "python/src"]
PATH = re.compile(r"\b((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_TREE = re.compile(r"\buse\s+([^;]+);", re.S)


def module_of(root, path):
    rel = os.path.relpath(path, root)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return tuple(rel)


def strip_tests(text):
    m = re.search(r"#\[cfg\(test\)\]\s*(pub(\([a-z]+\))?\s+)?mod\s+\w+\s*\{", text)
    text = text[: m.start()] if m else text
    # comments and strings carry paths that are not imports
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def inline_modules(text):
    """(start, end) of every inline `mod name { … }` body: paths inside it are relative to it."""
    spans = []
    for m in re.finditer(r"\bmod\s+\w+\s*\{", text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += text[i] == "{"
            depth -= text[i] == "}"
            if depth == 0:
                break
            i += 1
        spans.append((m.start(), i))
    return spans


def expand_use(tree):
    """`a::{b, c::{d, e}}` → [a::b, a::c::d, a::c::e] (good enough for path resolution)."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)
    i = tree.find("{")
    if i < 0:
        return [tree]
    prefix, inner = tree[:i], tree[i + 1 : tree.rfind("}")]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    out = []
    for p in parts:
        if p:
            out += [prefix + q for q in expand_use(p)]
    return out


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    circles = 0
    for root in CRATES:
        files = {}
        if not os.path.isdir(root):
            print(f"check-imports: no {root}: is the list of crates out of date?")
            return 2
        for d, _, names in os.walk(root):
            for n in names:
                if n.endswith(".rs"):
                    p = os.path.join(d, n)
                    files[module_of(root, p)] = p
        edges = {m: {} for m in files}
        for mod, path in files.items():
            text = strip_tests(open(path, encoding="utf-8").read())
            children = {m[-1] for m in files if len(m) == len(mod) + 1 and m[:-1] == mod}
            spans = inline_modules(text)
            nesting = lambda pos: sum(a <= pos <= b for a, b in spans)
            paths = [(m.group(1), nesting(m.start())) for m in PATH.finditer(text)]
            for m in USE_TREE.finditer(text):
                for p in expand_use(m.group(1)):
                    first = p.split("::")[0]
                    if first in children:
                        paths.append(("self::" + p, nesting(m.start())))
                    elif first in ("crate", "super", "self"):
                        paths.append((p, nesting(m.start())))
            # A child module named in code (`child::item(…)`), not only in `use` lines.
            for m in re.finditer(r"(?<![:\w])([a-z_][a-z0-9_]*)::([A-Za-z_]\w*)", text):
                if m.group(1) in children:
                    paths.append((f"self::{m.group(1)}::{m.group(2)}", nesting(m.start())))
            for p, inline in paths:
                segs = p.split("::")
                if segs[0] == "self" and inline:
                    continue  # an item of the inline module itself
                while inline and segs[0] == "super":
                    segs, inline = segs[1:], inline - 1
                if inline or not segs:
                    continue
                if segs[0] not in ("crate", "super", "self"):
                    continue  # `super::x` out of an inline module into this file
                if segs[0] == "crate":
                    base, rest = (), segs[1:]
                elif segs[0] == "self":
                    base, rest = mod, segs[1:]
                else:
                    base = mod
                    rest = segs
                    while rest and rest[0] == "super":
                        base = base[:-1]
                        rest = rest[1:]
                target = None
                for k in range(len(rest), -1, -1):
                    cand = base + tuple(rest[:k])
                    if cand in files:
                        target = cand
                        break
                if target is None or target == mod:
                    continue
                edges[mod].setdefault(target, set()).add(segs[-1])
        for comp in sccs(edges):
            if len(comp) > 1:
                circles += 1
                print(f"circle in {root}: " + ", ".join(files[m] for m in sorted(comp)))
                for a in sorted(comp):
                    for b, names in sorted(edges[a].items()):
                        if b in comp:
                            print(f"  {files[a]} -> {files[b]}: {', '.join(sorted(names))}")
    if circles:
        return 1
    print("no import circle in " + ", ".join(CRATES))
    return 0


def sccs(edges):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            out.append(comp)

    for v in edges:
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    sys.exit(main())
