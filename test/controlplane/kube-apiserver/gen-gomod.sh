#!/usr/bin/env bash
# Regenerates go.mod/go.sum of this wrapper module for a given Kubernetes release: the
# module of kube-apiserver (.) and kube-controller-manager (./kube-controller-manager).
#
#   ./gen-gomod.sh 1.37.1
#
# k8s.io/kubernetes requires every staging module (k8s.io/api, k8s.io/apiserver, ...)
# at the placeholder version v0.0.0 and replaces them with ./staging/src/... paths;
# replace directives of a dependency are ignored, so this module must pin each of
# them to the published v0.<minor>.<patch> itself.
set -euo pipefail
cd "$(dirname "$0")"

K8S_VERSION="${1:?usage: $0 <kubernetes version, e.g. 1.37.1>}"
K8S_VERSION="${K8S_VERSION#v}"
STAGING_VERSION="v0.${K8S_VERSION#*.}" # 1.37.1 -> v0.37.1

# Fetch only k8s.io/kubernetes's go.mod (small) and read the v0.0.0 requirements.
gomod="$(go mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
[ -f "$gomod" ] || { echo "could not download go.mod of k8s.io/kubernetes@v${K8S_VERSION}" >&2; exit 1; }
gover="$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$gomod")"
staging=$(awk '$1 ~ /^k8s\.io\// && $2 == "v0.0.0" {print $1}' "$gomod" | sort -u)

{
	echo "module kpatch.dev/controlplane/kube-apiserver"
	echo
	echo "go ${gover}"
	echo
	echo "require k8s.io/kubernetes v${K8S_VERSION}"
	echo
	echo "replace ("
	for m in $staging; do
		printf '\t%s => %s %s\n' "$m" "$m" "$STAGING_VERSION"
	done
	echo ")"
} > go.mod
rm -f go.sum
go mod tidy
echo "go.mod: $(grep -c '=>' go.mod) replace lines; go.sum: $(wc -l < go.sum) lines, $(wc -c < go.sum) bytes"
