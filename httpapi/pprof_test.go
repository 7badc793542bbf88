package httpapi

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/metrics"
)

// TestPprof: the profiles are off by default; on, they are served to
// loopback clients and refused to anyone else.
func TestPprof(t *testing.T) {
	get := func(s *Server, path, remote string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.RemoteAddr = remote
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, r)
		return w
	}
	off := New("127.0.0.1:0", designSource(), metrics.New("test"), nil)
	if w := get(off, "/debug/pprof/heap?debug=1", "127.0.0.1:40000"); w.Code != http.StatusNotFound {
		t.Fatalf("pprof off: %d", w.Code)
	}
	on := New("127.0.0.1:0", designSource(), metrics.New("test"), nil)
	on.EnablePprof()
	for _, c := range []struct {
		path, remote, want string
		code               int
	}{
		{"/debug/pprof/heap?debug=1", "127.0.0.1:40000", "heap profile:", http.StatusOK},
		{"/debug/pprof/goroutine?debug=1", "[::1]:40000", "goroutine profile:", http.StatusOK},
		{"/debug/pprof/", "127.0.0.1:40000", "allocs", http.StatusOK},
		{"/debug/pprof/heap?debug=1", "192.0.2.9:40000", "loopback", http.StatusForbidden},
		{"/debug/pprof/goroutine?debug=2", "[2001:db8::9]:40000", "loopback", http.StatusForbidden},
	} {
		w := get(on, c.path, c.remote)
		if w.Code != c.code || !strings.Contains(w.Body.String(), c.want) {
			t.Errorf("GET %s from %s: %d %q, want %d with %q", c.path, c.remote, w.Code, head(w.Body.String()), c.code, c.want)
		}
	}
	if w := get(on, "/status", "127.0.0.1:40000"); w.Code != http.StatusOK {
		t.Fatalf("/status with pprof on: %d", w.Code)
	}
}

func head(s string) string {
	if len(s) > 80 {
		return s[:80]
	}
	return s
}

// TestPprofTurnsHeapSamplingOn: the daemon starts with the heap profile's
// sampling off (runtime.MemProfileRate = 0, cmd/authbgpd), and serving the
// profiles turns it back on, or the heap profile would be empty.
func TestPprofTurnsHeapSamplingOn(t *testing.T) {
	saved := runtime.MemProfileRate
	t.Cleanup(func() { runtime.MemProfileRate = saved })
	runtime.MemProfileRate = 0
	New("127.0.0.1:0", designSource(), metrics.New("test"), nil)
	if runtime.MemProfileRate != 0 {
		t.Fatalf("a server without pprof set MemProfileRate to %d", runtime.MemProfileRate)
	}
	New("127.0.0.1:0", designSource(), metrics.New("test"), nil).EnablePprof()
	if runtime.MemProfileRate != DefaultMemProfileRate {
		t.Fatalf("EnablePprof left MemProfileRate at %d, want %d", runtime.MemProfileRate, DefaultMemProfileRate)
	}
}
