"""docs/tla_listings.py, mdBook's preprocessor: a listing from a spec coloured by tree-sitter's TLA+ grammar, in
highlight.js's classes, with its text escaped and unchanged."""
import html
import re

from handofflab.docs import tla_listings


def test_a_listing_from_a_spec_keeps_its_text_and_gets_the_grammars_colours():
    specs = {"Tiny.tla": "---- MODULE Tiny ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x' = x + 1 /\\ x < 3\n====\n"}
    out = tla_listings.highlight("Next == x' = x + 1 /\\ x < 3\n", specs)
    assert out.startswith('<pre><code class="tla nohighlight hljs">') and out.endswith("</code></pre>\n")
    text = html.unescape(re.sub(r"<[^>]+>", "", out)).rstrip("\n")
    assert text == "Next == x' = x + 1 /\\ x < 3"          # every character, once, in order
    assert "&lt;" in out and " < " not in out                       # escaped
    assert '<span class="hljs-number">1</span>' in out and '<span class="hljs-keyword">==</span>' in out, out


def test_a_listing_that_is_in_no_spec_is_coloured_as_a_module_of_its_own():
    out = tla_listings.highlight("Spec == Init /\\ [][Next]_x\n", {})
    assert html.unescape(re.sub(r"<[^>]+>", "", out)).rstrip("\n") == "Spec == Init /\\ [][Next]_x"
    assert "<span" in out
