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
# Nested modules with fuzz targets of their own (their tests need
# dependencies kept out of the product's go.mod).
FUZZ_MODULES := test/kustomize
# The control plane of the end-to-end tests (kube-apiserver, etcd and
# kube-controller-manager) is
# built from the Go module proxy once and kept here, outside the work tree,
# so that every clone on the machine reuses it.
CONTROLPLANE_DIR ?= $(HOME)/.cache/kpatch/controlplane
# What the image and release binaries report (internal/buildinfo): the
# version (make release VERSION=v0.2.0) and the commit. The commit's time is
# the time of every file of the image, so one commit gives one image digest.
VERSION     ?= dev
COMMIT      ?= $(shell git rev-parse HEAD 2>/dev/null)
COMMIT_TIME ?= $(shell git log -1 --format=%cI 2>/dev/null)
SOURCE_URL  ?= https://github.com/kpatch-dev/kpatch
STAMP        = -X kpatch.dev/kpatch/internal/buildinfo.version=$(VERSION) -X kpatch.dev/kpatch/internal/buildinfo.commit=$(COMMIT)

.PHONY: controlplane chart e2e load soak certs image notices tools release all build demo demo-cli test unit conformance lint fmt-check vet staticcheck tidy-check fuzz-corpus fuzz bench bench-e2e clean

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/...

## The files of both demos: the example registry's ConfigMaps and the
## quick start's manifests, whose Deployment the demo creates.
DEMO_REGISTRY := $(sort $(wildcard config/samples/registry-*.yaml))
DEMO_APP      := examples/quickstart/app.yaml

## demo: the whole product on this machine: a real control plane, the
## registry ConfigMaps DEMO_REGISTRY, the webhook, a patched Deployment.
demo: controlplane
	CONTROLPLANE_DIR=$(CONTROLPLANE_DIR) $(GO) run ./test/demo -f $(DEMO_APP) $(addprefix -registry ,$(DEMO_REGISTRY))

## demo-cli: the same registry ConfigMaps applied to the same manifests
## offline, with the CLI.
demo-cli: build
	@echo "# kpatch apply $(addprefix --registry ,$(DEMO_REGISTRY)) -f $(DEMO_APP)"
	@$(BIN)/kpatch apply $(addprefix --registry ,$(DEMO_REGISTRY)) -f $(DEMO_APP)

## certs: a CA and a serving certificate for running the webhook locally.
certs:
	$(GO) run ./certs certs

## image: the webhook's container image, built with Go alone (no container
## engine): bin/kpatch-webhook-image.tar, a docker-archive for docker load,
## kind load image-archive or crane push. IMAGE_ARCH=arm64 for arm64 nodes.
## The Dockerfile builds the same image with a container engine.
IMAGE_REPO    ?= ghcr.io/kpatch-dev/kpatch-webhook
IMAGE         ?= $(IMAGE_REPO):$(patsubst v%,%,$(VERSION))
IMAGE_ARCH    ?= $(shell $(GO) env GOARCH)
IMAGE_ARCHIVE ?= $(CURDIR)/$(BIN)/kpatch-webhook-image.tar
image:
	@mkdir -p $(dir $(IMAGE_ARCHIVE))
	CGO_ENABLED=0 GOOS=linux GOARCH=$(IMAGE_ARCH) $(GO) build -trimpath -buildvcs=false \
		-ldflags '-s -w $(STAMP)' -o $(CURDIR)/$(BIN)/image/webhook ./cmd/webhook
	cd tools && $(GO) run ./imagebuild -binary $(CURDIR)/$(BIN)/image/webhook -arch $(IMAGE_ARCH) \
		-file licenses/LICENSE=$(CURDIR)/LICENSE -file licenses/THIRD_PARTY_NOTICES=$(CURDIR)/THIRD_PARTY_NOTICES \
		-version '$(VERSION)' -revision '$(COMMIT)' -source '$(SOURCE_URL)' -created '$(COMMIT_TIME)' \
		-tag '$(IMAGE)' -o $(IMAGE_ARCHIVE)

## notices: regenerate THIRD_PARTY_NOTICES (the licenses of the linked
## modules) after a dependency changes; `make tools` checks it is current.
notices:
	cd tools && $(GO) run ./notices -root $(CURDIR) -o $(CURDIR)/THIRD_PARTY_NOTICES

