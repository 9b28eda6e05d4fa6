# SPDX-License-Identifier: MIT
# The two commands a new user types: `make test` and `make demo`. Both install missing Debian
# packages (make deps) and build first, so a fresh clone needs nothing else.
BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
PREFIX     ?= /usr/local
JOBS       ?= $(shell nproc)
FUZZ_SECONDS ?= 60
GENERATOR  := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
# Without a GPU (CI) compile the CUDA code for one architecture only: it proves the code
# compiles at a fraction of the time. With a GPU, build for the default range.
HAVE_GPU   := $(shell nvidia-smi -L >/dev/null 2>&1 && echo yes)
CUDA_ARCHS ?= $(if $(HAVE_GPU),,75-real)
CMAKE_ARGS ?=
CMAKE_CUDA := $(if $(CUDA_ARCHS),-DCMAKE_CUDA_ARCHITECTURES="$(CUDA_ARCHS)")

.PHONY: all deps build test test-asan test-tsan demo bench install fuzz format tidy clean

all: build

deps:
	@tools/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_CUDA) $(CMAKE_ARGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# ASan + UBSan build of the CPU path (the CUDA backend is left out).
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DFASTPSR_WITH_CUDA=OFF \
	      -DFASTPSR_SANITIZE=address,undefined -DFASTPSR_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS=-O1
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    FASTPSR_ASAN=1 ctest --output-on-failure -j $(JOBS) -LE gpu

# ThreadSanitizer build of the CPU path, running the tests of the tools' own threads (the
# accelsearch trial pipeline, the worker team, reading ahead, parallel file reads). One OpenMP
# thread: libgomp is not instrumented, so its regions would report races that are not there.
test-tsan: deps
	cmake -S . -B $(TSAN_BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DFASTPSR_WITH_CUDA=OFF \
	      -DFASTPSR_SANITIZE=thread -DFASTPSR_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS=-O1
	cmake --build $(TSAN_BUILD) -j $(JOBS)
	cd $(TSAN_BUILD) && OMP_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1 \
	    ctest --output-on-failure -j $(JOBS) -R 'cli: accelsearch$$|queue|worker team|searcher reuse|read ahead|file source|pipes|delay table large enough|temp registry|file sink|one read of the delay table'

demo: build
	@tools/demo.sh $(BUILD)/bin

bench: build
	@tools/bench.sh $(BUILD)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# libFuzzer on the header parsers (clang), for FUZZ_SECONDS per target.
fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	      -DFASTPSR_WITH_CUDA=OFF -DFASTPSR_FUZZ=ON -DFASTPSR_BUILD_BENCH=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_targets
	tools/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

format:
	git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format -i

tidy: $(BUILD)/CMakeCache.txt
	git ls-files 'lib/*.cpp' 'cpu/*.cpp' 'apps/*.cpp' | xargs clang-tidy -p $(BUILD) --quiet

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
