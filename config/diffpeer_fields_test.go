package config_test

import (
	"net/netip"
	"reflect"
	"testing"

	. "github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/fieldtest"
)

// peerFieldRole says what diffPeer must do when a field of Peer changes;
// TestDiffPeerCoversEveryField fails for a field missing here, so a field
// added to Peer is classified before a reload can miss it.
var peerFieldRole = map[string]string{
	// The peer's identity: another value is another peer (added and
	// removed), never a change of this one.
	"Address": "identity", "Prefix": "identity", "Interface": "identity",
	// Bookkeeping: where it was written.
	"Line": "ignored",
	// Where the secret came from: a change is one only when the secret
	// it gives (Password) or the mechanism changes, which diffPeer sees.
	"PasswordRef": "ignored",
	// Each of these must show in PeerChange.Fields.
	"VRF": "change", "ASN": "change", "Password": "change", "PasswordSource": "change",
	"Keychain": "change", "LocalAddress": "change", "Passive": "change", "MultihopTTL": "change",
	"Families": "change", "HoldTime": "change", "KeepaliveInterval": "change",
}

// TestDiffPeerCoversEveryField: every exported field of Peer is classified
// in peerFieldRole, and a change of each "change" field alone is reported
// by Diff (diffPeer) (so check --diff and a reload never say "no change" for a
// peer that changed).
func TestDiffPeerCoversEveryField(t *testing.T) {
	base := Peer{
		Address: netip.MustParseAddr("192.0.2.2"), VRF: "blue", ASN: 65002,
		Password: Secret("Base-Secret"), PasswordSource: SourcePassword,
		LocalAddress: netip.MustParseAddr("192.0.2.1"), MultihopTTL: 2,
		Families: []Family{IPv4Unicast}, HoldTime: 90, KeepaliveInterval: 30,
	}
	cfg := &Config{Keychains: []Keychain{{Name: "kc"}, {Name: "kc-other"}}}
	for _, name := range fieldtest.Exported(reflect.TypeOf(base)) {
		role, ok := peerFieldRole[name]
		if !ok {
			t.Errorf("Peer.%s is not in peerFieldRole: say whether diffPeer reports it (and teach diffPeer and peers.sameShape)", name)
			continue
		}
		if role != "change" {
			continue
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
			t.Errorf("Peer.%s changed alone, and Diff reports no change of the peer (%d changed, %d unchanged)", name, len(ch.Changed), len(ch.Unchanged))
		}
	}
}
