# tally — hand-written Makefile.  `make` builds bin/tally and
# bin/tally-switch; `make help` lists every target with what it does.
# `make test`, `make demo` and the bench targets first install the Debian
# packages that are missing (tools/setup.sh).
#
# A target's line ends in `## what it does`; `make help` prints those.

CC      ?= gcc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Werror=implicit-function-declaration -MMD -MP
CPPFLAGS += -Ivm -Ilang -Iir -Ijit -Imarkers -Iaudit -D_GNU_SOURCE
LDLIBS  = -lgccjit -lgc -lffi -lxxhash -ldl -lm -lpthread

# The tiers, in link order: vm/ (loader, verifier, interpreter, runtime),
# lang/ (the language front end), ir/ (the JIT's IR, reached through the
# VM's hooks), jit/ (libgccjit back end, compile thread), markers/ (code
# markers: loop timing points), audit/ (the performance auditor).  Every program that runs tally code links them all.
CLI_SRC  := $(wildcard cli/*.c)
TIER_SRC := $(wildcard vm/*.c) $(wildcard lang/*.c) \
            $(wildcard ir/*.c) $(wildcard jit/*.c) $(wildcard markers/*.c) $(wildcard audit/*.c)
TIER_OBJ := $(TIER_SRC:%.c=build/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=build/%.o)
# the same tiers with switch dispatch instead of computed goto
SWITCH_TIER_OBJ := $(patsubst build/vm/interp.o,build/switch/interp.o,$(TIER_OBJ))
UNIT_OBJ := $(patsubst %.c,build/%.o,$(wildcard tests/unit/*.c))

LINK = $(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

.DEFAULT_GOAL := all
.PHONY: help all setup test demo docs clean tsan-audit fuzz fuzz-tiers test-asan test-tsan \
        bench bench-quick bench-peers bench-interp bench-compile bench-jit bench-startup bench-audit bench-markers \
        bench-audit-sampling bench-audit-ring

help: ## list the targets with what each does (plain `make` builds all)
	@awk -F':[^#]*## ' '/^[a-zA-Z0-9_.\/-]+:[^=#]*## / { printf "  make %-22s %s\n", $$1, $$2 }' $(firstword $(MAKEFILE_LIST))

all: bin/tally bin/tally-switch ## build the command and its switch-dispatch twin (the default)

test: setup ## build everything the tests need and run tests/run.sh
	@$(MAKE) --no-print-directory all build/unit-tests build/mutate build/srcfuzz build/tsan-audit build/jsoncheck build/tlgen build/tlreduce
	@bash tests/run.sh

demo: setup ## build bin/tally and run two examples
	@$(MAKE) --no-print-directory bin/tally
	bin/tally run examples/fib.tl 32
	bin/tally run examples/shapes.tl

setup: ## install the missing Debian packages (tools/setup.sh)
	@sh tools/setup.sh

docs: bin/tally ## regenerate docs/tunables.md from the tunables' rows (tools/tunables-doc.sh)
	bash tools/tunables-doc.sh bin/tally > docs/tunables.md.tmp && mv docs/tunables.md.tmp docs/tunables.md

clean: ## remove build/ and bin/
	rm -rf build bin

# ---- programs ----------------------------------------------------------------

bin/tally: $(CLI_OBJ) $(TIER_OBJ) ## the command: every tier
	@mkdir -p bin
	$(LINK)

bin/tally-switch: $(CLI_OBJ) $(SWITCH_TIER_OBJ) ## the command with switch dispatch (the tiers suite's reference)
	@mkdir -p bin
	$(LINK)

build/unit-tests: $(UNIT_OBJ) $(TIER_OBJ) ## the C unit tests (tests/unit/)
	$(LINK)

build/jsoncheck: tests/jsoncheck.c tests/unit/json_check.h ## `jsoncheck FILE...`: the tests' strict JSON checker (tests/cli.sh, the regressions)
	@mkdir -p build
	$(CC) -std=gnu11 -O1 -Wall -Wextra -o $@ tests/jsoncheck.c

build/mutate: build/tests/fuzz/mutate.o $(TIER_OBJ) ## the module fuzz test: mutated .tlb files through loader, verifier, VM
	$(LINK)

build/srcfuzz: build/tests/fuzz/srcfuzz.o $(TIER_OBJ) ## the source fuzz test: mutated .tl files through compiler, verifier, VM
	$(LINK)

build/tlgen: tests/gen/tlgen.c tests/xorshift.h ## the random program generator (tests/gen/): build/tlgen SEED prints a program
	@mkdir -p build
	$(CC) $(CFLAGS) -o $@ $<

build/tlreduce: tests/gen/tlreduce.c ## the line-based program reducer of tests/gen/tiers.sh
	@mkdir -p build
	$(CC) $(CFLAGS) -o $@ $<

# Coverage-guided fuzzing (tests/fuzz/harness/, run by tests/fuzz/fuzz.sh):
# each harness linked with the parts it reaches, built by clang with
# libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer.
FUZZ_CC      ?= clang
FUZZ_FLAGS   := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJ     := $(patsubst %.c,build/fuzz/%.o,$(wildcard vm/*.c) $(wildcard lang/*.c) markers/scan.c markers/asm.c)
FUZZ_HARNESS := $(patsubst tests/fuzz/harness/%.c,build/fuzz/%,$(wildcard tests/fuzz/harness/*.c))
FUZZ_SECONDS ?= 60

$(FUZZ_OBJ): build/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) -std=gnu11 $(FUZZ_FLAGS) -MMD -MP -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/fuzz_%: tests/fuzz/harness/fuzz_%.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(CPPFLAGS) -std=gnu11 $(FUZZ_FLAGS) -MMD -MP -MF $@.d -fsanitize=fuzzer -o $@ $(filter %.c %.o,$^) -lgc -lffi -ldl -lm -lpthread

N    ?= 10000
SEED ?=
fuzz-tiers: ## random programs on every tier: N (10000) programs from SEED (default random, printed), mismatches reduced
	@$(MAKE) --no-print-directory all build/tlgen build/tlreduce
	@seed=$(SEED); [ -n "$$seed" ] || seed=$$(od -An -N4 -tu4 /dev/urandom | tr -d " "); \
	  echo "fuzz-tiers: SEED=$$seed N=$(N)"; bash tests/gen/tiers.sh $$seed $(N)

# The same harnesses for AFL++ (afl-clang-fast: Debian's afl-gcc-fast
# does not work with gcc 12.2), whose libAFLDriver calls the same entry.
AFL_CC      ?= afl-clang-fast
AFL_OBJ     := $(patsubst build/fuzz/%,build/afl/%,$(FUZZ_OBJ))
AFL_HARNESS := $(patsubst build/fuzz/%,build/afl/%,$(FUZZ_HARNESS))
FUZZ_ENGINE ?= afl

$(AFL_OBJ): build/afl/%.o: %.c
	@mkdir -p $(dir $@)
	$(AFL_CC) $(CPPFLAGS) -std=gnu11 $(FUZZ_FLAGS) -MMD -MP -c -o $@ $<

build/afl/fuzz_%: tests/fuzz/harness/fuzz_%.c $(AFL_OBJ)
	$(AFL_CC) $(CPPFLAGS) -std=gnu11 $(FUZZ_FLAGS) -MMD -MP -MF $@.d -fsanitize=fuzzer -o $@ $(filter %.c %.o,$^) -lgc -lffi -ldl -lm -lpthread

fuzz: ## coverage-guided fuzzing: each harness (or FUZZ_HARNESSES) FUZZ_SECONDS (60) on both cores with FUZZ_ENGINE (afl or libfuzzer), a line of counts each
	@sh tools/setup.sh fuzz
	@$(MAKE) --no-print-directory bin/tally $(if $(filter afl,$(FUZZ_ENGINE)),$(AFL_HARNESS),$(FUZZ_HARNESS))
	@bash tests/fuzz/fuzz.sh --engine=$(FUZZ_ENGINE) $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

# The audit_ring unit tests with audit/ minus the parts that need the VM.
TSAN_AUDIT_SRC := tests/unit/runner.c tests/unit/test_audit_ring.c \
                  audit/analysis.c audit/loopstats.c audit/policy.c audit/record.c audit/report.c audit/samples.c audit/stats.c \
                  vm/json.c vm/fault.c vm/error.c vm/outfile.c
build/tsan-audit: $(TSAN_AUDIT_SRC) $(wildcard audit/*.h) tests/unit/test.h ## the auditor's ring buffers and analysis thread under ThreadSanitizer
	@mkdir -p build
	$(CC) $(CPPFLAGS) -std=gnu11 -O1 -g -Wall -Wextra -fsanitize=thread -o $@ $(TSAN_AUDIT_SRC) -lm -lpthread

tsan-audit: build/tsan-audit ## run the audit_ring tests under ThreadSanitizer
	build/tsan-audit audit_ring

# Sanitized builds (make test-asan, make test-tsan; not part of make
# test): the command, its switch-dispatch twin and the unit tests compiled
# with the sanitizer into build/asan/ or build/tsan/, never over bin/.
# tests/sanitize.sh runs the suites against them (TALLY_BIN=build/SAN/bin).
# Code the JIT compiles at run time is gcc's output, not instrumented.
# build/SAN/stdlib links to stdlib/, found next to bin/ as when installed.
ASAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
TSAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
SAN_CMDS    = $(1)/bin/tally $(1)/bin/tally-switch $(1)/unit-tests

# SAN_RULES SAN,FLAGS: build/SAN/'s objects, command (bin/tally, the
# command under the sanitizer), switch-dispatch twin and unit tests.
# audit/loops.c holds the code markers' sink, which runs between any two
# instructions of compiled code on general registers only and calls
# nothing; a sanitizer's calls into its runtime break both (TSan's clobber
# vector registers the compiled code keeps live), so it is built without.
define SAN_RULES
$(1)_TIER_OBJ := $$(TIER_OBJ:build/%=build/$(1)/%)

build/$(1)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CPPFLAGS) $$(CFLAGS) $(2) -c -o $$@ $$<

build/$(1)/switch/interp.o: vm/interp.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CPPFLAGS) $$(CFLAGS) $(2) -DVM_SWITCH_DISPATCH -c -o $$@ $$<

build/$(1)/audit/loops.o: audit/loops.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CPPFLAGS) $$(CFLAGS) -c -o $$@ $$<

build/$(1)/bin/tally: $$(CLI_OBJ:build/%=build/$(1)/%) $$($(1)_TIER_OBJ)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS) $(2) -o $$@ $$^ $$(LDLIBS)

build/$(1)/bin/tally-switch: $$(CLI_OBJ:build/%=build/$(1)/%) $$(patsubst build/$(1)/vm/interp.o,build/$(1)/switch/interp.o,$$($(1)_TIER_OBJ))
	@mkdir -p $$(dir $$@) && ln -sfn ../../stdlib build/$(1)/stdlib
	$$(CC) $$(CFLAGS) $(2) -o $$@ $$^ $$(LDLIBS)

build/$(1)/unit-tests: $$(UNIT_OBJ:build/%=build/$(1)/%) $$($(1)_TIER_OBJ)
	$$(CC) $$(CFLAGS) $(2) -o $$@ $$^ $$(LDLIBS)
endef
$(eval $(call SAN_RULES,asan,$(ASAN_FLAGS)))
$(eval $(call SAN_RULES,tsan,$(TSAN_FLAGS)))

test-asan: setup ## the unit, program, tiers and cli suites under AddressSanitizer + UBSan (tests/sanitize.sh)
	@$(MAKE) --no-print-directory all build/jsoncheck $(call SAN_CMDS,build/asan) build/tsan-audit
	@bash tests/sanitize.sh asan

test-tsan: setup ## the threaded parts (compile thread, bakeoffs, analysis, stats writer) under ThreadSanitizer (tests/sanitize.sh)
	@$(MAKE) --no-print-directory all build/jsoncheck $(call SAN_CMDS,build/tsan) build/tsan-audit
	@bash tests/sanitize.sh tsan

build/audit-ring: bench/audit_ring.c audit/samples.c audit/audit.h ## the cost of one sample to the program thread (bench/audit_ring.c)
	@mkdir -p build
	$(CC) $(CPPFLAGS) -O2 -g -Wall -Wextra -o $@ bench/audit_ring.c audit/samples.c -lpthread

build/switch/interp.o: vm/interp.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DVM_SWITCH_DISPATCH -c -o $@ $<

build/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# ---- benchmarks --------------------------------------------------------------

bench: setup ## the AWFY and CLBG suites, interpreter and JIT (bench/suite.sh)
	@$(MAKE) --no-print-directory bin/tally
	@bash bench/suite.sh

bench-quick: setup ## every benchmark at its test size in every tier: a correctness check
	@$(MAKE) --no-print-directory bin/tally
	@bash bench/suite.sh --quick

bench-peers: ## tally against HotSpot and LuaJIT on the AWFY suite's own Java and Lua code (bench/peers.sh)
	@sh tools/setup.sh peers
	@$(MAKE) --no-print-directory bin/tally
	@bash bench/peers.sh $(PEERS_ARGS)

bench-interp: setup ## interpreter micro benchmarks against Lua 5.4 (bench/micro/micro.sh)
	@$(MAKE) --no-print-directory bin/tally
	@bash bench/micro/micro.sh

bench-compile: setup ## compile speed of the front end (bench/compile/compile-speed.sh)
	@$(MAKE) --no-print-directory bin/tally
	@bash bench/compile/compile-speed.sh

bench-jit: setup ## CLBG kernels against their C twins, JIT off and on (bench/kernels/kernels.sh)
	@$(MAKE) --no-print-directory bin/tally
	@TALLY_CONFIGS="--jit=off --jit=on" bash bench/kernels/kernels.sh

bench-startup: setup ## short runs with a cold and a warm code cache: fib(32), the kernels, AWFY's first iteration against HotSpot (bench/startup.sh)
	@sh tools/setup.sh peers
	@$(MAKE) --no-print-directory bin/tally
	@bash bench/startup.sh fib nbody spectralnorm mandelbrot fannkuch awfy

bench-audit: setup ## what the auditor's dispatchers cost on AWFY (bench/audit-overhead)
	@$(MAKE) --no-print-directory bin/tally
	@bash bench/audit-overhead

bench-markers: setup ## what code markers cost the optimizer and what loop timings buy (bench/markers/markers.sh all)
	@$(MAKE) --no-print-directory bin/tally
	@bash bench/markers/markers.sh all

bench-audit-sampling: setup ## the program thread's time spent timing, by perf (bench/audit-sampling)
	@$(MAKE) --no-print-directory bin/tally
	@bash bench/audit-sampling

bench-audit-ring: build/audit-ring ## one sample's cost, the drain on the other core (build/audit-ring)
	build/audit-ring 2000 -1
	for w in 2000 6000 20000; do build/audit-ring $$w; done

-include $(wildcard build/*/*.d build/*/*/*.d build/*/*/*/*.d)
