# Ingest Doctor: build, package and every offline gate.
#   make package   builds dist/ingest_doctor-<version>.tgz and runs AppInspect on it
#   make test      every gate (pytest on 3.13 and 3.9, AppInspect, conf, SPL, dashboards, min Python)
#   make bench     speed and memory benchmarks (prints numbers)
# Everything it needs (venvs, npm packages, chromium) it installs itself.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := package

APP      := ingest_doctor
VERSION  := $(shell sed -n 's/^version *= *//p' default/app.conf | head -1)
TGZ      := dist/$(APP)-$(VERSION).tgz
BUILD    := build/$(APP)
VENV     := .venv

# Splunk 10 runs app scripts on 3.13, Splunk 9 on 3.9: test on both.
PY313    ?= $(shell pyenv prefix 3.13.0 2>/dev/null || pyenv prefix 3.13 2>/dev/null)/bin/python3
PY39     ?= $(shell pyenv prefix 3.9.18 2>/dev/null || pyenv prefix 3.9 2>/dev/null)/bin/python3
PYTOOLS  ?= $(shell pyenv prefix 3.11.7 2>/dev/null || dirname $$(dirname $$(command -v python3)))/bin/python3

export PIP_DISABLE_PIP_VERSION_CHECK := 1
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: all venv deps build package test test-py test-py313 test-py39 test-generated \
        test-appinspect test-conf test-spl test-minpy test-dashboards bench clean distclean

all: package

# ---------------------------------------------------------------- environments
$(VENV)/py313/.stamp: requirements-dev.txt
	rm -rf $(VENV)/py313 && $(PY313) -m venv $(VENV)/py313
	$(VENV)/py313/bin/pip install -q -r requirements-dev.txt
	touch $@

$(VENV)/py39/.stamp: requirements-dev.txt
	rm -rf $(VENV)/py39 && $(PY39) -m venv $(VENV)/py39
	$(VENV)/py39/bin/pip install -q -r requirements-dev.txt
	touch $@

$(VENV)/tools/.stamp: requirements-tools.txt
	rm -rf $(VENV)/tools && $(PYTOOLS) -m venv $(VENV)/tools
	$(VENV)/tools/bin/pip install -q -r requirements-tools.txt
	touch $@

venv: $(VENV)/py313/.stamp $(VENV)/py39/.stamp $(VENV)/tools/.stamp

# ---------------------------------------------------------------- app build
# Runtime dependencies go into bin/lib (ignored by git), pinned, no .pyc.
bin/lib/.stamp: requirements-app.txt $(VENV)/py313/.stamp
	rm -rf bin/lib && mkdir -p bin/lib
	$(VENV)/py313/bin/pip install -q --no-deps --no-compile --target bin/lib -r requirements-app.txt
	$(VENV)/py313/bin/python tools/prune_lib.py bin/lib
	touch $@

deps: bin/lib/.stamp

build: deps
	python3 tools/gen_conf.py --check
	python3 tools/build.py --out $(BUILD)

package: build
	python3 tools/package.py $(BUILD) $(TGZ)
	$(MAKE) --no-print-directory test-appinspect

# ---------------------------------------------------------------- gates
test: build test-generated test-py test-appinspect test-conf test-spl test-minpy test-dashboards
	@echo "make test: all gates passed"

test-generated:
	python3 tools/gen_conf.py --check

test-py: test-py313 test-py39

test-py313: $(VENV)/py313/.stamp deps
	$(VENV)/py313/bin/python -m pytest -q -p no:cacheprovider tests

test-py39: $(VENV)/py39/.stamp deps
	$(VENV)/py39/bin/python -m pytest -q -p no:cacheprovider tests

test-appinspect: $(VENV)/tools/.stamp
	@test -f $(TGZ) || python3 tools/package.py $(BUILD) $(TGZ)
	$(VENV)/tools/bin/python tools/appinspect_gate.py $(TGZ)

test-conf: $(VENV)/tools/.stamp
	$(VENV)/tools/bin/python tools/confcheck.py $(BUILD)

test-spl: $(VENV)/py313/.stamp
	$(VENV)/py313/bin/python tools/splcheck.py .

test-minpy: $(VENV)/tools/.stamp
	$(VENV)/tools/bin/python tools/minpy.py bin

test-dashboards:
	$(MAKE) --no-print-directory -C tools/dashboards test

bench: $(VENV)/py313/.stamp deps
	$(VENV)/py313/bin/python tools/bench.py

clean:
	rm -rf build dist bin/lib
	find . -name __pycache__ -prune -exec rm -rf {} + -o -name '*.pyc' -delete

distclean: clean
	rm -rf $(VENV) node_modules tools/dashboards/node_modules
