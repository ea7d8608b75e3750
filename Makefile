# ssdlab — the two set-up commands: `make demo` and `make test`.
# Both install what is missing (Debian/Ubuntu packages via apt-get when root, Python packages
# into .venv), then run.

VENV ?= .venv
PY := $(VENV)/bin/python
# fuse3: libfuse 3 and fusermount3, for `ssdlab sim serve` (a simulated drive served through FUSE)
APT_TOOLS := fio:fio smartctl:smartmontools nvme:nvme-cli losetup:mount fusermount3:fuse3
# the test suite also opens the HTML report in a real headless browser, and its fleet tests
# run real sshds (openssh-server) in network namespaces (iproute2); sshd is checked by its
# path, since /usr/sbin is not on every user's PATH; bench/store_scale.py times the sqlite3 shell
# beside `ssdlab runs`; `fleet load` confines fio's client with bubblewrap
APT_TEST_TOOLS := chromium:chromium ip:iproute2 /usr/sbin/sshd:openssh-server promtool:prometheus prometheus-node-exporter:prometheus-node-exporter sqlite3:sqlite3 bwrap:bubblewrap
STAMP := $(VENV)/.installed
# the simulator's compiled core (simcore/, Rust + PyO3 via maturin); rebuilt when its sources change
SIMCORE_STAMP := $(VENV)/.simcore
SIMCORE_SRC := simcore/Cargo.toml simcore/Cargo.lock simcore/pyproject.toml simcore/src/lib.rs
# the latency-log reducer's compiled core (logcore/, Rust + PyO3 via maturin), the same way
LOGCORE_STAMP := $(VENV)/.logcore
LOGCORE_SRC := logcore/Cargo.toml logcore/Cargo.lock logcore/pyproject.toml logcore/src/lib.rs

.PHONY: demo test lint deps install clean bench

demo: install
	$(VENV)/bin/ssdlab quick --size 256MiB --measure 2 --count 1 --interval 0

test: install
	@$(MAKE) -s deps APT_TOOLS='$(APT_TEST_TOOLS)'
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy
	# src's bytecode, written once here: the tests start `python -m ssdlab` hundreds of times,
	# and where PYTHONDONTWRITEBYTECODE is set (as in many CI images) none of them writes it,
	# so each compiled ssdlab's modules again (0.1-0.2 s of CPU a command; bench/RESULTS.md)
	$(PY) -m compileall -q src
	# the tests' assertion rewriting done once by a collection alone and kept in their
	# __pycache__, so that each worker reads it (4.5 s of CPU) instead of redoing it (12.5 s):
	# where PYTHONDONTWRITEBYTECODE is set, pytest keeps none; empty, it is unset for the suite
	PYTHONDONTWRITEBYTECODE= $(VENV)/bin/python -m pytest --collect-only -q >$(VENV)/collected.txt \
		|| { cat $(VENV)/collected.txt; exit 1; }
	# three workers, each test file on one of them: a test file keeps about half a core busy (the
	# rest is waiting for fio, sshd and Chromium), so three used 73 % of the two cores (1,566 s
	# of CPU in 1,074 s); five used them all but a test timed by a virtual drive's FUSE server
	# failed (bench/RESULTS.md); run plain `pytest` for one process, e.g. with -k; the longest
	# files are handed out first (tests/suite_order.py; --no-loadscope-reorder keeps that order
	# instead of xdist's by number of tests), so none starts last and runs alone
	PYTHONDONTWRITEBYTECODE= $(VENV)/bin/python -m pytest -q -n 3 --dist loadfile \
		--no-loadscope-reorder --durations=15

# The live-device tier (tests/devices, docs/devices.md): one QEMU guest (Debian's kernel, fetched
# with apt-get download into ~/.cache/ssdlab/devices) with emulated NVMe, SATA and SCSI drives
# runs ssdlab's device paths through the real kernel drivers, smartctl, nvme-cli, fio,
# blkdiscard, hdparm and sg3_utils. Not part of `make test`. -rfE: failures and errors are
# summarised; where QEMU cannot start, the tier says so in one line of its own.
APT_DEVICE_TOOLS := qemu-system-x86_64:qemu-system-x86 /usr/sbin/hdparm:hdparm sg_format:sg3-utils sdparm:sdparm sfdisk:fdisk depmod:kmod dpkg-deb:dpkg
.PHONY: test-devices
test-devices: install
	@$(MAKE) -s deps APT_TOOLS='$(APT_TOOLS) $(APT_DEVICE_TOOLS)'
	$(PY) -m tests.devices.guest_image
	SSDLAB_DEVICE_TIER=1 $(PY) -m pytest -q -rfE tests/devices

lint: install
	$(VENV)/bin/ruff check src tests bench && $(VENV)/bin/ruff format --check src tests bench && $(VENV)/bin/mypy

# every block of bench/RESULTS.md, re-measured in one run (about 30 minutes; see bench/README.md)
bench: install
	$(PY) -m pip install -q -e '.[bench]'
	$(PY) bench/all.py

deps:
	@missing=""; \
	for pair in $(APT_TOOLS); do \
	  tool=$${pair%%:*}; pkg=$${pair##*:}; \
	  command -v $$tool >/dev/null 2>&1 || missing="$$missing $$pkg"; \
	done; \
	python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing="$$missing python3-venv"; \
	command -v python3 >/dev/null 2>&1 || missing="$$missing python3"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing:$$missing"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	  else \
	    echo "ssdlab needs these packages:$$missing"; \
	    echo "install them with: sudo apt-get install$$missing"; \
	    exit 1; \
	  fi; \
	fi

install: deps $(STAMP) $(SIMCORE_STAMP) $(LOGCORE_STAMP)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

# $(call rust_core,DIR,WHAT,FALLBACK): pip-install the Rust extension in DIR (cargo from PATH or
# rustup's $HOME/.cargo/bin) and touch the target; without cargo, or if the build fails, say
# that FALLBACK is used instead (slower, identical results) and leave the target missing
define rust_core
	@cargo="$$(command -v cargo || true)"; \
	if [ -z "$$cargo" ] && [ -x "$$HOME/.cargo/bin/cargo" ]; then cargo="$$HOME/.cargo/bin/cargo"; fi; \
	if [ -z "$$cargo" ]; then \
	  echo "cargo not found: $(3) (slower)"; \
	else \
	  echo "building $(2) ($(1)/, about 30 s the first time)"; \
	  if PATH="$$(dirname "$$cargo"):$$PATH" $(PY) -m pip install -q ./$(1); then \
	    touch $@; \
	  else \
	    echo "building $(1) failed: $(3) (slower)"; \
	  fi; \
	fi
endef

$(SIMCORE_STAMP): $(STAMP) $(SIMCORE_SRC)
	$(call rust_core,simcore,the simulator's Rust core,ssdlab sim will use its pure-Python core)

$(LOGCORE_STAMP): $(STAMP) $(LOGCORE_SRC)
	$(call rust_core,logcore,the latency-log reducer's Rust core,ssdlab latency will use its numpy core)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build src/*.egg-info simcore/target logcore/target
