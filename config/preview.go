package config

import (
	"fmt"
	"strconv"
	"strings"
)

// Preview is what a reload from one config to another does, as served by
// POST /-/reload and printed by `authbgpd reload` and `check --diff`. It
// never holds a secret: a changed key shows as the field "secret" and
// Rekey, never as its value.
type Preview struct {
	File    string `json:"file"`
	DryRun  bool   `json:"dry_run"`
	Applied bool   `json:"applied"` // the running config is now File's
	// Added and Removed are peers (address, prefix or interface).
	Added   []string        `json:"added"`
	Removed []string        `json:"removed"`
	Changed []PreviewChange `json:"changed"`
	// Other lists the other changes ("[api]", "keychain NAME added",
	// "peer 192.0.2.2 moves from VRF blue to VRF red: session reset ...").
	Other []string `json:"other"`
	// Refused are the reasons the reload is (or would be) rejected whole:
	// errors in the file, or global keys that need a restart.
	Refused  []Refusal `json:"refused"`
	Warnings []string  `json:"warnings"`
	// Errors are problems met while applying an accepted reload (a peer
	// that could not be added, ...): the new config is running anyway.
	Errors []string `json:"errors"`
}

// PreviewChange is one peer present in both configs with differences.
type PreviewChange struct {
	Peer   string   `json:"peer"`
	Fields []string `json:"fields"` // config keys, as in PeerChange.Fields
	Rekey  bool     `json:"rekey"`  // the TCP-MD5 key changes
	Reset  bool     `json:"reset"`  // the session is reset (anything but a key change)
}

// Refusal is why a reload is rejected: FILE:LINE and the key at fault.
type Refusal struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Key     string `json:"key,omitempty"`
	Message string `json:"message"` // "FILE:LINE: message"
}

// OK reports whether the reload is (or would be) accepted.
func (p *Preview) OK() bool { return len(p.Refused) == 0 }

// NewPreview describes a reload from old to new, in a daemon that started
// with old (see NewReloadPreview).
func NewPreview(old, new *Config) Preview { return newPreview(old, PlanReload(old, new)) }

func newPreview(started *Config, pl Plan) Preview {
	old, new, ch := pl.Old, pl.New, pl.Changes
	p := emptyPreview(new.File)
	for _, w := range new.Warnings {
		p.Warnings = append(p.Warnings, w.String())
	}
	for _, e := range ch.Refusals(old, new) {
		p.Refused = append(p.Refused, refusalOf(e, restartKey(e)))
	}
	p.Refused = append(p.Refused, pl.Refused...)
	for _, np := range ch.Added {
		p.Added = append(p.Added, np.ID())
	}
	for _, op := range ch.Removed {
		p.Removed = append(p.Removed, op.ID())
	}
	readd := map[string]bool{}
	for _, id := range pl.Readds {
		readd[id] = true
	}
	for _, pc := range ch.Changed {
		p.Changed = append(p.Changed, PreviewChange{Peer: pc.ID, Fields: pc.Fields, Rekey: pc.KeyChanged, Reset: !pc.InPlace() || switchesMechanism(pc) || readd[pc.ID]})
		delete(readd, pc.ID)
	}
	for _, id := range pl.Readds { // re-added, though the diff sees no change
		if readd[id] {
			p.Changed = append(p.Changed, PreviewChange{Peer: id, Fields: []string{}, Reset: true})
		}
	}
	p.Other = ch.others(RestartOnly(started, new))
	return p
}

// RejectedPreview is the preview of a file that does not load: each error
// is a refusal.
func RejectedPreview(file string, err error) Preview {
	p := emptyPreview(file)
	for _, e := range Errors(err) {
		p.Refused = append(p.Refused, refusalOf(e, ""))
	}
	return p
}

func emptyPreview(file string) Preview {
	return Preview{File: file, Added: []string{}, Removed: []string{}, Changed: []PreviewChange{},
		Other: []string{}, Refused: []Refusal{}, Warnings: []string{}, Errors: []string{}}
}

// NewRefusal is the refusal of e, the key at fault being key (a dotted
// path: "global.asn", "keychains.keys.algorithm").
func NewRefusal(e *Error, key string) Refusal { return refusalOf(e, key) }

func refusalOf(e *Error, key string) Refusal {
	return Refusal{File: e.File, Line: e.Line, Key: key, Message: e.Error()}
}

// restartKey is the "global.KEY" a Refusals error names.
func restartKey(e *Error) string {
	key, _, _ := strings.Cut(e.Msg, ":")
	return key
}

// others lists, in a fixed order, after restart (RestartOnly's lines),
// the peers that move between VRFs (a session reset: PeerChange.VRFMove)
// and the changes that are not peers.
func (ch *Changes) others(restart []string) []string {
	out := []string{}
	flag := func(b bool, s string) {
		if b {
			out = append(out, s)
		}
	}
	out = append(out, restart...)
	for i := range ch.Changed {
		if m := ch.Changed[i].VRFMove(); m != "" {
			out = append(out, m)
		}
	}
	flag(ch.Log, "[log] changed")
	flag(ch.Shadow, "[shadow] changed")
	flag(ch.Headend, "[srv6.headend] changed")
	list := func(what, verb string, names []string) {
		for _, n := range names {
			out = append(out, fmt.Sprintf("%s %s %s", what, n, verb))
		}
	}
	list("keychain", "added", ch.KeychainsAdded)
	list("keychain", "removed", ch.KeychainsRemoved)
	list("keychain", "changed", ch.KeychainsChanged)
	ids := func(v []uint32) []string {
		s := make([]string, len(v))
		for i, id := range v {
			s[i] = strconv.FormatUint(uint64(id), 10)
		}
		return s
	}
	list("srv6 hmac-key", "added", ids(ch.HMACKeysAdded))
	list("srv6 hmac-key", "removed", ids(ch.HMACKeysRemoved))
	list("srv6 hmac-key", "changed", ids(ch.HMACKeysChanged))
	list("srv6 policy", "added", ch.PoliciesAdded)
	list("srv6 policy", "removed", ch.PoliciesRemoved)
	list("srv6 policy", "changed", ch.PoliciesChanged)
	list("network", "announced (no session reset)", ch.NetworksAdded)
	list("network", "withdrawn (no session reset)", ch.NetworksRemoved)
	list("network", "announced again with its new communities (no session reset)", ch.NetworksChanged)
	return append(out, ch.policyLines()...) // policy.go
}

// switchesMechanism reports a change between TCP-AO and TCP-MD5 or none:
// a connection cannot change mechanism, so the session is ended (with a
// Cease signed with the old key) and the peer's next one uses the new.
func switchesMechanism(pc PeerChange) bool {
	return (pc.Old.Auth().Mode == AuthTCPAO) != (pc.New.Auth().Mode == AuthTCPAO)
}
