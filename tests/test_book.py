"""The site builds with warnings as errors, from the stored (nbval-verified) outputs."""


def test_book_builds_without_warnings(book_build):
    result, html = book_build
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert (html / "index.html").exists()
    # math is served from the site itself, not a CDN
    page = (html / "notebooks" / "04_scaled_dot_product.html").read_text(encoding="utf-8")
    assert "_static/mathjax/tex-chtml.js" in page
    assert "cdn.jsdelivr.net/npm/mathjax" not in page
    assert (html / "_static" / "mathjax" / "tex-chtml.js").exists()
    # figures come from the stored outputs
    assert list((html / "_images").glob("*.png")), "no figures rendered"
    # every page offers its source for download (a chapter: its .ipynb)
    assert '_sources/notebooks/04_scaled_dot_product.ipynb' in page
    # one copy of each script: a second `const THEBE_JS_URL` is a JavaScript error
    assert page.count("const THEBE_JS_URL") <= 1
    home = (html / "book" / "intro.html").read_text(encoding="utf-8")
    assert "<title>Attention, Executed</title>" in home, "the home tab names the book once"
    assert "<title>" in (html / "index.html").read_text(encoding="utf-8")
