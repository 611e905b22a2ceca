package app

import (
	"context"
	"crypto/tls"
	"fmt"

	"k8s.io/apiserver/pkg/server/dynamiccertificates"
)

// requireClientCertificates makes cfg refuse, at the TLS handshake, every
// client without a certificate signed by the CA of file (PEM). The file is
// watched until ctx ends: a new CA applies to the connections opened after
// it is written; a file that no longer parses leaves the last CA in force.
func requireClientCertificates(ctx context.Context, cfg *tls.Config, file string) error {
	ca, err := dynamiccertificates.NewDynamicCAContentFromFile("client-ca", file)
	if err != nil {
		return fmt.Errorf("--client-ca-file %s: %w", file, err)
	}
	go ca.Run(ctx, 1)
	opts, _ := ca.VerifyOptions() // loaded: NewDynamicCAContentFromFile read it
	cfg.ClientCAs, cfg.ClientAuth = opts.Roots, tls.RequireAndVerifyClientCert
	base := cfg.Clone()
	cfg.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
		opts, _ := ca.VerifyOptions()
		c := base.Clone()
		c.ClientCAs = opts.Roots
		return c, nil
	}
	return nil
}
