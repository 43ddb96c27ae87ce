# bpfrec: BPF lifecycle records for perf (kernel series) and the recorder that uses them.
#
#   make              build the recorder (tools/bpfrec/bpfrec)
#   make run          boot the patched kernel and record a sample BPF workload
#   make check        every test: scripts, series, unit, docs, package, fuzz, host, demo, guest (default + debug)
#   make install      bpfrec, its man pages and bash completion (PREFIX=/usr/local, DESTDIR)
#   make help         all targets
#
# KCONFIG=debug selects the debug kernel (KASAN, lockdep) for kernel, vm-test, run and shell;
# BASE=NAME a kernel base of kernel/bases other than the primary; SUITES='A B' the suites
# of make check to run (scripts/check.sh -l lists them).

KCONFIG ?= default
ifeq ($(KCONFIG),debug)
KFLAGS := --debug
else ifneq ($(KCONFIG),default)
$(error KCONFIG must be 'default' or 'debug', not '$(KCONFIG)')
endif
ifneq ($(BASE),)
KFLAGS += --base $(BASE)
endif

.PHONY: all deps tools kernel vm-test check check-series bisect-check \
	unit-test fuzz-test host-test doc-test mutation-test run shell bench bench-syscall bench-kernel bench-stat bench-serve \
	fresh-check help clean install

all: tools

deps:
	@scripts/deps.sh -q

tools: deps
	@$(MAKE) -s -C tools/bpfrec

kernel: deps
	@scripts/build-kernel.sh $(KFLAGS) >/dev/null

vm-test: deps
	@scripts/vm-test.sh $(KFLAGS)

check: deps
	@scripts/check.sh $(SUITES)

check-series: deps
	@for b in $(or $(BASE),$$(awk '!/^(#|$$)/ { print $$1 }' kernel/bases)); do \
		scripts/check-series.sh --base $$b || exit; done

bisect-check: deps
	@for b in $(or $(BASE),$$(awk '!/^(#|$$)/ { print $$1 }' kernel/bases)); do \
		scripts/check-series.sh --base $$b --build || exit; done

unit-test fuzz-test host-test doc-test mutation-test: deps
	@$(MAKE) -s -C tools/bpfrec $@

# PREFIX and DESTDIR reach tools/bpfrec's Makefile through the command line.
install: deps
	@$(MAKE) -s -C tools/bpfrec install

run: deps
	@scripts/run-demo.sh $(KFLAGS)

fresh-check: deps
	@scripts/fresh-check.sh

shell: deps tools
	@scripts/vm.sh $(KFLAGS) --add tools/bpfrec/bpfrec:/opt/bpfrec/bin --shell

bench: deps
	@bench/run-storm.sh

bench-syscall: deps
	@bench/run-syscall-cost.sh

bench-kernel: deps
	@bench/run-kernel-bench.sh

bench-stat: deps
	@bench/run-stat-bench.sh

bench-serve: deps
	@bench/run-serve.sh

clean:
	@$(MAKE) -s -C tools/bpfrec clean

help:
	@echo "make               build the recorder (tools/bpfrec/bpfrec)"
	@echo "make run           boot the patched kernel, record a sample workload, print it"
	@echo "make check         every test (the one test command; CI runs it); one line per suite,"
	@echo "                   each suite's output in \$$BPFREC_CACHE/logs/check-<suite>.<pid>.log;"
	@echo "                   SUITES='demo unit' runs those only (scripts/check.sh -l lists them);"
	@echo "                   a suite that passed with the same inputs is not rerun (BPFREC_RERUN=1 reruns it)"
	@echo "make kernel        build the guest kernel (cached; KCONFIG=debug for KASAN+lockdep)"
	@echo "                   BASE=NAME (kernel, vm-test, run, shell, check-series): a base of kernel/bases"
	@echo "make vm-test       kselftests and recorder tests in the guest (KCONFIG=debug too)"
	@echo "make shell         interactive guest shell with bpfrec (KCONFIG=debug too)"
	@echo "make check-series  each base's series applies, checkpatch --strict clean, uapi in sync"
	@echo "make bisect-check  build the kernel after every patch of the series"
	@echo "make unit-test | fuzz-test | host-test | doc-test   the recorder's suites alone"
	@echo "make mutation-test each unit test check fails on the bug it names (slow; not in check)"
	@echo "make install       bpfrec, its man pages and bash completion into \$$(DESTDIR)\$$(PREFIX)"
	@echo "                   (PREFIX=/usr/local by default)"
	@echo "make bench         storms of short-lived programs: bpfrec vs perf record"
	@echo "make bench-syscall what recording costs everybody's syscalls, per capture path, vs perf"
	@echo "make bench-kernel  map create+free cost of the series in the guest, vs unpatched"
	@echo "make bench-stat    what bpfrec stat costs: --all-progs vs bpftool (host), stat -b vs"
	@echo "                   bare fentry+fexit and --bpf-counters vs plain perf events (guest)"
	@echo "make bench-serve   bpfrec serve's CPU per scrape and at 100 loads/s, vs bpftool polled each second"
	@echo "make fresh-check   rehearsal: clone HEAD, empty cache, time 'make run' then 'make check'"
	@echo "make deps          install missing Debian packages (apt-get)"
	@echo "cache: $${BPFREC_CACHE:-/var/cache/bpfrec} (kernel sources, builds, ccache, logs)"
