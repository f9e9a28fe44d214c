"""An mdBook preprocessor (book.toml: [preprocessor.tla]): colours the book's TLA+ and PlusCal listings
with tree-sitter-tlaplus, the TLA+ community's grammar (the one GitHub uses), since mdBook's
highlight.js has no TLA+. A listing is included from a spec by an anchor, so it is found in its
spec and coloured as part of the whole module (a fragment alone does not parse); one found in no
spec is parsed on its own. The spans carry highlight.js's class names, so the book's themes colour
them like every other listing."""
from __future__ import annotations

import html
import json
import re
import sys
import warnings
from functools import cache
from importlib.resources import files

import tree_sitter as ts
import tree_sitter_tlaplus

from handofflab.ground import paths

# tree-sitter capture -> highlight.js class (the grammar's other captures stay plain)
# (identifiers and operators stay plain: coloured too, a listing is a rainbow)
CLASSES = {"keyword": "hljs-keyword", "comment": "hljs-comment", "string": "hljs-string", "number": "hljs-number",
           "constant": "hljs-literal", "module": "hljs-title", "type": "hljs-type", "function": "hljs-title",
           "tag": "hljs-symbol"}
FENCE = re.compile(r"^```tla[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)


# tree-sitter-tlaplus 1.5.0 (the newest on PyPI) hands its grammar over as an int, which tree-sitter
# 0.26 still takes but calls deprecated
warnings.filterwarnings("ignore", "int argument support is deprecated", DeprecationWarning)


@cache
def _language() -> tuple[ts.Parser, ts.Query]:
    language = ts.Language(tree_sitter_tlaplus.language())
    query = ts.Query(language, (files("tree_sitter_tlaplus") / "queries" / "highlights.scm").read_text())
    return ts.Parser(language), query


@cache
def _coloured(source: str) -> tuple[str | None, ...]:
    """The highlight.js class of each character of a whole module (None: plain)."""
    parser, query = _language()
    data = source.encode()
    classes: list[str | None] = [None] * len(data)
    spans = [(node.start_byte, node.end_byte, CLASSES[name])
             for name, nodes in ts.QueryCursor(query).captures(parser.parse(data).root_node).items()
             if name in CLASSES for node in nodes if _token(name, data[node.start_byte:node.end_byte])]
    for start, end, cls in sorted(spans, key=lambda s: s[0] - s[1]):  # widest first: the narrowest wins
        classes[start:end] = [cls] * (end - start)
    # bytes -> characters (the specs hold a few non-ASCII characters)
    out, i = [], 0
    for ch in source:
        out.append(classes[i])
        i += len(ch.encode())
    return tuple(out)


def _token(capture: str, text: bytes) -> bool:
    """The grammar also captures whole constructs (a PlusCal process as a keyword; the algorithm is
    inside a block comment): colour tokens, a comment that is a comment, never a whole block."""
    if capture == "comment":
        return b"--algorithm" not in text and b"--fair algorithm" not in text
    return b"\n" not in text


def _specs() -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(paths.SPECS.glob("*.tla"))}


def highlight(listing: str, specs: dict[str, str]) -> str:
    """A listing as <pre><code> with highlight.js's spans."""
    body = listing.rstrip("\n")
    source = next((text for text in specs.values() if body and body in text), None)
    if source is None:  # not from a spec: a module of its own
        source = f"---- MODULE Listing ----\n{body}\n====\n"
    start = source.index(body)
    classes = _coloured(source)[start:start + len(body)]
    out, run, current = [], [], None
    for ch, cls in zip(body, classes):
        if cls != current:
            out.append(_span(current, "".join(run)))
            run, current = [], cls
        run.append(ch)
    out.append(_span(current, "".join(run)))
    # no `language-tla` but `nohighlight`: mdBook's highlight.js would otherwise look for a TLA+ it
    # lacks and re-colour the listing as plain text
    return f'<pre><code class="tla nohighlight hljs">{"".join(out)}</code></pre>\n'


def _span(cls: str | None, text: str) -> str:
    text = html.escape(text, quote=False)
    return f'<span class="{cls}">{text}</span>' if cls and text else text


def _chapter(chapter: dict, specs: dict[str, str]) -> None:
    chapter["content"] = FENCE.sub(lambda m: highlight(m.group(1), specs), chapter["content"])
    for item in chapter.get("sub_items", []):
        if "Chapter" in item:
            _chapter(item["Chapter"], specs)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "supports":
        sys.exit(0 if sys.argv[2] == "html" else 1)
    _, book = json.load(sys.stdin)
    specs = _specs()
    for item in book.get("items", book.get("sections", [])):
        if "Chapter" in item:
            _chapter(item["Chapter"], specs)
    json.dump(book, sys.stdout)


if __name__ == "__main__":
    main()
