"""The site builds with warnings as errors, from the stored (nbval-verified) outputs."""
import subprocess
import sys
from pathlib import Path

from nbcommon import ROOT

JB = Path(sys.executable).parent / "jupyter-book"


def test_book_builds_without_warnings(tmp_path):
    result = subprocess.run(
        [str(JB), "build", str(ROOT), "-W", "-n", "--keep-going", "--path-output", str(tmp_path)],
        capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    html = tmp_path / "_build" / "html"
    assert (html / "index.html").exists()
    # math is served from the site itself, not a CDN
    page = (html / "notebooks" / "04_scaled_dot_product.html").read_text(encoding="utf-8")
    assert "_static/mathjax/tex-chtml.js" in page
    assert "cdn.jsdelivr.net/npm/mathjax" not in page
    assert (html / "_static" / "mathjax" / "tex-chtml.js").exists()
    # figures come from the stored outputs
    assert list((html / "_images").glob("*.png")), "no figures rendered"
