// Command certs writes what a developer needs to run the webhook locally
// with TLS: a CA and a serving certificate for localhost and 127.0.0.1,
// signed by it, as certs/tls.crt and certs/tls.key (the webhook's
// --cert-dir layout) and certs/ca.crt (for a webhook configuration's
// caBundle or curl --cacert). Nothing here is committed; `make certs`
// generates it on demand.
package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"

	"k8s.io/client-go/util/cert"
)

func main() {
	dir := "certs"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := generate(dir); err != nil {
		fmt.Fprintln(os.Stderr, "certs:", err)
		os.Exit(1)
	}
}

func generate(dir string) error {
	// A CA-signed certificate: the PEM holds the serving certificate, then
	// the CA.
	certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey("localhost", []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback}, []string{"localhost"})
	if err != nil {
		return err
	}
	chain, err := cert.ParseCertsPEM(certPEM)
	if err != nil {
		return err
	}
	ca, err := cert.EncodeCertificates(chain[len(chain)-1:]...)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM, "ca.crt": ca} {
		mode := os.FileMode(0o644)
		if name == "tls.key" {
			mode = 0o600
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, mode); err != nil {
			return err
		}
	}
	fmt.Printf("wrote %s/tls.crt, %s/tls.key and %s/ca.crt (localhost, 127.0.0.1, ::1)\n", dir, dir, dir)
	return nil
}
