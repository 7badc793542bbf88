package peers

import (
	"net/netip"
	"reflect"
	"testing"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/internal/fieldtest"
)

// notShape names the fields of config.Peer whose change alone keeps the
// GoBGP neighbor authbgpd makes of it (its keys are the reconciler's,
// installed in place), and the identity (another value is another peer).
// Every other field shapes the neighbor: a change of it alone must make
// sameShape false (TestSameShapeCoversEveryField), so a field added to
// config.Peer is either taught to apiPeer (neighborShape) or named here.
var notShape = map[string]bool{
	"Address": true, "Prefix": true, "Interface": true, // identity
	// Key material and bookkeeping: never the neighbor's.
	"Password": true, "PasswordRef": true, "Keychain": true, "Line": true,
	// A static neighbor's prefix limit: updated in place (limitsDiffer,
	// TestPrefixLimitPlan); a range's shapes its peer group.
	"MaxPrefixes": true, "MaxPrefixesWarning": true,
	// The policy assignment: changed in place (pass_policy.go).
	"ImportPolicyList": true, "DefaultImportPolicy": true, "ExportPolicyList": true, "DefaultExportPolicy": true,
}

// TestSameShapeCoversEveryField: a change of each field of config.Peer
// alone changes sameShape's answer exactly when it should (notShape). A
// field sameShape missed would keep a stale GoBGP neighbor through a
// reload.
func TestSameShapeCoversEveryField(t *testing.T) {
	base := config.Peer{
		Address: netip.MustParseAddr("192.0.2.2"), VRF: "blue", ASN: 65002,
		Password: config.Secret("Base-Secret"), PasswordSource: config.SourcePassword,
		MultihopTTL: 2, Families: []config.Family{config.IPv4Unicast}, HoldTime: 90, KeepaliveInterval: 30,
	}
	for _, name := range fieldtest.Exported(reflect.TypeOf(base)) {
		shape := !notShape[name]
		if name == "Address" || name == "Prefix" || name == "Interface" {
			continue // the identity: another peer (sameShape compares IDs first)
		}
		base := base
		if name == "GracefulRestartTime" {
			base.GracefulRestart = true // the time is graceful restart's
		}
		np := base
		np.Families = append([]config.Family(nil), base.Families...)
		switch name {
		case "Keychain":
			np.Keychain = "kc" // an MD5 keychain: the mechanism stays
		case "PasswordSource":
			np.Password, np.PasswordSource = nil, "" // unkeyed
		default:
			if f := reflect.ValueOf(&np).Elem().FieldByName(name); !fieldtest.OtherValue(f) {
				t.Errorf("config.Peer.%s: no other value for %s in fieldtest", name, f.Type())
				continue
			}
		}
		if got := !sameShape(&base, &np); got != shape {
			t.Errorf("config.Peer.%s changed alone: sameShape says the neighbor changes %v, want %v (teach apiPeer the field, or name it in notShape)", name, got, shape)
		}
	}
}
