# iommon: bare-metal IOMMU test monitor.
#   make            build/iommon.efi (x86_64), build/iommon-aa64.efi (aarch64)
#                   and build/iommon-rv64.efi (riscv64)
#   make image      build/iommon.img (GPT + FAT ESP, ready for dd to a USB stick)
#   make iso        build/iommon.iso (El Torito UEFI CD for a BMC's virtual media)
#   make run        boot it in QEMU (TCG) on the default config, print results
#   make run-aarch64  the same on QEMU's aarch64 virt machine with an SMMUv3
#   make run-riscv64  the same on QEMU 10.0's riscv64 virt machine (U-Boot's UEFI;
#                   RISCV_FIRMWARE=edk2: EDK II's, with ACPI)
#   make console, make console-aarch64, make console-riscv64   the same boots, the console on your terminal
#   make test       unit tests, image checks, QEMU boot tests
#   make deps       install the Debian packages the project needs

.DEFAULT_GOAL := all
SHELL := /bin/sh

BUILD  := build
# newlib for each architecture is built once per digest of its inputs into
# a cache folder outside the checkout (tools/build-newlib.sh: by default
# $IOMMON_CACHE, else ~/.cache/iommon), so neither make clean nor a fresh
# clone builds it again; $(BUILD)/newlib* are links to it, and
# $(BUILD)/newlib*.stamp name the folder linked (what the objects depend
# on). A link whose folder went is made again (FORCE).
NEWLIB := $(CURDIR)/$(BUILD)/newlib
NEWLIB_TARGET := $(NEWLIB)/x86_64-elf

CC ?= gcc
# ccache (Debian's package; make deps installs it) before every compiler
# when it is there: a fresh clone on a machine that built the same sources
# compiles only what changed. Its cache sits with newlib's (the Debian 13
# build's in that root's own); paths under the clone reach the compiler
# relative to it (CCACHE_BASEDIR), so one clone's objects serve another's
# (their debug information names the first clone's folder, nothing else
# differs). CCACHE= turns it off.
ifeq ($(origin CCACHE),undefined)
CCACHE := $(shell command -v ccache 2>/dev/null)
endif
ifneq ($(CCACHE),)
export CCACHE_DIR := $(or $(IOMMON_CACHE),$(or $(XDG_CACHE_HOME),$(or $(HOME),/root)/.cache)/iommon)/ccache
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
endif
# ccache's hits and misses so far, two numbers (nothing without ccache):
# make test says how much of its build the cache gave
CCACHE_COUNTS = $(if $(CCACHE),$(CCACHE) --print-stats 2>/dev/null | awk '$$1 ~ /^(direct|preprocessed)_cache_hit$$/ { h += $$2 } $$1 == "cache_miss" { m = $$2 } END { print (h + 0) " " (m + 0) }',true)
WARN := -Wall -Wextra -Werror -Wno-missing-field-initializers
COMMON_CFLAGS := -std=gnu11 -O2 -g $(WARN) -I$(CURDIR)

