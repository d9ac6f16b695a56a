# SPDX-License-Identifier: Apache-2.0
# Thin wrapper around CMake.  `make demo` and `make test` are all a new
# machine needs: they, `make deps`, `make bench`, `make bench-quick` and
# `make fuzz` install what is missing (scripts/deps.sh, apt-get as root);
# `make verify` too, before the mutation run of the memory orders.
# `make` and `make install` only build, and install weft: no package.
MAKEFLAGS += --no-print-directory
BUILD  ?= build
JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE  ?= cmake

.PHONY: all deps configure build demo test bench bench-quick fuzz verify install clean

all: build

deps:
	@sh scripts/deps.sh

configure:
	@command -v $(CMAKE) >/dev/null 2>&1 || \
	    { echo "make: $(CMAKE) not found: run 'make deps' (as root)" >&2; exit 1; }
	@$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DWEFT_SANITIZER_VARIANTS=ON >/dev/null

build: configure
	@$(CMAKE) --build $(BUILD) -j $(JOBS)

# deps first, then the rest: a sub-make keeps that order under -j.
demo: deps
	@$(MAKE) configure
	@$(CMAKE) --build $(BUILD) -j $(JOBS) --target demo example_reservation
	@$(BUILD)/examples/demo
	@echo
	@echo "flow graph: oneTBB's reservation walk-through (examples/reservation.c)"
	@$(BUILD)/examples/example_reservation

test: deps
	@$(MAKE) build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Every workload on weft, OpenMP tasks (gcc, clang), oneTBB and seq,
# interleaved; installs the peers that are missing (bench/README.md).
bench: deps
	@sh bench/run.sh $(BUILD) $(JOBS) $(BENCH_ARGS)

# The same with small inputs and 3 runs each: under 2 minutes.
bench-quick: deps
	@sh bench/run.sh $(BUILD) $(JOBS) --quick --reps 3 $(BENCH_ARGS)

# The flow-graph fuzz target under clang's libFuzzer for FUZZ_SECONDS
# (default 60); installs clang if it is missing (tests/fuzz/graph_ops.c).
fuzz: deps
	@sh scripts/fuzz.sh $(FUZZ_SECONDS)

# The mutation run of the memory orders (docs/protocols.md, "Mutation
# run"): each order weakened one site at a time, rebuilt in /tmp/mut-build,
# and the TSan, weft-sim and aarch64 checks run.  Hours; not part of test.
verify: deps
	@python3 scripts/mutate.py --jobs $(JOBS) $(VERIFY_ARGS)

# What the install rules install (weft, and weft_mpi where MPI is found;
# no test, example or benchmark), then cmake --install.
install: configure
	@$(CMAKE) --build $(BUILD) -j $(JOBS) --target weft_libraries
	@$(CMAKE) --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX))

clean:
	rm -rf $(BUILD)
