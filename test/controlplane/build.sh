#!/usr/bin/env bash
# Builds the envtest control plane (kube-apiserver + etcd) and the
# kube-controller-manager some end-to-end tests start, from the Go module
# proxy into OUT_DIR (default: ./bin next to this script; the Makefile passes
# a directory it owns), for use as envtest's BinaryAssetsDirectory /
# KUBEBUILDER_ASSETS. kube-apiserver and kube-controller-manager are two
# main packages of one module (kube-apiserver/), so they share one go.sum
# and one Kubernetes version.
#
#   ./build.sh [OUT_DIR]
#
# Each binary has its own stamp, OUT_DIR/.stamp-NAME: a hash of the Go
# version, the modules its package is built from (each with its version and
# replacement), its main package's files and its link flags. A binary whose
# stamp is current is not built again (kube-apiserver takes 10+ minutes), so
# a change of the module that adds packages for one binary rebuilds neither
# of the others. A binary is built next to its final name and renamed over
# it, so that a test running the old one never sees a partly written file.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/bin}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

export CGO_ENABLED=0     # static binaries, like upstream release builds
export GOTOOLCHAIN=local # never try to fetch another toolchain
export GOFLAGS="${GOFLAGS:-} -mod=readonly"

# modules_of DIR PKG prints the Go version and the modules (path version,
# and => path version when replaced) package PKG of the module in DIR is
# built from, sorted.
modules_of() {
	go env GOVERSION
	(cd "$1" && go list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}}{{with .Replace}} => {{.Path}} {{.Version}}{{end}}{{end}}{{end}}' "$2") | sort -u
}

# modules_in BIN prints the same, read from the build information of the
# binary BIN.
modules_in() {
	go version "$1" | sed 's/^.*: //'
	go version -m "$1" | awk '$1 == "dep" { if (d != "") print d; d = $2 " " $3 } $1 == "=>" { d = d " => " $2 " " $3 } END { if (d != "") print d }' | sort -u
}

# build NAME DIR PKG LDFLAGS builds package PKG of the module in DIR into
# OUT_DIR/NAME, unless its stamp is current.
build() {
	local name="$1" dir="$2" pkg="$3" ldflags="$4" modules stamp
	modules="$(modules_of "$dir" "$pkg")"
	stamp="$( { echo "$modules"; cat "$dir/$pkg"/*.go; echo "$ldflags"; } | sha256sum | cut -d' ' -f1)"
	if [ -x "$out/$name" ] && [ "$(cat "$out/.stamp-$name" 2>/dev/null)" = "$stamp" ]; then
		echo "$name in $out is up to date"
		return
	fi
	# A directory built before the stamps were per binary holds one .stamp;
	# its binaries are kept when their build information names the same Go
	# version and modules (a main package's files are not in a binary, and
	# had not changed when the stamps became per binary).
	if [ -x "$out/$name" ] && [ -f "$out/.stamp" ] && [ ! -f "$out/.stamp-$name" ] && [ "$(modules_in "$out/$name")" = "$modules" ]; then
		echo "$name in $out is up to date (built before the stamps were per binary)"
		echo "$stamp" > "$out/.stamp-$name"
		return
	fi
	rm -f "$out/.stamp-$name"
	echo "building $name ..."
	(cd "$dir" && time go build -trimpath -ldflags="$ldflags" -o "$out/$name.new" "$pkg")
	mv -f "$out/$name.new" "$out/$name"
	"$out/$name" --version | head -1
	echo "$stamp" > "$out/.stamp-$name"
}

k8s_version="$(cd "$here/kube-apiserver" && go list -m -f '{{.Version}}' k8s.io/kubernetes)" # e.g. v1.37.1
minor="${k8s_version#v1.}"
minor="${minor%%.*}"
pkg=k8s.io/component-base/version
ldflags="-s -w -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"

build kube-apiserver "$here/kube-apiserver" . "$ldflags"
build etcd "$here/etcd" . "-s -w"
build kube-controller-manager "$here/kube-apiserver" ./kube-controller-manager "$ldflags"
