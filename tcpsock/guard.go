package tcpsock

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"golang.org/x/net/bpf"
)

// Link-local guards. A listener's TCP-MD5 and TCP-AO keys are per address
// (and VRF), never per interface: when the far ends of two unnumbered links
// both use fe80::2, the listeners can carry the key of only one of them (the
// owner's), and a host on the other link that holds the owner's key would
// be admitted as its own link's peer. A guard is a classic BPF socket
// filter on the listener: a segment from a guarded address is taken only
// when it arrived on the owner's interface. The kernel runs the filter on
// every segment a listener receives, SYNs included, after the signature
// check and before the handshake; an accepted connection inherits it.

// Guard admits segments from Addr (IPv6, no zone) only when they arrived
// on the interface with index IfIndex.
type Guard struct {
	Addr    netip.Addr
	IfIndex int
}

// skfNetOff is SKF_NET_OFF: loads relative to the network header.
const skfNetOff = -0x100000

// etherTypeIPv6 is what SKF_AD_PROTOCOL gives for an IPv6 segment.
const etherTypeIPv6 = 0x86dd

// GuardProgram is the socket filter of guards: segments that are not IPv6,
// or not from a guarded address, are taken whole; one from a guarded
// address is dropped unless its interface is the guard's.
func GuardProgram(guards []Guard) ([]bpf.RawInstruction, error) {
	const accept, drop = 0xffffffff, 0
	prog := []bpf.Instruction{
		bpf.LoadExtension{Num: bpf.ExtProto},
	}
	// Each guard is a block of 12 instructions: the source address's four
	// words (load, compare: a mismatch goes to the next block), the
	// interface (load, compare) and drop, accept. After the last block,
	// accept.
	prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: etherTypeIPv6}) // SkipFalse: set below, to the last accept
	notV6 := len(prog) - 1
	for _, g := range guards {
		a := g.Addr.WithZone("").Unmap()
		if !a.Is6() || g.IfIndex <= 0 {
			return nil, fmt.Errorf("tcpsock: link-local guard for %s on ifindex %d: want an IPv6 address and an interface", g.Addr, g.IfIndex)
		}
		b := a.As16()
		for w := 0; w < 4; w++ { // the compare of word w is the block's instruction 2w+1
			prog = append(prog,
				bpf.LoadAbsolute{Off: uint32(int32(skfNetOff + 8 + 4*w)), Size: 4},
				bpf.JumpIf{Cond: bpf.JumpEqual, Val: binary.BigEndian.Uint32(b[4*w:]), SkipFalse: uint8(10 - 2*w)},
			)
		}
		prog = append(prog,
			bpf.LoadExtension{Num: bpf.ExtInterfaceIndex},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(g.IfIndex), SkipTrue: 1},
			bpf.RetConstant{Val: drop},
			bpf.RetConstant{Val: accept},
		)
	}
	prog = append(prog, bpf.RetConstant{Val: accept})
	skip := len(prog) - 1 - notV6 - 1
	if skip > 255 {
		return nil, fmt.Errorf("tcpsock: %d link-local guards: too many for one filter (at most 21)", len(guards))
	}
	j := prog[notV6].(bpf.JumpIf)
	j.SkipFalse = uint8(skip)
	prog[notV6] = j
	return bpf.Assemble(prog)
}
