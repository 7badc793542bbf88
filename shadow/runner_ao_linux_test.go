//go:build linux

package shadow

import (
	"context"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/netns"
	"github.com/authbgp/authbgpd/internal/testenv"
	"github.com/authbgp/authbgpd/metrics"
	"github.com/authbgp/authbgpd/peerindex"
)

// TestRunnerCapturesTCPAO runs the live Runner on a real AF_PACKET capture
// without needing a kernel with TCP-AO: the generated TCP-AO and TCP-MD5
// frames are written onto a veth from the other namespace, so they reach
// the Runner's ring, filter and checker exactly as a peer's would (the
// kernel's TCP stack drops them afterwards, which the capture never sees).
func TestRunnerCapturesTCPAO(t *testing.T) {
	testenv.RequireRoot(t)
	tp := netns.New(t, "shao")
	a, b := tp.Add("a"), tp.Add("b")
	tp.Link(a, "eth0", []string{"192.0.2.1/24", "2001:db8::1/64"}, b, "eth0", []string{"192.0.2.99/24"})
	cfg, err := config.Parse("r.toml", []byte(aoConfig+"\n[shadow]\nenabled = true\nworkers = 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	log := logrus.New()
	log.SetOutput(io.Discard)
	r := NewRunner(peerindex.New(cfg), log, metrics.New("test"), RunnerOptions{})
	if err := netns.Do(a, func() error { return r.Start(context.Background()) }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Stop(context.Background()) })
	if st := r.CaptureStatus(); !st.Running || st.Error != "" {
		t.Fatalf("capture: %+v", st)
	}
	var mac net.HardwareAddr
	if err := netns.Do(a, func() error {
		b, err := os.ReadFile("/sys/class/net/eth0/address")
		if err == nil {
			mac, err = net.ParseMAC(strings.TrimSpace(string(b)))
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	mixed, _ := generateAO(t)
	if err := netns.Do(b, func() error {
		ifi, err := net.InterfaceByName("eth0")
		if err != nil {
			return err
		}
		fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		to := &unix.SockaddrLinklayer{Ifindex: ifi.Index, Halen: 6}
		copy(to.Addr[:], mac)
		for _, p := range mixed {
			f := append([]byte(nil), p.frame...)
			copy(f[0:6], mac)
			copy(f[6:12], ifi.HardwareAddr)
			if err := unix.Sendto(fd, f, 0, to); err != nil {
				return err
			}
			time.Sleep(200 * time.Microsecond) // keep the order on the wire
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		reps := r.Reports()
		var wrong []string
		for _, w := range aoWant {
			if got := reps[w.peer].Diagnosis; got != w.diag {
				wrong = append(wrong, w.peer+": "+got+", want "+w.diag)
			}
		}
		if len(wrong) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s:\n  %s", strings.Join(wrong, "\n  "))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st := r.CaptureStatus(); st.Drops != 0 || st.Packets < uint64(len(mixed)) {
		t.Errorf("capture: %+v, want %d packets, no drops", st, len(mixed))
	}
	if r := r.Reports()["192.0.2.12"]; len(r.KeyIDs) != 3 || r.Received.Valid != 11 || r.Sent.Valid != 9 {
		t.Errorf("rollover peer: %+v", r)
	}
}
