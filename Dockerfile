# The kpatch webhook image: a static binary on a distroless, non-root base
# with no shell. Build with `make image`.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd cmd
COPY pkg pkg
ENV CGO_ENABLED=0
RUN go build -trimpath -ldflags="-s -w" -o /out/webhook ./cmd/webhook \
 && go build -trimpath -ldflags="-s -w" -o /out/kpatch ./cmd/kpatch

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/webhook /webhook
COPY --from=build /out/kpatch /kpatch
USER 65532:65532
ENTRYPOINT ["/webhook"]
