package config

import (
	"math"
	"net/netip"
)

func (d *decoder) srv6(rt *table, s *SRv6) {
	t, _ := rt.subTable("srv6", "[srv6]", nil)
	s.HMACKeys = appendTables(s.HMACKeys, t, "hmac-keys", "[[srv6.hmac-keys]]", HMACKey{}, func(ht *table, h *HMACKey) {
		if n, ok := ht.integer("id", 0, math.MaxUint32); ok {
			h.ID = uint32(n)
		}
		h.Algorithm, _ = ht.str("algorithm")
		h.Secret, h.SecretSource, h.SecretRef = d.secret(ht, SourceSecret, nil)
	})
	s.Policies = appendTables(s.Policies, t, "policies", "[[srv6.policies]]", Policy{Preference: DefaultPreference}, policy)
	h := &s.Headend
	ht, _ := t.subTable("headend", "[srv6.headend]", &h.m)
	h.Line = ht.line
	if b, ok := ht.boolean("enabled"); ok {
		h.Enabled = b
	}
	if ht.has("source") {
		h.Source, _ = ht.addr("source")
	}
	h.SteerEndpoint = true
	if b, ok := ht.boolean("steer-endpoint"); ok {
		h.SteerEndpoint = b
	}
	ht.finish()
	t.finish()
}

// policy decodes one [[srv6.policies]] entry.
func policy(pt *table, p *Policy) {
	p.Name, _ = pt.str("name")
	if n, ok := pt.integer("color", 0, math.MaxUint32); ok {
		p.Color = uint32(n)
	}
	if pt.has("endpoint") {
		p.Endpoint, _ = pt.addr("endpoint")
	}
	if n, ok := pt.integer("distinguisher", 0, math.MaxUint32); ok {
		p.Distinguisher = uint32(n)
	}
	if n, ok := pt.integer("preference", 0, math.MaxUint32); ok {
		p.Preference = uint32(n)
	}
	if pt.has("binding-sid") {
		p.BindingSID, _ = pt.addr("binding-sid")
	}
	if pt.has("segments") {
		p.Segments, _ = pt.addrs("segments")
		if p.Segments == nil {
			p.Segments = []netip.Addr{}
		}
	}
	if n, ok := pt.integer("hmac-key-id", 0, math.MaxUint32); ok {
		p.HMACKeyID = uint32(n)
	}
	if pt.has("headends") {
		p.Headends, _ = pt.addrs("headends")
	}
}
