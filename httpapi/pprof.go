package httpapi

import (
	"net/http"
	"net/http/pprof"
	"runtime"
)

// DefaultMemProfileRate is the Go runtime's own default: a sample every
// 512 KiB allocated, on average.
const DefaultMemProfileRate = 512 * 1024

// PprofPath is where the Go runtime's profiles are served ([api] pprof).
const PprofPath = "/debug/pprof/"

// EnablePprof serves the Go runtime's profiles (net/http/pprof: heap,
// allocs, goroutine, profile, trace, ...) under PprofPath, to loopback
// clients only ([api] pprof; off by default); call it before Start. A
// profile names functions, sizes and counts, never memory contents, so it
// holds no secret. A CPU profile or trace must be shorter than the
// server's WriteTimeout (30 s). It turns the heap profile's sampling on
// (runtime.MemProfileRate, which the daemon turns off when it starts): the
// heap and allocs profiles cover allocations from then on.
func (s *Server) EnablePprof() {
	if runtime.MemProfileRate == 0 {
		runtime.MemProfileRate = DefaultMemProfileRate
	}
	h := http.NewServeMux()
	h.HandleFunc(PprofPath, pprof.Index)
	h.HandleFunc(PprofPath+"cmdline", pprof.Cmdline)
	h.HandleFunc(PprofPath+"profile", pprof.Profile)
	h.HandleFunc(PprofPath+"symbol", pprof.Symbol)
	h.HandleFunc(PprofPath+"trace", pprof.Trace)
	s.mux.Handle("GET "+PprofPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !fromLoopback(r.RemoteAddr) {
			s.log.WithField("remote", r.RemoteAddr).Warn("http api: profile refused: not from loopback")
			http.Error(w, "profiles are served to loopback clients only", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	}))
}
