# Every command a reader or CI needs. `make help` lists them.
# Python 3.11 to 3.13 (tested: 3.11). PYTHON=/path/to/python picks one; by default the first of
# python3.11, python3.12, python3.13, python3 whose version is supported.
SUPPORTED := (3, 11) <= sys.version_info[:2] <= (3, 13)
PYTHON ?= $(firstword $(foreach p,python3.11 python3.12 python3.13 python3,\
            $(shell $(p) -c 'import sys; sys.exit(not ($(SUPPORTED)))' >/dev/null 2>&1 && echo $(p))))
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
# The stamp names a hash of what was installed, so a fresh clone or a checkout that only
# touched the files' dates does not reinstall; a change of their content does.
STAMP  := $(VENV)/.installed-$(shell cat requirements.txt pyproject.toml 2>/dev/null | cksum | cut -d' ' -f1)

# One CPU thread for every kernel and test: float32 reductions (and so training runs) give
# bit-identical results only for a fixed thread count, and on a busy 2-core machine one
# thread is also faster. The stored outputs were made this way, so re-runs reproduce them.
export OMP_NUM_THREADS := 1

# `make test` re-runs the notebooks on floating-point kernels OTHER than the native ones that
# `make refresh` stores outputs with (PyTorch's portable kernels, NumPy without its AVX2 loops),
# so an output that depends on the CPU fails here, not on a reader's laptop. Never add
# OPENBLAS_CORETYPE here: some machines set it on purpose. README.md, "Outputs on any CPU".
PORTABLE_KERNELS := ATEN_CPU_CAPABILITY=default NPY_DISABLE_CPU_FEATURES=X86_V3
# pytest-xdist workers (one thread each); --dist loadscope keeps a notebook on one worker, and
# conftest.py hands the longest modules out first (LONGEST_FIRST; no loadscope reordering).
JOBS ?= 2

.PHONY: help venv book test test-zh locale bench experiments lab slides refresh chapter exercise export exercises \
	questions self-paced clean

help:
	@echo "make book       build the site into _build/html, the Chinese one into _build/html/zh"
	@echo "make test       the whole verification (nbval, unit tests, sync checks, book build)"
	@echo "make test-zh    the Chinese edition: catalogues complete, its site built and browsed"
	@echo "make locale     refresh the Chinese catalogues after an English edit; list what is new"
	@echo "make bench      speed and memory targets (ratios), benchmarks/bench_*.py; not part of test"
	@echo "make experiments  re-run the long sweeps in experiments/ and rewrite their results"
	@echo "make lab        open the notebooks in JupyterLab"
	@echo "make slides     one reveal.js deck per chapter into _build/html/slides (works offline;"
	@echo "                builds the site first if it is missing, so every link leads somewhere)"
	@echo "make refresh    re-run notebooks and solutions in fresh kernels and store outputs"
	@echo "                (one notebook: make refresh NB=notebooks/04_scaled_dot_product.ipynb)"
	@echo "make chapter NB=notebooks/NN_name.ipynb  refresh one chapter and run all its checks"
	@echo "                (REFRESH=0: the checks only)"
	@echo "make exercise NB=solutions/NN_name.ipynb TITLE=\"...\" KIND=derive"
	@echo "                append a new exercise's skeleton (kinds: book/chapter_contract.md)"
	@echo "make export     regenerate the attnlab package from the notebooks' '# export' cells"
	@echo "make exercises  regenerate exercises/ from solutions/"
	@echo "make questions  regenerate book/interview_questions.md from the chapters"
	@echo "make self-paced rewrite the exercise columns of book/self_paced.md from the solutions"

