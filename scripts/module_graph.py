#!/usr/bin/env python3
"""The dependency graph of the crate's modules, and a check that it has no cycle.

Reads every file under src/, takes its production code (everything before
its `#[cfg(test)]` test module; test-only files are left out) and collects
the modules it names through `crate::` (in `use` lines and in paths; doc
comments and comments are ignored). Two levels are checked:

* top level: `src/x.rs` and `src/x/...` are module `x`;
* inside each folder: `src/x/y.rs` is `x::y`, and `super::z` names its
  sibling `x::z`.

A module may use its own children and its parent; what must not exist is a
cycle between two different modules of the same level. Prints the graph
(`--dot` for Graphviz) and exits 1 if there is a cycle.
"""
import pathlib
import re
import sys
from collections import defaultdict

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"
TEST_ONLY = {"equiv.rs", "testdata.rs", "drift_tests.rs", "tests.rs"}
ROOT_ITEMS = {"lib"}  # lib.rs only declares modules and re-exports


def production_code(path: pathlib.Path) -> str:
    text = path.read_text()
    cut = re.search(r"^#\[cfg\(test\)\]\s*\n(#\[[^\n]*\]\s*\n)*(pub\(crate\) )?mod tests", text, re.M)
    if cut:
        text = text[: cut.start()]
    # Drop comments (doc comments included): links there are not dependencies.
    return "\n".join(re.sub(r"//.*", "", line) for line in text.splitlines())


def module_of(path: pathlib.Path) -> tuple[str, ...]:
    rel = path.relative_to(SRC).with_suffix("")
    parts = rel.parts
    if parts[-1] == "mod":
        parts = parts[:-1]
    return parts


def crate_paths(code: str) -> set[tuple[str, ...]]:
    """Every `crate::a::b...` path, also inside `use crate::{a, b::c}` groups."""
    found = set()
    for m in re.finditer(r"crate::((?:\w+::)*)(\{[^;]*?\}|\w+)", code, re.S):
        prefix = tuple(p for p in m.group(1).split("::") if p)
        tail = m.group(2)
        if tail.startswith("{"):
            for item in re.split(r"[,\s]+", tail.strip("{}")):
                if item:
                    found.add(prefix + tuple(p for p in item.split("::") if p and p != "self"))
        else:
            found.add(prefix + (tail,))
    return found


def main() -> int:
    files = [p for p in SRC.rglob("*.rs") if p.name not in TEST_ONLY and p.stem not in ROOT_ITEMS]
    modules = {module_of(p) for p in files}
    top = defaultdict(set)
    inner = defaultdict(set)
    for path in files:
        me = module_of(path)
        code = production_code(path)
        for target in crate_paths(code):
            # The longest known module the path starts with.
            for n in range(len(target), 0, -1):
                if target[:n] in modules:
                    t = target[:n]
                    break
            else:
                continue  # an item re-exported at the crate root
            if t[0] != me[0]:
                top[me[0]].add(t[0])
            elif len(me) > 1 and len(t) > 1 and t[:2] != me[:2]:
                inner[me[:2]].add(t[:2])
        if len(me) > 1:
            for m in re.finditer(r"\bsuper::(\w+)", code):
                sib = me[:-1] + (m.group(1),)
                if sib in modules and sib != me and len(me) == 2:
                    inner[me[:2]].add(sib)
    ok = True
    for name, graph in (("top-level modules", top), ("modules inside folders", inner)):
        nodes = set(graph) | {t for ts in graph.values() for t in ts}
        cycles = strongly_connected(nodes, graph)
        if "--dot" in sys.argv:
            label = lambda n: "::".join(n) if isinstance(n, tuple) else n
            print(f"digraph \"{name}\" {{")
            for a in sorted(graph, key=str):
                for b in sorted(graph[a], key=str):
                    print(f'  "{label(a)}" -> "{label(b)}";')
            print("}")
        else:
            print(f"{name}: {len(nodes)} modules, {sum(len(v) for v in graph.values())} edges")
            for a in sorted(graph, key=str):
                print(f"  {a} -> {', '.join(sorted(map(str, graph[a])))}")
        for c in cycles:
            ok = False
            print(f"CYCLE among {name}: {sorted(map(str, c))}", file=sys.stderr)
    if ok:
        print("no cycle", file=sys.stderr)
    return 0 if ok else 1


def strongly_connected(nodes, graph):
    """Tarjan's algorithm; returns the components with more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in sorted(nodes, key=str):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    sys.exit(main())