# The folders that go into the image, in layer order (nothing reaches up;
# tools/check-layers.sh holds every include to it): core's floor, the
# firmware-table parsers, the serial drivers, the monitor application; PCI
# and its DMA engines; the IOMMU interface, its backends (one folder each,
# with its register-level model: every folder under iommu/ but models/)
# and the models' engine; the test catalogue. Includes name files from the
# top of the tree.
IMAGE_DIRS := core/base core/tables core/serial core/monitor pci iommu iommu/models \
	$(patsubst %/,%,$(sort $(filter-out iommu/models/,$(dir $(wildcard iommu/*/*.c))))) tests/catalogue tests/catalogue/iommu
SHARED_SRC := $(wildcard $(addsuffix /*.c,$(patsubst %/,%,$(IMAGE_DIRS))))
# boot/*.c builds for both architectures, with boot/x86_64/*.c or
# boot/aarch64/*.c beside it; a file there replaces boot/'s of the same name.
boot_src = $(wildcard boot/$(1)/*.c) $(filter-out $(patsubst boot/$(1)/%,boot/%,$(wildcard boot/$(1)/*.c)),$(wildcard boot/*.c))
BOOT_SRC := $(call boot_src,x86_64)

# ---- EFI build -------------------------------------------------------------
EFI_INC := /usr/include/efi
# What the compilers say of themselves is asked when a recipe first needs it,
# not when make reads this file: make run and make test install the
# compilers (make deps) after that. Asked once, then kept for the run.
ask_once = $(eval $(1) := $$(shell $(2)))$($(1))
GCC_INC = $(call ask_once,GCC_INC,$(CC) -print-file-name=include)
EFI_CFLAGS = $(COMMON_CFLAGS) -ffreestanding -fpic -fshort-wchar -mno-red-zone \
	-fno-stack-protector -maccumulate-outgoing-args -fno-asynchronous-unwind-tables \
	-DGNU_EFI_USE_MS_ABI -nostdinc -isystem $(NEWLIB_TARGET)/include -isystem $(GCC_INC) \
	-I$(EFI_INC) -I$(EFI_INC)/x86_64
EFI_OBJ := $(patsubst %.c,$(BUILD)/efi/%.o,$(SHARED_SRC) $(BOOT_SRC))
LIBGCC = $(call ask_once,LIBGCC,$(CC) -print-libgcc-file-name)
LDS := linker/efi_x86_64.lds

all: $(BUILD)/iommon.efi $(BUILD)/iommon-aa64.efi $(BUILD)/iommon-rv64.efi

$(NEWLIB).stamp: tools/build-newlib.sh $(if $(wildcard $(NEWLIB_TARGET)/lib/libc.a),,FORCE)
	tools/build-newlib.sh $(NEWLIB) x86_64

Q ?= @
$(BUILD)/efi/%.o: %.c $(NEWLIB).stamp
	@mkdir -p $(dir $@)
	@echo "  CC (efi)  $<"
	$(Q)$(CCACHE) $(CC) $(EFI_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/iommon.so: $(EFI_OBJ) $(LDS) $(NEWLIB).stamp
	ld -nostdlib -shared -Bsymbolic --no-undefined -znocombreloc -T $(LDS) \
		/usr/lib/crt0-efi-x86_64.o $(EFI_OBJ) -L/usr/lib -lgnuefi -lefi \
		-L$(NEWLIB_TARGET)/lib -lc -lm $(LIBGCC) -o $@

# Only RELATIVE relocations survive: gnu-efi's self-relocator handles no other.
$(BUILD)/iommon.efi: $(BUILD)/iommon.so $(BUILD)/host/petool tools/check-relocs.sh
	tools/check-relocs.sh $<
	objcopy -j .text -j .rodata -j .sdata -j .data -j .dynamic -j .dynsym -j .rel \
		-j .rela -j .rel.* -j .rela.* -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@
	$(BUILD)/host/petool nx $@

# The firmware stand-in the protection tests boot first (tests/standin/dmafw.c),
# and the hostile campaign's (tests/standin/hostile.c and text.c, tools/hostile.sh):
# a UEFI program of its own, built like the monitor, never on the stick
# unless a boot test puts it there.
$(BUILD)/standin.so: $(BUILD)/efi/tests/standin/dmafw.o $(BUILD)/efi/tests/standin/hostile.o \
		$(BUILD)/efi/tests/standin/text.o $(LDS) $(NEWLIB).stamp
	ld -nostdlib -shared -Bsymbolic --no-undefined -znocombreloc -T $(LDS) \
		/usr/lib/crt0-efi-x86_64.o $(filter %.o,$^) -L/usr/lib -lgnuefi -lefi -L$(NEWLIB_TARGET)/lib -lc $(LIBGCC) -o $@

$(BUILD)/standin.efi: $(BUILD)/standin.so $(BUILD)/host/petool tools/check-relocs.sh
	tools/check-relocs.sh $<
	objcopy -j .text -j .rodata -j .sdata -j .data -j .dynamic -j .dynsym -j .rel \
		-j .rela -j .rel.* -j .rela.* -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@
	$(BUILD)/host/petool nx $@

# The boot tests' shared boot (tests/standin/batch.c, tools/boot-batch.py):
# it starts the stick's monitor once for each test that shares the boot.
$(BUILD)/batch.so: $(BUILD)/efi/tests/standin/batch.o $(LDS)
	ld -nostdlib -shared -Bsymbolic --no-undefined -znocombreloc -T $(LDS) \
		/usr/lib/crt0-efi-x86_64.o $(filter %.o,$^) -L/usr/lib -lgnuefi -lefi $(LIBGCC) -o $@

$(BUILD)/batch.efi: $(BUILD)/batch.so $(BUILD)/host/petool tools/check-relocs.sh
	tools/check-relocs.sh $<
	objcopy -j .text -j .rodata -j .sdata -j .data -j .dynamic -j .dynsym -j .rel \
		-j .rela -j .rel.* -j .rela.* -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@
	$(BUILD)/host/petool nx $@

# ---- aarch64 EFI build ---------------------------------------------------------
# Cross-built with Debian's gcc-aarch64-linux-gnu against gnu-efi's arm64
# package, unpacked into build/ by tools/deps.sh (never installed: it would
# replace the x86_64 gnu-efi), and newlib cross-built from the same source.
AA64 := aarch64-linux-gnu-
GNUEFI_AA64 := $(BUILD)/gnu-efi-aa64
NEWLIB_AA64 := $(CURDIR)/$(BUILD)/newlib-aa64
AA64_GCC_INC = $(call ask_once,AA64_GCC_INC,$(AA64)gcc -print-file-name=include)
AA64_LIBGCC = $(call ask_once,AA64_LIBGCC,$(AA64)gcc -print-libgcc-file-name)
AA64_CFLAGS = $(COMMON_CFLAGS) -ffreestanding -fpic -fshort-wchar -fno-stack-protector -fno-stack-check \
	-mstrict-align -fno-asynchronous-unwind-tables -nostdinc -isystem $(NEWLIB_AA64)/aarch64-elf/include \
	-isystem $(AA64_GCC_INC) -I$(GNUEFI_AA64)/usr/include/efi -I$(GNUEFI_AA64)/usr/include/efi/aarch64
AA64_OBJ := $(patsubst %.c,$(BUILD)/efi-aa64/%.o,$(SHARED_SRC) $(call boot_src,aarch64))
AA64_LDS := linker/efi_aarch64.lds

$(GNUEFI_AA64)/.stamp:
	tools/deps.sh gnu-efi-aa64 $(GNUEFI_AA64)

$(NEWLIB_AA64).stamp: tools/build-newlib.sh $(if $(wildcard $(NEWLIB_AA64)/aarch64-elf/lib/libc.a),,FORCE)
	tools/build-newlib.sh $(NEWLIB_AA64) aarch64

$(BUILD)/efi-aa64/%.o: %.c $(NEWLIB_AA64).stamp $(GNUEFI_AA64)/.stamp
	@mkdir -p $(dir $@)
	@echo "  CC (aa64) $<"
	$(Q)$(CCACHE) $(AA64)gcc $(AA64_CFLAGS) -MMD -MP -c $< -o $@

# Two ways gnu-efi makes an aarch64 PE, told apart by its crt0, not by a
# version: up to 3.0.15 (Debian 12) crt0 carries the PE/COFF header itself
# (.text.head) and linker/efi_aarch64.lds lays the image out under it;
# from 3.0.18 (Debian 13) it has none and objcopy writes the header
# (efi-app-aarch64), from linker/efi_aarch64_pe.lds, as for x86-64.
AA64_CRT0 := $(GNUEFI_AA64)/usr/lib/crt0-efi-aarch64.o
AA64_HEADER_IN_CRT0 = $(call ask_once,AA64_HEADER_IN_CRT0,$(AA64)objdump -h $(AA64_CRT0) | grep -c '\.text\.head')
AA64_PE_LDS := linker/efi_aarch64_pe.lds

# gnu-efi's libefi defines memcpy and memset (for what the compiler emits);
# newlib 4.x's aarch64 memcpy object defines memmove beside memcpy, so a
# memmove brings a second memcpy in. Linked from a copy in which gnu-efi's
# two are weak: newlib's, where they come in, are the ones used.
$(BUILD)/efi-aa64/libefi.a: $(GNUEFI_AA64)/.stamp
	@mkdir -p $(dir $@)
	$(AA64)objcopy -W memcpy -W memset $(GNUEFI_AA64)/usr/lib/libefi.a $@

$(BUILD)/iommon-aa64.so: $(AA64_OBJ) $(AA64_LDS) $(AA64_PE_LDS) $(NEWLIB_AA64).stamp $(BUILD)/efi-aa64/libefi.a
	$(AA64)ld -nostdlib -shared -Bsymbolic --no-undefined --no-warn-rwx-segments \
		$(if $(filter 0,$(AA64_HEADER_IN_CRT0)),-T $(AA64_PE_LDS),--defsym=EFI_SUBSYSTEM=0xa -T $(AA64_LDS)) \
		$(AA64_CRT0) $(AA64_OBJ) -L$(BUILD)/efi-aa64 -L$(GNUEFI_AA64)/usr/lib -lgnuefi -lefi \
		-L$(NEWLIB_AA64)/aarch64-elf/lib -lc -lm $(AA64_LIBGCC) -o $@

# crt0 carries the PE header: -O binary copies the image as laid out, and
# petool pads it to the size the header declares (the firmware refuses a
# file shorter than its sections). Else objcopy writes the header. Either
# way petool sets NX_COMPAT. (The recipe of every aarch64 .efi from its .so.)
define AA64_PE
	tools/check-relocs.sh $<
	$(if $(filter 0,$(AA64_HEADER_IN_CRT0)),\
	$(AA64)objcopy -j .text -j .rodata -j .data -j .dynamic -j .rela -j .reloc \
		--target efi-app-aarch64 --subsystem=10 $< $@,\
	$(AA64)objcopy -j .text -j .sdata -j .data -j .dynamic -j .rodata -j .rel -j .rela -j '.rel.*' \
		-j '.rela.*' -j .reloc -O binary $< $@ && $(BUILD)/host/petool pad $@)
	$(BUILD)/host/petool nx $@
endef
$(BUILD)/iommon-aa64.efi: $(BUILD)/iommon-aa64.so $(BUILD)/host/petool tools/check-relocs.sh
	$(AA64_PE)

$(BUILD)/batch-aa64.so: $(BUILD)/efi-aa64/tests/standin/batch.o $(AA64_LDS) $(AA64_PE_LDS) $(BUILD)/efi-aa64/libefi.a
	$(AA64)ld -nostdlib -shared -Bsymbolic --no-undefined --no-warn-rwx-segments \
		$(if $(filter 0,$(AA64_HEADER_IN_CRT0)),-T $(AA64_PE_LDS),--defsym=EFI_SUBSYSTEM=0xa -T $(AA64_LDS)) \
		$(AA64_CRT0) $(filter %.o,$^) -L$(BUILD)/efi-aa64 -L$(GNUEFI_AA64)/usr/lib -lgnuefi -lefi $(AA64_LIBGCC) -o $@

$(BUILD)/batch-aa64.efi: $(BUILD)/batch-aa64.so $(BUILD)/host/petool tools/check-relocs.sh
	$(AA64_PE)

# ---- riscv64 EFI build --------------------------------------------------------
# Cross-built with Debian's gcc-riscv64-linux-gnu against Debian 13's gnu-efi
# for riscv64 (Debian 12 has none: tools/deps.sh unpacks trixie's into
# build/, installing nothing), and newlib built for riscv64-elf. U-Boot's
# UEFI runs it in S-mode. medany: placed anywhere; lp64d: the firmware's
# calling convention (boot/riscv64/cpu.c turns the FPU on first).
RV64 := riscv64-linux-gnu-
GNUEFI_RV64 := $(BUILD)/gnu-efi-rv64
NEWLIB_RV64 := $(CURDIR)/$(BUILD)/newlib-rv64
RV64_GCC_INC = $(call ask_once,RV64_GCC_INC,$(RV64)gcc -print-file-name=include)
RV64_LIBGCC = $(call ask_once,RV64_LIBGCC,$(RV64)gcc -print-libgcc-file-name)
RV64_CFLAGS = $(COMMON_CFLAGS) -ffreestanding -fpic -fshort-wchar -fno-stack-protector -fno-stack-check \
	-march=rv64gc -mabi=lp64d -mcmodel=medany -mno-relax -fno-asynchronous-unwind-tables -nostdinc \
	-isystem $(NEWLIB_RV64)/riscv64-elf/include -isystem $(RV64_GCC_INC) -I$(GNUEFI_RV64)/usr/include/efi \
	-I$(GNUEFI_RV64)/usr/include/efi/riscv64
RV64_OBJ := $(patsubst %.c,$(BUILD)/efi-rv64/%.o,$(SHARED_SRC) $(call boot_src,riscv64)) \
	$(patsubst %.S,$(BUILD)/efi-rv64/%.o,$(wildcard boot/riscv64/*.S))
RV64_LDS := linker/efi_riscv64.lds

$(GNUEFI_RV64)/.stamp:
	tools/deps.sh gnu-efi-rv64 $(GNUEFI_RV64)

$(NEWLIB_RV64).stamp: tools/build-newlib.sh $(if $(wildcard $(NEWLIB_RV64)/riscv64-elf/lib/libc.a),,FORCE)
	tools/build-newlib.sh $(NEWLIB_RV64) riscv64

$(BUILD)/efi-rv64/%.o: %.c $(NEWLIB_RV64).stamp $(GNUEFI_RV64)/.stamp
	@mkdir -p $(dir $@)
	@echo "  CC (rv64) $<"
	$(Q)$(CCACHE) $(RV64)gcc $(RV64_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/efi-rv64/%.o: %.S $(GNUEFI_RV64)/.stamp
	@mkdir -p $(dir $@)
	@echo "  AS (rv64) $<"
	$(Q)$(CCACHE) $(RV64)gcc $(RV64_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/iommon-rv64.so: $(RV64_OBJ) $(RV64_LDS) $(NEWLIB_RV64).stamp
	$(RV64)ld -nostdlib -shared -Bsymbolic --no-undefined --no-warn-rwx-segments \
		--defsym=EFI_SUBSYSTEM=0xa -T $(RV64_LDS) $(GNUEFI_RV64)/usr/lib/crt0-efi-riscv64.o $(RV64_OBJ) \
		-L$(GNUEFI_RV64)/usr/lib -lgnuefi -lefi -L$(NEWLIB_RV64)/riscv64-elf/lib -lc -lm $(RV64_LIBGCC) -o $@

# As for aarch64: crt0 carries the PE header, -O binary copies the image as
# laid out, petool pads it to the header's size and sets NX_COMPAT.
$(BUILD)/iommon-rv64.efi: $(BUILD)/iommon-rv64.so $(BUILD)/host/petool tools/check-relocs.sh
	tools/check-relocs.sh $<
	$(RV64)objcopy -j .text -j .reloc -j .data -j .dynamic -j .rodata -j .rela -j '.rela.*' \
		-O binary $< $@
	$(BUILD)/host/petool pad $@
	$(BUILD)/host/petool nx $@


# ---- host build -------------------------------------------------------------
HOST_CFLAGS := $(COMMON_CFLAGS) -fno-omit-frame-pointer -fno-pie
HOST_LDFLAGS := -no-pie
HOST_OBJ := $(patsubst %.c,$(BUILD)/host/%.o,$(SHARED_SRC) tests/host/platform_host.c)

$(BUILD)/host/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC (host) $<"
	$(Q)$(CCACHE) $(CC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/host/petool: tools/petool.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) $< -o $@

# The results file's checker: every line one whole JSON object, valid UTF-8.
$(BUILD)/host/jsonlcheck: tools/jsonlcheck.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) $< -o $@

# QEMU started with io_uring refused (tools/no-io-uring.c: QEMU 11.1's main
# loop wakes late through it on a loaded host); tools/qemu-run.sh uses it.
$(BUILD)/host/no-io-uring: tools/no-io-uring.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(HOST_LDFLAGS) $< -o $@

# The monitor itself on the host (stdin/stdout console, a folder as volume).
$(BUILD)/host/iommon: $(HOST_OBJ) $(BUILD)/host/tests/host/main_host.o $(BUILD)/host/tests/host/replay.o
	$(CC) $(HOST_LDFLAGS) $^ -lm -o $@

$(BUILD)/host/acpidecode: $(HOST_OBJ) $(BUILD)/host/tests/host/acpidecode.o
	$(CC) $(HOST_LDFLAGS) $^ -lm -o $@

# The drivers' own CPU cost, natively on the host against the models (make bench).
$(BUILD)/host/bench: $(HOST_OBJ) $(BUILD)/host/tests/host/bench.o
	$(CC) $(HOST_LDFLAGS) $^ -lm -o $@

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/host/unit/%,$(UNIT_SRC))

$(BUILD)/host/unit/%: $(BUILD)/host/tests/unit/%.o $(HOST_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_LDFLAGS) $^ -lcmocka -lm -o $@

# ---- fuzzing (clang's libFuzzer, with ASan and UBSan) -------------------------
FUZZ_CC := clang
FUZZ_CFLAGS := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $(WARN) -I$(CURDIR)
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SRC_fuzz_dmar := core/tables/dmar.c core/tables/acpi.c core/base/memmap.c core/tables/diag.c core/tables/range.c core/base/claims.c
FUZZ_SRC_fuzz_ivrs := core/tables/ivrs.c core/tables/acpi.c core/base/memmap.c core/tables/diag.c core/tables/range.c core/base/claims.c
FUZZ_SRC_fuzz_fdt := core/tables/fdt.c core/tables/fdt_platform.c core/tables/diag.c
FUZZ_SRC_fuzz_madt := core/tables/madt.c core/tables/acpi.c core/base/memmap.c core/tables/diag.c core/base/claims.c
FUZZ_SRC_fuzz_iort := core/tables/iort.c core/tables/iort_print.c core/tables/gtdt.c core/tables/acpi.c core/base/memmap.c core/tables/diag.c core/tables/range.c core/base/claims.c
FUZZ_SRC_fuzz_rimt := core/tables/rimt.c core/tables/acpi.c core/base/memmap.c core/tables/diag.c core/base/claims.c
FUZZ_SRC_fuzz_tables := core/tables/acpi.c core/tables/mcfg.c core/tables/diag.c core/base/memmap.c core/tables/range.c core/base/claims.c
FUZZ_SRC_fuzz_acpi := core/tables/acpi.c core/base/memmap.c core/tables/diag.c core/base/claims.c
FUZZ_SRC_fuzz_rio := iommu/calgary/rio.c core/base/memmap.c core/base/claims.c
FUZZ_SRC_fuzz_units := iommu/units.c iommu/found_regs.c iommu/vtd/discover.c iommu/vtd/caps.c core/base/wrap.c iommu/amdvi/discover.c core/tables/dmar.c core/tables/ivrs.c core/tables/acpi.c core/tables/diag.c core/base/json.c core/base/regwin.c core/base/memmap.c pci/enum.c core/base/number.c pci/config.c pci/alias.c core/tables/range.c core/base/claims.c
FUZZ_SRC_fuzz_pci := pci/enum.c core/base/number.c pci/config.c core/base/regwin.c core/base/memmap.c core/tables/range.c core/base/claims.c
FUZZ_SRC_fuzz_vtd_caps := iommu/vtd/caps.c core/base/wrap.c
FUZZ_SRC_fuzz_nvme := pci/nvme_decode.c
FUZZ_SRC_fuzz_crumb := core/monitor/crumb.c
FUZZ_SRC_fuzz_script := core/monitor/script.c
FUZZ_SRC_fuzz_smbios := core/tables/smbios.c core/base/memmap.c core/tables/diag.c core/base/wrap.c core/base/claims.c
FUZZ_SRC_fuzz_settings := $(SHARED_SRC) tests/host/platform_host.c

# Each source is compiled once with the sanitizers and shared by every
# target that lists it, so make -j spreads them over the cores.
$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC (fuzz) $<"
	$(Q)$(CCACHE) $(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

-include $(shell find $(BUILD)/fuzz/obj -name '*.d' 2>/dev/null)

.SECONDEXPANSION:
# The target's sources as their objects. A bare % in a pattern rule's
# prerequisites is the stem even inside a function, so the patsubst's
# percent signs come from $(pc) in the second expansion: written as %,
# they became the target's name and every target compiled all its sources
# again in its link step (fuzz_settings: all of the monitor), cache or not.
pc := %
$(BUILD)/fuzz/%: $(BUILD)/fuzz/obj/tests/fuzz/%.o $$(patsubst $$(pc).c,$(BUILD)/fuzz/obj/$$(pc).o,$$(FUZZ_SRC_$$*))
	@mkdir -p $(dir $@)
	@echo "  FUZZ      $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $^ -o $@

fuzz-build: $(FUZZ_BIN)

# A long run of every target: 10 million inputs each (FUZZ_RUNS), at most
# 30 minutes each (FUZZ_SECONDS), two at a time (FUZZ_JOBS).
fuzz: deps
	@$(MAKE) --no-print-directory fuzz-build
	FUZZ_RUNS=$${FUZZ_RUNS:-10000000} FUZZ_SECONDS=$${FUZZ_SECONDS:-1800} FUZZ_JOBS=$${FUZZ_JOBS:-2} tools/fuzz.sh

# ---- image, run, test ---------------------------------------------------------
# The targets that install what is missing (make deps) build in a sub-make
# after it: one that reads this file anew, with the compilers there, and
# starts no build step beside deps under make -j. ($(MAKE) is written out:
# only then does a sub-make share make -j's jobs and run under make -n.)
# A sub-make gets one job per core unless make was given its own -j (a
# jobserver): a build without the cache compiles newlib for each
# architecture, two at once on two cores.
SUBJOBS = case "$$MAKEFLAGS" in *jobserver*|*-j*) jobs="" ;; *) jobs=-j$$(nproc) ;; esac;
image: deps
	@$(SUBJOBS) $(MAKE) --no-print-directory $$jobs $(BUILD)/iommon.img $(BUILD)/host/no-io-uring

$(BUILD)/iommon.img: $(BUILD)/iommon.efi $(BUILD)/iommon-aa64.efi $(BUILD)/iommon-rv64.efi tools/mkimage.sh \
		tools/mkesp.sh tools/iommon.cfg
	tools/mkimage.sh $@ $(BUILD)/iommon.efi tools/iommon.cfg $(BUILD)/iommon-aa64.efi=EFI/BOOT/BOOTAA64.EFI \
		$(BUILD)/iommon-rv64.efi=EFI/BOOT/BOOTRISCV64.EFI

# The same files as an El Torito UEFI-bootable ISO for a BMC's virtual CD
# (tools/mkiso.sh): the plan is the boot image's iommon.cfg, results go to
# the console only.
iso: deps
	@$(SUBJOBS) $(MAKE) --no-print-directory $$jobs $(BUILD)/iommon.iso

$(BUILD)/iommon.iso: $(BUILD)/iommon.efi $(BUILD)/iommon-aa64.efi $(BUILD)/iommon-rv64.efi tools/mkiso.sh \
		tools/mkesp.sh tools/iommon.cfg
	tools/mkiso.sh $@ $(BUILD)/iommon.efi tools/iommon.cfg $(BUILD)/iommon-aa64.efi=EFI/BOOT/BOOTAA64.EFI \
		$(BUILD)/iommon-rv64.efi=EFI/BOOT/BOOTRISCV64.EFI

deps:
	@tools/deps.sh

# The default machine for make run and make console: q35 with a VT-d unit
# and an NVMe controller on a zero-filled null backend, so the default plan
# has an IOMMU to take over and a DMA engine to drive through it (reads and
# compares only: nothing is written).
RUN_DEVICES := -device intel-iommu -blockdev driver=null-co,node-name=nvm0,size=67108864,read-zeroes=on \
	-device nvme,drive=nvm0,serial=iommon0

# Each leaves its console log, records and results file in $(BUILD)/<target>/.
run: deps
	@$(SUBJOBS) $(MAKE) --no-print-directory $$jobs $(BUILD)/iommon.img $(BUILD)/host/no-io-uring
	tools/qemu-run.sh --image $(BUILD)/iommon.img --vars $(BUILD)/ovmf-vars.fd --bench --out $(BUILD)/run \
		--qemu "$(RUN_DEVICES)"

# q35 with an AMD-Vi unit in front of the same NVMe controller (QEMU's
# amd-iommu writes no event log: its fault cases skip, saying so).
RUN_DEVICES_AMDVI := -device amd-iommu -blockdev driver=null-co,node-name=nvm0,size=67108864,read-zeroes=on \
	-device nvme,drive=nvm0,serial=iommon0

run-amdvi: deps
	@$(SUBJOBS) $(MAKE) --no-print-directory $$jobs $(BUILD)/iommon.img $(BUILD)/host/no-io-uring
	tools/qemu-run.sh --image $(BUILD)/iommon.img --bench --out $(BUILD)/run-amdvi --qemu "$(RUN_DEVICES_AMDVI)"

# QEMU's aarch64 virt machine with an SMMUv3 in front of the PCIe tree, the
# same null-backed NVMe, and QEMU's edu device as a second DMA engine.
RUN_DEVICES_AA64 := -blockdev driver=null-co,node-name=nvm0,size=67108864,read-zeroes=on \
	-device nvme,drive=nvm0,serial=iommon0 -device edu

run-aarch64: deps
	@$(SUBJOBS) $(MAKE) --no-print-directory $$jobs $(BUILD)/iommon.img $(BUILD)/host/no-io-uring
	tools/qemu-run.sh --arch aarch64 --machine virt,iommu=smmuv3 --image $(BUILD)/iommon.img \
		--bench --out $(BUILD)/run-aarch64 --qemu "$(RUN_DEVICES_AA64)"

# QEMU 10.0's riscv64 virt machine (from build/qemu-10.0: Debian 12's QEMU
# has no RISC-V IOMMU), a RISC-V IOMMU on the PCIe bus in front of the same
# null-backed NVMe. RISCV_FIRMWARE=uboot (the default): OpenSBI and U-Boot's
# UEFI, the stick on virtio-mmio outside the PCIe tree; RISCV_FIRMWARE=edk2:
# EDK II with ACPI, a RISC-V server's firmware (Debian 13's), the stick on
# virtio-blk-pci, and the unit leaving reset in Bare (off=off): EDK II reads
# no disk behind a unit in Off, its reset mode.
RISCV_FIRMWARE ?= uboot
RUN_DEVICES_RV64 = -device riscv-iommu-pci$(if $(filter edk2,$(RISCV_FIRMWARE)),$(COMMA)off=off) \
	-blockdev driver=null-co,node-name=nvm0,size=67108864,read-zeroes=on -device nvme,drive=nvm0,serial=iommon0
COMMA := ,

run-riscv64: deps
	@$(SUBJOBS) $(MAKE) --no-print-directory $$jobs $(BUILD)/iommon.img $(BUILD)/host/no-io-uring
	QEMU=$${QEMU:-10} tools/qemu-run.sh --arch riscv64 --firmware $(RISCV_FIRMWARE) --image $(BUILD)/iommon.img \
		--bench --out $(BUILD)/run-riscv64 --qemu "$(RUN_DEVICES_RV64)"

# The same boots with the serial console on your terminal.
console: deps
	@$(SUBJOBS) $(MAKE) --no-print-directory $$jobs $(BUILD)/iommon.img $(BUILD)/host/no-io-uring
	tools/qemu-run.sh --image $(BUILD)/iommon.img --vars $(BUILD)/ovmf-vars.fd --interactive --out $(BUILD)/console \
		--qemu "$(RUN_DEVICES)"

console-amdvi: deps
	@$(SUBJOBS) $(MAKE) --no-print-directory $$jobs $(BUILD)/iommon.img $(BUILD)/host/no-io-uring
	tools/qemu-run.sh --image $(BUILD)/iommon.img --interactive --out $(BUILD)/console-amdvi \
		--qemu "$(RUN_DEVICES_AMDVI)"

console-aarch64: deps
	@$(SUBJOBS) $(MAKE) --no-print-directory $$jobs $(BUILD)/iommon.img $(BUILD)/host/no-io-uring
	tools/qemu-run.sh --arch aarch64 --machine virt,iommu=smmuv3 --image $(BUILD)/iommon.img \
		--vars $(BUILD)/aavmf-vars.fd --interactive --out $(BUILD)/console-aarch64 --qemu "$(RUN_DEVICES_AA64)"

console-riscv64: deps
	@$(SUBJOBS) $(MAKE) --no-print-directory $$jobs $(BUILD)/iommon.img $(BUILD)/host/no-io-uring
	QEMU=$${QEMU:-10} tools/qemu-run.sh --arch riscv64 --firmware $(RISCV_FIRMWARE) --image $(BUILD)/iommon.img \
		--interactive --out $(BUILD)/console-riscv64 --qemu "$(RUN_DEVICES_RV64)"

# The images (newlib three times where the cache has none), the host build
# and the fuzzers:
# built one job per core unless make was given its own -j (a jobserver).
# Debian 13 and its QEMU 11.1 (trixie-backports) in a root of their own,
# kept in a cache folder that make clean and a fresh clone leave alone
# (tools/trixie-root.sh): made for the suite, not for make run, and as root
# only (debootstrap and chroot need it); without it the suite skips its
# QEMU 11.1 boots and the Debian 13 build, saying so.
test: deps
	@if [ "$$(id -u)" = 0 ]; then tools/trixie-root.sh make || \
		echo "warning: no Debian 13 root: the QEMU 11.1 boots and the Debian 13 build will skip" >&2; \
	else echo "note: not root: no Debian 13 root made (QEMU 11.1, the Debian 13 build); as root: tools/trixie-root.sh make" >&2; fi
	@case "$$MAKEFLAGS" in *jobserver*|*-j*) jobs="" ;; *) jobs=-j$$(nproc) ;; esac; \
	start=$$(date +%s) before=$$($(CCACHE_COUNTS)); \
	$(MAKE) --no-print-directory $$jobs $(BUILD)/iommon.efi $(BUILD)/standin.efi $(BUILD)/batch.efi $(BUILD)/batch-aa64.efi $(BUILD)/iommon-aa64.efi $(BUILD)/iommon-rv64.efi $(BUILD)/iommon.img $(BUILD)/iommon.iso $(BUILD)/host/iommon $(BUILD)/host/acpidecode $(BUILD)/host/jsonlcheck $(BUILD)/host/bench $(BUILD)/host/no-io-uring $(UNIT_BIN) $(FUZZ_BIN) && \
	echo "$$(($$(date +%s) - start))" >$(BUILD)/build-seconds && \
	set -- $$before $$($(CCACHE_COUNTS)) && \
	cached=$$(if [ $$# = 4 ]; then echo "; ccache: $$(($$3 - $$1)) of $$(($$3 - $$1 + $$4 - $$2)) compiles from its cache"; \
		else echo "; without ccache"; fi) && \
	echo "$$cached" >$(BUILD)/build-cached && \
	echo "== build: $$(cat $(BUILD)/build-seconds) s (images, host tools, unit tests and fuzz targets, $${jobs:-make's} jobs$$cached)"
	@tools/test.sh

# The three monitors and their stick built by Debian 13's toolchain (gcc 14,
# gnu-efi 3.0.18, newlib 4.5) in the root tools/trixie-root.sh makes, into
# build/debian13/ (make test builds it there and boots it on QEMU 11.1
# whenever the root is made). Its newlib and gnu-efi are cached beside the
# root (IOMMON_CACHE in the root: the folder is bound at the same path).
DEBIAN13_CACHE = $(shell tools/trixie-root.sh path)-cache
debian13:
	@tools/trixie-root.sh status
	@mkdir -p $(DEBIAN13_CACHE)
	tools/trixie-root.sh run --bind $(DEBIAN13_CACHE) -- $(MAKE) --no-print-directory \
		$$(case "$$MAKEFLAGS" in *jobserver*|*-j*) ;; *) echo -j$$(nproc) ;; esac) \
		BUILD=build/debian13 IOMMON_CACHE=$(DEBIAN13_CACHE) build/debian13/iommon.img

# The hostile-firmware campaign (tools/hostile.sh): SEEDS boots from SEED,
# STATES firmware states each; make test runs two fixed seeds of 12.
SEED ?= 1
SEEDS ?= 20
STATES ?= 25
hostile: deps $(BUILD)/iommon.efi $(BUILD)/standin.efi
	tools/hostile.sh --seed $(SEED) --boots $(SEEDS) --states $(STATES)

bench: $(BUILD)/host/bench
	$(BUILD)/host/bench

clean:
	rm -rf $(BUILD)/efi $(BUILD)/efi-aa64 $(BUILD)/efi-rv64 $(BUILD)/host $(BUILD)/iommon.* $(BUILD)/iommon-aa64.* \
		$(BUILD)/iommon-rv64.* $(BUILD)/boot-tests

distclean:
	rm -rf $(BUILD)

# .clang-format is written for clang-format 14 (Debian 12): other versions
# format the same options differently. make test checks with the same one.
CLANG_FORMAT := clang-format-14
format: deps
	$(CLANG_FORMAT) -i $$(git ls-files '*.c' '*.h')

FORCE:

.PHONY: FORCE hostile debian13 all image iso deps run run-amdvi run-aarch64 run-riscv64 console console-amdvi console-aarch64 console-riscv64 test bench fuzz fuzz-build clean distclean format
.SECONDARY:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
