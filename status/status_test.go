package status

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestContractsPeerExample: the peer example of docs/CONTRACTS.md is a
// status.Peer, field for field (no unknown key, none missing).
func TestContractsPeerExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/CONTRACTS.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i := strings.Index(s, "The session fields come from GoBGP")
	j := strings.Index(s[max(i, 0):], "```\n")
	if i < 0 || j < 0 {
		t.Fatal("docs/CONTRACTS.md has no peer example after \"The session fields come from GoBGP\"")
	}
	s = s[i+j+4:]
	block := []byte(s[:strings.Index(s, "```")])
	var p Peer
	dec := json.NewDecoder(bytes.NewReader(block))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("the example is not a status.Peer: %v", err)
	}
	again, _ := json.Marshal(p)
	var got, want any
	json.Unmarshal(again, &got)
	json.Unmarshal(block, &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the example does not round-trip:\n got %s\nwant %s", again, block)
	}
	if p.LastNotification == nil || p.Timers == nil || len(p.Families) == 0 || p.Messages == nil ||
		p.LastError == nil || p.DowntimeSeconds == nil || p.Shadow == nil || len(p.Shadow.History) == 0 {
		t.Errorf("the example lacks a session field: %+v", p)
	}
}
