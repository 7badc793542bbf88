package config

import (
	"math"
	"net/netip"
)

func (d *decoder) global(rt *table, g *Global) {
	t, _ := rt.subTable("global", "[global]", &g.m)
	g.Line = t.line
	if n, ok := t.integer("asn", 0, math.MaxUint32); ok {
		g.ASN = uint32(n)
	}
	d.routerID(t, g) // routerid.go
	g.ListenPort = DefaultListenPort
	if t.has("listen-port") {
		v, _ := t.get("listen-port")
		if n, ok := v.(int64); ok {
			if n < -1 || n > 65535 {
				// Out-of-range values keep their value so Validate reports them.
				g.ListenPort = int(max(min(n, math.MaxInt32), math.MinInt32))
			} else {
				g.ListenPort = int(n)
			}
		} else {
			t.typeErr("listen-port", "integer", v)
		}
	}
	if t.has("listen-addresses") {
		g.ListenAddresses, _ = t.addrs("listen-addresses")
		if g.ListenAddresses == nil {
			g.ListenAddresses = []netip.Addr{}
		}
	} else {
		g.ListenAddresses = DefaultListenAddresses()
	}
	d.gracefulRestart(t, g) // gr.go
	if b, ok := t.boolean("ebgp-requires-policy"); ok {
		g.EBGPRequiresPolicy = b
	}
	t.finish()
}
