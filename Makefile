# dmalab - every entry point.  `make help` lists them.
#
# Labs are discovered: labs/NN-name/lab.c (CPU) or labs/NN-name/lab.cu (CUDA).
# A .cu lab is built with nvcc when it is found; otherwise it is compiled as C
# with DMALAB_HAVE_CUDA=0 and its CUDA claims skip with not-built:no-nvcc.

# SAN=1: every C program (library, runner, CPU labs, unit tests, fake labs)
# with ASan and UBSan, in build/san (make test-san); the CUDA labs as stubs,
# since nvcc is not combined with ASan here.
BUILD    ?= $(if $(filter 1,$(SAN)),build/san,build)
RESULTS  ?= results
# RESULTS= (empty) or a name with blanks would hand the runner's --results
# the next word (a lab id) as its directory: refused before anything runs.
ifneq ($(words $(RESULTS)),1)
  $(error RESULTS='$(RESULTS)': name one directory, without blanks (RESULTS=DIR; default results))
endif

# A value the learner types reaches a command line.  A name (LEARNER) or a file
# (PREDICTIONS, FROM, GRADESCOPE, CLASS, BASELINE) is quoted for the shell:
# $(call shq,VAR) is VAR as typed ($(value): make does not expand a $( in it),
# in single quotes, each ' in it written '\''.  RESULTS and WORK are also make's
# own targets and folders (rm -rf): a character the shell reads there is refused.
typed = $(if $(filter command line environment%,$(origin $(1))),$(value $(1)),$($(1)))
shq = '$(subst ','\'',$(call typed,$(1)))'
# A list (LABS="01 04"): each word so quoted, after the runner's '--', so that a word
# is a lab id to the runner (refused when it is none), never an option or shell code
shq_words = $(foreach w,$(call typed,$(1)),'$(subst ','\'',$(w))')
lparen := (
rparen := )
hash := \#
shell_meta := ' " ` ; & | < > \ * ? [ ] { } ! ^ $$ $(lparen) $(rparen) $(hash)
shell_meta_in = $(strip $(foreach c,$(shell_meta),$(findstring $(c),$(value $(1)))))
$(foreach v,RESULTS WORK,$(if $(call shell_meta_in,$(v))$(word 2,$(value $(v))),$(error \
	$(v)=$(value $(v)): a folder name without blanks or shell characters, please$(if \
	$(call shell_meta_in,$(v)), (it has $(call shell_meta_in,$(v)))))))
CC       ?= cc
CFLAGS   ?= -O2 -g
ifeq ($(SAN),1)
  SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
  override CFLAGS += $(SAN_FLAGS)
  override NVCC :=
  # the sanitizers make mlock a no-op: harness/tests/san_mlock.c undoes that
  SAN_OBJ := $(BUILD)/obj/san_mlock.o
endif
# a claim_spec may leave its trailing fields out (root: NULL)
WARN     := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
# the layers, lowest first (README.md "Layout"): a lab includes "lab.h" whichever
# layer a header is in
CPPFLAGS := -Iharness/base -Iharness/facts -Iharness/lab -Iharness/cuda -D_GNU_SOURCE
LDLIBS   := $(SAN_OBJ) -lnuma -ldl -lm -lpthread

# The learner's language (harness/base/lang.h): DMALAB_LANG, else the locale,
# so `make lab-01 LANG=zh` works as is; QUIZ_LANG, its older name, still does.
ifdef QUIZ_LANG
export DMALAB_LANG ?= $(QUIZ_LANG)
endif

