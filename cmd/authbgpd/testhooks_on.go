//go:build authbgpd_testhooks

package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/authbgp/authbgpd/md5auth"
	"github.com/authbgp/authbgpd/peers"
)

// testSockets, in test builds only (-tags authbgpd_testhooks), makes key
// installation fail for the peers listed in AUTHBGPD_TEST_FAIL_KEYS
// (comma-separated addresses or prefixes), as a kernel refusing the key
// would. The end-to-end fail-closed test uses it.
func testSockets() peers.Sockets {
	v := os.Getenv("AUTHBGPD_TEST_FAIL_KEYS")
	if v == "" {
		return nil
	}
	return failing{fail: strings.Split(v, ",")}
}

type failing struct {
	md5auth.ProcessSockets
	fail []string
}

func (f failing) SetListenerKey(port uint16, k md5auth.Key) (int, error) {
	for _, s := range f.fail {
		if s == k.Scope() {
			return 0, fmt.Errorf("md5auth: set key for %s on listener port %d: injected failure (test build)", k.Scope(), port)
		}
	}
	return f.ProcessSockets.SetListenerKey(port, k)
}
