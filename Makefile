# SPDX-License-Identifier: MIT
# tally — one GNU Makefile, output in build/ (build-asan/ for the sanitized
# analyzer and unit tests).  `make help` lists the targets.

CC         ?= gcc
PKG_CONFIG ?= pkg-config
WERROR     ?= 1
SANITIZE   ?=
BUILD      ?= build

# The libraries are checked when something is compiled, by a recipe (the
# `libs` target below), never while this file is parsed: the README's commands
# (demo, check...) first install what is missing (deps) and then build in a
# recursive make, so a fresh machine needs nothing but make and git
# (tests/fresh/run.sh proves it), and `make -n demo` shows the whole plan.
PKGS := libelf libdw capstone zlib

# snprintf truncation is deliberate where we use it: gcc's guesses are noise.
WARN   := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
          -Wformat=2 -Wvla -Wundef $(if $(filter 1,$(WERROR)),-Werror) \
          $(if $(findstring clang,$(CC)),,-Wno-format-truncation)
BASE   := -std=c11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer $(WARN) -MMD -MP \
          -Isrc -Iinclude
SANFLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-sanitize-recover=all)
# capstone is opened on first use (src/symbols/sym_capstone.c), not linked:
# loading it cost every tally command ~7 ms.  Its SONAME, read from the
# library pkg-config names, is the one opened.
CAPSTONE_SONAME := $(shell readelf -d $$($(PKG_CONFIG) --variable=libdir capstone 2>/dev/null)/libcapstone.so 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
CFLAGS_AN  := $(BASE) $(SANFLAGS) $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null) \
              $(if $(CAPSTONE_SONAME),-DSYM_CAPSTONE_SONAME='"$(CAPSTONE_SONAME)"')
LIBS_AN    := $(shell $(PKG_CONFIG) --libs $(filter-out capstone,$(PKGS)) 2>/dev/null) -liberty -lm
# The collector runs inside the target: PIC, hidden, initial-exec TLS, libc only.
# gcc's call graph with stack usage (.ci) beside each of its objects: the
# functions run on col_fds_aside's small helper stack are checked against it
# when the collector is linked (scripts/check-aside-stack.sh).
CALLGRAPH  := $(shell $(CC) -fcallgraph-info=su -E -x c /dev/null -o /dev/null >/dev/null 2>&1 && echo -fcallgraph-info=su)
CFLAGS_COL := $(BASE) -fPIC -fvisibility=hidden -ftls-model=initial-exec $(CALLGRAPH)

