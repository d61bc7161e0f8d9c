"""Sphinx extension: shell blocks (```sh) highlighted word by word, so that they wrap between words.

A shell block is a command to copy and run; at the site's width the README's commands are longer
than a line.  ``_static/custom.css`` wraps shell blocks at their spaces only: it keeps every
highlighted token on one line and lets the whitespace between tokens break.  Pygments' own shell
lexer leaves plain words (``python3``, ``-e``) as bare text, where a browser may break after a
hyphen ("-" then "e" on the next line); this lexer makes each word a token of its own.
"""
from __future__ import annotations

from typing import Any

from pygments.lexer import RegexLexer
from pygments.token import Comment, Name, Operator, String, Whitespace
from sphinx.application import Sphinx


class CommandLineLexer(RegexLexer):
    """Shell command lines as words, strings, operators, comments and whitespace."""

    name = "command line"
    aliases = ["sh"]
    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"#.*?$", Comment),
            (r"&&|\|\||[|;<>]", Operator),
            (r'"[^"]*"|\'[^\']*\'', String),
            (r"[^\s\"'|;&<>]+|.", Name),
        ],
    }


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_lexer("sh", CommandLineLexer)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
