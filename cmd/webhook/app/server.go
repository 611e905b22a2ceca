package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kpatch.dev/kpatch/pkg/admission"
	"kpatch.dev/kpatch/pkg/metrics"
	"kpatch.dev/kpatch/pkg/pathtoken"
)

// ServingOptions bound what one client can hold of the webhook server
// (--port): how long it may take to send a request's headers and whole
// body, to receive the answer, how long an idle connection stays open, and
// how many requests are served at once.
type ServingOptions struct {
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	MaxInFlight       int
}

// DefaultServingOptions are the defaults of the serving flags. The API
// server sends a review at once and waits at most 30 s for the answer
// (the largest timeoutSeconds): 10 s to read a review, 30 s from its
// headers to the end of the answer, cover every call it can make. At 128
// requests at once, a replica that answers in a millisecond would serve
// over 100,000 a second; beyond them the API server is told to retry.
var DefaultServingOptions = ServingOptions{
	ReadHeaderTimeout: 5 * time.Second,
	ReadTimeout:       10 * time.Second,
	WriteTimeout:      30 * time.Second,
	IdleTimeout:       90 * time.Second,
	MaxInFlight:       128,
}

// addFlags binds the serving options to flags of fs.
func (o *ServingOptions) addFlags(fs *pflag.FlagSet) {
	fs.DurationVar(&o.ReadHeaderTimeout, "read-header-timeout", o.ReadHeaderTimeout, "webhook server: longest a client may take to send a request's headers")
	fs.DurationVar(&o.ReadTimeout, "read-timeout", o.ReadTimeout, "webhook server: longest a client may take to send a whole request, headers and body; a slower one is answered with an error and its connection closed")
	fs.DurationVar(&o.WriteTimeout, "write-timeout", o.WriteTimeout, "webhook server: longest from the end of a request's headers to the end of its answer (the body read, the review handled, the answer written)")
	fs.DurationVar(&o.IdleTimeout, "idle-timeout", o.IdleTimeout, "webhook server: longest a kept-alive connection waits for its next request")
	fs.IntVar(&o.MaxInFlight, "max-in-flight", o.MaxInFlight, "most requests to /mutate served at once, from their headers to their answer; one more is answered 429 with Retry-After before its body is read and counted in kpatch_admission_requests_rejected_total; 0: no limit (/validate-registry has a bound of its own, 8, or this one when lower)")
}

// validate reports every problem of the serving options.
func (o *ServingOptions) validate() []error {
	var errs []error
	for _, d := range []struct {
		flag  string
		value time.Duration
	}{{"--read-header-timeout", o.ReadHeaderTimeout}, {"--read-timeout", o.ReadTimeout}, {"--write-timeout", o.WriteTimeout}, {"--idle-timeout", o.IdleTimeout}} {
		if d.value <= 0 {
			errs = append(errs, fmt.Errorf("%s: %s is not a positive duration", d.flag, d.value))
		}
	}
	if o.MaxInFlight < 0 {
		errs = append(errs, fmt.Errorf("--max-in-flight: %d is negative", o.MaxInFlight))
	}
	return errs
}

// webhookServer is controller-runtime's webhook server with the serving
// options' timeouts, which controller-runtime's own http.Server does not
// set (it has no read or write timeout, only one for headers). The
// registration and the mux are controller-runtime's (each path is
// instrumented with the controller_runtime_webhook_* metrics); Start and
// StartedChecker are its, with the server built here; the TLS settings
// (TLSOpts, the certificate watched in CertDir, ClientCAName) are read as
// controller-runtime reads them.
type webhookServer struct {
	webhook.Server // Register, WebhookMux, NeedLeaderElection
	mux            *http.ServeMux
	opts           webhook.Options
	serving        ServingOptions
	// clientCAFile, if set, is the CA a client's certificate must be
	// signed by (--client-ca-file).
	clientCAFile string
	// listen, if set, is the listener to serve TLS on, instead of TCP on
	// opts.Host and opts.Port (tests listen on a free port).
	listen func() (net.Listener, error)
	// paths, if set, keeps the path token (--path-token-secret): the
	// review paths are served behind its Guard.
	paths *pathtoken.Keeper

	mu   sync.Mutex
	addr string // where it listens, once started
}

var _ webhook.Server = (*webhookServer)(nil)

// newWebhookServer returns the webhook server of the options.
func (o *Options) newWebhookServer(tlsOpts []func(*tls.Config)) *webhookServer {
	mux := http.NewServeMux()
	opts := webhook.Options{Port: o.Port, CertDir: o.CertDir, TLSOpts: tlsOpts, WebhookMux: mux}
	return &webhookServer{Server: webhook.NewServer(opts), mux: mux, opts: opts, serving: o.Serving, clientCAFile: o.ClientCAFile}
}

// mutateHandler is what serves /mutate: 503 until the registry has
// synced, then at most --max-in-flight requests at once, each with the API
// server's deadline, read and answered by the Handler.
func (o *Options) mutateHandler(h *admission.Handler) http.Handler {
	return admission.WithRegistrySynced(admission.WithInFlightLimit(admission.WithRequestTimeout(&admission.Webhook{
		Webhook: cradmission.Webhook{Handler: h, LogConstructor: admission.LogConstructor},
	}), o.Serving.MaxInFlight, h.Metrics), h.Registry, h.Metrics)
}

// validationsInFlight bounds the requests to /validate-registry served
// at once, besides --max-in-flight's bound on /mutate: validations run
// one at a time (each compiles a candidate registry), and a burst of them
// never takes the places of admissions.
const validationsInFlight = 8

