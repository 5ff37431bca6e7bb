# Ingest Doctor: build, package and every offline gate.
#   make package   builds the two packages, dist/ingest_doctor-<version>.tgz (search heads) and
#                  dist/TA-ingest_doctor-<version>.tgz (indexers, heavy forwarders; ucc-gen), and
#                  runs AppInspect on each (not again on an unchanged package: the archives are
#                  reproducible and tools/appinspect_gate.py keys its reports on their sha256)
#   make test      every gate (pytest on 3.13 and 3.9, AppInspect, conf, SPL, dashboards, min Python)
#   make bench     the performance budgets, min/median/max over runs (prints met / not met), and the
#                  search cost model with its budgets (tools/searchcost.py --check)
#   make fault     the whole fault suite (hostile snapshots, races, outages, forged input, slow and
#                  flooding servers; loopback only) and its table: every count 0, peak RSS < 200 MB
# Everything it needs (venvs, npm packages, chromium) it installs itself.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := package

APP      := ingest_doctor
VERSION  := $(shell sed -n 's/^version *= *//p' default/app.conf | head -1)
TGZ      := dist/$(APP)-$(VERSION).tgz
BUILD    := build/$(APP)
TA       := TA-ingest_doctor
TA_TGZ   := dist/$(TA)-$(VERSION).tgz
TA_BUILD := build/$(TA)
VENV     := .venv
TOOLSPY  := $(VENV)/tools/bin/python
UCCPY    := $(VENV)/ucc/bin/python

# Splunk 10 runs app scripts on 3.13, Splunk 9 on 3.9: test on both.
# The tools (AppInspect, vermin, slim) run on 3.11. Found through pyenv, even when the pyenv
# command itself is not on PATH (CI's environment).
PYENV_ROOT ?= $(or $(shell pyenv root 2>/dev/null),$(HOME)/.pyenv)
PY313    ?= $(firstword $(wildcard $(PYENV_ROOT)/versions/3.13*/bin/python3))
PY39     ?= $(firstword $(wildcard $(PYENV_ROOT)/versions/3.9*/bin/python3))
PYTOOLS  ?= $(firstword $(wildcard $(PYENV_ROOT)/versions/3.11*/bin/python3) $(shell command -v python3))
need_py   = @test -x "$(1)" || { echo "make: Python $(2) not found (looked for '$(1)'): install it with pyenv (pyenv install $(2))"; exit 1; }

export PIP_DISABLE_PIP_VERSION_CHECK := 1
export PYTHONDONTWRITEBYTECODE := 1

# Five people share one working tree: venv and bin/lib updates take a lock and never
# delete a venv another process may be running from (venv creation is idempotent).
LOCK     := flock $(VENV)/.lock

.PHONY: all venv deps build package test test-py test-py313 test-py39 test-generated \
        test-appinspect test-conf test-spl test-minpy test-make test-dashboards bench fault clean distclean

all: package

# ---------------------------------------------------------------- environments
# One recipe for every venv: $(call make_venv,NAME,PYTHON,VERSION,REQUIREMENTS).
define make_venv
	@mkdir -p $(VENV)
	$(call need_py,$(2),$(3))
	$(LOCK) bash -c 'test -x $(VENV)/$(1)/bin/python || $(2) -m venv $(VENV)/$(1); \
	  $(VENV)/$(1)/bin/pip install -q -r $(4)'
	touch $@
endef

# The venvs, one a word: NAME:PYTHON-VARIABLE:VERSION:REQUIREMENTS. ucc-gen (Splunk's add-on
# framework) has a venv of its own: it pins its own dependency set.
VENV_TABLE := py313:PY313:3.13:requirements-dev.txt py39:PY39:3.9:requirements-dev.txt \
              tools:PYTOOLS:3.11:requirements-tools.txt ucc:PYTOOLS:3.11:requirements-ucc.txt