## tools: vet, staticcheck, tidiness and tests of the build tools' own module
## (tools/: image, release, notices).
tools:
	cd tools && $(GO) vet ./... && $(GO) run $(STATICCHECK) ./... && $(GO) mod tidy -diff && $(GO) test -count=1 ./...

## release: the release artefacts in DIST (dist/), for VERSION=vX.Y.Z
## (a pre-release such as v0.3.0-rc.1 too), checked before anything is
## deleted or built: the CLI for RELEASE_PLATFORMS (archives with the one
## binary kubectl-kpatch and its completion helper), the chart (version and
## appVersion stamped; also as an OCI artefact), the image archives for
## RELEASE_IMAGE_ARCHS and their OCI image index, a CycloneDX SBOM of each
## CLI archive and image, a krew manifest (archives under RELEASE_URL) and
## checksums.txt. docs/install.md says how to publish and verify them.
RELEASE_PLATFORMS   ?= linux/amd64,linux/arm64,darwin/amd64,darwin/arm64
RELEASE_IMAGE_ARCHS ?= amd64 arm64
RELEASE_URL         ?= $(SOURCE_URL)/releases/download/$(VERSION)
DIST                ?= $(CURDIR)/dist
release:
	@cd tools && $(GO) run ./release -check-version -version '$(VERSION)' || \
		{ echo 'usage: make release VERSION=vX.Y.Z (a semantic version: v0.2.0, v0.3.0-rc.1)' >&2; exit 2; }
	rm -rf $(DIST)
	@for arch in $(RELEASE_IMAGE_ARCHS); do \
		$(MAKE) --no-print-directory image IMAGE_ARCH=$$arch IMAGE_ARCHIVE=$(CURDIR)/$(BIN)/release/image-$$arch.tar || exit 1; \
	done
	cd tools && $(GO) run ./release -root $(CURDIR) -dist $(DIST) -version '$(VERSION)' -commit '$(COMMIT)' \
		-created '$(COMMIT_TIME)' -platforms '$(RELEASE_PLATFORMS)' -url '$(RELEASE_URL)' -homepage '$(SOURCE_URL)' \
		$(foreach arch,$(RELEASE_IMAGE_ARCHS),-image $(arch)=$(CURDIR)/$(BIN)/release/image-$(arch).tar)

## test: everything CI runs. Deterministic: fuzz targets replay their
## committed corpus only (open-ended fuzzing is `make fuzz`).
test: lint tools unit conformance fuzz-corpus e2e chart

## unit: the packages' tests, and those of the nested test modules that
## need no control plane (TEST_MODULES: a dependency only they need stays
## out of the product's go.mod).
TEST_MODULES := test/decoders test/kustomize
unit:
	$(GO) test -race -count=1 ./pkg/... ./cmd/... $(if $(wildcard internal),./internal/...) ./certs/... ./test/docs/...
	@set -e; for m in $(TEST_MODULES); do \
		echo "cd $$m && $(GO) vet ./... && $(GO) test -count=1 ./..."; \
		(cd $$m && $(GO) vet ./... && $(GO) test -count=1 ./...); \
	done

conformance:
	$(GO) test -count=1 ./test/conformance/...

## chart: lint, schema, assertions and a server-side dry run of every mode of
## charts/kpatch-webhook on the real API server; config/default and the RBAC
## table of docs/security.md kept equal to it. test/chart is a module of its
## own (Helm stays out of the product's go.mod): tidy and vet it here too.
chart: controlplane
	cd test/chart && $(GO) mod tidy -diff && $(GO) vet ./... && \
		KPATCH_REQUIRE_CONTROLPLANE=1 CONTROLPLANE_DIR=$(CONTROLPLANE_DIR) $(GO) test -count=1 ./...

## e2e: the webhook on a real kube-apiserver and etcd; the webhook binary is
## the one in the image archive (make image), so the image that ships is the
## image that was tested.
e2e: controlplane image
	KPATCH_REQUIRE_CONTROLPLANE=1 CONTROLPLANE_DIR=$(CONTROLPLANE_DIR) KPATCH_WEBHOOK_IMAGE=$(IMAGE_ARCHIVE) \
		$(GO) test -count=1 -v ./test/e2e/...

