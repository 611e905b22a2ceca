# syntax=docker/dockerfile:1
#
# The kpatch webhook image, for those who build with a container engine:
#
#   docker build --build-arg VERSION=v0.1.0 --build-arg REVISION=$(git rev-parse HEAD) \
#       -t kpatch-webhook:0.1.0 .
#
# `make image` builds the same image with Go alone (tools/imagebuild): the
# static webhook binary at /webhook and the license texts in /licenses, on
# an empty base, run as the numeric non-root user 65532:65532. The tests of
# tools/imagebuild check that this file's build context (.dockerignore)
# holds every package and embedded file the binary is built from.
#
# The Go image is pinned to the exact Go release the project builds with;
# where a registry is reachable, pin its digest as well
# (`crane digest golang:1.26.8`, then `golang:1.26.8@sha256:...`).
FROM --platform=$BUILDPLATFORM golang:1.26.8 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd cmd
COPY internal internal
COPY pkg pkg
ARG TARGETOS=linux
ARG TARGETARCH
ARG VERSION=dev
ARG REVISION=
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath -buildvcs=false \
      -ldflags="-s -w -X kpatch.dev/kpatch/internal/buildinfo.version=${VERSION} -X kpatch.dev/kpatch/internal/buildinfo.commit=${REVISION}" \
      -o /out/webhook ./cmd/webhook

FROM scratch
ARG VERSION=dev
ARG REVISION=
ARG SOURCE=
LABEL org.opencontainers.image.title="kpatch-webhook" \
      org.opencontainers.image.description="kpatch mutating admission webhook: patches Kubernetes objects at admission with .kpatch files kept in ConfigMaps" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}"
COPY --from=build /out/webhook /webhook
COPY LICENSE THIRD_PARTY_NOTICES /licenses/
USER 65532:65532
ENTRYPOINT ["/webhook"]
