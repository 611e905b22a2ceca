// Package manifest reads and writes the manifests that kpatch commands
// patch: YAML (or JSON) streams split into documents as kubectl splits
// them, each document kept as written so that it can be printed back
// unchanged, or edited only where its object changed (package yamledit).
package manifest
