package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two interface peers at the same link-local address, fe80::2 on eth1 and
// on eth2, with their own keys; the capture (shadow's generator, see
// shadow/iface_test.go) is a pcapng with an interface block per link, in
// which the eth2 peer signs with eth1's key.
const vpIfaceConfig = `[global]
asn = 65001
router-id = "192.0.2.1"
[[peers]]
interface = "eth1"
asn = 65002
password-env = "VP_IF_KEY_1"
[[peers]]
interface = "eth2"
asn = 65003
vrf = "blue"
password-env = "VP_IF_KEY_2"
`

const vpIfaceCapture = "../../shadow/testdata/two-links-ll.pcapng"

func TestVerifyPcapInterfacePeers(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "r.toml")
	if err := os.WriteFile(cfg, []byte(vpIfaceConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VP_IF_KEY_1", "key-of-the-eth1-peer")
	t.Setenv("VP_IF_KEY_2", "key-of-the-eth2-peer")
	var out, errb bytes.Buffer
	if rc := run([]string{"verify-pcap", "-f", cfg, "--json", vpIfaceCapture}, &out, &errb); rc != 0 {
		t.Fatalf("exit %d: %s", rc, errb.String())
	}
	var rep struct {
		Peers []struct {
			Address, Peer, Interface, VRF string
			Shadow                        struct {
				Diagnosis string
				Segments  struct {
					Valid     uint64
					BadDigest uint64 `json:"bad_digest"`
				}
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	type row struct{ peer, iface, vrf, diag string }
	got := map[string]row{}
	for _, p := range rep.Peers {
		got[p.Address] = row{p.Peer, p.Interface, p.VRF, p.Shadow.Diagnosis}
	}
	want := map[string]row{
		"fe80::2%eth1": {"eth1", "eth1", "", "ok"},
		"fe80::2%eth2": {"eth2", "eth2", "blue", "bad-digest"},
	}
	if len(got) != len(want) || got["fe80::2%eth1"] != want["fe80::2%eth1"] || got["fe80::2%eth2"] != want["fe80::2%eth2"] {
		t.Fatalf("peers %+v, want %+v", got, want)
	}
	if errb.Len() != 0 {
		t.Errorf("notes for a capture that says everything: %s", errb.String())
	}
	// --fail-on names the eth2 peer only.
	errb.Reset()
	if rc := run([]string{"verify-pcap", "-f", cfg, "--fail-on", "bad-digest", vpIfaceCapture}, &out, &errb); rc != 1 ||
		!strings.Contains(errb.String(), "fe80::2%eth2 bad-digest") || strings.Contains(errb.String(), "eth1") {
		t.Fatalf("--fail-on: exit %d, %q", rc, errb.String())
	}
	if strings.Contains(out.String()+errb.String(), "key-of-the") {
		t.Fatal("report leaks a secret")
	}

	// The same packets as a plain pcap (no interfaces, no directions):
	// nothing is checked without our address, and then segments go to
	// the interface peer whose key verifies them (here every segment
	// verifies with one peer's key); each is said on stderr.
	pcap := filepath.Join(dir, "plain.pcap")
	if err := os.WriteFile(pcap, plainPcapOf(t, vpIfaceCapture), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if rc := run([]string{"verify-pcap", "-f", cfg, pcap}, &out, &errb); rc != 0 ||
		!strings.Contains(errb.String(), "which end is ours is unknown") || !strings.Contains(errb.String(), "does not say which interface") {
		t.Fatalf("plain pcap: exit %d\n%s\n%s", rc, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if rc := run([]string{"verify-pcap", "-f", cfg, "--local-address", "fe80::1", pcap}, &out, &errb); rc != 0 ||
		!strings.Contains(errb.String(), "whose TCP-MD5 key verifies them") || strings.Contains(errb.String(), "which end") {
		t.Fatalf("plain pcap, --local-address: exit %d\n%s\n%s", rc, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "fe80::2%eth1") || strings.Contains(out.String(), "bad-digest") {
		t.Fatalf("plain pcap: eth1's key verifies eth1's and eth2's peer segments; none may be called eth2's bad digest:\n%s", out.String())
	}
	for _, bad := range [][]string{{"--local-address", "eth1"}, {"--if-name", "eth1"}, {"--if-name", "0=eth1"}} {
		if rc := run(append([]string{"verify-pcap", "-f", cfg}, append(bad, pcap)...), &out, &errb); rc != 2 {
			t.Errorf("%v: exit %d, want 2", bad, rc)
		}
	}
}

// plainPcapOf rewrites a pcapng of Ethernet packets as a plain pcap,
// dropping the interface blocks and packet flags.
func plainPcapOf(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	le := func(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24 }
	put := func(out []byte, v uint32) []byte { return append(out, byte(v), byte(v>>8), byte(v>>16), byte(v>>24)) }
	out := put(nil, 0xa1b2c3d4)
	out = append(out, 2, 0, 4, 0)
	out = put(put(out, 0), 0)
	out = put(put(out, 65535), 1)
	for len(b) >= 12 {
		typ, n := le(b), le(b[4:])
		if typ == 6 { // enhanced packet block
			body := b[8:n]
			ts := uint64(le(body[4:]))<<32 | uint64(le(body[8:]))
			capLen := le(body[12:])
			out = put(put(out, uint32(ts/1e6)), uint32(ts%1e6))
			out = put(put(out, capLen), capLen)
			out = append(out, body[20:20+capLen]...)
		}
		b = b[n:]
	}
	return out
}
