//go:build authbgpd_testhooks

package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/peers"
	"github.com/authbgp/authbgpd/tcpao"
	"github.com/authbgp/authbgpd/tcpsock"
)

// testSockets, in test builds only (-tags authbgpd_testhooks), makes key
// installation fail for the peers listed in AUTHBGPD_TEST_FAIL_KEYS
// (comma-separated addresses or prefixes), as a kernel refusing the key
// would. The end-to-end fail-closed test uses it. AUTHBGPD_TEST_AO_ALGS
// ("RELEASE:NAME,NAME...", kernel names such as
// "7.2.0:hmac(sha1),cmac(aes128),hmac(sha256)") is the answer of the
// TCP-AO algorithm probe: a kernel that offers those and refuses the
// others with ENOENT.
func testSockets() peers.Sockets {
	v, algs := os.Getenv("AUTHBGPD_TEST_FAIL_KEYS"), os.Getenv("AUTHBGPD_TEST_AO_ALGS")
	if v == "" && algs == "" {
		return nil
	}
	f := failing{}
	if v != "" {
		f.fail = strings.Split(v, ",")
	}
	if algs != "" {
		rel, names, _ := strings.Cut(algs, ":")
		a := tcpsock.AOAlgorithms{Kernel: rel, Refused: map[tcpao.Algorithm]error{}}
		for _, x := range tcpao.Algorithms {
			if slices.Contains(strings.Split(names, ","), x.LinuxName()) {
				a.Accepted = append(a.Accepted, x)
			} else {
				a.Refused[x] = errors.New("ENOENT (no such file or directory; test build)")
			}
		}
		f.algs = &a
	}
	return f
}

type failing struct {
	tcpsock.ProcessSockets
	fail []string
	algs *tcpsock.AOAlgorithms
}

// Look is the real look, whose listener key installs fail for the scopes
// of AUTHBGPD_TEST_FAIL_KEYS: the failure comes on the production path.
func (f failing) Look(port uint16, full bool) tcpsock.Look {
	return failingLook{Look: f.ProcessSockets.Look(port, full), fail: f.fail, port: port}
}

type failingLook struct {
	tcpsock.Look
	fail []string
	port uint16
}

func (l failingLook) SetListenerKey(k md5auth.Key) (int, error) {
	for _, s := range l.fail {
		if s == k.Scope() {
			return 0, fmt.Errorf("tcpsock: set key for %s on listener port %d: injected failure (test build)", k.Scope(), l.port)
		}
	}
	return l.Look.SetListenerKey(k)
}

// AOAlgorithms is AUTHBGPD_TEST_AO_ALGS's kernel, else the real probe.
func (f failing) AOAlgorithms() tcpsock.AOAlgorithms {
	if f.algs != nil {
		return *f.algs
	}
	return f.ProcessSockets.AOAlgorithms()
}