# --- sources -------------------------------------------------------------
FORMAT_RD  := $(filter-out src/format/exp_write%,$(wildcard src/format/*.c))
FORMAT_WR  := $(wildcard src/format/exp_write*.c)
ANALYZER   := $(FORMAT_RD) $(wildcard src/symbols/*.c src/model/*.c src/report/*.c)
# The HTML report's page, style and script, embedded by .incbin.
HTML_ASSETS:= $(BUILD)/obj/src/report/report_html_assets.o
ATTACH     := $(wildcard src/attach/*.c)
# The outside mode (statically linked programs) writes experiments with the
# format's writers and unwinds with the collector's own CFI unwinder.
OUTSIDE    := $(wildcard src/outside/*.c) $(FORMAT_WR) src/collector/col_unwind.c \
              src/collector/col_objset.c
CLI        := $(wildcard src/cli/*.c) $(ATTACH) $(OUTSIDE)
FORMAT_BOTH:= src/format/exp_launch.c src/format/elf_peek.c src/format/elf_cfi.c src/format/exp_events.c src/format/exp_perf_mem.c \
              src/format/exp_schedstat.c
COLLECTOR  := $(wildcard src/collector/*.c) $(FORMAT_WR) $(FORMAT_BOTH)
COLLECTOR_S:= $(wildcard src/collector/*.S)
MCOUNT     := $(wildcard src/mcount/*.c)
MCOUNT_S   := $(wildcard src/mcount/*.S)
TRACERS    := heap sync io
UNIT       := $(wildcard tests/unit/test_*.c)
FUZZ       := $(wildcard tests/fuzz/fuzz_*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
pic = $(patsubst %.S,$(BUILD)/pic/%.o,$(patsubst %.c,$(BUILD)/pic/%.o,$(1)))

TALLY      := $(BUILD)/bin/tally
COLLECTLIB := $(BUILD)/lib/libtally-collector.so
MCOUNTLIB  := $(BUILD)/lib/libtally-mcount.so
APILIB     := $(BUILD)/lib/libtally.so
TRACERLIBS := $(patsubst %,$(BUILD)/lib/libtally-%.so,$(TRACERS))
UNIT_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT))

all: $(TALLY) $(COLLECTLIB) $(MCOUNTLIB) $(APILIB) $(TRACERLIBS)

libs:
	@$(PKG_CONFIG) --exists $(PKGS) 2>/dev/null || { echo "make: missing libraries ($(PKGS)): run scripts/install-deps.sh, or apt-get install libelf-dev libdw-dev libcapstone-dev zlib1g-dev" >&2; exit 1; }

$(BUILD)/obj/%.o: %.c | libs
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_AN) -c -o $@ $<

# The collector's objects are remade when their flags change (a build made
# before -fcallgraph-info had objects without the .ci files the aside stack
# check reads, and its link failed): the flags are kept in a stamp, rewritten
# only when they differ.
$(BUILD)/pic/.cflags: FORCE
	@mkdir -p $(@D)
	@echo '$(CFLAGS_COL)' | cmp -s - $@ || echo '$(CFLAGS_COL)' >$@

$(BUILD)/pic/%.o: %.c $(BUILD)/pic/.cflags | libs
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_COL) -c -o $@ $<

$(HTML_ASSETS): src/report/report_html_assets.S $(wildcard src/report/html/*)
	@mkdir -p $(@D)
	$(CC) -c -o $@ $<

# The -pg hot path must leave the vector registers alone (arguments live there).
$(BUILD)/pic/src/mcount/mc_hot.o: CFLAGS_COL += -mgeneral-regs-only

$(BUILD)/pic/%.o: %.S
	@mkdir -p $(@D)
	$(CC) -fPIC -c -o $@ $<

$(TALLY): $(call obj,$(CLI) $(ANALYZER)) $(HTML_ASSETS)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) -o $@ $^ $(LIBS_AN)

# The collector holds the -pg runtime too (src/mcount/, exported as in
# mcount.map): `tally record` preloads one library, not two (a second one
# cost each process about 6 page faults and 9 system calls to load).
# libtally-mcount.so stays, for programs linked with -ltally-mcount.
$(COLLECTLIB): $(call pic,$(COLLECTOR) $(COLLECTOR_S) $(MCOUNT) $(MCOUNT_S)) src/collector/collector.map scripts/check-aside-stack.sh
	@mkdir -p $(@D)
	$(if $(CALLGRAPH),@scripts/check-aside-stack.sh $(patsubst %.o,%.ci,$(call pic,$(COLLECTOR))),@echo "make: the aside stack check skipped: $(CC) has no -fcallgraph-info (gcc 10 or later)")
	$(CC) -shared -fPIC -Wl,--version-script=src/collector/collector.map \
	    -Wl,-soname,libtally-collector.so -o $@ $(call pic,$(COLLECTOR) $(COLLECTOR_S) $(MCOUNT) $(MCOUNT_S)) -ldl -pthread

$(MCOUNTLIB): $(call pic,$(MCOUNT) $(MCOUNT_S)) src/mcount/mcount.map $(COLLECTLIB)
	@mkdir -p $(@D)
	$(CC) -shared -fPIC -Wl,--version-script=src/mcount/mcount.map \
	    -Wl,-soname,libtally-mcount.so -o $@ $(call pic,$(MCOUNT) $(MCOUNT_S)) \
	    -L$(BUILD)/lib -ltally-collector -Wl,-rpath,'$$ORIGIN'

# Each tracer is its own library, preloaded only when asked for (-H, -s, -i),
# made of src/tracers/NAME.c and any src/tracers/NAME_*.c.
$(TRACERLIBS): $(BUILD)/lib/libtally-%.so: $(BUILD)/pic/src/tracers/%.o src/tracers/%.map $(COLLECTLIB)
	@mkdir -p $(@D)
	$(CC) -shared -fPIC -Wl,--version-script=src/tracers/$*.map -Wl,-soname,libtally-$*.so \
	    -o $@ $(filter %.o,$^) -L$(BUILD)/lib -ltally-collector -Wl,-rpath,'$$ORIGIN' -ldl -pthread
$(foreach t,$(TRACERS),$(eval $(BUILD)/lib/libtally-$(t).so: $(call pic,$(wildcard src/tracers/$(t)_*.c))))

# The MPI tracer builds where mpi.h is found (Open MPI's mpicc, or pkg-config's
# ompi); it does not link libmpi (src/tracers/mpi_trace.h says why).
MPI_CFLAGS := $(patsubst -I%,-isystem %,$(shell mpicc --showme:compile 2>/dev/null || \
		$(PKG_CONFIG) --cflags ompi 2>/dev/null))
HAVE_MPI   := $(shell printf '\043include <mpi.h>\n' | $(CC) $(MPI_CFLAGS) -E -x c - >/dev/null 2>&1 && echo 1)
MPI_SRC    := $(wildcard src/tracers/mpi_*.c)
MPILIB     := $(BUILD)/lib/libtally-mpi.so
$(call pic,$(MPI_SRC)): CFLAGS_COL += $(MPI_CFLAGS)
ifeq ($(HAVE_MPI),1)
all: $(MPILIB)
else
all: mpi-skipped
endif

$(MPILIB): $(call pic,$(MPI_SRC)) src/tracers/mpi.map $(COLLECTLIB)
	@mkdir -p $(@D)
	$(CC) -shared -fPIC -Wl,--version-script=src/tracers/mpi.map -Wl,-soname,libtally-mpi.so \
	    -o $@ $(call pic,$(MPI_SRC)) -L$(BUILD)/lib -ltally-collector -Wl,-rpath,'$$ORIGIN' -ldl

mpi-skipped:
	@echo "make: libtally-mpi.so skipped: no mpi.h (mpicc or pkg-config ompi); tally record -m needs it: apt-get install libopenmpi-dev"

# The JVMTI agent builds where jvmti.h is found: $(JAVA_HOME)/include, or the
# JDK of the javac on the PATH, or Debian's default-java; it links the
# collector, as the tracers do.  Without a JDK, `make` says it skips it.
JDK_HOMES  := $(JAVA_HOME) $(patsubst %/bin/javac,%,$(realpath $(shell command -v javac 2>/dev/null))) \
	      /usr/lib/jvm/default-java
JDK_INC    := $(firstword $(foreach h,$(JDK_HOMES),$(if $(wildcard $(h)/include/jvmti.h),$(h)/include)))
JVMTI_SRC  := $(wildcard src/jvmti/*.c)
JVMTILIB   := $(BUILD)/lib/libtally-jvmti.so
$(call pic,$(JVMTI_SRC)): CFLAGS_COL += -isystem $(JDK_INC) -isystem $(JDK_INC)/linux -ftls-model=global-dynamic
ifneq ($(JDK_INC),)
all: $(JVMTILIB)
else
all: jvmti-skipped
endif

$(JVMTILIB): $(call pic,$(JVMTI_SRC)) src/jvmti/jvmti.map $(COLLECTLIB)
	@mkdir -p $(@D)
	$(CC) -shared -fPIC -Wl,--version-script=src/jvmti/jvmti.map -Wl,-soname,libtally-jvmti.so \
	    -o $@ $(call pic,$(JVMTI_SRC)) -L$(BUILD)/lib -ltally-collector -Wl,-rpath,'$$ORIGIN' -ldl -lm

jvmti-skipped:
	@echo "make: libtally-jvmti.so skipped: no jvmti.h (no JDK); Java programs are profiled as native code only: apt-get install openjdk-17-jdk-headless"

$(APILIB): $(COLLECTLIB)
	@mkdir -p $(@D)
	ln -sf libtally-collector.so $@

# Unit tests link the analyzer objects, or the collector's, as they need
# (the format's shared part once).
COL_TEST   := $(call pic,$(filter-out $(FORMAT_BOTH),$(COLLECTOR)) $(COLLECTOR_S))
$(BUILD)/tests/test_%: tests/unit/test_%.c $(call obj,$(ANALYZER)) $(HTML_ASSETS) $(COL_TEST) $(call obj,$(ATTACH))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_AN) -Itests/unit -o $@ $< $(call obj,$(ANALYZER)) $(HTML_ASSETS) \
	    $(if $(findstring test_col,$@),$(COL_TEST) -ldl -pthread) \
	    $(if $(findstring test_attach,$@),$(call obj,$(ATTACH))) $(LIBS_AN)

# test_cli_*: the command line's tables too (every CLI object but main.c's
# command table, whose helpers live in cli_msg.c).
CLI_LIB    := $(filter-out src/cli/main.c,$(CLI))
$(BUILD)/tests/test_cli_%: tests/unit/test_cli_%.c $(call obj,$(ANALYZER) $(CLI_LIB)) $(HTML_ASSETS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_AN) -Itests/unit -o $@ $< $(call obj,$(ANALYZER) $(CLI_LIB)) $(HTML_ASSETS) $(LIBS_AN)

# test_out_*: the outside mode's objects too (its object loader and
# .debug_frame reader, the collector's unwinder).
$(BUILD)/tests/test_out_%: tests/unit/test_out_%.c $(call obj,$(ANALYZER) $(OUTSIDE)) $(HTML_ASSETS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_AN) -Itests/unit -o $@ $< $(call obj,$(ANALYZER) $(OUTSIDE)) $(HTML_ASSETS) $(LIBS_AN)

# The synthetic MPI job of many ranks (tests/e2e/test_mpi.sh, bench), written
# with the format's own writer.
JOBGEN := $(BUILD)/tests/jobgen
$(JOBGEN): tests/progs/jobgen.c $(call pic,$(FORMAT_WR))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_AN) -o $@ $< $(call pic,$(FORMAT_WR))

# The synthetic experiment of hardware counters and data addresses
# (tests/e2e/test_counters.sh): this machine has no PMU to record one.
HWCGEN := $(BUILD)/tests/hwcgen
$(HWCGEN): tests/progs/hwcgen.c $(call pic,$(FORMAT_WR))
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_AN) -o $@ $< $(call pic,$(FORMAT_WR))

tests: all $(UNIT_BINS) $(JOBGEN) $(HWCGEN)

# --- the README's commands ------------------------------------------------
# demo needs only what builds tally; the tests need their consumers too
# (MPI, Java, chromium, node, go...: minutes of downloads a demo can skip).
deps:
	@scripts/install-deps.sh build

deps-test:
	@scripts/install-deps.sh test

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

check: deps-test
	@$(MAKE) --no-print-directory tests
	@$(MAKE) --no-print-directory BUILD=build-asan SANITIZE=address,undefined build-asan/bin/tally unit-asan
	@tests/run.sh build build-asan

# The edit-test loop (under 2 minutes on 2 cores): the unit tests and the
# fast end-to-end scripts of the core paths (record, descendants, damaged
# and killed experiments, a full disk, the overview, the CLI's edges); it
# installs nothing.  TALLY_QUICK=1 lets a script skip its costly guards
# (checks that pass on the build before too), saying so.  `make check`
# runs everything.
QUICK_E2E := test_cli_small test_partial test_disk test_kill test_descend test_record test_overview

check-quick:
	@$(MAKE) --no-print-directory tests
	@TALLY_QUICK=1 tests/run.sh --e2e "$(QUICK_E2E)" $(BUILD)

check-asan: deps-test
	@$(MAKE) --no-print-directory BUILD=build-asan SANITIZE=address,undefined build-asan/bin/tally unit-asan
	@tests/run.sh --unit-only build-asan

unit-asan: $(UNIT_BINS)

bench:
	@scripts/install-deps.sh bench
	@$(MAKE) --no-print-directory all $(JOBGEN)
	@bench/run.sh

# libFuzzer targets over the experiment reader (clang).
fuzz: deps-test
	@$(MAKE) --no-print-directory CC=clang BUILD=build-fuzz SANITIZE=fuzzer-no-link,address,undefined fuzzers
	@tests/fuzz/run.sh build-fuzz

fuzzers: $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ))
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(call obj,$(ANALYZER)) $(HTML_ASSETS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_AN) -fsanitize=fuzzer -o $@ $< $(filter %.o,$^) $(LIBS_AN)

# --- installing -----------------------------------------------------------
# tally finds its libraries in ../lib beside itself, so they go to
# $(PREFIX)/lib; DESTDIR stages the tree (packaging).
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     := $(PREFIX)/bin
LIBDIR     := $(PREFIX)/lib
INCLUDEDIR := $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
COMPDIR    ?= $(PREFIX)/share/bash-completion/completions
VERSION    := $(shell sed -n 's/^\#define TALLY_VERSION "\(.*\)"/\1/p' src/cli/main.c)
INSTALLED_LIBS := $(notdir $(COLLECTLIB) $(MCOUNTLIB) $(TRACERLIBS) $(MPILIB)) libtally.so

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(COMPDIR)
	install -m 755 $(TALLY) $(DESTDIR)$(BINDIR)/tally
	install -m 755 $(COLLECTLIB) $(MCOUNTLIB) $(TRACERLIBS) $(if $(HAVE_MPI),$(MPILIB)) $(DESTDIR)$(LIBDIR)/
	ln -sf libtally-collector.so $(DESTDIR)$(LIBDIR)/libtally.so
	install -m 644 include/tally.h $(DESTDIR)$(INCLUDEDIR)/tally.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
	    scripts/tally.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/tally.pc
	rm -rf $(BUILD)/man && scripts/man.sh $(TALLY) $(BUILD)/man $(VERSION)
	install -m 644 $(BUILD)/man/man1/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(BUILD)/man/man5/*.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 scripts/tally.bash $(DESTDIR)$(COMPDIR)/tally

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tally $(addprefix $(DESTDIR)$(LIBDIR)/,$(INSTALLED_LIBS)) \
	    $(DESTDIR)$(LIBDIR)/pkgconfig/tally.pc $(DESTDIR)$(INCLUDEDIR)/tally.h \
	    $(DESTDIR)$(MANDIR)/man1/tally.1 $(DESTDIR)$(MANDIR)/man1/tally-*.1 \
	    $(DESTDIR)$(MANDIR)/man5/tally-experiment.5 $(DESTDIR)$(COMPDIR)/tally

clean:
	rm -rf build build-asan build-fuzz

help:
	@echo "make [all] | demo | check | check-quick | check-asan | bench | fuzz | install [PREFIX=...] | uninstall | clean"

.PHONY: all libs mpi-skipped jvmti-skipped tests deps deps-test demo check check-quick check-asan unit-asan bench fuzz fuzzers install uninstall clean help
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

FORCE:
