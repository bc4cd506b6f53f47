# tally — hand-written Makefile.  `make` builds bin/tally; `make test` and
# `make demo` first install the Debian packages that are missing.

CC      ?= gcc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Werror=implicit-function-declaration -MMD -MP
CPPFLAGS += -Ivm -Ilang -Iir -Ijit -Iaudit -D_GNU_SOURCE
LDLIBS  = -lgccjit -lgc -lffi -ldl -lm -lpthread

VM_SRC   := $(filter-out vm/main.c,$(wildcard vm/*.c))
VM_OBJ   := $(VM_SRC:%.c=build/%.o)
# the language front end (lang/): linked into every binary that has the VM
LANG_SRC := $(wildcard lang/*.c)
LANG_OBJ := $(LANG_SRC:%.c=build/%.o)
# the JIT's IR (ir/): linked everywhere the VM is; reached through the VM's hooks
IR_SRC   := $(wildcard ir/*.c)
IR_OBJ   := $(IR_SRC:%.c=build/%.o)
# the JIT (jit/): libgccjit back end, compile thread; wired up by the command
JIT_SRC  := $(wildcard jit/*.c)
JIT_OBJ  := $(JIT_SRC:%.c=build/%.o)
# the performance auditor (audit/): statistics, sample buffers, analysis thread
AUDIT_SRC := $(wildcard audit/*.c)
AUDIT_OBJ := $(AUDIT_SRC:%.c=build/%.o)
SW_OBJ   := $(filter-out build/vm/interp.o,$(VM_OBJ)) build/switch/interp.o
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=build/%.o)

.PHONY: all setup test demo bench bench-quick bench-interp bench-compile bench-jit bench-audit bench-audit-sampling clean
all: bin/tally bin/tally-switch

bin/tally: build/vm/main.o $(VM_OBJ) $(LANG_OBJ) $(IR_OBJ) $(JIT_OBJ) $(AUDIT_OBJ)
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# The same VM with switch dispatch instead of computed goto.
bin/tally-switch: build/vm/main.o $(SW_OBJ) $(LANG_OBJ) $(IR_OBJ) $(JIT_OBJ) $(AUDIT_OBJ)
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

build/switch/interp.o: vm/interp.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DVM_SWITCH_DISPATCH -c -o $@ $<

build/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

build/unit-tests: $(UNIT_OBJ) $(VM_OBJ) $(LANG_OBJ) $(IR_OBJ) $(JIT_OBJ) $(AUDIT_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

build/mutate: build/tests/fuzz/mutate.o $(VM_OBJ) $(LANG_OBJ) $(IR_OBJ) $(JIT_OBJ) $(AUDIT_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# The source fuzz test: mutated .tl files through compiler, verifier, VM.
build/srcfuzz: build/tests/fuzz/srcfuzz.o $(VM_OBJ) $(LANG_OBJ) $(IR_OBJ) $(JIT_OBJ) $(AUDIT_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# The auditor's ring buffers and analysis thread under ThreadSanitizer (the
# audit_ring unit tests with audit/ minus the parts that need the VM).
.PHONY: tsan-audit
TSAN_AUDIT_SRC := tests/unit/main.c tests/unit/test_audit_ring.c \
                  $(filter-out audit/config.c audit/clients.c audit/bakeoff.c audit/probe.c audit/queue.c,$(AUDIT_SRC))
build/tsan-audit: $(TSAN_AUDIT_SRC) $(wildcard audit/*.h) tests/unit/test.h
	@mkdir -p build
	$(CC) $(CPPFLAGS) -std=gnu11 -O1 -g -Wall -Wextra -fsanitize=thread -o $@ $(TSAN_AUDIT_SRC) -lm -lpthread

tsan-audit: build/tsan-audit
	build/tsan-audit audit_ring

# The cost of one sample to the program thread, with the analysis thread's
# drain on the other core (bench/audit_ring.c; docs/audit-measurements.md, Overhead).
build/audit-ring: bench/audit_ring.c audit/samples.c audit/audit.h
	@mkdir -p build
	$(CC) $(CPPFLAGS) -O2 -g -Wall -Wextra -o $@ bench/audit_ring.c audit/samples.c -lpthread

.PHONY: bench-audit-ring
bench-audit-ring: build/audit-ring
	build/audit-ring 2000 -1
	for w in 2000 6000 20000; do build/audit-ring $$w; done

setup:
	@sh tools/setup.sh

test: setup
	@$(MAKE) --no-print-directory all build/unit-tests build/mutate build/srcfuzz build/tsan-audit
	@bash tests/run.sh

demo: setup
	@$(MAKE) --no-print-directory bin/tally
	bin/tally run examples/fib.tl 32
	bin/tally run examples/shapes.tl

# The whole suite (bench/suite.sh): the 14 Are-We-Fast-Yet benchmarks and the
# CLBG kernels, interpreter and JIT, ratio table and bench/results.json;
# bench-quick: test sizes in every tier, a correctness check (part of make test).
bench: setup
	@$(MAKE) --no-print-directory bin/tally
	@bash bench/suite.sh

bench-quick: setup
	@$(MAKE) --no-print-directory bin/tally
	@bash bench/suite.sh --quick

bench-interp: setup
	@$(MAKE) --no-print-directory bin/tally
	@bash bench/micro/run.sh

bench-compile: setup
	@$(MAKE) --no-print-directory bin/tally
	@bash bench/compile/run.sh

# CLBG kernels against C twins; every JIT mode once `tally --help` lists --jit.
bench-jit: setup
	@$(MAKE) --no-print-directory bin/tally
	@if bin/tally --help 2>&1 | grep -q -- --jit; then \
		TALLY_CONFIGS="--jit=off --jit=on" bash bench/kernels/run.sh; \
	else TALLY_CONFIGS="" bash bench/kernels/run.sh; fi

# The auditor's dispatcher goal (bench/audit-overhead): the countdown test
# against dispatchers without it, on the AWFY suite, with 95% intervals.
bench-audit: setup
	@$(MAKE) --no-print-directory bin/tally
	@bash bench/audit-overhead

# The auditor's sampling goal (bench/audit-sampling): by perf, the share of
# the program thread's time in the timing machinery at the defaults.
bench-audit-sampling: setup
	@$(MAKE) --no-print-directory bin/tally
	@bash bench/audit-sampling

clean:
	rm -rf build bin

-include $(wildcard build/*/*.d build/*/*/*.d build/*/*/*/*.d)
