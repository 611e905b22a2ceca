#!/usr/bin/env bash
# Builds the envtest control plane (kube-apiserver + etcd) from the Go module
# proxy into OUT_DIR (default: ./bin next to this script; the Makefile passes a directory it owns), for use as
# envtest's BinaryAssetsDirectory / KUBEBUILDER_ASSETS.
#
#   ./build.sh [OUT_DIR]
#
# Skips the (10+ minute) build when OUT_DIR already holds binaries built from
# the same go.mod/go.sum/main.go and Go version (stamp file OUT_DIR/.stamp).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/bin}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

export CGO_ENABLED=0     # static binaries, like upstream release builds
export GOTOOLCHAIN=local # never try to fetch another toolchain
export GOFLAGS="${GOFLAGS:-} -mod=readonly"

stamp="$( { go version; cat "$here"/kube-apiserver/{go.mod,go.sum,main.go} "$here"/etcd/{go.mod,go.sum,main.go}; } | sha256sum | cut -d' ' -f1)"
if [ -x "$out/kube-apiserver" ] && [ -x "$out/etcd" ] && [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "control plane binaries in $out are up to date"
	exit 0
fi
rm -f "$out/.stamp"

k8s_version="$(cd "$here/kube-apiserver" && go list -m -f '{{.Version}}' k8s.io/kubernetes)" # e.g. v1.37.1
minor="${k8s_version#v1.}"
minor="${minor%%.*}"
pkg=k8s.io/component-base/version
ldflags="-s -w -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"

echo "building kube-apiserver $k8s_version ..."
(cd "$here/kube-apiserver" && time go build -trimpath -ldflags="$ldflags" -o "$out/kube-apiserver" .)
echo "building etcd ..."
(cd "$here/etcd" && time go build -trimpath -ldflags="-s -w" -o "$out/etcd" .)

"$out/kube-apiserver" --version
"$out/etcd" --version | head -1
echo "$stamp" > "$out/.stamp"
