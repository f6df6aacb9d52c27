# Every command a reader or CI needs. `make help` lists them.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP  := $(VENV)/.installed

# One CPU thread for every kernel and test: float32 reductions (and so training runs) give
# bit-identical results only for a fixed thread count, and on a busy 2-core machine one
# thread is also faster. The stored outputs were made this way, so re-runs reproduce them.
export OMP_NUM_THREADS := 1

.PHONY: help venv book test bench experiments lab slides refresh export exercises questions clean

help:
	@echo "make book       build the site into _build/html (creates .venv first)"
	@echo "make test       the whole verification (nbval, unit tests, sync checks, book build)"
	@echo "make bench      speed and memory targets (ratios), benchmarks/bench_*.py; not part of test"
	@echo "make experiments  re-run the long sweeps in experiments/ and rewrite their results"
	@echo "make lab        open the notebooks in JupyterLab"
	@echo "make slides     one reveal.js deck per chapter into _build/slides (works offline)"
	@echo "make refresh    re-run notebooks and solutions in fresh kernels and store outputs"
	@echo "                (one notebook: make refresh NB=notebooks/04_scaled_dot_product.ipynb)"
	@echo "make export     regenerate the attnlab package from the notebooks' '# export' cells"
	@echo "make exercises  regenerate exercises/ from solutions/"
	@echo "make questions  regenerate book/interview_questions.md from the chapters"

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -r requirements.txt
	$(BIN)/pip install -q -e . --no-deps
	touch $(STAMP)

venv: $(STAMP)

book: $(STAMP)
	$(BIN)/jupyter-book build . -W -n --keep-going
	@echo "Open _build/html/index.html in a browser."

test: $(STAMP)
	$(PY) -m pytest tests --nbval --nbval-current-env notebooks solutions \
		--durations=0 -p no:cacheprovider -q -rA --tb=short -o console_output_style=classic

bench: $(STAMP)
	@status=0; for f in benchmarks/bench_*.py; do \
		[ -e "$$f" ] || continue; echo "== $$f"; $(PY) "$$f" || status=1; done; exit $$status

experiments: $(STAMP)
	@for f in experiments/*.py; do [ -e "$$f" ] || continue; echo "== $$f"; $(PY) "$$f" || exit 1; done

lab: $(STAMP)
	$(BIN)/pip install -q jupyterlab
	$(BIN)/jupyter lab notebooks

slides: $(STAMP)
	$(PY) tools/make_slides.py

refresh: $(STAMP)
	$(PY) tools/export_package.py
	$(PY) tools/execute_notebooks.py $(NB)
	$(PY) tools/export_package.py
	$(PY) tools/make_exercises.py
	$(PY) tools/question_bank.py

export: $(STAMP)
	$(PY) tools/export_package.py

exercises: $(STAMP)
	$(PY) tools/make_exercises.py

questions: $(STAMP)
	$(PY) tools/question_bank.py

clean:
	rm -rf _build
