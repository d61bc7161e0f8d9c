#!/usr/bin/env bash
# Build the documentation site: the proofs first (the site links their PDFs), then the HTML with
# warnings as errors.  Usage: bash docs/build.sh [OUTDIR]   (default docs/_build/html)
# The Python that runs Sphinx is $PYTHON, else .venv/bin/python if present, else python3.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-docs/_build/html}"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
fi
if ! "$PY" -c "import sphinx, myst_parser" 2>/dev/null; then
  echo "docs/build.sh: $PY lacks Sphinx or MyST; install the docs extra: pip install -e \".[docs]\"" >&2
  exit 1
fi
if ! command -v latexmk >/dev/null 2>&1; then
  echo "docs/build.sh: the site links the proofs' PDFs, and building them needs TeX (latexmk, pdflatex);" >&2
  echo "  install it (Debian: texlive-latex-base texlive-latex-recommended texlive-fonts-recommended latexmk)" >&2
  echo "  or run bash .ci/run, which does." >&2
  exit 1
fi
python3 proofs/build.py >/dev/null || { echo "docs/build.sh: a proof failed to build: python3 proofs/build.py shows which" >&2; exit 1; }
"$PY" -m sphinx -W --keep-going -q -b html docs "$OUT"
echo "site built: $OUT/index.html"
