package tcpsock

import (
	"net/netip"
	"testing"

	"github.com/authbgp/authbgpd/keys"
)

// TestOwnOnly: Observe's filter keeps this process's sockets, with their
// secrets, and wipes the secrets of the sockets it leaves out.
func TestOwnOnly(t *testing.T) {
	mine, theirs := keys.Secret("Mine-Key-1"), keys.Secret("Theirs-Key-2")
	socks := []SocketKeys{
		{Inode: 1, Keys: []ObservedKey{{Prefix: netip.MustParsePrefix("192.0.2.2/32"), Secret: mine}}},
		{Inode: 2, Keys: []ObservedKey{{Prefix: netip.MustParsePrefix("192.0.2.3/32"), Secret: theirs}}},
	}
	got := ownOnly(socks, map[uint64]bool{1: true, 3: true})
	if len(got) != 1 || got[0].Inode != 1 || !got[0].Keys[0].Secret.Equal(keys.Secret("Mine-Key-1")) {
		t.Fatalf("ownOnly kept %+v", got)
	}
	if !theirs.Equal(make(keys.Secret, len(theirs))) {
		t.Fatal("the secret of a socket left out is not wiped")
	}
}
