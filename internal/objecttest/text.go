package objecttest

import (
	"fmt"
	"strings"
)

// DeploymentText is a Deployment with n containers, each with args,
// env and ports; version changes every image and one env value of each,
// and the last container only exists from version 2 on.
func DeploymentText(n, version int) string {
	var b strings.Builder
	b.WriteString("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app: web # the app\n")
	fmt.Fprintf(&b, "spec:\n  replicas: %d\n  template:\n    spec:\n      containers:\n", version)
	for i := range n {
		if i == n-1 && version == 1 {
			break
		}
		fmt.Fprintf(&b, "      # container %d\n      - name: c%d\n        image: ghcr.io/example/c%d:1.%d\n", i, i, i, version)
		fmt.Fprintf(&b, "        args: [\"--port=%d\", --verbose]\n        env:\n", 8000+i)
		for j := range 5 {
			fmt.Fprintf(&b, "          - name: VAR_%d\n            value: \"%d\"\n", j, j*version)
		}
		fmt.Fprintf(&b, "        ports:\n          - containerPort: %d\n            name: http\n\n", 8000+i)
	}
	return b.String()
}

// Written is a stream as people write it: comments everywhere, flow maps,
// odd quoting and spacing, scalars that a rewrite would respell (1.10,
// on, "010"), blank lines, an end marker, a comment-only document and a
// document separator with a comment.
const Written = `# Top comment of the stream
---   # first document
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web   # the name
  labels: {app: web, tier: "front"}
  annotations:
    version: 1.10
    enabled: on
    zero: "010"
    single: 'quoted'
spec:
  replicas: 2  # two replicas

  selector:
    matchLabels:
      app: web
  template:
    spec:
      containers:
        # the main container
        - name: main
          image: nginx:1.25   # pinned
          args: ["--a", "--b"]
          env:
            - name: A
              value: "x"   # quoted
            - name: B
              value: y
        - name: side
          image: envoy:1
---
# second document: untouched
apiVersion: v1
kind: ConfigMap
metadata: {name: other}
data:
  k: 'v'     # odd spacing
  on: yes
...
---
# only a comment
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  keep: "010"
  # about drop
  drop: gone   # removed
  change: old
`
