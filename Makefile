# kpatch: build, test and benchmark. Every tool is installed by the
# targets themselves, pinned, from the Go module proxy.

GO          ?= go
BIN         := bin
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# fuzz: how long `make fuzz` gives each fuzz target, and how long it may
# spend minimising each new input (Go's default of 60s starves the search).
FUZZTIME    ?= 2m
FUZZMINIMIZE ?= 2s
FUZZ_PKGS   := ./pkg/... ./internal/... ./cmd/...
# The control plane of the end-to-end tests (kube-apiserver and etcd) is
# built from the Go module proxy once and kept here, outside the work tree,
# so that every clone on the machine reuses it.
CONTROLPLANE_DIR ?= $(HOME)/.cache/kpatch/controlplane

.PHONY: controlplane chart e2e load certs image all build demo demo-cli test unit conformance lint fmt-check vet staticcheck tidy-check fuzz-corpus fuzz bench bench-e2e clean

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/...

## demo: the whole product on this machine: a real control plane, the
## example registry of config/samples, the webhook, a patched Deployment.
demo: controlplane
	CONTROLPLANE_DIR=$(CONTROLPLANE_DIR) $(GO) run ./test/demo

## demo-cli: apply the example patches to the example manifests with the CLI.
demo-cli: build
	@echo "# kpatch apply -p examples/quickstart/patches/*.kpatch -f examples/quickstart/app.yaml --values examples/quickstart/values.yaml"
	@$(BIN)/kpatch apply $(addprefix -p ,$(sort $(wildcard examples/quickstart/patches/*.kpatch))) \
		-f examples/quickstart/app.yaml --values examples/quickstart/values.yaml

## certs: a CA and a serving certificate for running the webhook locally.
certs:
	$(GO) run ./certs certs

## image: the webhook's container image (needs a Docker engine).
IMAGE ?= kpatch-webhook:dev
image:
	docker build -t $(IMAGE) .

## test: everything CI runs. Deterministic: fuzz targets replay their
## committed corpus only (open-ended fuzzing is `make fuzz`).
test: lint unit conformance fuzz-corpus e2e chart

unit:
	$(GO) test -race -count=1 ./pkg/... ./cmd/... ./internal/... ./certs/... ./test/docs/...

conformance:
	$(GO) test -count=1 ./test/conformance/...

## chart: lint, schema, assertions and a server-side dry run of every mode of
## charts/kpatch-webhook on the real API server; config/default and the RBAC
## table of docs/security.md kept equal to it. test/chart is a module of its
## own (Helm stays out of the product's go.mod): tidy and vet it here too.
chart: controlplane
	cd test/chart && $(GO) mod tidy -diff && $(GO) vet ./... && \
		KPATCH_REQUIRE_CONTROLPLANE=1 CONTROLPLANE_DIR=$(CONTROLPLANE_DIR) $(GO) test -count=1 ./...

## e2e: the webhook on a real kube-apiserver and etcd.
e2e: controlplane
	KPATCH_REQUIRE_CONTROLPLANE=1 CONTROLPLANE_DIR=$(CONTROLPLANE_DIR) $(GO) test -count=1 -v ./test/e2e/...

lint: fmt-check vet staticcheck tidy-check

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) run $(STATICCHECK) ./...

## tidy-check: go.mod and go.sum are what `go mod tidy` makes them.
tidy-check:
	$(GO) mod tidy -diff

## fuzz-corpus: every fuzz target over its seeds and committed corpus
## (testdata/fuzz) only: no new inputs, so the result never changes.
fuzz-corpus:
	$(GO) test -count=1 -run '^Fuzz' $(FUZZ_PKGS)

## fuzz: open-ended fuzzing, FUZZTIME per target (FUZZTIME=10m make fuzz).
## A crasher is written to the package's testdata/fuzz: fix it and commit
## the file, so that fuzz-corpus replays it from then on.
fuzz:
	@set -e; for pkg in $$($(GO) list $(FUZZ_PKGS)); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "fuzzing $$pkg $$target for $(FUZZTIME)"; \
			$(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg; \
		done; \
	done

## controlplane: build kube-apiserver and etcd (about 10 minutes cold, seconds after).
controlplane:
	test/controlplane/build.sh $(CONTROLPLANE_DIR)

## load: the webhook under load on the real control plane (figures in docs/performance.md).
load: controlplane
	CONTROLPLANE_DIR=$(CONTROLPLANE_DIR) $(GO) run ./test/load

## bench: the engine's and the handler's benchmarks (figures in docs/performance.md).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./pkg/kpatch ./pkg/registry ./pkg/admission ./pkg/informed ./pkg/rules ./internal/objectjson

## bench-e2e: what the same change costs a dry-run create on the real API
## server with no mutation, a MutatingAdmissionPolicy and the webhook,
## interleaved (figures in docs/performance.md). Not part of `make test`.
bench-e2e: controlplane
	CONTROLPLANE_DIR=$(CONTROLPLANE_DIR) $(GO) run ./test/benche2e

clean:
	rm -rf $(BIN)
