#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The structure's rules (ARCHITECTURE.md, "Rules the build checks"), checked on the sources
and on the objects a build made:

  1. no circle of files: a module is a .c file with its .h; module A depends on B when A
     includes B's header or A's object refers to a symbol B's object defines (nm: calls and
     data alike, the link graph). Callbacks registered through a struct of function pointers
     are one-way by construction and make no edge. Any strongly connected set of two or more
     modules is reported with its edges.
  2. no C function longer than 60 lines (its definition, from the line of its name to its
     closing brace), no C file longer than 600 lines.
  3. a folder's files include only the headers its layer may see (LAYERS below).

usage: check-structure.py SOURCE_ROOT BUILD_ROOT   (BUILD_ROOT has compile_commands.json)
Exit status 1 and one line per violation when a rule is broken.
"""
import json
import os
import re
import subprocess
import sys

SCOPE = ("api", "basic", "backends", "daemon", "ctl", "panel", "generator")
MAX_FUNCTION = 60
MAX_FILE = 600
# Folder -> the folders whose headers its files may include (their own always).
LAYERS = {
    "api": (),
    "basic": (),
    "backends": ("basic",),
    "daemon": ("basic", "backends", "api", "kmod"),
    "generator": ("basic", "backends", "daemon"),
    "ctl": ("basic", "api"),
    "panel": ("basic", "api"),
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(root):
    for folder in SCOPE:
        top = os.path.join(root, folder)
        if not os.path.isdir(top):
            continue
        for dirpath, _, files in os.walk(top):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def module(path):
    return os.path.splitext(path)[0]


def headers_by_name(root):
    found = {}
    for folder in SCOPE + ("kmod",):
        top = os.path.join(root, folder)
        for dirpath, _, files in os.walk(top) if os.path.isdir(top) else ():
            for f in files:
                if f.endswith(".h"):
                    found.setdefault(f, []).append(os.path.relpath(os.path.join(dirpath, f), root))
    return found


def resolve(include, src, headers):
    """The header a quoted include names: next to the includer first, then by name."""
    here = os.path.normpath(os.path.join(os.path.dirname(src), include))
    cands = headers.get(os.path.basename(include), [])
    if here in cands:
        return here
    return cands[0] if len(cands) == 1 else None


def function_lengths(path, text):
    """(name, first line, length) of each function definition: clang-format puts a
    definition's opening and closing braces alone in column 0."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        if line != "{":
            continue
        start = i - 1  # the signature may span lines: back to the line naming the function
        while start > 0 and not re.match(r"^[A-Za-z_].*\(", lines[start]):
            start -= 1
        m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", lines[start])
        end = i + 1
        while end < len(lines) and lines[end] != "}" and lines[end] != "};":
            end += 1
        if lines[end - 1 if end >= len(lines) else end] == "};":
            continue  # an initializer, not a function
        out.append((m.group(1) if m else "?", start + 1, end - start + 1))
    return out


def nm_symbols(obj):
    res = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True)
    defined, undefined = set(), set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRGSCVW":  # global: static symbols are nobody else's
            defined.add(name)
    return defined, undefined


def link_edges(root, build):
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    defined_by = {}  # symbol -> modules
    uses = {}  # module -> symbols
    for e in entries:
        src = os.path.relpath(os.path.normpath(os.path.join(e["directory"], e["file"])), root)
        if src.split(os.sep)[0] not in SCOPE or not src.endswith(".c"):
            continue
        obj = os.path.join(e["directory"], e["output"])
        if not os.path.exists(obj):
            continue
        d, u = nm_symbols(obj)
        for s in d:
            defined_by.setdefault(s, set()).add(module(src))
        uses.setdefault(module(src), set()).update(u)
    edges = {}
    for m, syms in uses.items():
        for s in syms:
            for target in defined_by.get(s, ()):
                if target != m:
                    edges.setdefault((m, target), set()).add(s)
    return edges


def strongly_connected(nodes, succ):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ.get(v, ()):
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
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, build = (os.path.abspath(a) for a in sys.argv[1:])
    headers = headers_by_name(root)
    problems = []
    why = {}  # (a, b) -> reasons
    nodes = set()
    for src in sources(root):
        with open(os.path.join(root, src)) as f:
            text = f.read()
        nodes.add(module(src))
        n = text.count("\n")
        if src.endswith(".c") and n > MAX_FILE:
            problems.append(f"{src}: {n} lines, more than {MAX_FILE}: split it by job")
        if src.endswith(".c"):
            for name, line, length in function_lengths(src, text):
                if length > MAX_FUNCTION:
                    problems.append(
                        f"{src}:{line}: {name}() is {length} lines, more than {MAX_FUNCTION}")
        folder = src.split(os.sep)[0]
        for inc in INCLUDE.findall(text):
            target = resolve(inc, src, headers)
            if target is None:
                continue  # generated (config.h) or ambiguous: not ours to judge
            tfolder = target.split(os.sep)[0]
            if tfolder != folder and tfolder not in LAYERS.get(folder, ()):
                problems.append(f'{src}: includes "{inc}" ({target}); {folder}/ may include '
                                f"only from {', '.join((folder,) + LAYERS.get(folder, ()))}/")
            if module(target) != module(src):
                why.setdefault((module(src), module(target)), set()).add(f'#include "{inc}"')
    for (a, b), syms in link_edges(root, build).items():
        why.setdefault((a, b), set()).update(f"{s}()" for s in sorted(syms)[:3])
        nodes.update((a, b))
    succ = {}
    for a, b in why:
        succ.setdefault(a, set()).add(b)
    for comp in strongly_connected(nodes, succ):
        inside = set(comp)
        detail = "; ".join(f"{a} -> {b} ({', '.join(sorted(why[(a, b)])[:3])})"
                           for a in comp for b in sorted(succ.get(a, ())) if b in inside)
        problems.append(f"circle of files {{{', '.join(comp)}}}: {detail}")
    for p in problems:
        print(p)
    print(f"check-structure: {len(nodes)} modules, {len(why)} dependencies, "
          f"{len(problems)} problem(s)", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
