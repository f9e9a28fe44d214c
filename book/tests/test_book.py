"""The book layer: it builds offline, every listing comes from a real file,
and a broken include, link or formula fails the build."""
import re
import shutil

import pytest

from handofflab import book, paths
from handofflab.console import LabError


def test_the_book_builds_with_math_and_included_listings():
    index = book.build()
    html = (index.parent / "shared-buffer.html").read_text()
    assert 'class="katex"' in (index.parent / "introduction.html").read_text()   # math rendered at build time
    assert "notifyAll();" in html and "NoDuplicate ==" in html                    # included from the real files
    assert "stuck: WakePut" in html                                                # TLC's recorded counterexample
    assert re.search(r'<img src="generated/notebooks/shared_buffer/output_\d+_\d+\.png"', html)
    assert (index.parent / "katex" / "katex.min.css").exists()
    assert "cdn" not in (index.parent / "index.html").read_text().lower()


def test_every_listing_is_included_not_pasted():
    for chapter in (paths.BOOK / "src").glob("*.md"):
        text = chapter.read_text()
        for block in re.findall(r"```(?:java|tla)\n(.*?)```", text, re.S):
            assert block.strip().startswith("{{#include"), f"{chapter.name} pastes a listing"


def _scratch_book(tmp_path, chapter: str):
    root = tmp_path / "book"
    shutil.copytree(paths.BOOK / "theme", root / "theme")
    shutil.copyfile(paths.BOOK / "book.toml", root / "book.toml")
    (root / "src").mkdir()
    (root / "src" / "SUMMARY.md").write_text("# Summary\n\n- [Chapter](chapter.md)\n")
    (root / "src" / "chapter.md").write_text(chapter)
    shutil.copytree(paths.BOOK / "src" / "katex", root / "src" / "katex")
    return root


def test_a_good_scratch_book_builds(tmp_path):
    book.compile_book(_scratch_book(tmp_path, "# Fine\n\n$x^2$\n"))


@pytest.mark.parametrize("chapter, problem", [
    ("# Bad\n\n{{#include no/such/file.md}}\n", "does not build"),
    ("# Bad\n\n$\\frac{1}{$\n", "does not build"),
    ("# Bad\n\n[missing](nowhere.md)\n", "broken links"),
])
def test_a_broken_include_formula_or_link_fails(tmp_path, chapter, problem):
    with pytest.raises(LabError) as e:
        book.compile_book(_scratch_book(tmp_path, chapter))
    assert problem in e.value.problem
