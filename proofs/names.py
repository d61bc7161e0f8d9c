"""Which code a proof names, and whether the proof pins it.

A proof states facts about code: the regions it lists (``\\codelisting``) and the helpers it
names in its text (``\\code{_clip_window}``, ``\\texttt{admit}``, ``count\\_by\\_candidates``).
``pins.py`` notices a change to a pinned region; this module finds the names a proof uses
and the definitions (function, class, method, constant) they resolve to in ``opendp_duff/``,
so that ``tests/system/test_proof_names.py`` can require each to lie inside a region the
proof pins (``\\codelisting`` or ``\\codepin``), and every file path a proof names to exist.

    python proofs/names.py           # the inventory: per document, each named definition and its pin
    python proofs/names.py --unpinned   # only the named definitions no region of the document covers
"""
from __future__ import annotations

import ast
import builtins
import functools
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
PACKAGE = ROOT / "opendp_duff"

# A region: ``\codelisting{PATH}{NAME}{PIN}`` prints and pins it, ``\codepin`` only pins it.
REGION = re.compile(r"\\code(?:listing|pin)\{([^}]*)\}\{([^}]*)\}\{([^}]*)\}")
INPUT = re.compile(r"\\input\{([^}]*)\}")
CODE = re.compile(r"\\(?:code|texttt)\{")
# A name in prose, outside \code: only a word with an underscore is taken for code.
PROSE_NAME = re.compile(r"(?<![\\\w])[A-Za-z][A-Za-z0-9]*(?:\\_[A-Za-z0-9]+)+(?:\\_)?")
DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
PATH = re.compile(r"(?:opendp_duff|proofs|tests|benchmarks|docs|examples)/[A-Za-z0-9_./-]*[A-Za-z0-9_/]")

# Names that a proof uses for a library, the language or a concept, never for package code.
# The first component of a dotted name decides (``np.sort``, ``math.fsum``, ``F.percent_rank``).
LIBRARY_PREFIXES = frozenset({
    "np", "numpy", "math", "pd", "pandas", "pl", "polars", "F", "pyspark", "spark", "decimal",
    "fractions", "Fraction", "Decimal", "attrs", "sys", "os", "hashlib", "hmac", "secrets",
    "scipy", "itertools", "functools", "random", "struct", "json", "typing", "builtins",
    "Window", "DataFrame", "Series", "SparkSession", "operator", "float", "int", "str",
})


# Names of the mathematical objects every proof speaks of (the parameters of a map, the four
# parts of a transformation): they name a concept, not the property of that name on a class.
CONCEPTS = frozenset({
    "d_in", "d_out", "input_domain", "input_metric", "output_domain", "output_metric",
    "output_measure", "function", "map", "privacy_map", "stability_map",
})


BUILTINS = frozenset(dir(builtins))
# Names a proof may use that are neither package code nor under a library prefix, each with why.
ALLOWED = frozenset({
    # Spark SQL: the window frame and the ANSI arithmetic the Spark lemmas state (spark_facts.inc)
    "currentRow", "orderBy", "partitionBy", "rowsBetween", "unboundedPreceding",
    "UTF8_BINARY", "UTF8_LCASE", "UNICODE_CI",      # Spark 4's collation names
    "try_add", "try_subtract", "try_multiply", "try_divide", "Math.log",
    # pandas and Polars methods whose documented behaviour a proof cites
    "to_numpy", "get_loc", "df.iloc", "is_nan",
    # CPython's exact int/int division (platform.tex), decimal's context and exact operations
    "long_true_divide", "ROUND_HALF_EVEN", "MAX_EMAX", "MIN_EMIN", "copy_negate", "next_minus",
    "next_plus",
    # schematic names: f_up / f_down stand for exp_up, log_down, ..., _f for _exp, _log, ... (arithmetic.tex)
    "f_up", "f_down", "_f",
})


