"""A chapter runs without installing anything: launch buttons, Binder, Colab (tools/launch.py).

What can be checked offline:
- the configuration: launch buttons in _config.yml, the Pages workflow passing its repository
  to the build, Binder's requirements and postBuild, Colab's pins equal to requirements.txt;
- every notebook starts with the setup cell for the configured repository, hidden on the site
  and on the slides, with no output;
- the built site has a Binder and a Colab button on every chapter and exercise page, pointing
  at the notebook of the repository (and at a fork's when the workflow says so);
- in a clean virtual environment that has only the pinned requirements: Binder's postBuild
  installs the package; and a chapter notebook opened alone, as Colab opens it, clones the
  repository with its setup cell (a local copy stands in for GitHub), then runs to the end.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

import launch
from nbcommon import EXERCISES, NOTEBOOKS, ROOT, chapter_notebooks, read

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
URL = CONFIG["repository"]["url"]
BRANCH = CONFIG["repository"]["branch"]
CHAPTER = "05_masks.ipynb"          # the chapter the offline check runs, opened alone


def test_launch_configuration():
    buttons = CONFIG["launch_buttons"]
    assert buttons["binderhub_url"].startswith("https://") and "colab" in buttons["colab_url"]
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", URL), URL
    job = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())["jobs"]["build"]
    assert "github.repository" in job["env"]["ATTN_REPOSITORY_URL"], \
        "the Pages workflow must pass its own repository to the build (a fork's buttons)"
    binder = (ROOT / "binder" / "requirements.txt").read_text()
    assert "-r ../requirements.txt" in binder and "download.pytorch.org/whl/cpu" in binder
    post = ROOT / "binder" / "postBuild"
    assert os.access(post, os.X_OK) and "pip install --no-deps -e ." in post.read_text()
    pins = dict(re.findall(r"^([\w.-]+)==(\S+)", (ROOT / "requirements.txt").read_text(), re.M))
    colab = re.findall(r"^([\w.-]+)==(\S+)", (ROOT / "binder" / "colab.txt").read_text(), re.M)
    assert colab and all(pins.get(name) == version for name, version in colab), \
        f"binder/colab.txt {colab} must pin what requirements.txt pins"


def test_every_notebook_starts_with_the_setup_cell():
    assert launch.problems(URL) == []


def test_repository_from_the_environment(monkeypatch):
    """_ext/attn_site.py points the buttons at the repository the workflow names."""
    sys.path.insert(0, str(ROOT / "_ext"))
    import attn_site

    class Config:
        html_theme_options = {"repository_url": URL, "repository_branch": BRANCH}

    monkeypatch.setenv("ATTN_REPOSITORY_URL", "https://github.com/someone/a-fork/")
    monkeypatch.setenv("ATTN_REPOSITORY_BRANCH", "trunk")
    config = Config()
    attn_site._repository_from_environment(None, config)
    assert config.html_theme_options["repository_url"] == "https://github.com/someone/a-fork"
    assert config.html_theme_options["repository_branch"] == "trunk"
    monkeypatch.delenv("ATTN_REPOSITORY_URL")
    monkeypatch.delenv("ATTN_REPOSITORY_BRANCH")
    config = Config()
    attn_site._repository_from_environment(None, config)
    assert config.html_theme_options["repository_url"] == URL


def test_buttons_on_every_chapter_and_exercise(book_build):
    result, html = book_build
    if result.returncode != 0:
        pytest.fail("the book did not build (see test_book.py)")
    org_repo = URL.removeprefix("https://github.com/")
    pages = [("notebooks", p) for p in chapter_notebooks(NOTEBOOKS)] + \
            [("exercises", p) for p in chapter_notebooks(EXERCISES)]
    for folder, path in pages:
        page = (html / folder / path.name.replace(".ipynb", ".html")).read_text()
        where = f"{folder}/{path.name}"
        assert f"mybinder.org/v2/gh/{org_repo}/{BRANCH}?urlpath=lab/tree/{where}" in page, \
            f"{where}: no Binder button for it"
        assert f"colab.research.google.com/github/{org_repo}/blob/{BRANCH}/{where}" in page, \
            f"{where}: no Colab button for it"
        assert launch.MARK not in page, f"{where}: the setup cell shows on the page"


def _clean_venv(where: Path) -> Path:
    """A virtual environment with the pinned requirements only: those of the book's own venv,
    seen through a .pth line (not processed as a site folder, so attnlab is not importable)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True,
                   timeout=300)           # pip too comes from the requirements' folder
    python = where / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], capture_output=True, text=True, check=True).stdout
    Path(site.strip(), "book_requirements.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    probe = subprocess.run([str(python), "-c", "import attnlab"], capture_output=True, cwd=where)
    assert probe.returncode != 0, "the clean venv should not see attnlab"
    return python


def _repository_copy(where: Path) -> Path:
    """The working tree's files (tracked and not ignored) as a fresh git repository: what a
    clone from GitHub would give."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (where / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, where / name)
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.org"]
    for args in (["init", "-q", "-b", BRANCH], ["add", "-A"], ["commit", "-q", "-m", "copy"]):
        subprocess.run(git + args, cwd=where, check=True, timeout=120)
    return where


@pytest.fixture(scope="module")
def origin(tmp_path_factory):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout")
    return _repository_copy(tmp_path_factory.mktemp("origin"))


OFFLINE = {"PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0",   # pip: no download, no isolation
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def test_binder_postbuild_installs_the_package(origin, tmp_path):
    python = _clean_venv(tmp_path / "venv")
    env = {**os.environ, **OFFLINE, "PATH": f"{python.parent}:{os.environ['PATH']}"}
    subprocess.run(["bash", "binder/postBuild"], cwd=origin, env=env, check=True, timeout=300)
    found = subprocess.run([str(python), "-c", "import attnlab; print(attnlab.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, check=True).stdout
    assert Path(found.strip()).is_relative_to(origin), found


def test_a_chapter_opened_alone_runs_after_its_setup_cell(origin, tmp_path):
    """As on Colab: the notebook alone in an empty folder; its setup cell clones the repository
    (here a local copy), installs the package, moves beside the data; then every cell runs."""
    python = _clean_venv(tmp_path / "venv")
    kernels = tmp_path / "jupyter" / "kernels" / "colab"
    kernels.mkdir(parents=True)
    (kernels / "kernel.json").write_text(json.dumps(
        {"argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
         "display_name": "a clean venv", "language": "python"}))
    content = tmp_path / "content"
    content.mkdir()
    nb = read(NOTEBOOKS / CHAPTER)
    assert nb.cells[1].source.startswith(launch.MARK)
    nb.cells.append(nb.cells[1].copy())
    nb.cells[-1].source = "import attnlab, os\nprint(attnlab.__file__, os.getcwd())"
    (content / CHAPTER).write_text(json.dumps(nb))
    script = ("import json, nbformat, nbclient, sys\n"
              f"nb = nbformat.read({str(content / CHAPTER)!r}, as_version=4)\n"
              "nbclient.NotebookClient(nb, kernel_name='colab', timeout=600,\n"
              f"    resources={{'metadata': {{'path': {str(content)!r}}}}}).execute()\n"
              "print(nb.cells[-1].outputs[0]['text'])\n")
    env = {**os.environ, **OFFLINE, "JUPYTER_PATH": str(tmp_path / "jupyter"),
           "ATTN_REPOSITORY": str(origin), "PATH": f"{python.parent}:{os.environ['PATH']}"}
    run = subprocess.run([str(python), "-c", script], cwd=content, env=env, capture_output=True,
                         text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    package, cwd = run.stdout.split()[-2:]
    clone = content / "attention-executed"
    assert Path(package).is_relative_to(clone) and Path(cwd) == clone / "notebooks", run.stdout
