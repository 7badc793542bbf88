// Package httpapi serves authbgpd's HTTP API ([api] http in the config):
//
//	GET /status    the status document (status.Status) as indented JSON
//	GET /metrics   Prometheus metrics (the private registry of package metrics)
//	GET /healthz   200 "ok", or 503 with the reason (the readiness check)
//	GET /livez     200 "ok", or 503 with the reason when only a restart
//	               helps (the liveness check: GoBGP's main loop stalled)
//	POST /-/reload reload the config (or preview a reload): a config.Preview
//	GET /debug/pprof/ the Go runtime's profiles, to loopback clients, when
//	               enabled ([api] pprof)
//
// Other paths are 404; other methods than GET (and HEAD), or POST for
// /-/reload, are 405. Nothing served here ever holds a secret: the status
// document has no field for one, a reload preview names changed keys only.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/status"
)

// Source is what the API reports on: the running speaker.
type Source interface {
	// Status returns the current status document. It is called once per
	// request and must be safe for concurrent use.
	Status() status.Status
	// Healthy returns nil when the speaker works, or why it does not.
	Healthy() error
}

// Liveness is implemented by a Source that can tell when it needs a
// restart; without it /livez is 200 as long as the server answers.
type Liveness interface {
	// Alive returns nil while the speaker works, or why only a restart
	// can help it (GoBGP's main loop stalled). Whatever Healthy reports
	// that a restart does not fix (a kernel without TCP-MD5) is not
	// Alive's business: a liveness probe would restart the router in a
	// loop for it.
	Alive() error
}

// Reloader is implemented by a Source that can reload its config (the
// speaker); without it POST /-/reload is 404.
type Reloader interface {
	// Reload applies the config file (or, with DryRun, only previews
	// what applying File would do) and says what it did.
	Reload(ctx context.Context, req ReloadRequest) config.Preview
}

// ReloadRequest is the JSON body of POST /-/reload.
type ReloadRequest struct {
	// DryRun previews the reload without applying it.
	DryRun bool `json:"dry_run"`
	// File, with DryRun, previews this file (a path the daemon reads)
	// instead of the daemon's own config file.
	File string `json:"file,omitempty"`
}

// ReloadPath is where the API takes reloads (like Prometheus' /-/reload).
const ReloadPath = "/-/reload"

// Timeouts of the server. The API is local and its answers are small; a
// client that dawdles is cut off rather than holding a connection.
const (
	ReadHeaderTimeout = 5 * time.Second
	ReadTimeout       = 10 * time.Second
	WriteTimeout      = 30 * time.Second
	IdleTimeout       = 60 * time.Second
	MaxHeaderBytes    = 16 << 10
)

// Server is the HTTP API server.
type Server struct {
	addr    string
	src     Source
	log     *logrus.Logger
	handler http.Handler
	mux     *http.ServeMux

	// remoteReload lets POST /-/reload come from outside loopback.
	remoteReload bool

	mu   sync.Mutex
	srv  *http.Server
	ln   net.Listener
	done chan struct{} // closed when Serve returns
}

// New returns a server for addr ("host:port") that reports on src. m may be
// nil (then /metrics is 404); log may be nil (then nothing is logged).
func New(addr string, src Source, m *metrics.Metrics, log *logrus.Logger) *Server {
	if log == nil {
		log = logrus.New()
		log.SetOutput(io.Discard)
	}
	s := &Server{addr: addr, src: src, log: log}
	mux := http.NewServeMux()
	// Method patterns: GET also matches HEAD; any other method on these
	// paths gets 405 with an Allow header, any other path 404.
	mux.HandleFunc("GET /status", s.serveStatus)
	mux.HandleFunc("GET /healthz", s.serveHealthz)
	mux.HandleFunc("GET /livez", s.serveLivez)
	if m != nil {
		mux.Handle("GET /metrics", m.Handler())
	}
	if r, ok := src.(Reloader); ok {
		mux.Handle("POST "+ReloadPath, reloadHandler{r: r, s: s})
	}
	s.handler, s.mux = mux, mux
	return s
}

// StartFromConfig starts the HTTP API as [api] says (http, reload-allow-remote,
// pprof); nil and no error when [api] http is unset.
func StartFromConfig(api config.API, src Source, m *metrics.Metrics, log *logrus.Logger) (*Server, error) {
	if api.HTTP == "" {
		return nil, nil
	}
	s := New(api.HTTP, src, m, log)
	s.AllowRemoteReload(api.ReloadAllowRemote)
	if api.Pprof {
		s.EnablePprof()
	}
	if err := s.Start(); err != nil {
		return nil, fmt.Errorf("api.http %s: %w", api.HTTP, err)
	}
	return s, nil
}

// AllowRemoteReload lets clients outside loopback POST /-/reload ([api]
// reload-allow-remote); call it before Start.
func (s *Server) AllowRemoteReload(allow bool) { s.remoteReload = allow }

// Handler returns the server's routes, for tests and for embedding.
func (s *Server) Handler() http.Handler { return s.handler }

// Start listens on the address now (so an address in use is an error here)
// and serves in the background until Shutdown.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return errors.New("http api: already started")
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("http api: listen on %s: %w", s.addr, err)
	}
	s.ln = ln
	s.done = make(chan struct{})
	s.srv = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          log.New(logWriter{s.log}, "", 0),
	}
	srv, done := s.srv, s.done
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.WithError(err).Error("http api: server stopped")
		}
	}()
	s.log.WithField("addr", ln.Addr().String()).Info("http api: serving /status, /metrics, /healthz, /livez, " + ReloadPath)
	return nil
}

// Addr returns the address the server listens on (useful with port 0), or
// nil before Start.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

// Shutdown stops listening, waits for requests in flight until ctx is done
// and then closes the remaining connections. It is a no-op before Start.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	srv, done := s.srv, s.done
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	err := srv.Shutdown(ctx)
	if err != nil {
		srv.Close()
	}
	<-done
	return err
}

func (s *Server) serveStatus(w http.ResponseWriter, r *http.Request) {
	st := s.src.Status()
	// Lists are always arrays, never null, so `jq '.peers[]'` works on an
	// empty speaker.
	if st.Peers == nil {
		st.Peers = []status.Peer{}
	}
	if st.SRv6.HMACKeys == nil {
		st.SRv6.HMACKeys = []status.HMACKey{}
	}
	if st.SRv6.Policies == nil {
		st.SRv6.Policies = []status.Policy{}
	}
	body, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		s.log.WithError(err).Error("http api: encode /status")
		http.Error(w, "cannot encode status", http.StatusInternalServerError)
		return
	}
	body = append(body, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.Write(body)
}

func (s *Server) serveHealthz(w http.ResponseWriter, r *http.Request) {
	serveCheck(w, s.src.Healthy())
}

func (s *Server) serveLivez(w http.ResponseWriter, r *http.Request) {
	var err error
	if l, ok := s.src.(Liveness); ok {
		err = l.Alive()
	}
	serveCheck(w, err)
}

// serveCheck answers a health check: 200 "ok", or 503 with the reason.
func serveCheck(w http.ResponseWriter, err error) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, err.Error())
		return
	}
	fmt.Fprintln(w, "ok")
}

// logWriter turns net/http's error log lines into logrus warnings.
type logWriter struct{ l *logrus.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.l.Warn("http api: " + strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