def _per_document(f):
    """Memoise ``f(doc, ...)`` while the document's file is unchanged (its mtime and size)."""
    memo: dict = {}

    @functools.wraps(f)
    def wrapper(doc: pathlib.Path, *args):
        st = doc.stat()
        key = (doc.resolve(), st.st_mtime_ns, st.st_size, args)
        if key not in memo:
            memo[key] = f(doc, *args)
        return memo[key]
    return wrapper


def _strip_comments(text: str) -> str:
    return "\n".join(re.sub(r"(?<!\\)%.*", "", line) for line in text.splitlines())


def _braced(text: str, start: int) -> tuple[str, int]:
    """The content of the brace group opening just before ``start``, and the index after it."""
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0) if text[i - 1] != "\\" or text[i - 2] == "\\" else 0
        i += 1
    return text[start:i - 1], i


def _untex(s: str) -> str:
    s = s.replace(r"\_", "_").replace(r"\{", "{").replace(r"\}", "}").replace(r"\#", "#")
    s = s.replace(r"\textbackslash", "\\").replace(r"\&", "&").replace(r"\%", "%").replace("~", " ")
    return re.sub(r"\\[A-Za-z]+", " ", s)


@_per_document
def inputs(doc: pathlib.Path) -> list[pathlib.Path]:
    """``doc`` and every fragment it ``\\input``s, transitively (paths resolved as TEXINPUTS does)."""
    seen: list[pathlib.Path] = []

    def visit(path: pathlib.Path) -> None:
        if path in seen:
            return
        seen.append(path)
        for name in INPUT.findall(_strip_comments(path.read_text())):
            for base in (doc.parent, HERE, ROOT):
                candidate = base / name
                if candidate.suffix not in (".tex", ".inc"):
                    candidate = candidate.with_suffix(".tex")
                if candidate.exists():
                    visit(candidate.resolve())
                    break

    visit(doc.resolve())
    return seen


def code_spans(text: str) -> list[str]:
    """The contents of every ``\\code{...}`` and ``\\texttt{...}`` and every underscored prose word."""
    text = _strip_comments(text)
    spans, rest, last = [], [], 0
    for m in CODE.finditer(text):
        if m.start() < last:
            continue
        body, last_end = _braced(text, m.end())
        rest.append(text[last:m.start()])
        spans.append(_untex(body))
        last = last_end
    rest.append(text[last:])
    prose = "".join(rest)
    prose = re.sub(r"\\(?:codelisting|codepin|input|cite|label|ref|eqref|proofbanner)\{[^}]*\}(?:\{[^}]*\}){0,2}", "",
                   prose)
    spans += [_untex(w) for w in PROSE_NAME.findall(prose)]
    return spans


@_per_document
def paths_named(doc: pathlib.Path) -> set[str]:
    """Repository paths a document names (in code, prose or a listing, not a ``\\codepin``), as written."""
    found = set()
    for part in inputs(doc):
        text = re.sub(r"\\codepin\{[^}]*\}", "", _strip_comments(part.read_text()))
        found |= set(PATH.findall(_untex(text.replace("\\_", "_"))))
        found |= set(re.findall(r"\\codelisting\{([^}]*)\}", text))
    return found


RELATIVE = re.compile(r"[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+\.(?:py|tex|inc|md|sty|bib)\b")


def missing_paths(doc: pathlib.Path) -> list[str]:
    """Paths a document or its fragments name that exist nowhere: neither from the repository
    root nor (for a shortened ``engines/local.py``) under ``opendp_duff/``, ``proofs/`` or ``tests/``."""
    named = set(paths_named(doc))
    for part in inputs(doc):
        text = _untex(_strip_comments(part.read_text()).replace("\\_", "_"))
        named |= set(RELATIVE.findall(text))
        named |= {path for path, _, _ in REGION.findall(_strip_comments(part.read_text()))}
    bases = (ROOT, PACKAGE, HERE, ROOT / "tests", doc.parent)
    return sorted(p for p in named if not any((b / p.rstrip("/")).exists() for b in bases))


