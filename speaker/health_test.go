package speaker

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/plugin"
)

// stallHook holds GoBGP's main loop inside one turn until released: GoBGP
// logs "Add a peer group configuration" from inside the loop
// (AddPeerGroup's mgmtOperation), and logrus runs hooks on the goroutine
// that logs.
type stallHook struct {
	group   string
	entered chan time.Time
	release chan struct{}
	once    sync.Once
}

// free releases the loop (once; again at cleanup, before the daemon stops).
func (h *stallHook) free() { h.once.Do(func() { close(h.release) }) }

func (*stallHook) Levels() []logrus.Level { return logrus.AllLevels }

func (h *stallHook) Fire(e *logrus.Entry) error {
	if e.Message != "Add a peer group configuration" {
		return nil
	}
	for _, v := range e.Data {
		if v == h.group {
			h.entered <- time.Now()
			<-h.release
		}
	}
	return nil
}

// startSpeaker runs a daemon without peers or BGP listener, its HTTP API
// on a free loopback port, and returns it with the API's base URL.
func startSpeaker(t *testing.T) (*Speaker, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cfg := filepath.Join(t.TempDir(), "authbgpd.toml")
	conf := fmt.Sprintf(`[global]
asn = 65001
router-id = "192.0.2.1"
listen-port = -1

[api]
grpc = ""
http = %q

[log]
level = "info"

[config]
watch = false
`, addr)
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Start(context.Background(), Options{ConfigFile: cfg, Version: "test"})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	s.log.SetOutput(io.Discard)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := s.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return s, "http://" + addr
}

var client = &http.Client{Timeout: 2 * time.Second} // as `authbgpd status --health`

func fetch(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// metric reads one sample of a gauge without labels from a scrape.
func metric(t *testing.T, body, name string) float64 {
	t.Helper()
	for _, l := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			return f
		}
	}
	t.Fatalf("/metrics has no %s", name)
	return 0
}

// lateTick is how late the watchdog's question may come on this shared
// 2-core machine (its goroutine waits for a CPU): up to 224 ms measured at
// load average 15 (plugin's TestLoopWatchGoBGPStall, 20 runs), doubled.
const lateTick = 500 * time.Millisecond

// TestHealthzGoBGPStall holds the real daemon's GoBGP loop inside one
// turn and requires, with the daemon's own watchdog timings: /healthz and
// /livez 503 with the reason within plugin.LoopWatchThreshold +
// plugin.LoopWatchPeriod of the stall (not before the threshold), /metrics
// and /status still answering meanwhile (the stall on /metrics), and 200
// again once the loop answers.
func TestHealthzGoBGPStall(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: waits for the daemon's stall threshold (-short)")
	}
	s, base := startSpeaker(t)
	for _, p := range []string{"/healthz", "/livez"} {
		if code, body := fetch(t, base+p); code != http.StatusOK {
			t.Fatalf("GET %s before the stall: %d %q", p, code, body)
		}
	}
	hook := &stallHook{group: "speaker-stall", entered: make(chan time.Time, 1), release: make(chan struct{})}
	s.log.AddHook(hook)
	t.Cleanup(hook.free) // before Stop: a failed test leaves no loop stuck
	added := make(chan error, 1)
	go func() {
		added <- s.host.AddPeerGroup(context.Background(), &api.PeerGroup{Conf: &api.PeerGroupConf{PeerGroupName: hook.group}})
	}()
	began := <-hook.entered

	limit := plugin.LoopWatchThreshold + plugin.LoopWatchPeriod + lateTick
	var code int
	var body string
	for {
		code, body = fetch(t, base+"/healthz")
		if code != http.StatusOK || time.Since(began) > limit+5*time.Second {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	took := time.Since(began)
	t.Logf("/healthz %d %v after the stall began: %s", code, took.Round(time.Millisecond), strings.TrimSpace(body))
	if code != http.StatusServiceUnavailable || took < plugin.LoopWatchThreshold-plugin.LoopWatchPeriod/2 || took > limit {
		t.Errorf("/healthz %d %v after the stall began, want 503 within [%v, %v]", code, took, plugin.LoopWatchThreshold-plugin.LoopWatchPeriod/2, limit)
	}
	if !strings.HasPrefix(body, "gobgp: main loop has not answered for ") || !strings.Contains(body, "(last answer ") ||
		!strings.Contains(body, "blocked (chan receive) in github.com/authbgp/authbgpd/speaker.(*stallHook).Fire") {
		t.Errorf("/healthz reason %q", body)
	}
	if code, lbody := fetch(t, base+"/livez"); code != http.StatusServiceUnavailable || !strings.HasPrefix(lbody, "gobgp: main loop has not answered") {
		t.Errorf("/livez during the stall: %d %q", code, lbody)
	}
	code, mbody := fetch(t, base+"/metrics")
	if code != http.StatusOK {
		t.Errorf("/metrics during the stall: %d", code)
	}
	if v := metric(t, mbody, "authbgpd_gobgp_loop_stalled"); v != 1 {
		t.Errorf("authbgpd_gobgp_loop_stalled %v during the stall, want 1", v)
	}
	if v := metric(t, mbody, "authbgpd_gobgp_loop_last_answer_age_seconds"); v < plugin.LoopWatchThreshold.Seconds() {
		t.Errorf("authbgpd_gobgp_loop_last_answer_age_seconds %v during the stall, want at least %v", v, plugin.LoopWatchThreshold.Seconds())
	}
	if code, _ := fetch(t, base+"/status"); code != http.StatusOK {
		t.Errorf("/status during the stall: %d", code)
	}

	hook.free()
	released := time.Now()
	for {
		code, body = fetch(t, base+"/healthz")
		if code == http.StatusOK || time.Since(released) > 5*time.Second {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("/healthz %d %v after the release", code, time.Since(released).Round(time.Millisecond))
	if code != http.StatusOK || time.Since(released) > plugin.LoopWatchPeriod+lateTick {
		t.Errorf("/healthz %d %q %v after the release, want 200 within %v", code, body, time.Since(released), plugin.LoopWatchPeriod+lateTick)
	}
	if code, _ := fetch(t, base+"/livez"); code != http.StatusOK {
		t.Errorf("/livez after the release: %d", code)
	}
	if v := metric(t, func() string { _, b := fetch(t, base+"/metrics"); return b }(), "authbgpd_gobgp_loop_stalled"); v != 0 {
		t.Errorf("authbgpd_gobgp_loop_stalled %v after the release", v)
	}
	if err := <-added; err != nil {
		t.Errorf("AddPeerGroup: %v", err)
	}
}
