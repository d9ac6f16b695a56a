# Thin wrapper around CMake.  `make demo` and `make test` are all a new
# machine needs; scripts/deps.sh installs what is missing.
MAKEFLAGS += --no-print-directory
BUILD  ?= build
JOBS   ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE  ?= cmake

.PHONY: all deps configure build demo test bench install clean

all: build

deps:
	@sh scripts/deps.sh

configure: deps
	@$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DWEFT_SANITIZER_VARIANTS=ON >/dev/null

build: configure
	@$(CMAKE) --build $(BUILD) -j $(JOBS)

demo: configure
	@$(CMAKE) --build $(BUILD) -j $(JOBS) --target demo example_reservation
	@$(BUILD)/examples/demo
	@echo
	@echo "flow graph: oneTBB's reservation walk-through (examples/reservation.c)"
	@$(BUILD)/examples/example_reservation

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: configure
	@$(CMAKE) --build $(BUILD) -j $(JOBS) --target bench_all
	@$(BUILD)/bench/run_bench $(BENCH_ARGS)

install: build
	@$(CMAKE) --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX))

clean:
	rm -rf $(BUILD)
