// Command webhook stands in for the webhook binary in the images of
// TestRelease: a small Go program whose build info names a module
// (sigs.k8s.io/yaml) for the SBOM to list.
package main

import (
	"fmt"

	"sigs.k8s.io/yaml"
)

func main() {
	b, _ := yaml.Marshal(map[string]string{"stand-in": "webhook"})
	fmt.Print(string(b))
}
