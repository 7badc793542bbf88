package shadow

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// scapyVerifier is an independent verifier of a capture, in Python with
// scapy's TCP-AO module (calc_tcpao_traffic_key, calc_tcpao_mac; not
// sign_tcpao, which MACs twice) and hashlib for TCP-MD5. It shares no code
// with the checker: it follows each connection's ISNs from its SYN and
// SYN-ACK, extends sequence numbers itself (the nearest 64-bit value to
// the highest verified one), picks the master key by KeyID, and prints one
// verdict per TCP segment of a configured peer, in the generator's labels.
const scapyVerifier = `
import json, sys, logging, hashlib, struct
logging.getLogger("scapy").setLevel(logging.ERROR)
from scapy.all import rdpcap
from scapy.layers.inet import IP, TCP
from scapy.layers.inet6 import IPv6
from scapy.contrib.tcpao import calc_tcpao_traffic_key, calc_tcpao_mac, get_alg

cfg = json.load(open(sys.argv[1]))
peers = {p["addr"]: p for p in cfg["peers"]}

def options(th):
    """(ao, md5): ao = (keyid, rnext, mac) or None; md5 = digest or None."""
    raw = bytes(th)
    end = th.dataofs * 4
    i, ao, md5 = 20, None, None
    while i < end:
        k = raw[i]
        if k == 0: break
        if k == 1: i += 1; continue
        l = raw[i+1]
        if k == 29: ao = (raw[i+2], raw[i+3], raw[i+4:i+l])
        if k == 19: md5 = raw[i+2:i+l]
        i += l
    return ao, md5

def md5_digest(ip, th, key):
    raw = bytes(th)
    payload = raw[th.dataofs*4:]
    if ip.version == 4:
        ph = bytes(map(int, ip.src.split("."))) + bytes(map(int, ip.dst.split("."))) + struct.pack("!BBH", 0, 6, len(raw))
    else:
        import ipaddress
        ph = ipaddress.IPv6Address(ip.src).packed + ipaddress.IPv6Address(ip.dst).packed + struct.pack("!I", len(raw)) + b"\0\0\0\x06"
    hdr = raw[:16] + b"\0\0" + raw[18:20]
    return hashlib.md5(ph + hdr + payload + key).digest()

conns = {}   # (peer, peer port, local, local port) -> {"isn": {dir: isn}, "init": dir, "hi": {dir: 64-bit}}

def sne_of(c, d, seq):
    hi = c["hi"][d]
    best = None
    for s in ((hi >> 32) - 1, hi >> 32, (hi >> 32) + 1):
        if s < 0: continue
        v = (s << 32) | seq
        if best is None or abs(v - hi) < abs(best - hi): best = v
    return best >> 32, best

for pkt in rdpcap(sys.argv[2]):
    ip = pkt[IP] if IP in pkt else pkt[IPv6]
    th = pkt[TCP]
    if ip.src in peers and th.sport == 179 or ip.src in peers and th.dport == 179:
        peer, out, d = peers[ip.src], False, "rx"
    elif ip.dst in peers and (th.dport == 179 or th.sport == 179):
        peer, out, d = peers[ip.dst], True, "tx"
    else:
        continue
    other = "tx" if d == "rx" else "rx"
    key = (peer["addr"],) + ((th.sport, ip.dst, th.dport) if not out else (th.dport, ip.src, th.sport))
    ao, md5 = options(th)
    syn, ack = th.flags & 0x02, th.flags & 0x10
    c = conns.get(key)
    if syn and not ack:
        if not (c and c["init"] == d and c["isn"].get(d) == th.seq):
            c = conns[key] = {"init": d, "isn": {d: th.seq}, "hi": {d: th.seq}, "ao": False}
        c["ao"] = c["ao"] or ao is not None
    elif syn and ack:
        if not (c and c["init"] == other and c["isn"].get(other) == (th.ack - 1) % 2**32):
            c = conns[key] = {"init": other, "isn": {other: (th.ack - 1) % 2**32}, "hi": {other: (th.ack - 1) % 2**32}, "ao": False}
        if c["isn"].get(d) != th.seq:
            c["isn"][d] = th.seq
            c["hi"][d] = th.seq
        c["ao"] = c["ao"] or ao is not None
    mode = peer["mode"]
    if mode == "md5":
        if md5 is not None:
            ok = md5_digest(ip, th, bytes.fromhex(peer["password"])) == md5
            v = "valid" if ok else "bad_digest"
            print(("sent:" + ("valid" if ok else "invalid")) if out else v)
        elif out:
            print("sent:unsigned")
        else:
            print("missing+wrongmech" if ao is not None else "missing")
        continue
    if mode == "none":
        if not out and (ao is not None or md5 is not None):
            print("unexpected")
        elif out:
            print("sent:ignored")
        else:
            print("ignored")
        continue
    # TCP-AO
    if ao is None:
        if out: print("sent:unsigned")
        else: print("missing+wrongmech" if md5 is not None else "missing")
        continue
    keyid, rnext, mac = ao
    mk = [k for k in peer["keys"] if (k["send_id"] if out else k["recv_id"]) == keyid]
    if not mk:
        print("sent:invalid" if out else "unknown_key")
        continue
    mk = mk[0]
    alg = get_alg(mk["alg"])
    secret = bytes.fromhex(mk["secret"])
    if syn and not ack:
        if c is None or c["init"] != d:
            print("sent:no_handshake" if out else "no_handshake"); continue
        sisn, disn = c["isn"][d], 0
    else:
        if c is None or d not in c["isn"] or other not in c["isn"] or not c["ao"]:
            print("sent:no_handshake" if out else "no_handshake"); continue
        sisn, disn = c["isn"][d], c["isn"][other]
    sne, ext = sne_of(c, d, th.seq)
    tk = calc_tcpao_traffic_key(ip, alg, secret, sisn, disn)
    if calc_tcpao_mac(ip, alg, tk, include_options=mk["include"], sne=sne) == mac:
        if ext > c["hi"][d]: c["hi"][d] = ext
        print("sent:valid" if out else "valid")
    elif out:
        print("sent:invalid")
    elif calc_tcpao_mac(ip, alg, tk, include_options=not mk["include"], sne=sne) == mac:
        print("bad_mac+flipped")
    else:
        print("bad_mac")
sys.stdout.flush()
`