$(STAMP):
	@test -n "$(PYTHON)" || { echo "make: no supported Python found. This book needs Python 3.11," \
	  "3.12 or 3.13 (tested on 3.11) as python3.11, python3.12, python3.13 or python3;" \
	  "install one, or name it: make $(MAKECMDGOALS) PYTHON=/path/to/python3.11" >&2; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(not ($(SUPPORTED)))' || { echo "make: $(PYTHON) is" \
	  "Python $$($(PYTHON) -c 'import platform; print(platform.python_version())');" \
	  "this book needs 3.11, 3.12 or 3.13 (tested on 3.11)" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -r requirements.txt
	$(BIN)/pip install -q -e . --no-deps
	rm -f $(VENV)/.installed*
	touch $(STAMP)

venv: $(STAMP)

book: $(STAMP)
	$(BIN)/jupyter-book build . -W -n --keep-going
	$(PY) tools/build_book.py --lang zh_CN --out _build/zh --copy-to _build/html/zh
	@echo "Open _build/html/index.html in a browser (the Chinese edition: _build/html/zh/)."

# The Chinese edition's catalogues (locale/zh_CN/LC_MESSAGES/): after an English edit, extract
# the English again, update every page's catalogue and list what is new or fuzzy.
locale: $(STAMP)
	$(PY) tools/i18n.py refresh

test: $(STAMP)
	$(PORTABLE_KERNELS) $(PY) -m pytest tests --ignore=tests/zh --nbval --nbval-current-env notebooks solutions \
		--nbval-sanitize-with tools/nbval_sanitize.cfg -n $(JOBS) --dist loadscope \
		--durations=0 -p no:cacheprovider -q -rA --tb=short -o console_output_style=classic

# The Chinese edition, on its own (CI runs it after `make test`; README, "The Chinese edition"):
# every message of a fresh extraction is translated, the Chinese site builds with warnings as
# errors, and the browser checks of the English site run on its pages.
test-zh: $(STAMP)
	ATTN_BOOK_LANG=zh_CN $(PY) -m pytest tests/zh tests/test_book.py tests/test_browser.py \
		-n $(JOBS) --dist loadscope --durations=10 -p no:cacheprovider -q -rA --tb=short \
		-o console_output_style=classic

bench: $(STAMP)
	@status=0; for f in benchmarks/bench_*.py; do \
		[ -e "$$f" ] || continue; echo "== $$f"; $(PY) "$$f" || status=1; done; exit $$status

experiments: $(STAMP)
	@for f in experiments/*.py; do [ -e "$$f" ] || continue; echo "== $$f"; $(PY) "$$f" || exit 1; done

# JupyterLab is pinned in requirements.txt. It serves the repository (notebooks/, exercises/,
# solutions/) and opens on notebooks/. Run as root (a container, CI), it needs --allow-root,
# which is added then. LAB_ARGS adds options (tests/test_lab.py: a port, a token, no browser).
LAB_ARGS ?=
lab: $(STAMP)
	$(BIN)/jupyter lab --ServerApp.root_dir=. --ServerApp.default_url=/lab/tree/notebooks \
		$(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

# The decks go where the published site has them (_build/html/slides/), so their links to the
# chapters' pages work from the folder a lecturer opens; the site is built first if missing.
slides: $(STAMP)
	@test -f _build/html/index.html || $(MAKE) book
	$(PY) tools/make_slides.py

refresh: $(STAMP)
	$(PY) tools/export_package.py
	$(PY) tools/execute_notebooks.py $(NB)
	$(PY) tools/export_package.py
	$(PY) tools/make_exercises.py
	$(PY) tools/question_bank.py

chapter: $(STAMP)
	@test -n "$(NB)" || { echo "usage: make chapter NB=notebooks/NN_name.ipynb [REFRESH=0]" >&2; exit 2; }
	$(PY) tools/check_chapter.py $(NB) $(if $(filter 0,$(REFRESH)),--no-refresh)

KIND ?= implement
exercise: $(STAMP)
	@test -n "$(NB)" -a -n "$(TITLE)" || { echo "usage: make exercise" \
	  "NB=solutions/NN_name.ipynb TITLE=\"...\" [KIND=derive]" >&2; exit 2; }
	$(PY) tools/new_exercise.py $(NB) "$(TITLE)" --kind "$(KIND)"

export: $(STAMP)
	$(PY) tools/export_package.py

exercises: $(STAMP)
	$(PY) tools/make_exercises.py

questions: $(STAMP)
	$(PY) tools/question_bank.py

self-paced: $(STAMP)
	$(PY) tools/self_paced.py

clean:
	rm -rf _build
