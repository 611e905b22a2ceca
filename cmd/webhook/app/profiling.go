package app

import (
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// newProfilingServer serves Go's /debug/pprof/ profiles on addr, which
// Validate holds to a loopback address: profiles show the process's
// internals and cost CPU, so they never leave the pod (kubectl
// port-forward reaches them).
func newProfilingServer(addr string) (*manager.Server, error) {
	if err := loopback(addr); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return &manager.Server{
		Name:     "pprof",
		Server:   &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		Listener: l,
	}, nil
}
