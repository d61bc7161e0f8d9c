"""Build every proof document under proofs/ into a PDF.

    python proofs/build.py            # all documents
    python proofs/build.py FILE.tex   # some

Each document is compiled with latexmk in its own folder, with ``proofs/`` (``lib.sty``) and
the repository root (the sources that ``codelisting`` lists) on TEXINPUTS and the shared
bibliography (``references.bib``, ``keylabel.bst``) on BIBINPUTS and BSTINPUTS.  PDFs land
beside their sources (ignored by git).  The exit code is non-zero when any document fails;
the failing log tail is printed.
"""
import os
import pathlib
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = pathlib.Path(__file__).resolve().parent


def documents():
    return sorted(p for p in HERE.rglob("*.tex") if "_build" not in p.parts)


def build(tex):
    sep = os.pathsep
    env = dict(os.environ, TEXINPUTS=f"{HERE}{sep}{HERE.parent}{sep}",
               BIBINPUTS=f"{HERE}{sep}", BSTINPUTS=f"{HERE}{sep}")
    cmd = ["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", "-quiet", tex.name]
    res = subprocess.run(cmd, cwd=tex.parent, env=env, capture_output=True, text=True)
    pdf = tex.with_suffix(".pdf")
    if res.returncode == 0 and pdf.exists() and pdf.stat().st_mtime < tex.stat().st_mtime:
        # latexmk compares contents: a source rewritten unchanged (a checkout, a merge) is up to date
        # and its PDF is left as it was; mark the PDF current, as the site's check reads times
        os.utime(pdf)
    return tex, res.returncode, (res.stdout + res.stderr)[-3000:]


def main(argv):
    texs = [pathlib.Path(a).resolve() for a in argv] or documents()
    failed = 0
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for tex, code, log in pool.map(build, texs):
            rel = tex.relative_to(HERE)
            print(("ok    " if code == 0 else "FAIL  ") + str(rel), flush=True)
            if code:
                failed += 1
                print(log)
    print(f"{len(texs) - failed} built, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