# $(VENV)/NAME/.stamp from its requirements: $(call venv_rule,NAME PYTHON-VARIABLE VERSION REQUIREMENTS).
define venv_rule
$(VENV)/$(word 1,$(1))/.stamp: $(word 4,$(1))
	$$(call make_venv,$(word 1,$(1)),$$($(word 2,$(1))),$(word 3,$(1)),$(word 4,$(1)))
endef
$(foreach v,$(VENV_TABLE),$(eval $(call venv_rule,$(subst :, ,$(v)))))

venv: $(VENV)/py313/.stamp $(VENV)/py39/.stamp $(VENV)/tools/.stamp $(VENV)/ucc/.stamp

# ---------------------------------------------------------------- app build
# The add-on's runtime libraries go into bin/lib (ignored by git; the search-head app ships
# none): pinned by hash, --no-deps, no .pyc, pruned (tools/prune_lib.py). Wheels only, but for
# splunk-sdk, published as a source archive only (requirements-lib.txt says why that release).
# Installed beside it and swapped in, so a reader never sees half a bin/lib.
bin/lib/.stamp: requirements-lib.txt tools/prune_lib.py $(VENV)/py313/.stamp
	@mkdir -p $(VENV)
	$(LOCK) bash -c 'rm -rf bin/.lib.new && mkdir -p bin/.lib.new && \
	  $(VENV)/py313/bin/pip install -q --no-deps --no-compile --only-binary=:all: --no-binary=splunk-sdk \
	    --target bin/.lib.new -r requirements-lib.txt && \
	  $(VENV)/py313/bin/python -B tools/prune_lib.py bin/.lib.new && \
	  touch bin/.lib.new/.stamp && rm -rf bin/lib && mv bin/.lib.new bin/lib'

# The add-on's REST handlers need splunktaucclib and defusedxml on top of bin/lib: same rules,
# in build/ta-lib (merged into the add-on's bin/lib by tools/build_ta.py).
build/ta-lib/.stamp: requirements-ta.txt tools/prune_lib.py $(VENV)/py313/.stamp
	@mkdir -p build
	flock build/.ta-lib.lock bash -c 'rm -rf build/.ta-lib.new && mkdir -p build/.ta-lib.new && \
	  $(VENV)/py313/bin/pip install -q --no-deps --no-compile --only-binary=:all: --target build/.ta-lib.new -r requirements-ta.txt && \
	  $(VENV)/py313/bin/python -B tools/prune_lib.py build/.ta-lib.new && \
	  touch build/.ta-lib.new/.stamp && rm -rf build/ta-lib && mv build/.ta-lib.new build/ta-lib'

deps: bin/lib/.stamp build/ta-lib/.stamp

# Two packages from one tree: the search-head app (tools/build.py, an allow-list) and the add-on
# for the pipeline tiers (tools/build_ta.py: ucc-gen from ta/globalConfig.json, plus the
# collector and the core package from bin/).
build: deps $(VENV)/tools/.stamp $(VENV)/ucc/.stamp
	$(TOOLSPY) -B tools/generate.py --check
	$(TOOLSPY) -B tools/build.py --out $(BUILD)
	$(TOOLSPY) -B tools/build_ta.py --ucc-python $(UCCPY) --lib bin/lib --ta-lib build/ta-lib --out $(TA_BUILD)

package: build
	$(MAKE) --no-print-directory test-appinspect

# ---------------------------------------------------------------- gates
# The quick static gates first, so a broken conf or search fails in seconds, not minutes.
test: build test-generated test-appinspect test-conf test-spl test-minpy test-make test-py test-dashboards
	@echo "make test: all gates passed"

test-generated: $(VENV)/tools/.stamp
	$(TOOLSPY) -B tools/generate.py --check

test-py: test-py313 test-py39

# pytest exits 5 when it collects nothing, so an empty selection fails the gate.
# Both runs need all three venvs: tests import the built bin/lib under 3.9 and 3.13 and run
# the tools-venv gates (vermin, the spec files) as subprocesses. The form views' tests
# (tests/alert/test_alert_*_page.py) drive headless Chromium: the node packages and chromium
# come first, so they run here rather than skip.
test-py313: venv build node_modules/.ingest-doctor-stamp /usr/bin/chromium
	$(VENV)/py313/bin/python -B -m pytest -q -p no:cacheprovider tests