@_per_document
def names(doc: pathlib.Path) -> set[str]:
    """Code-like names in a document and its fragments (dotted names kept whole)."""
    found = set()
    for part in inputs(doc):
        for span in code_spans(part.read_text()):
            span = re.sub(r"\"[^\"]*\"|'[^']*'", " ", PATH.sub(" ", span))   # not string literals
            span = re.sub(r"[\w.]*\*[\w.*]*", " ", span)   # nor patterns (``_*_enclosure``)
            found |= set(DOTTED.findall(span))
    return found


class Definition(tuple):
    """(path, qualname, first line, last line) of a def, class or assigned name in the package."""
    __slots__ = ()

    @property
    def path(self) -> str:
        return self[0]

    @property
    def qualname(self) -> str:
        return self[1]


@functools.lru_cache(maxsize=None)
def definitions() -> dict[str, list[Definition]]:
    """Every definition in the package, by its simple name."""
    index: dict[str, list[Definition]] = {}

    def add(path: str, qual: str, node: ast.AST) -> None:
        d = Definition((path, qual, node.lineno, node.end_lineno))
        index.setdefault(qual.rsplit(".", 1)[-1], []).append(d)

    def walk(path: str, body: list[ast.stmt], prefix: str, scope: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                add(path, prefix + node.name, node)
                walk(path, node.body, prefix + node.name + ".",
                     "class" if isinstance(node, ast.ClassDef) else "function")
            elif (scope == "module" and isinstance(node, (ast.Assign, ast.AnnAssign))
                  or scope == "class" and isinstance(node, ast.Assign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for n in ast.walk(t):
                        # module constants and class constants; attrs fields (lower case) are
                        # named as fields of a domain or metric, not as helpers
                        if isinstance(n, ast.Name) and (scope == "module" or n.id.isupper()):
                            add(path, prefix + n.id, node)
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                for block in ("body", "orelse", "finalbody"):
                    walk(path, getattr(node, block, []) or [], prefix, scope)
                for h in getattr(node, "handlers", []):
                    walk(path, h.body, prefix, scope)

    for file in sorted(PACKAGE.rglob("*.py")):
        rel = str(file.relative_to(ROOT))
        walk(rel, ast.parse(file.read_text()).body, "", "module")
    return index


# The package's own import aliases (``import opendp_duff.arithmetic as ar``).
ALIASES = {"ar": "arithmetic", "v": "_validate"}


def resolve(name: str) -> list[Definition]:
    """The package definitions a (possibly dotted) name can mean; empty for library names."""
    parts = name.split(".")
    if parts[0] in LIBRARY_PREFIXES and len(parts) > 1:
        return []
    candidates = definitions().get(parts[-1], [])
    if len(parts) == 1 or parts[-2] in ("dp", "opendp_duff"):
        return candidates
    # ``Class.method`` or ``module.name``: keep the definitions whose qualified name or module
    # path ends with the qualifier; a qualifier that matches none names something else
    qualifier = ALIASES.get(parts[-2], parts[-2])
    return [d for d in candidates
            if d.qualname.split(".")[-2:-1] == [qualifier]
            or pathlib.PurePath(d.path).stem.lstrip("_") == qualifier.lstrip("_")
            or pathlib.PurePath(d.path).parent.name == qualifier]


@_per_document
def regions(doc: pathlib.Path, listed_only: bool = False) -> set[tuple[str, str]]:
    """(path, region) of every region the document or its fragments lists (and pins)."""
    found = set()
    for part in inputs(doc):
        found |= {(path, name) for path, name, _ in REGION.findall(_strip_comments(part.read_text()))
                  if not listed_only or f"\\codelisting{{{path}}}{{{name}}}" in part.read_text()}
    return found


@functools.lru_cache(maxsize=None)
def _region_lines(path: str, name: str) -> tuple[int, int] | None:
    try:
        lines = (ROOT / path).read_text().splitlines()
    except OSError:
        return None
    begin = [i + 1 for i, line in enumerate(lines) if line.strip() == f"# [proof:{name}]"]
    end = [i + 1 for i, line in enumerate(lines) if line.strip() == f"# [end:{name}]"]
    return (begin[0], end[0]) if len(begin) == 1 and len(end) == 1 else None


def pinned_by(doc: pathlib.Path, d: Definition) -> tuple[str, str] | None:
    """The region of ``doc`` that contains definition ``d`` whole, if any."""
    for path, name in sorted(regions(doc)):
        span = _region_lines(path, name)
        if path == d[0] and span and span[0] < d[2] and d[3] < span[1]:
            return path, name
    return None


def is_code_like(name: str) -> bool:
    """A name that can only be code: underscored, dotted, or with an inner capital (``AtomDomain``)."""
    return "_" in name or "." in name or bool(re.search(r"[a-z][A-Z]|^[A-Z][a-z]+[A-Z]", name))


@_per_document
def files_named(doc: pathlib.Path) -> set[str]:
    """Package files the document names or lists (a named folder names every file in it)."""
    named = {p.rstrip("/") for p in paths_named(doc)}
    return {d.path for defs in definitions().values() for d in defs
            if any(d.path == p or d.path.startswith(p + "/") for p in named)}


def meant(doc: pathlib.Path, name: str) -> list[Definition]:
    """The package definitions ``name`` means in ``doc``.

    A dotted name (``Measurement.__call__``, ``arithmetic.div_up``) means what it resolves to.
    A bare public code-like name means the definitions of that name in the files the document
    names, or else the module-level definitions of that name anywhere; a private name
    (``_keys``) and a plain word (``admit``, ``map``) mean only definitions in the files the
    document names: a private name is local to its module, a plain word too common to mean
    a definition elsewhere."""
    defs = resolve(name)
    if "." in name:
        return defs
    named = files_named(doc)
    local = [d for d in defs if d.path in named]
    if not is_code_like(name) or name.startswith("_"):
        # a private name is local to its module: it means a definition in a file the proof names
        return local
    return local or [d for d in defs if "." not in d.qualname]


@functools.lru_cache(maxsize=None)
def _proof_documents() -> dict[str, pathlib.Path]:
    return {p.stem: p for p in documents() if p.stem.startswith("make_")}


def own_proof(doc: pathlib.Path, d: Definition) -> pathlib.Path | None:
    """The proof document of a public constructor ``d``.

    A proof that uses another constructor relies on that constructor's theorem, proved (and
    its code pinned) in the constructor's own document; it does not restate its code.  The
    constructor's own document counts only when it lists a region of the constructor's body."""
    other = _proof_documents().get(d.qualname) if "." not in d.qualname else None
    if other is None:
        return None
    if other.resolve() != doc.resolve():
        return other
    inside = [span for path, name in regions(doc) if path == d.path
              and (span := _region_lines(path, name)) and d[2] < span[0] <= d[3]]
    return other if inside else None


def inventory(doc: pathlib.Path) -> list[tuple[str, list[Definition], tuple[str, str] | None]]:
    """(name, what it means, the region pinning one of them or None) for each package name in ``doc``."""
    rows = []
    for name in sorted(names(doc)):
        if name in CONCEPTS:
            continue
        defs = meant(doc, name)
        if not defs:
            continue
        where = next((r for d in defs if (r := pinned_by(doc, d))), None)
        if where is None:
            where = next(((str(p.relative_to(ROOT)), "theorem") for d in defs if (p := own_proof(doc, d))), None)
        rows.append((name, defs, where))
    return rows


@_per_document
def pinned_text(doc: pathlib.Path, listed_only: bool = False) -> set[str]:
    """Every identifier that occurs in the regions the document lists (and pins)."""
    found: set[str] = set()
    for path, name in regions(doc, listed_only):
        span = _region_lines(path, name)
        if span:
            lines = (ROOT / path).read_text().splitlines()[span[0]:span[1] - 1]
            found |= set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", "\n".join(lines)))
    return found


@functools.lru_cache(maxsize=None)
def source_identifiers() -> frozenset[str]:
    """Every identifier in the package's source (attributes, fields, parameters, locals)."""
    found: set[str] = set()
    for file in PACKAGE.rglob("*.py"):
        found |= set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", file.read_text()))
    return frozenset(found)


@functools.lru_cache(maxsize=None)
def test_names() -> frozenset[str]:
    found: set[str] = set()
    for file in (ROOT / "tests").rglob("*.py"):
        found |= set(re.findall(r"^\s*def (test_\w+)", file.read_text(), re.M))
    return frozenset(found)


@functools.lru_cache(maxsize=None)
def file_names() -> frozenset[str]:
    """Names of the repository's source, test and proof files (a proof may name one bare)."""
    return frozenset(p.name for d in ("opendp_duff", "tests", "proofs", "benchmarks", "examples")
                     for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".tex", ".inc"))


def is_module(name: str) -> bool:
    path = ROOT / name.replace(".", "/")
    return name.startswith("opendp_duff") and (path.with_suffix(".py").exists() or path.is_dir())


@functools.lru_cache(maxsize=None)
def region_names() -> frozenset[str]:
    found = set()
    for file in PACKAGE.rglob("*.py"):
        found |= set(re.findall(r"^\s*# \[proof:([^\]]+)\]\s*$", file.read_text(), re.M))
    return frozenset(found)


def unknown(doc: pathlib.Path) -> list[str]:
    """Code-like names in ``doc`` that mean nothing this check can see: not a package definition,
    not a library, builtin or file name, not a region name, and not an identifier of the code the
    document lists or pins (a local variable, parameter or attribute).  A renamed or deleted
    helper that a proof still names lands here."""
    local = pinned_text(doc)
    listed = pinned_text(doc, True)
    out = []
    for name in sorted(names(doc)):
        parts = name.split(".")
        if name.startswith("test_") or parts[-1] in ("py", "tex", "inc"):
            known = test_names() if parts[-1] not in ("py", "tex", "inc") else file_names()
            if name not in known:
                out.append(name)
            continue
        if name.startswith("_") and "." not in name and not name.startswith("__"):
            if not meant(doc, name) and name not in ALLOWED and name not in listed:
                out.append(name)
            continue
        if (not is_code_like(name) or name in CONCEPTS or resolve(name) or name in region_names()
                or parts[0] in LIBRARY_PREFIXES or is_module(name)
                or all(p in local or p in BUILTINS or p in source_identifiers() for p in parts)
                or re.fullmatch(r"__\w+__|[A-Za-z]_[A-Za-z0-9]", name) or name in ALLOWED):
            continue
        out.append(name)
    return out


def documents() -> list[pathlib.Path]:
    return sorted(p for p in HERE.rglob("*.tex") if "_build" not in p.parts)


def main(argv: list[str]) -> int:
    only_unpinned = "--unpinned" in argv
    total = unpinned = 0
    distinct: set[Definition] = set()
    for doc in documents():
        rows = inventory(doc)
        total += len(rows)
        for name, defs, where in rows:
            unpinned += where is None
            distinct.update(defs)
            if where is None or not only_unpinned:
                shown = ", ".join(f"{d.path}:{d[2]}" for d in defs[:3]) + (" ..." if len(defs) > 3 else "")
                print(f"{'pinned  ' if where else 'UNPINNED'} {doc.relative_to(HERE)}: {name} -> {shown}")
    print(f"{total} (document, name) pairs naming {len(distinct)} distinct definitions; {unpinned} unpinned")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
