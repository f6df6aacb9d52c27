"""tools/execute_notebooks.py leaves unchanged cells alone on a refresh (issue 27): an output
that differs only by noise after the mark, a volatile cell's, or a figure whose pixels barely
moved keeps its stored form; anything else is replaced."""
import base64
import io

import matplotlib
import nbformat
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import execute_notebooks as ex  # noqa: E402


def png(ys) -> str:
    fig, ax = plt.subplots(figsize=(3, 2), dpi=50)
    ax.plot(ys)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def nb_with(source, outputs):
    cell = nbformat.v4.new_code_cell(source)
    cell["id"] = "c001"
    cell.outputs = [nbformat.from_dict(o) for o in outputs]
    return nbformat.v4.new_notebook(cells=[cell])


def stream(text):
    return {"output_type": "stream", "name": "stdout", "text": text}


def picture(data):
    return {"output_type": "display_data", "data": {"image/png": data, "text/plain": "<Figure>"},
            "metadata": {}}


def refreshed(old_src, old_out, new_src, new_out):
    old, new = nb_with(old_src, old_out), nb_with(new_src, new_out)
    ex.keep_unchanged(old, new)
    return new.cells[0].outputs


def test_noise_after_the_mark_keeps_the_stored_output():
    out = refreshed("x", [stream("err ≈1.1e-16\n")], "x", [stream("err ≈2.2e-16\n")])
    assert out[0].text == "err ≈1.1e-16\n"


def test_a_real_change_is_stored():
    assert refreshed("x", [stream("3 blocks\n")], "x", [stream("4 blocks\n")])[0].text == \
        "4 blocks\n"
    assert refreshed("x", [stream("a\n")], "y", [stream("a\n")])[0].text == "a\n"   # new source
    assert len(refreshed("x", [stream("a\n")], "x", [stream("a\n"), stream("b\n")])) == 2


def test_volatile_cell_keeps_its_stored_timing():
    src = "# NBVAL_IGNORE_OUTPUT\nprint(t)"
    assert refreshed(src, [stream("0.31 s\n")], src, [stream("0.29 s\n")])[0].text == "0.31 s\n"


def test_figure_kept_only_when_its_pixels_barely_move():
    ys = np.linspace(0, 1, 50)
    a, b, c = png(ys), png(ys + 1e-9), png(ys[::-1])
    assert refreshed("f", [picture(a)], "f", [picture(b)])[0].data["image/png"] == a
    assert refreshed("f", [picture(a)], "f", [picture(c)])[0].data["image/png"] == c
