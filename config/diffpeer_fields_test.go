package config_test

import (
	"net/netip"
	"reflect"
	"testing"

	. "github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/fieldtest"
)

// peerFieldRole names the fields of Peer that Diff does not report as a
// change of the peer; every other field must show in PeerChange.Fields
// when it alone changes (TestDiffPeerCoversEveryField), so a field added to
// Peer is either taught to diffPeer (a row of peerAttrs) or named here.
var peerFieldRole = map[string]string{
	// The peer's identity: another value is another peer (added and
	// removed), never a change of this one.
	"Address": "identity", "Prefix": "identity", "Interface": "identity",
	// Bookkeeping: where it was written.
	"Line": "ignored",
	// Where the secret came from: a change is one only when the secret
	// it gives (Password) or the mechanism changes, which diffPeer sees.
	"PasswordRef": "ignored",
}

// TestDiffPeerCoversEveryField: a change of each exported field of Peer
// alone, but those peerFieldRole names, is reported by Diff (diffPeer), so
// check --diff and a reload never say "no change" for a peer that changed.
func TestDiffPeerCoversEveryField(t *testing.T) {
	base := Peer{
		Address: netip.MustParseAddr("192.0.2.2"), VRF: "blue", ASN: 65002,
		Password: Secret("Base-Secret"), PasswordSource: SourcePassword,
		LocalAddress: netip.MustParseAddr("192.0.2.1"), MultihopTTL: 2,
		Families: []Family{IPv4Unicast}, HoldTime: 90, KeepaliveInterval: 30,
	}
	cfg := &Config{Keychains: []Keychain{{Name: "kc"}, {Name: "kc-other"}}}
	for _, name := range fieldtest.Exported(reflect.TypeOf(base)) {
		if _, ok := peerFieldRole[name]; ok {
			continue
		}
		base := base
		if name == "GracefulRestartTime" {
			base.GracefulRestart = true // the time is graceful restart's
		}
		np := base
		np.Families = append([]Family(nil), base.Families...)
		if name == "Keychain" {
			// A keychain replaces the password (one key source).
			np.Password, np.PasswordSource, np.Keychain = nil, "", "kc"
		} else if f := reflect.ValueOf(&np).Elem().FieldByName(name); !fieldtest.OtherValue(f) {
			t.Errorf("Peer.%s: no other value for %s in fieldtest", name, f.Type())
			continue
		}
		oldCfg, newCfg := *cfg, *cfg
		oldCfg.Peers, newCfg.Peers = []Peer{base}, []Peer{np}
		ch := Diff(&oldCfg, &newCfg)
		if len(ch.Changed) != 1 || len(ch.Changed[0].Fields) == 0 {
			t.Errorf("Peer.%s changed alone, and Diff reports no change of the peer (%d changed, %d unchanged): give it a row of peerAttrs, or name it in peerFieldRole", name, len(ch.Changed), len(ch.Unchanged))
		}
	}
}