// validateHandler is what serves /validate-registry: as /mutate, 503
// until the registry has synced (there is nothing to check an edit
// against: the validating webhook's failurePolicy decides), then each
// request with the API server's deadline, read within the same body limit,
// at most validationsInFlight at once (or --max-in-flight, when lower),
// checked by the RegistryValidator.
func (o *Options) validateHandler(v *admission.RegistryValidator, m *metrics.Metrics) http.Handler {
	limit := validationsInFlight
	if o.Serving.MaxInFlight > 0 {
		limit = min(limit, o.Serving.MaxInFlight)
	}
	return admission.WithRegistrySynced(admission.WithInFlightLimit(admission.WithRequestTimeout(&admission.Webhook{
		Webhook: cradmission.Webhook{Handler: v, LogConstructor: admission.LogConstructor},
	}), limit, m), v.Watcher.Current, m)
}

// serveReviews registers /mutate and /validate-registry on s, each
// request a review of the API server, behind the path token of paths when
// it is not nil: a review at any other path than the one with the token is
// refused before it is read, before it takes a place of --max-in-flight.
func (s *webhookServer) serveReviews(paths *pathtoken.Keeper, mutate, validate http.Handler) {
	s.paths = paths
	s.Register(admission.MutatePath, mutate)
	s.Register(admission.ValidatePath, validate)
}

// serverLog is controller-runtime's webhook server's logger.
var serverLog = ctrl.Log.WithName("webhook")

// Start serves the webhook paths over TLS until ctx ends, then shuts the
// server down, waiting at most a minute for the requests in flight.
func (s *webhookServer) Start(ctx context.Context) error {
	cfg, err := s.tlsConfig(ctx)
	if err != nil {
		return err
	}
	var ln net.Listener
	if s.listen != nil {
		ln, err = s.listen()
	} else {
		ln, err = net.Listen("tcp", net.JoinHostPort(s.opts.Host, strconv.Itoa(s.opts.Port)))
	}
	if err != nil {
		return fmt.Errorf("webhook server: %w", err)
	}
	ln = tls.NewListener(ln, cfg)
	var handler http.Handler = s.mux
	if s.paths != nil {
		handler = s.paths.Guard(s.mux, admission.MutatePath, admission.ValidatePath)
	}
	srv := &http.Server{
		Handler:           handler,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		MaxHeaderBytes:    1 << 20,
		ReadHeaderTimeout: s.serving.ReadHeaderTimeout,
		ReadTimeout:       s.serving.ReadTimeout,
		WriteTimeout:      s.serving.WriteTimeout,
		IdleTimeout:       s.serving.IdleTimeout,
	}
	s.mu.Lock()
	s.addr = ln.Addr().String()
	s.mu.Unlock()
	serverLog.Info("serving webhook server", "address", s.addr, "readHeaderTimeout", s.serving.ReadHeaderTimeout,
		"readTimeout", s.serving.ReadTimeout, "writeTimeout", s.serving.WriteTimeout, "idleTimeout", s.serving.IdleTimeout,
		"maxInFlight", s.serving.MaxInFlight)
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := srv.Shutdown(shutdownCtx); err != nil {
			serverLog.Error(err, "shutting down the webhook server")
		}
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("webhook server: %w", err)
	}
	<-closed
	return nil
}

// tlsConfig is the server's TLS configuration, as controller-runtime's
// webhook server makes it: HTTP/2 offered unless a TLS option says
// otherwise, the certificate of CertDir (watched for changes) unless one
// sets GetCertificate, client certificates verified against ClientCAName
// of CertDir if set, or against the client CA file (--client-ca-file).
func (s *webhookServer) tlsConfig(ctx context.Context) (*tls.Config, error) {
	cfg := &tls.Config{NextProtos: []string{"h2"}}
	for _, op := range s.opts.TLSOpts {
		op(cfg)
	}
	dir := s.opts.CertDir
	if cfg.GetCertificate == nil {
		watcher, err := certwatcher.New(filepath.Join(dir, nameOr(s.opts.CertName, "tls.crt")), filepath.Join(dir, nameOr(s.opts.KeyName, "tls.key")))
		if err != nil {
			return nil, fmt.Errorf("webhook server certificate: %w", err)
		}
		cfg.GetCertificate = watcher.GetCertificate
		go func() {
			if err := watcher.Start(ctx); err != nil {
				serverLog.Error(err, "certificate watcher error")
			}
		}()
	}
	if s.opts.ClientCAName != "" {
		path := filepath.Join(dir, s.opts.ClientCAName)
		pem, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("webhook server client CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("webhook server client CA %s: no PEM certificate", path)
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	if s.clientCAFile != "" {
		if err := requireClientCertificates(ctx, cfg, s.clientCAFile); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

func nameOr(name, def string) string {
	if name == "" {
		return def
	}
	return name
}

// StartedChecker is healthy once the server accepts TLS connections.
func (s *webhookServer) StartedChecker() healthz.Checker {
	return func(*http.Request) error {
		addr := s.address()
		if addr == "" {
			return errors.New("webhook server has not been started yet")
		}
		d := &net.Dialer{Timeout: 10 * time.Second}
		// only that it answers TLS, as controller-runtime's checker
		conn, err := tls.DialWithDialer(d, "tcp", addr, &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			return fmt.Errorf("webhook server is not reachable: %w", err)
		}
		if err := conn.Close(); err != nil {
			return fmt.Errorf("webhook server is not reachable: closing connection: %w", err)
		}
		return nil
	}
}

// address is where the server listens, "" before it started.
func (s *webhookServer) address() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}