NVCC ?= $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard /usr/local/cuda/bin/nvcc))
CUDA_GENCODE ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=[sm_80,compute_80]
NVCCFLAGS ?= -O2 -g -std=c++17 $(CUDA_GENCODE) -Xcompiler -Wall,-Wno-unused-parameter
ifneq ($(NVCC),)
  NVCC_RELEASE := $(shell $(NVCC) --version 2>/dev/null | \
	sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
  CUDA_RT_VERSION := $(shell echo $(NVCC_RELEASE) | awk '{print $$1*1000+$$2*10}')
  CUDA_LIBDIR := $(dir $(NVCC))../lib64
  HAVE_NVCC := 1
else
  CUDA_RT_VERSION := 0
  HAVE_NVCC := 0
endif
CPPFLAGS += -DDMALAB_HAVE_NVCC=$(HAVE_NVCC) -DDMALAB_CUDA_RT_VERSION=$(CUDA_RT_VERSION)

# The CUDA mode this build was made in.  `make NVCC=` builds the stubs on
# purpose; installing nvcc after a stub build, or `make NVCC=` after a CUDA
# build, changes the mode.  The stamp is rewritten only when the mode changes,
# and every .cu lab (and every object, since CPPFLAGS carries the mode)
# depends on it, so a change of mode rebuilds them.  The mode names the
# toolkit (nvcc's real file and its release), not how NVCC spells its path:
# /usr/local/cuda/bin/nvcc, /usr/local/cuda-13.0/bin/nvcc or a link to it
# are one toolkit and rebuild nothing.
NVCC_REAL  := $(if $(filter 1,$(HAVE_NVCC)),$(shell p=$$(command -v '$(firstword $(NVCC))') \
	&& readlink -f "$$p"))
CUDA_MODE  := $(if $(filter 1,$(HAVE_NVCC)),nvcc $(or $(NVCC_REAL),$(NVCC)) $(CUDA_RT_VERSION),stub)
CUDA_STAMP := $(BUILD)/cuda-mode

# Header dependencies: each compile writes the headers it read to
# $(BUILD)/dep/<target>.d (-MMD; -MP: a deleted header is no error), which
# are included below.  gcc and nvcc take the same flags.
depfile  = $(patsubst $(BUILD)/%,$(BUILD)/dep/%.d,$(1))
DEPFLAGS = -MMD -MP -MF $(call depfile,$@) -MT $@

LAB_DIRS := $(sort $(wildcard labs/[0-9][0-9]-*))
# a lab's id: the NN of its folder labs/NN-name
lab_id    = $(firstword $(subst -, ,$(notdir $(1))))
LAB_IDS  := $(foreach d,$(LAB_DIRS),$(call lab_id,$(d)))
LAB_BINS := $(addprefix $(BUILD)/labs/lab-,$(LAB_IDS))
SAB_BINS := $(addprefix $(BUILD)/sabotage/lab-,$(LAB_IDS))

# The library of the layers below the labs; the runner links base and facts alone
# (RUN_LIB), so that a call of the lab runtime from it does not link.
LIB_SRCS := $(wildcard harness/base/*.c harness/facts/*.c harness/lab/*.c)
LIB_OBJS := $(patsubst harness/%.c,$(BUILD)/obj/%.o,$(LIB_SRCS)) $(BUILD)/obj/base/errata_text.o \
	    $(BUILD)/obj/base/messages_text.o
RUN_LIB_OBJS := $(filter $(BUILD)/obj/base/% $(BUILD)/obj/facts/%,$(LIB_OBJS))
RUN_LIB  := $(BUILD)/libdmalab-base.a
LIB      := $(BUILD)/libdmalab.a
RUN_SRCS := $(wildcard harness/runner/*.c)
RUN_OBJS := $(patsubst harness/runner/%.c,$(BUILD)/obj/runner/%.o,$(RUN_SRCS))
DMALAB   := $(BUILD)/dmalab
# `dmalab fleet` runs $(BUILD)/fleet/fleet.sh (harness/fleet/, copied)
FLEET_SCRIPTS := $(patsubst harness/fleet/%,$(BUILD)/fleet/%,$(wildcard harness/fleet/*.sh))

UNIT_SRCS := $(wildcard harness/tests/unit/test_*.c)
UNIT_BINS := $(patsubst harness/tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
# The runner's unit tests (unit/runner/: out of mutants.sh's copy, which has
# no runner) link every runner object but main.o (cmocka brings a main);
# make unit runs them.
RUNNER_TESTS := $(patsubst harness/tests/unit/runner/%.c,$(BUILD)/tests/%,\
	$(filter-out %/test_node_preflight.c,$(wildcard harness/tests/unit/runner/test_*.c)))
COMPARE_TEST := $(BUILD)/tests/test_compare
RUNNER_TEST_OBJS := $(filter-out $(BUILD)/obj/runner/main.o,$(RUN_OBJS))
UNIT_BINS += $(RUNNER_TESTS)
# test_node_preflight builds `dmalab preflight` (runner/preflight.c) in: the same reason
PF_UNIT_TEST := $(BUILD)/tests/test_node_preflight
UNIT_BINS += $(PF_UNIT_TEST)
FAKE_SRCS := $(wildcard harness/tests/fakelabs/lab-*.c)
FAKE_BINS := $(patsubst harness/tests/fakelabs/%.c,$(BUILD)/fakelabs/%,$(FAKE_SRCS))

.PHONY: all help deps unit-deps check test unit mutants selftest list sysinfo clean \
	plots report test-plots grade quiz answers test-answers test-lang \
	claims claims-golden test-claims test-example FORCE \
	sabotage fakelabs $(addprefix lab-,$(LAB_IDS))
.DEFAULT_GOAL := all

all: $(DMALAB) $(LAB_BINS) $(FLEET_SCRIPTS)

help:
	@echo "make check     build, run every lab, print the report card, write \
	$(RESULTS)/results.json"
	@echo "make test      unit tests (cmocka) and the harness self-tests"
	@echo "make lab-NN    run one lab, narrated (labs: $(LAB_IDS))"
	@echo "make list      every lab, its claims, and whether it will skip here"
	@echo "make claims    every claim's relation, tolerance, rule and sabotage (FORMAT=json)"
	@echo "make NVCC=     build the CUDA labs as stubs on purpose (their claims skip: \
	not-built:no-nvcc)"
	@echo "make sysinfo   the machine facts the skips are decided on"
	@echo "make selftest  sabotage builds must fail their claims; runner vs fake labs"
	@echo "make mutants   break the statistics and relations on purpose; the unit tests \
	must fail"
	@echo "make test-leaks  under valgrind: no leak, samples storage freed at exit"
	@echo "make test-san  ASan and UBSan over the unit tests, labs and runner (SAN=1, \
	build/san)"
	@echo "make fuzz      libFuzzer targets of every parser; fuzz-smoke runs each briefly \
	(clang)"
	@echo "make plots     figures (PNG, SVG) from $(RESULTS)/results.json into \
	$(RESULTS)/plots/"
	@echo "make report    $(RESULTS)/report.html (self-contained) and $(RESULTS)/report.md"
	@echo "make bench     each lab's wall time, samples and CV reached, from \
	$(RESULTS)/results.json (BASE=old.json SERIES=1)"
	@echo "make compare   FILES (default $(RESULTS)/results.json) against BASELINE=FILE or \
	each other (PCT=10); make check BASELINE=FILE"
	@echo "make fleet-report FLEET=DIR  compare DIR/*.json into DIR/fleet.json and the page \
	DIR/fleet.html"
	@echo "make fleet     check on every node of a Slurm allocation, one report \
	(FLEET_OPTS=\"-p P -N 8\" BASELINE=FILE)"
	@echo "make preflight the node health check for Slurm and Kubernetes: $(BUILD)/dmalab \
	preflight exits 0 healthy, 1 not, 2 could not run (PREFLIGHT_ARGS=)"
	@echo "make grade     run the labs, grade each question of the chapters, write \
	$(RESULTS)/grade.json"
	@echo "               (GRADESCOPE=FILE: also Gradescope's autograder results.json)"
	@echo "make quiz      the chapters' questions for practice, with this machine's \
	measurements"
	@echo "make hint-NN   the next hint of the first exercise of lab NN your copy has not done;\
	 of the lab when none is pending"
	@echo "make exercise-NN  your copy of lab NN to write (work/NN-name/; RESET=1 starts over)"
	@echo "make try-NN    build and grade your copy: done / not yet per exercise"
	@echo "make exercises every exercise and its state"
	@echo "make class CLASS=DIR  a trainer's page of the learners' results.json in DIR \
	(DIR/class.html)"
	@echo "make answers   check answers/ against the built labs"
	@echo "make clean     remove $(BUILD)/ and $(RESULTS)/"
	@echo "variables: TIMEOUT_MUL=N  FORMAT=human|tap|json|junit  LABS=\"01 04\"  QUICK=1"
	@echo "           RESULTS=DIR  the folder of results.json and the other outputs \
	(default results)"
	@echo "           grade, quiz, hint: CH=ch1  FROM=FILE  SHUFFLE=1  RESET=1"
	@echo "           check, lab-NN, grade: LEARNER=NAME (your name in results.json; \
	dmalab class names you by it)"
	@echo "           lab-NN, check: PREDICT=1 (your numbers first, scored) \
	PREDICTIONS=FILE (02.1 6.5 lines)"
	@echo "           LANG=zh (or DMALAB_LANG=zh; QUIZ_LANG=zh is the old name): Chinese texts"

# Installs (as root) or names the Debian packages a step needs: each entry
# point asks harness/deps.sh for its own part, so `make fuzz` does not install
# Slurm (parts: harness/deps.sh's head).
deps:
	@sh harness/deps.sh build

# The build's packages are checked once, not at every make: the stamp is made
# when harness/deps.sh build passes, and every object waits for it (through
# the CUDA mode stamp they all depend on).
DEPS_STAMP := $(BUILD)/deps-build
$(DEPS_STAMP): harness/deps.sh
	@sh harness/deps.sh build && mkdir -p $(dir $@) && touch $@

unit-deps:
	@sh harness/deps.sh unit

$(BUILD)/obj/%.o: harness/%.c $(CUDA_STAMP)
	@mkdir -p $(dir $@) $(dir $(call depfile,$@))
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<

# The errata and the Chinese message table (lang.h) are built into the library:
# errata_text.S and messages_text.S include the files.
$(BUILD)/obj/base/errata_text.o: answers/errata.md
$(BUILD)/obj/base/messages_text.o: answers/messages.zh.md
$(BUILD)/obj/base/%_text.o: harness/base/%_text.S
	@mkdir -p $(dir $@)
	$(CC) -c -o $@ $<

$(LIB): $(LIB_OBJS) $(SAN_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $(LIB_OBJS)

$(RUN_LIB): $(RUN_LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $(RUN_LIB_OBJS)

$(BUILD)/obj/san_mlock.o: harness/tests/san_mlock.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g $(WARN) -c -o $@ $<

$(DMALAB): $(RUN_OBJS) $(RUN_LIB)
	$(CC) $(CFLAGS) -o $@ $(RUN_OBJS) $(RUN_LIB) $(LDLIBS)

# Its unit test builds runner/preflight.c in, to reach its checks (cmocka brings a main).
$(PF_UNIT_TEST): harness/tests/unit/runner/test_node_preflight.c harness/runner/preflight.c \
		$(addprefix $(BUILD)/obj/runner/,spawn.o prom.o) $(LIB)
	@mkdir -p $(dir $@) $(dir $(call depfile,$@))
	$(CC) $(CPPFLAGS) -Iharness/runner $(CFLAGS) $(WARN) $(DEPFLAGS) -o $@ $< \
		$(addprefix $(BUILD)/obj/runner/,spawn.o prom.o) $(LIB) -lcmocka $(LDLIBS)

# `dmalab preflight` (README.md, "Preflight: a node health check") runs lab-01 and lab-02.
.PHONY: preflight
PREFLIGHT_NEEDS := $(DMALAB) $(BUILD)/labs/lab-01 $(BUILD)/labs/lab-02 $(BUILD)/fleet/preflight.sh
preflight: $(PREFLIGHT_NEEDS)
	@$(DMALAB) preflight $(PREFLIGHT_ARGS)

# Exit codes, the memlock floor, bad options, a sysfs with an NVIDIA GPU and no
# driver, a hung driver, made-up lab-02 records (a healthy GPU, a slow copy, a
# missing GPU, a broken lab), the Slurm wrapper (harness/tests/test-preflight.sh).
test-preflight: $(PREFLIGHT_NEEDS) $(BUILD)/tests/fake-cuda/libcuda.so.1
# A made-up driver that does not start, or hangs (its comment says more)
$(BUILD)/tests/fake-cuda/libcuda.so.1: harness/tests/tools/fake_libcuda.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g $(WARN) -shared -fPIC -o $@ $<

# A lab's own C helpers (labs/NN-name/*.c besides lab.c: code that lab alone
# uses), compiled once by $(CC) for both builds of the lab.
lab_helper_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(filter-out $(1)/lab.c,$(wildcard $(1)/*.c)))
$(BUILD)/obj/labs/%.o: labs/%.c $(CUDA_STAMP)
	@mkdir -p $(dir $@) $(dir $(call depfile,$@))
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<

# One rule per lab, for the normal and the sabotage build.
# $(1): lab id, $(2): lab dir, $(3): output dir, $(4): extra defines, $(5): the dir whose
# helpers link in (default $(2); a learner's copy links its lab's)
define lab_rule
$(3)/lab-$(1): $(wildcard $(2)/*.c $(2)/*.cu $(2)/*.h) $(call lab_helper_objs,$(or $(5),$(2))) \
		$(LIB) \
		$(if $(wildcard $(2)/lab.cu),$(CUDA_STAMP))
	@mkdir -p $(3) $$(dir $$(call depfile,$$@))
ifneq ($(wildcard $(2)/lab.cu),)
ifeq ($(HAVE_NVCC),1)
	$(NVCC) $(CPPFLAGS) $(4) -DDMALAB_HAVE_CUDA=1 $(NVCCFLAGS) $$(DEPFLAGS) -o $$@ $(2)/lab.cu \
		$(call lab_helper_objs,$(or $(5),$(2))) $(LIB) $(LDLIBS)
else
	$(CC) $(CPPFLAGS) $(4) -DDMALAB_HAVE_CUDA=0 $(CFLAGS) $(WARN) $$(DEPFLAGS) -x c -o $$@ \
		$(2)/lab.cu -x none $(call lab_helper_objs,$(or $(5),$(2))) $(LIB) $(LDLIBS)
endif
else
	$(CC) $(CPPFLAGS) $(4) $(CFLAGS) $(WARN) $$(DEPFLAGS) -o $$@ $(2)/lab.c \
		$(call lab_helper_objs,$(or $(5),$(2))) $(LIB) $(LDLIBS)
endif
endef
$(foreach d,$(LAB_DIRS),$(eval $(call lab_rule,$(call lab_id,$(d)),$(d),$(BUILD)/labs,)))
$(foreach d,$(LAB_DIRS),$(eval $(call lab_rule,$(call lab_id,$(d)),$(d),$(BUILD)/sabotage,\
	-DLAB_SABOTAGE)))

# The example lab of labs/README.md, built like a lab but in no lab list;
# make test-example (part of make test) runs both builds.
EXAMPLE_BINS := $(BUILD)/example/lab-example $(BUILD)/example/sabotage/lab-example
$(eval $(call lab_rule,example,labs/example,$(BUILD)/example,))
$(eval $(call lab_rule,example,labs/example,$(BUILD)/example/sabotage,-DLAB_SABOTAGE))

test-example: $(EXAMPLE_BINS)
	@sh labs/example/check.sh $(EXAMPLE_BINS)

sabotage: $(SAB_BINS)

# The learner's exercises (README.md "Exercises"): the copies in $(WORK)/NN-name/
# (git-ignored) are built like their labs into $(WORK_BUILD), their helpers and
# headers from labs/NN-name/; make try-NN refuses a copy changed outside its regions,
# builds it, and grades it by its claims under the runner.
WORK       ?= work
WORK_BUILD := $(BUILD)/work/$(subst /,_,$(WORK))
WORK_DIRS  := $(sort $(wildcard $(WORK)/[0-9][0-9]-*))
$(foreach d,$(WORK_DIRS),$(eval $(call lab_rule,$(call lab_id,$(d)),$(d),$(WORK_BUILD),\
	-Ilabs/$(notdir $(d)),labs/$(notdir $(d)))))
.PHONY: exercises
exercise-%: $(DMALAB)
	@$(DMALAB) exercise $* --work $(WORK) $(RESET_FLAG)
# A non-zero status ends in make's own "*** [...] Error N" line, which no make
# setting removes short of ignoring the status: --make-status says the line
# before it, what the status means.
try-%: $(DMALAB) $(LIB)
	@$(DMALAB) try $* --work $(WORK) --verify-only --make-status
	@$(MAKE) --no-print-directory $(WORK_BUILD)/lab-$* || \
		{ $(DMALAB) try $* --work $(WORK) --not-compiled --make-status; exit 1; }
	@$(DMALAB) try $* --work $(WORK) --labs-dir $(WORK_BUILD) $(QUICK_FLAG) --make-status \
		$(if $(TIMEOUT_MUL),--timeout-mul $(TIMEOUT_MUL))
# The labs with an exercise region: `dmalab exercises` reads their --describe to
# mark the exercises this machine cannot grade.
EXERCISE_LAB_DIRS := $(patsubst %/,%,$(dir $(shell grep -l '/[*] EXERCISE ' \
	$(wildcard $(addsuffix /lab.c*,$(LAB_DIRS))))))
EXERCISE_LAB_BINS := $(foreach d,$(EXERCISE_LAB_DIRS),$(BUILD)/labs/lab-$(call lab_id,$(d)))
exercises: $(DMALAB) $(EXERCISE_LAB_BINS)
	@$(DMALAB) exercises --work $(WORK)
# The workflow in a scratch WORK: stubs not yet, reference done, refusals, resets
test-exercises: all

# Predictions, grade/Gradescope/JUnit with exercises and predictions, the
# class page in headless Chromium, exercise hints (harness/tests/test-learner.sh)
.PHONY: class
test-learner: all fakelabs $(BUILD)/tests/fake-cuda/libcuda.so.1

# CLASS=DIR: a folder of learners' results.json -> DIR/class.html
class: $(DMALAB)
	@$(if $(CLASS),,echo "make class: name the folder of learners' runs: make class CLASS=DIR" \
		>&2; exit 2;) $(DMALAB) class $(call shq,CLASS)

$(BUILD)/fakelabs/%: harness/tests/fakelabs/%.c $(LIB)
	@mkdir -p $(dir $@) $(dir $(call depfile,$@))
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -o $@ $< $(LIB) $(LDLIBS)

fakelabs: $(FAKE_BINS)

SABOTAGE_CHECK := $(BUILD)/tests/sabotage-check
$(SABOTAGE_CHECK): harness/tests/tools/sabotage_check.c $(LIB)
	@mkdir -p $(dir $@) $(dir $(call depfile,$@))
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# A unit test of a lab's helper links that helper's object too.
$(BUILD)/tests/test_pagemap $(BUILD)/tests/test_procfs: $(call lab_helper_objs,labs/01-mlock)
$(BUILD)/tests/test_seqread $(BUILD)/tests/test_numa_topo: $(call lab_helper_objs,labs/04-numa)
$(BUILD)/tests/test_storage $(BUILD)/tests/test_lab_cufile: $(call lab_helper_objs,labs/10-storage)
$(BUILD)/tests/test_nvml_memory: $(call lab_helper_objs,labs/07-alloc)
$(BUILD)/tests/test_gpu_links: $(call lab_helper_objs,labs/09-p2p)
$(BUILD)/tests/test_smaps $(BUILD)/tests/test_chase_pair: $(call lab_helper_objs,labs/08-hugepages)
$(BUILD)/tests/%: harness/tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@) $(dir $(call depfile,$@))
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(DEPFLAGS) -o $@ $< $(filter $(BUILD)/obj/labs/%,$^) \
		$(LIB) -lcmocka $(LDLIBS)

$(RUNNER_TESTS): $(BUILD)/tests/%: harness/tests/unit/runner/%.c $(RUNNER_TEST_OBJS) $(LIB)
	@mkdir -p $(dir $@) $(dir $(call depfile,$@))
	$(CC) $(CPPFLAGS) -Iharness/runner $(CFLAGS) $(WARN) $(DEPFLAGS) -o $@ $< \
		$(RUNNER_TEST_OBJS) $(LIB) -lcmocka $(LDLIBS)

# A yes/no variable: 1 (or yes/true) on; 0 (no/false) or unset off;
# anything else is a mistake, said before anything is built.  $(call
# yes_no,NAME) is 1 when on, empty when off.
yes_no = $(if $(strip $(filter-out 0 1 yes true no false,$($(1)))),$(error \
	$(1)='$($(1))': use $(1)=1 (or yes, true) or $(1)=0 (no, false)),$(if \
	$(filter 1 yes true,$($(1))),1))
QUICK_FLAG := $(if $(call yes_no,QUICK),--quick)
RESET_FLAG := $(if $(call yes_no,RESET),--reset)
SHUFFLE_FLAG := $(if $(call yes_no,SHUFFLE),--shuffle)
# SERIES (make bench) is a yes or no as QUICK is
SERIES_FLAG := $(if $(call yes_no,SERIES),--series)
# PREDICT=1: your numbers first (PREDICTIONS=FILE: read from FILE); LEARNER=NAME: your
# name in results.json.  Once a learner has a copy in $(WORK) (or gives a name), results.json
# and junit.xml list every exercise's state; a machine's plain check has no exercise in them
# (README.md "For trainers")
WORK_FLAG := $(if $(or $(WORK_DIRS),$(value LEARNER)),--work $(WORK))
LEARN_RUN_FLAGS := $(if $(call yes_no,PREDICT),--predict) \
	$(if $(PREDICTIONS),--predictions $(call shq,PREDICTIONS)) \
	$(if $(value LEARNER),--learner $(call shq,LEARNER)) $(WORK_FLAG)
RUN_FLAGS := $(if $(TIMEOUT_MUL),--timeout-mul $(TIMEOUT_MUL)) $(if $(FORMAT),--format $(FORMAT)) \
	$(QUICK_FLAG) --results $(RESULTS) $(LEARN_RUN_FLAGS)

# BASELINE=FILE: then dmalab compare of $(RESULTS)/results.json against it
# ($(RESULTS)/compare.json); non-zero when the check failed or compare flagged.
# A BASELINE that cannot be read is refused before the labs' minute, not after it.
check: all
	@$(if $(BASELINE),test -r $(call shq,BASELINE) || { printf "make check: \
		BASELINE='%s': no such file (or no read permission)\n" $(call shq,BASELINE) >&2; \
		exit 2; };) \
	$(DMALAB) check $(RUN_FLAGS) -- $(call shq_words,LABS)$(if $(BASELINE),; rc=$$?; \
		$(DMALAB) compare $(RESULTS)/results.json $(COMPARE_FLAGS) \
			--json-out $(RESULTS)/compare.json; crc=$$?; exit $$(( rc ? rc : crc )))

# the runner and this lab alone: a lab's run needs no other lab, nor the fleet scripts
$(addprefix lab-,$(LAB_IDS)): lab-%: $(DMALAB) $(BUILD)/labs/lab-%
	@$(DMALAB) run $(RUN_FLAGS) $*

# lab-4, try-4, exercise-4: the same as lab-04, try-04, exercise-04 (hint-4 already is);
# each has its two-digit target as a prerequisite and an empty recipe, not a second
# make, so that a failure ends in make's one Error line
SHORT_LAB_IDS := $(patsubst 0%,%,$(filter 0%,$(LAB_IDS)))
$(foreach t,lab try exercise,$(foreach n,$(SHORT_LAB_IDS),$(eval $(t)-$(n): $(t)-0$(n) ;)))

# A lab that does not exist (lab-99, lab-): the list, not make's own error.
# In the learner's language, chosen as harness/base/lang.c chooses it.
LEARNER_LANG = $${DMALAB_LANG:-$${LC_ALL:-$${LC_MESSAGES:-$${LANG:-}}}}
lab-%:
	@case "$(LEARNER_LANG)" in \
	[zZ][hH]*) echo "make lab-$*：没有实验 '$*'；现有的实验：$(LAB_IDS)（make lab-NN）" >&2 ;; \
	*) echo "make lab-$*: no lab '$*'; the labs are: $(LAB_IDS) (make lab-NN)" >&2 ;; \
	esac; exit 2
# make hint, make exercise (no lab at all) alike, not make's "No rule to make target"
.PHONY: lab hint exercise try
lab- hint- exercise- try- lab hint exercise try:
	@case "$(LEARNER_LANG)" in \
	[zZ][hH]*) echo "make $@：哪个实验？现有的实验：$(LAB_IDS)（make $(@:-=)-NN）" >&2 ;; \
	*) echo "make $@: which lab? the labs are: $(LAB_IDS) (make $(@:-=)-NN)" >&2 ;; \
	esac; exit 2

list: all
	@$(DMALAB) list $(if $(FORMAT),--format $(FORMAT))

sysinfo: $(DMALAB)
	@$(DMALAB) sysinfo

unit: unit-deps $(UNIT_BINS)
	@sh harness/tests/run-unit.sh $(UNIT_BINS)

# Each mutant (harness/tests/mutants.def) must make the unit tests fail;
# built in a scratch copy, so build/ is untouched.
mutants: unit-deps
	@sh harness/tests/mutants.sh

selftest: all sabotage fakelabs $(SABOTAGE_CHECK)
	@sh harness/deps.sh selftest
	@BUILD=$(BUILD) sh harness/tests/selftest.sh

# make test SAN=1: only what runs under the sanitizers (test-san)
ifeq ($(SAN),1)
test: test-san
else
# Every suite, each after the packages it needs (harness/tests/run.sh: a
# suite whose packages cannot be had is left out, named, and the exit is
# non-zero).  SUITES="unit selftest" runs some.
test:
	@MAKE='$(MAKE)' BUILD=$(BUILD) SUITES='$(SUITES)' sh harness/tests/run.sh
endif

# The suites that run as BUILD=$(BUILD) sh harness/tests/SUITE.sh, each after
# the deps.sh part SUITE_DEPS_SUITE names (their prerequisites are with each).
SUITE_DEPS_test-learner := browser
SUITE_DEPS_test-formats := formats
SUITE_DEPS_test-degraded := degraded
SUITE_DEPS_test-leaks := leaks
SUITE_DEPS_test-metrics := metrics
BUILD_SUITES := test-preflight test-exercises test-learner test-formats test-house \
	test-lab-options test-degraded test-interrupt test-leaks test-restore test-answers \
	test-lang test-metrics
.PHONY: $(BUILD_SUITES)
$(BUILD_SUITES):
	$(if $(SUITE_DEPS_$@),@sh harness/deps.sh $(SUITE_DEPS_$@))
	@BUILD=$(BUILD) sh harness/tests/$@.sh

# junit.xml and Gradescope's results.json read by their consumers (junitparser,
# xmllint with Jenkins' junit-10.xsd, jsonschema), on the fake labs.
test-formats: $(DMALAB) fakelabs

# The house's rules: the runner links no lab runtime, no lab links the
# runner, code one lab alone uses lives in its folder (test-house.sh).
test-house: all

# The labs' run-shaping options (lab-04's staircase, --sweep, --chase-only;
# lab-02 --pinned-only; lab-05's regions), read back from their records.
test-lab-options: all

# The Makefile's own usage errors (QUICK=maybe, make lab-99, make hint-).
.PHONY: test-make test-deps
test-make:
	@sh harness/tests/test-make.sh
# deps.sh waiting for another apt's lock, showing apt's own error, its parts;
# make test's driver as a user who cannot install (harness/tests/test-deps.sh).
test-deps:
	@sh harness/tests/test-deps.sh
# The labs on a lesser machine: a normal user under a 64 KiB memlock limit,
# a hard limit of 0, root without CAP_IPC_LOCK, a stub build without nvcc
# (its own BUILD), an unwritable TMPDIR, no GPU (skips, never lab errors).
test-degraded: all
# Ctrl-C and kill at random moments, 20 times per CPU lab: nothing left
# behind, settings and Mlocked as before, results.json says aborted.
test-interrupt: all

# Under valgrind (when installed): no leak, and the statistics' samples
# storage freed at exit; the runner over the fake labs, list and claims, and
# the CPU labs --quick (harness/tests/test-leaks.sh).
test-leaks: $(BUILD)/tests/test_stats $(BUILD)/tests/test_claim $(FAKE_BINS) \
	$(BUILD)/example/lab-example $(DMALAB) $(addprefix $(BUILD)/labs/lab-,01 04 05)

# The C code under ASan and UBSan (SAN=1 into build/san, or BUILD when SAN=1
# is given): unit tests, every lab --quick, the runner, the fake labs; any
# sanitizer report fails (harness/tests/test-san.sh).  LABS="01 04" for some.
.PHONY: test-san
test-san:
	@BUILD=$(if $(filter 1,$(SAN)),$(BUILD),build/san) MAKE='$(MAKE)' LABS='$(LABS)' \
		sh harness/tests/test-san.sh

# As root: a lab SIGKILLed (crashed, timed out) with nr_hugepages changed;
# the runner puts it back from the lab's journal, and lab-08 run alone
# replays one left in $TMPDIR first (harness/tests/test-restore.sh).
test-restore: $(DMALAB) $(BUILD)/fakelabs/restore-lab $(BUILD)/labs/lab-08

# Fuzzing (harness/tests/fuzz/README.md): one libFuzzer target per parser,
# built with clang into $(BUILD)/fuzz/ against a copy of the library and the
# runner (main renamed) compiled with coverage, ASan and UBSan.  fuzz-smoke
# (part of make test) runs each FUZZ_SECONDS on its seed corpus and replays
# every saved crasher; without clang it says so in one line and passes.
.PHONY: fuzz fuzz-smoke fuzz-deps
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 10
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fsanitize=fuzzer-no-link
FUZZ_BINS    := $(patsubst harness/tests/fuzz/%.c,$(FUZZ_DIR)/%,\
	$(wildcard harness/tests/fuzz/fuzz_*.c))
FUZZ_LIB     := $(FUZZ_DIR)/libdmalab.a
FUZZ_RUNLIB  := $(FUZZ_DIR)/librunner.a
FUZZ_LDFLAGS_fuzz_opts := -Wl,--wrap=die_usage

$(FUZZ_DIR)/obj/%.o: harness/%.c
	@mkdir -p $(dir $@) $(dir $(call depfile,$@))
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<

$(FUZZ_DIR)/obj/base/errata_text.o: answers/errata.md
$(FUZZ_DIR)/obj/base/messages_text.o: answers/messages.zh.md
$(FUZZ_DIR)/obj/base/%_text.o: harness/base/%_text.S
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -c -o $@ $<

$(FUZZ_DIR)/obj/runner/%.o: harness/runner/%.c
	@mkdir -p $(dir $@) $(dir $(call depfile,$@))
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) $(WARN) -Dmain=dmalab_runner_main $(DEPFLAGS) \
		-c -o $@ $<

$(FUZZ_LIB): $(patsubst $(BUILD)/obj/%,$(FUZZ_DIR)/obj/%,$(LIB_OBJS))
	rm -f $@ && ar rcs $@ $^

$(FUZZ_RUNLIB): $(patsubst harness/runner/%.c,$(FUZZ_DIR)/obj/runner/%.o,$(RUN_SRCS))
	rm -f $@ && ar rcs $@ $^

# A target of a lab's helper links it, built the same way: fuzz_pagemap lab-01's
# pagemap.c, fuzz_procfs its memlock.c and lab-04's vmstat reading, fuzz_numa_topo
# lab-04's distances, fuzz_smaps lab-08's THP reading
FUZZ_OBJS_fuzz_pagemap := $(FUZZ_DIR)/obj/labs/01-mlock/pagemap.o
FUZZ_OBJS_fuzz_procfs := $(FUZZ_DIR)/obj/labs/01-mlock/memlock.o \
	$(FUZZ_DIR)/obj/labs/04-numa/numa_distance.o
FUZZ_OBJS_fuzz_numa_topo := $(FUZZ_DIR)/obj/labs/04-numa/numa_distance.o
FUZZ_OBJS_fuzz_smaps := $(FUZZ_DIR)/obj/labs/08-hugepages/thp.o
$(foreach b,$(FUZZ_BINS),$(eval $(b): $(FUZZ_OBJS_$(notdir $(b)))))
$(FUZZ_DIR)/obj/labs/%.o: labs/%.c
	@mkdir -p $(dir $@) $(dir $(call depfile,$@))
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) $(WARN) $(DEPFLAGS) -c -o $@ $<

$(FUZZ_DIR)/fuzz_%: harness/tests/fuzz/fuzz_%.c $(FUZZ_LIB) $(FUZZ_RUNLIB)
	@mkdir -p $(dir $@) $(dir $(call depfile,$@))
	$(FUZZ_CC) $(CPPFLAGS) -Iharness/runner \
		$(FUZZ_CFLAGS) -fsanitize=fuzzer $(WARN) $(DEPFLAGS) $(FUZZ_LDFLAGS_$(notdir $@)) \
		-o $@ $< $(FUZZ_OBJS_$(notdir $@)) $(FUZZ_RUNLIB) $(FUZZ_LIB) \
		$(filter-out $(SAN_OBJ),$(LDLIBS))

fuzz: fuzz-deps $(FUZZ_BINS)
fuzz-deps:
	@sh harness/deps.sh fuzz

fuzz-smoke: fuzz-deps
	@BUILD=$(BUILD) FUZZ_CC='$(FUZZ_CC)' FUZZ_SECONDS=$(FUZZ_SECONDS) MAKE='$(MAKE)' \
		sh harness/tests/fuzz/run.sh smoke

# On a GPU machine: compute-sanitizer memcheck (leak check on) over the CUDA
# labs; reports a claim provokes on purpose are named from
# harness/tests/sanitize-expected.txt, any other fails (skips without a GPU).
.PHONY: sanitize-gpu
sanitize-gpu: all
	@BUILD=$(BUILD) sh harness/tests/gpu-sanitize.sh $(LABS)

# The two-node claims in an emulated two-node guest (QEMU, TCG; about 80 s):
# static labs and runner, built into $(BUILD)/numa/ (harness/tests/numa/run.sh).
.PHONY: test-numa
test-numa: deps
	@sh harness/deps.sh numa
	@BUILD=$(BUILD) MAKE='$(MAKE)' CC='$(CC)' sh harness/tests/numa/run.sh

# Every claim's relation as a reviewed diff (README.md, "How a verdict is made").
CLAIMS_GOLDEN := harness/tests/golden/claims.txt

claims: all
	@$(DMALAB) claims $(if $(FORMAT),--format $(FORMAT))

claims-golden: all
	DMALAB_LANG=en $(DMALAB) claims --format human >$(CLAIMS_GOLDEN).tmp && \
		mv $(CLAIMS_GOLDEN).tmp $(CLAIMS_GOLDEN)

test-claims: all
	@BUILD=$(BUILD) sh harness/tests/test-claims.sh $(CLAIMS_GOLDEN) $(BUILD)/labs

# The chapters' questions (answers/, harness/runner/learn.h).
LEARN_FLAGS := --results $(RESULTS) $(if $(CH),--chapter $(CH)) $(QUICK_FLAG) \
	$(if $(TIMEOUT_MUL),--timeout-mul $(TIMEOUT_MUL)) $(if $(QUIZ_LANG),--lang $(QUIZ_LANG)) \
	$(RESET_FLAG) $(if $(value LEARNER),--learner $(call shq,LEARNER))

GRADE_FLAGS = $(if $(FROM),--from $(call shq,FROM)) \
	$(if $(GRADESCOPE),--gradescope $(call shq,GRADESCOPE))
grade: all
	@$(DMALAB) grade $(LEARN_FLAGS) $(WORK_FLAG) $(GRADE_FLAGS)

quiz: all
	@$(DMALAB) quiz $(LEARN_FLAGS) $(WORK_FLAG) $(SHUFFLE_FLAG)

# hint refuses a --work folder that is not there: it gets one only once a copy is there
hint-%: $(DMALAB)
	@$(DMALAB) hint $* $(LEARN_FLAGS) $(if $(WORK_DIRS),--work $(WORK))

answers: all
	@$(DMALAB) answers

# answers/ against the built labs, grading rules, a scripted quiz (no cmocka needed)
test-answers: all

# zh: every MSG has its Chinese, lab-01's TAP and JSON the same in both, README.zh.md fresh
test-lang: all

# The kit's own timing of each lab from $(RESULTS)/results.json (dmalab bench,
# harness/runner/bench.c): wall time, series, samples, CV and interval width
# reached; BASE=FILE compares, PHASES=N lists each lab's N longest steps.
.PHONY: bench test-bench
bench: $(DMALAB)
	@$(DMALAB) bench $(RESULTS)/results.json \
		$(if $(BASE),--base $(BASE)) $(SERIES_FLAG) \
		$(if $(PHASES),--phases=$(call shq,PHASES))
test-bench: $(DMALAB)
	@BUILD=$(BUILD) sh harness/tests/test-bench.sh

# The kit on every node of a Slurm allocation, one merged report (harness/fleet/,
# README "Fleets on Slurm"): FLEET_OPTS="-p gpu -N 16" passes to sbatch; LABS,
# QUICK, TIMEOUT_MUL, BASELINE=FILE, FLEET_NODES_PER_JOB=N.  The kit is built
# here first (the clone is shared), unless FLEET_OPTS has --build-on-node.
.PHONY: fleet test-fleet
$(BUILD)/fleet/%.sh: harness/fleet/%.sh
	@mkdir -p $(dir $@)
	cp $< $@ && chmod 755 $@
fleet: $(if $(findstring --build-on-node,$(FLEET_OPTS)),$(DMALAB) $(FLEET_SCRIPTS),all)
	@$(DMALAB) fleet $(QUICK_FLAG) $(if $(TIMEOUT_MUL),--timeout-mul $(TIMEOUT_MUL)) \
		$(if $(BASELINE),--baseline $(call shq,BASELINE)) \
		$(if $(FLEET_NODES_PER_JOB),--nodes-per-job $(FLEET_NODES_PER_JOB)) \
		--results $(RESULTS) $(FLEET_OPTS) -- $(call shq_words,LABS)
# A real one-node Slurm (munged, slurmctld, slurmd) on loopback runs make fleet
# (built first: the test's own time limit is for the fleet, not the build).
test-fleet: all
	@sh harness/deps.sh fleet
	@BUILD=$(BUILD) MAKE='$(MAKE)' sh harness/tests/test-fleet.sh

# Nodes against a baseline or the fleet (README "Compare and baselines"):
# FILES="a.json b.json" (default $(RESULTS)/results.json), BASELINE=FILE, PCT=P;
# writes $(RESULTS)/compare.json.  fleet-report FLEET=DIR: compare of DIR/*.json
# into DIR/fleet.json and the page DIR/fleet.html (compare --html-out).
COMPARE_FLAGS = $(if $(BASELINE),--baseline $(call shq,BASELINE)) $(if $(PCT),--pct $(PCT))
.PHONY: compare fleet-report test-compare
compare: $(DMALAB)
	@mkdir -p $(RESULTS)
	@$(DMALAB) compare $(or $(FILES),$(RESULTS)/results.json) $(COMPARE_FLAGS) \
		--json-out $(RESULTS)/compare.json
fleet-report: $(DMALAB)
	@test -n "$(FLEET)" || \
		{ echo "make fleet-report: which fleet? FLEET=results/fleet/JOB" >&2; exit 2; }
	@$(DMALAB) compare $(FLEET)/*.json $(COMPARE_FLAGS) --json-out $(FLEET)/fleet.json \
		--html-out $(FLEET)/fleet.html
# 300 synthetic nodes: exactly the planted ones flagged, with their causes, in
# under 5 s; baselines; refusals; the fleet page (harness/tests/test-compare.sh);
# history flags the one GPU going slowly bad (test-history.sh).
test-compare: $(DMALAB) $(COMPARE_TEST)
	@sh harness/tests/run-unit.sh $(COMPARE_TEST)
	@BUILD=$(BUILD) sh harness/tests/test-compare.sh
	@BUILD=$(BUILD) sh harness/tests/test-history.sh

# The Prometheus text files (dmalab metrics, check's dmalab.prom, preflight
# --metrics) through promtool and a parser (harness/tests/test-metrics.sh).
test-metrics: $(DMALAB) $(BUILD)/labs/lab-01

# Figures and the shareable report from $(RESULTS)/results.json (plots/); the
# runner gives them the Chinese texts and the errata (dmalab messages, grade).
plots: $(DMALAB)
	@sh harness/deps.sh plots
	@sh plots/run.sh make_plots.py $(RESULTS)/results.json $(RESULTS)/plots
	@if [ -f $(RESULTS)/history.json ]; then \
		sh plots/run.sh history.py $(RESULTS)/history.json $(RESULTS)/plots; fi

# Per GPU, each figure over the runs kept in HISTORY="DIR..." (folders of
# results.json files, e.g. a fleet's results/fleet/*); $(RESULTS)/history.json,
# which make plots then draws.
.PHONY: history
history: $(DMALAB)
	@test -n "$(HISTORY)" || \
		{ echo "make history: which runs? HISTORY=\"DIR...\"" >&2; exit 2; }
	@$(DMALAB) history $(HISTORY) --json $(RESULTS)/history.json

report: $(DMALAB)
	@sh harness/deps.sh plots
	@sh plots/run.sh report.py $(RESULTS)/results.json $(RESULTS) answers/errata.md

# plots/ against every results file in plots/tests/fixtures, and the report in Chromium
test-plots: $(DMALAB)
	@sh harness/deps.sh plots-test
	@sh plots/run.sh tests/test_plots.py

# Rewritten only when the mode differs (make then sees it unchanged).
$(CUDA_STAMP): FORCE | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@if [ "$$(cat $@ 2>/dev/null)" != "$(CUDA_MODE)" ]; then \
		echo "CUDA mode: $(CUDA_MODE)"; echo "$(CUDA_MODE)" >$@; fi

FORCE:

# The headers each object and program was built from (see DEPFLAGS).
-include $(shell find $(BUILD)/dep -name '*.d' 2>/dev/null)

clean:
	rm -rf $(BUILD) $(RESULTS)