lint: fmt-check vet staticcheck tidy-check

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) run $(STATICCHECK) ./...

## tidy-check: go.mod and go.sum are what `go mod tidy` makes them, in
## the product's module and in every nested one (test/chart included).
tidy-check:
	@set -e; for m in . $$(git ls-files '*/go.mod' | xargs -n1 dirname); do \
		echo "cd $$m && $(GO) mod tidy -diff"; \
		(cd $$m && $(GO) mod tidy -diff); \
	done

## fuzz-corpus: every fuzz target over its seeds and committed corpus
## (testdata/fuzz) only: no new inputs, so the result never changes.
fuzz-corpus:
	$(GO) test -count=1 -run '^Fuzz' $(FUZZ_PKGS)
	@set -e; for m in $(FUZZ_MODULES); do (cd $$m && $(GO) test -count=1 -run '^Fuzz' ./...); done

## fuzz: open-ended fuzzing, FUZZTIME per target (FUZZTIME=10m make fuzz).
## Every target runs even when an earlier one fails; the run fails at the
## end naming the targets with a crasher. A crasher is written to the
## package's testdata/fuzz: fix it and commit
## the file, so that fuzz-corpus replays it from then on.
fuzz:
	@failed=; for pkg in $$($(GO) list $(FUZZ_PKGS)); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "fuzzing $$pkg $$target for $(FUZZTIME)"; \
			$(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg || failed="$$failed $$target"; \
		done; \
	done; \
	for m in $(FUZZ_MODULES); do \
		for pkg in $$(cd $$m && $(GO) list ./...); do \
			for target in $$(cd $$m && $(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
				echo "fuzzing $$pkg $$target for $(FUZZTIME)"; \
				(cd $$m && $(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg) || failed="$$failed $$target"; \
			done; \
		done; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz targets with a crasher:$$failed"; exit 1; fi

## controlplane: build kube-apiserver, etcd and kube-controller-manager (about 17 minutes cold,
## seconds after; each binary has its own stamp).
controlplane:
	test/controlplane/build.sh $(CONTROLPLANE_DIR)

## load: the webhook under load on the real control plane, the empty and
## the patched registry alternated over rounds (figures in
## docs/performance.md; LOAD_FLAGS, e.g. -rounds 5 -duration 8s, are
## passed on).
load: controlplane
	CONTROLPLANE_DIR=$(CONTROLPLANE_DIR) $(GO) run ./test/load $(LOAD_FLAGS)

## soak: the webhook's two replicas (leader election on) under mixed load
## through the real API server for SOAK_DURATION, with a registry edit every
## second and two racing every 20 s, a restart of the leader kept from the
## registry at first (reviews posted straight to it), a flood of creates
## with --events-on-patch, an UPDATE-only file, 20 slow-body connections,
## forged reviews, 30 s cut off the API server and a forged last good
## version planted while no replica runs; fails when an object was admitted
## unpatched where the registry in force patches it, an answer was refused,
## or one held another namespace's data, or one of those properties broke
## (figures in docs/security.md). Not part of `make test`.
SOAK_DURATION ?= 10m
soak: controlplane
	CONTROLPLANE_DIR=$(CONTROLPLANE_DIR) SOAK_DURATION=$(SOAK_DURATION) $(GO) run ./test/soak

## bench: the engine's and the handler's benchmarks (figures in docs/performance.md).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./pkg/kpatch ./pkg/registry ./pkg/admission ./pkg/informed ./pkg/rules ./internal/objectjson

## bench-e2e: what the same change costs a dry-run create on the real API
## server with no mutation, a MutatingAdmissionPolicy, a fixed webhook (the
## cost of any webhook: `webhook / fixed`) and the webhook, interleaved
## (figures in docs/performance.md; BENCH_FLAGS, e.g. -compare
## NAME=BINARY, are passed on). Not part of `make test`.
bench-e2e: controlplane
	CONTROLPLANE_DIR=$(CONTROLPLANE_DIR) $(GO) run ./test/benche2e $(BENCH_FLAGS)

clean:
	rm -rf $(BIN) $(DIST)
