package fib

import (
	"net/netip"

	"github.com/authbgp/authbgpd/kroute"
)

// cpfx is a prefix in 18 bytes, for the keys of the maps that hold one
// entry per route (netip.Prefix is 32: its address carries a zone
// pointer, and routes have no zone). A million routes save some 28 MB
// per map, and the garbage collector has no pointer to follow.
type cpfx struct {
	a    [16]byte
	bits uint8
	v4   bool
}

func compactPrefix(p netip.Prefix) cpfx {
	return cpfx{a: p.Addr().As16(), bits: uint8(p.Bits()), v4: p.Addr().Is4()}
}

func (c cpfx) prefix() netip.Prefix {
	a := netip.AddrFrom16(c.a)
	if c.v4 {
		a = a.Unmap()
	}
	return netip.PrefixFrom(a, int(c.bits))
}

// okey is a kroute.Key in 24 bytes (observed's map key).
type okey struct {
	table uint32
	dst   cpfx
}

func compactKey(k kroute.Key) okey { return okey{table: k.Table, dst: compactPrefix(k.Dst)} }

func (k okey) key() kroute.Key { return kroute.Key{Table: k.table, Dst: k.dst.prefix()} }
