package httpapi

import (
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/metrics"
)

// TestStartFromConfig: no [api] http, no server; an address in use is an
// error naming api.http; otherwise the server runs with [api]'s options.
func TestStartFromConfig(t *testing.T) {
	if s, err := StartFromConfig(config.API{}, &fakeSource{}, metrics.New("test"), nil); s != nil || err != nil {
		t.Fatalf("no http: %v, %v", s, err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if _, err := StartFromConfig(config.API{HTTP: busy.Addr().String()}, &fakeSource{}, metrics.New("test"), nil); err == nil || !strings.HasPrefix(err.Error(), "api.http "+busy.Addr().String()+": ") {
		t.Fatalf("address in use: %v", err)
	}
	s, err := StartFromConfig(config.API{HTTP: "127.0.0.1:0", Pprof: true, ReloadAllowRemote: true}, &fakeSource{}, metrics.New("test"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(t.Context())
	if !s.remoteReload {
		t.Fatal("reload-allow-remote not applied")
	}
	resp, err := http.Get("http://" + s.ln.Addr().String() + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("pprof: %s", resp.Status)
	}
}
