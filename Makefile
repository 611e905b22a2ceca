# kpatch: build, test and benchmark. Every tool is installed by the
# targets themselves, pinned, from the Go module proxy.

GO          ?= go
BIN         := bin
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
FUZZTIME    ?= 10s
PKG_FUZZ    := ./pkg/kpatch

.PHONY: all build demo test unit conformance lint fmt-check vet staticcheck fuzz-smoke fuzz bench clean

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/...

## demo: apply the example patches to the example manifests with the CLI.
demo: build
	@echo "# kpatch apply -p examples/quickstart/patches/*.kpatch -f examples/quickstart/app.yaml --values examples/quickstart/values.yaml"
	@$(BIN)/kpatch apply $(addprefix -p ,$(sort $(wildcard examples/quickstart/patches/*.kpatch))) \
		-f examples/quickstart/app.yaml --values examples/quickstart/values.yaml

## test: everything CI runs.
test: lint unit conformance fuzz-smoke

unit:
	$(GO) test -race -count=1 ./pkg/... ./cmd/...

conformance:
	$(GO) test -count=1 ./test/conformance/...

lint: fmt-check vet staticcheck

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) run $(STATICCHECK) ./...

## fuzz-smoke: every fuzz target briefly, from the seed corpus.
fuzz-smoke:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) $(PKG_FUZZ)
	$(GO) test -run '^$$' -fuzz '^FuzzApply$$' -fuzztime $(FUZZTIME) $(PKG_FUZZ)

fuzz:
	$(MAKE) fuzz-smoke FUZZTIME=5m

## bench: the engine's benchmarks (figures in the README).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./pkg/kpatch

clean:
	rm -rf $(BIN)