// scapyConfig writes peers as the verifier's JSON config.
func scapyConfig(t *testing.T, peers []Peer) []byte {
	var out struct {
		Peers []map[string]any `json:"peers"`
	}
	for _, p := range peers {
		m := map[string]any{"addr": p.Prefix.Addr().String()}
		switch {
		case p.TCPAO:
			m["mode"] = "ao"
			var ks []map[string]any
			for _, k := range p.Keys {
				ks = append(ks, map[string]any{"alg": strings.ToUpper(k.Alg.String()), "secret": hex.EncodeToString(k.Secret),
					"send_id": k.SendID, "recv_id": k.RecvID, "include": k.IncludeOptions})
			}
			m["keys"] = ks
		case len(p.Keys) > 0:
			m["mode"], m["password"] = "md5", hex.EncodeToString(p.Keys[0].Secret)
		default:
			m["mode"] = "none"
		}
		out.Peers = append(out.Peers, m)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestScapyCrossCheck runs the independent scapy verifier over the
// generated captures (testdata/tcpao-mixed.pcap, tcpao-midstream.pcap)
// and requires its verdict and the checker's to agree on every TCP segment
// of a configured peer, and both to be what the generator meant. It skips,
// saying why, without /usr/bin/python3 and Debian's python3-scapy, unless
// E2E_REQUIRED=1 (then it fails).
func TestScapyCrossCheck(t *testing.T) {
	const python = "/usr/bin/python3"
	unavailable := func(why string) {
		if os.Getenv("E2E_REQUIRED") == "1" {
			t.Fatalf("E2E_REQUIRED=1 and the scapy verifier is unavailable: %s (apt-get install python3-scapy)", why)
		}
		t.Skipf("scapy verifier unavailable: %s (apt-get install python3-scapy; E2E_REQUIRED=1 makes this a failure)", why)
	}
	if _, err := os.Stat(python); err != nil {
		unavailable(python + " is missing")
	}
	if out, err := exec.Command(python, "-c", "import scapy.contrib.tcpao, cryptography").CombinedOutput(); err != nil {
		unavailable(fmt.Sprintf("%s cannot import scapy.contrib.tcpao: %v: %s", python, err, bytes.TrimSpace(out)))
	}
	peers := aoPeers(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "peers.json")
	if err := os.WriteFile(cfg, scapyConfig(t, peers), 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "verify.py")
	if err := os.WriteFile(script, []byte(scapyVerifier), 0o600); err != nil {
		t.Fatal(err)
	}
	mixed, mid := generateAO(t)
	total := 0
	for _, f := range []struct {
		file string
		pkts []aoPacket
	}{{"tcpao-mixed.pcap", mixed}, {"tcpao-midstream.pcap", mid}} {
		path := filepath.Join("testdata", f.file)
		cmd := exec.Command(python, script, cfg, path)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: scapy verifier: %v\n%s", f.file, err, stderr.String())
		}
		var got []string
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		// The checker on the committed file (TestAOCaptures proves it is
		// the generator's output, whose labels are f.pkts' want).
		c := New(peers, Options{IdleAfter: -1})
		var ours []string
		for _, s := range loadSegments(t, path) {
			if r := c.Check(s.Src, s.Dst, s.SrcPort, s.DstPort, s.Segment, time.Time{}); r.PeerID != "" {
				ours = append(ours, aoLabel(r))
			}
		}
		if len(got) != len(ours) || len(ours) != len(f.pkts) {
			t.Fatalf("%s: scapy judged %d segments, the checker %d, the generator made %d", f.file, len(got), len(ours), len(f.pkts))
		}
		for i := range ours {
			if got[i] != ours[i] || ours[i] != f.pkts[i].want {
				t.Errorf("%s: %s: scapy %s, checker %s, generator %s", f.file, f.pkts[i].desc, got[i], ours[i], f.pkts[i].want)
			}
		}
		total += len(ours)
	}
	ver, _ := exec.Command(python, "-c", "import scapy; print(scapy.__version__)").Output()
	t.Logf("scapy %s and the checker agree on all %d segments of the generated captures", bytes.TrimSpace(ver), total)
}