test-py39: venv build node_modules/.ingest-doctor-stamp /usr/bin/chromium
	$(VENV)/py39/bin/python -B -m pytest -q -p no:cacheprovider tests

test-appinspect: $(VENV)/tools/.stamp build
	$(TOOLSPY) -B tools/package.py $(BUILD) $(TGZ)
	$(TOOLSPY) -B tools/package.py $(TA_BUILD) $(TA_TGZ)
	$(TOOLSPY) -B tools/appinspect_gate.py $(TGZ) $(TA_TGZ)

test-conf: $(VENV)/tools/.stamp build
	$(TOOLSPY) -B tools/confcheck.py $(BUILD)
	$(TOOLSPY) -B tools/confcheck.py $(TA_BUILD)

test-spl: $(VENV)/tools/.stamp build
	$(TOOLSPY) -B tools/splcheck.py $(BUILD)

test-minpy: $(VENV)/tools/.stamp
	$(TOOLSPY) -B tools/minpy.py bin

# Style practice 12: every advertised target must expand to real commands.
# (the nested `make -n test` reaches this recipe again, the guard stops the recursion)
test-make:
	@test -z "$${INGEST_DOCTOR_MAKE_N:-}" || exit 0; export INGEST_DOCTOR_MAKE_N=1; \
	for t in package build deps venv test test-generated test-py test-py313 test-py39 test-appinspect \
	          test-conf test-spl test-minpy test-dashboards bench fault; do \
	  out=$$(env -u MAKEFLAGS -u MAKELEVEL $(MAKE) -n --no-print-directory $$t) || { echo "make -n $$t failed"; exit 1; }; \
	  test -n "$$out" || { echo "make -n $$t does nothing"; exit 1; }; \
	done; echo "make -n: every advertised target expands"

# ---------------------------------------------------------------- dashboards
# Node packages are dev/test tools only (pinned in package-lock.json, never shipped): `npm ci`
# when node_modules is missing or older than the lock. Debian's chromium when it is absent
# (CI runs as root). Then: views up to date, Splunk's preset schema + our checks, a headless
# render of every view with the healthy and saturated recordings (screenshots in
# build/dashboards/), the drilldowns clicked, and a self-test that each gate bites.
node_modules/.ingest-doctor-stamp: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# The Debian package the dashboard gates run (installed by its command's name).
/usr/bin/chromium:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(notdir $@)

test-dashboards: node_modules/.ingest-doctor-stamp /usr/bin/chromium
	python3 tools/generate.py --check
	node tools/dashboards/validate.js
	node tools/dashboards/render.js
	node tools/dashboards/drilldowns.js
	node tools/dashboards/selftest.js

# Refresh the README's screenshots (docs/screenshots/) from the recordings.
.PHONY: dashboard-screenshots
dashboard-screenshots: node_modules/.ingest-doctor-stamp /usr/bin/chromium
	node tools/dashboards/render.js --docs

# The budgets an admin can feel, min/median/max over runs, in one table (docs/performance.md).
bench: $(VENV)/py313/.stamp deps build   # build: the webhook bench runs the add-on as built
	$(VENV)/py313/bin/python tools/bench.py
	$(VENV)/py313/bin/python -B tools/searchcost.py --check   # the searches' cost at 100/1,000/10,000 instances, and issue 35's budgets

# The whole fault suite (tests/faults/ with their full case counts; make test runs their quick
# counts): prints cases, failures, tracebacks, hangs, false healthy, lost updates, lost/duplicated
# notifications, forged changes and peak RSS per section.
fault: venv build
	$(VENV)/py313/bin/python -B tools/fault.py --python $(VENV)/py313/bin/python

clean:
	rm -rf build dist bin/lib
	find . -name __pycache__ -prune -exec rm -rf {} + -o -name '*.pyc' -delete

distclean: clean
	rm -rf $(VENV) node_modules tools/dashboards/node_modules
