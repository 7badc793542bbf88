package kdrops

import (
	"fmt"
	"slices"

	"github.com/cilium/ebpf/asm"
)

// Wire-format offsets in the IP header (RFC 791, RFC 8200).
const (
	ipv4SrcOff = 12
	ipv6SrcOff = 8
)

// Stack slots of the program (offsets from the frame pointer R10).
const (
	stScratch  = -8                    // u64: what bpf_probe_read_kernel reads
	stKey      = -8 - keySize          // the map key, 24 bytes
	stAddr     = stKey + keyAddrOff    // key.addr[16]
	stReason   = stKey + keyReasonOff  // key.reason
	stIfIndex  = stKey + keyIfIndexOff // key.ifindex
	stOne      = stKey - 8             // u64 1, the value of a new entry
	stOverflow = stOne - 4             // u32 index into the overflow array
)

// Helper return value for an existing key with BPF_NOEXIST.
const errEEXIST = -17

const bpfNoExist = 1 // BPF_NOEXIST

// program returns the instructions of the raw tracepoint program that
// counts reason: ctx is the tracepoint's u64 args[], args[0] the struct
// sock, args[1] the struct sk_buff (skb->data at the TCP header, the
// network header at the IP header).
//
//	net = sk->__sk_common.skc_net.net; if net->net_cookie != cookie: return
//	ip  = skb->head + skb->network_header
//	key = {source address of ip (IPv4 as ::ffff:a.b.c.d), reason,
//	       skb->skb_iif if the source is IPv6 link-local (fe80::/10) and
//	       o.hasIif, else 0}
//	counts[key] += 1 (atomically; inserted with BPF_NOEXIST, and on a
//	race with another CPU looked up again), or overflow[reason] += 1 when
//	the table is full or the IP header cannot be read.
//
// countsFD and overflowFD are the file descriptors of the two maps.
func program(o offsets, cookie uint64, reason Reason, countsFD, overflowFD int) asm.Instructions {
	return seq(ownNetns(o, cookie), sourceKey(o, reason), count(countsFD, overflowFD, reason))
}

// ownNetns loads sk (R7) and skb (R8) and exits unless the socket's
// network namespace has the cookie: only ours counts.
func ownNetns(o offsets, cookie uint64) asm.Instructions {
	return seq(
		asm.LoadMem(asm.R7, asm.R1, 0, asm.DWord), // sk
		asm.LoadMem(asm.R8, asm.R1, 8, asm.DWord), // skb
		asm.JEq.Imm(asm.R7, 0, "exit"),
		asm.JEq.Imm(asm.R8, 0, "exit"),
		zero64(stScratch),
		probeRead(stScratch, 8, asm.R7, int32(o.sockNet)),
		asm.JNE.Imm(asm.R0, 0, "exit"),
		asm.LoadMem(asm.R6, asm.R10, stScratch, asm.DWord),
		asm.JEq.Imm(asm.R6, 0, "exit"),
		probeRead(stScratch, 8, asm.R6, int32(o.netCookie)),
		asm.JNE.Imm(asm.R0, 0, "exit"),
		asm.LoadMem(asm.R1, asm.R10, stScratch, asm.DWord),
		asm.LoadImm(asm.R2, int64(cookie), asm.DWord),
		asm.JNE.Reg(asm.R1, asm.R2, "exit"),
	)
}

// sourceKey fills the map key: the IP header's source address (IPv4 as
// ::ffff:a.b.c.d) and reason. From here on every drop is counted, in the
// overflow slot if its address cannot be had.
func sourceKey(o offsets, reason Reason) asm.Instructions {
	return seq(
		// The key is zeroed, then addr and reason are filled in.
		zero64(stKey),
		zero64(stKey+8),
		zero64(stKey+16), // reason and ifindex
		asm.StoreImm(asm.R10, stReason, int64(reason), asm.Word),

		// R9 = skb->head + skb->network_header: the IP header.
		zero64(stScratch),
		probeRead(stScratch, 8, asm.R8, int32(o.skbHead)),
		asm.JNE.Imm(asm.R0, 0, "overflow"),
		asm.LoadMem(asm.R9, asm.R10, stScratch, asm.DWord),
		asm.JEq.Imm(asm.R9, 0, "overflow"),
		zero64(stScratch),
		probeRead(stScratch, 2, asm.R8, int32(o.skbNetworkHeader)),
		asm.JNE.Imm(asm.R0, 0, "overflow"),
		asm.LoadMem(asm.R1, asm.R10, stScratch, asm.Half),
		asm.Add.Reg(asm.R9, asm.R1),

		// The IP version nibble.
		zero64(stScratch),
		probeRead(stScratch, 1, asm.R9, 0),
		asm.JNE.Imm(asm.R0, 0, "overflow"),
		asm.LoadMem(asm.R1, asm.R10, stScratch, asm.Byte),
		asm.RSh.Imm(asm.R1, 4),
		asm.JEq.Imm(asm.R1, 6, "ipv6"),
		asm.JNE.Imm(asm.R1, 4, "overflow"),

		// IPv4: ::ffff:a.b.c.d.
		probeRead(stAddr+12, 4, asm.R9, ipv4SrcOff),
		asm.JNE.Imm(asm.R0, 0, "overflow"),
		asm.StoreImm(asm.R10, stAddr+10, 0xffff, asm.Half),
		asm.Ja.Label("count"),

		// IPv6.
		labelled("ipv6", probeRead(stAddr, 16, asm.R9, ipv6SrcOff)),
		asm.JNE.Imm(asm.R0, 0, "overflow"),
		linkLocalIfIndex(o),
	)
}

// linkLocalIfIndex puts skb->skb_iif (skb in R8) into the key when the
// IPv6 source address at stAddr is link-local (fe80::/10), then goes on
// to "count"; a failed read leaves the ifindex 0. Nothing when the kernel
// offset is unknown.
func linkLocalIfIndex(o offsets) asm.Instructions {
	if !o.hasIif {
		return nil
	}
	return seq(
		asm.LoadMem(asm.R1, asm.R10, stAddr, asm.Byte),
		asm.JNE.Imm(asm.R1, 0xfe, "count"),
		asm.LoadMem(asm.R1, asm.R10, stAddr+1, asm.Byte),
		asm.And.Imm(asm.R1, 0xc0),
		asm.JNE.Imm(asm.R1, 0x80, "count"),
		probeRead(stIfIndex, 4, asm.R8, int32(o.skbIif)),
		asm.JEq.Imm(asm.R0, 0, "count"),
		asm.StoreImm(asm.R10, stIfIndex, 0, asm.Word),
	)
}

// count adds 1 to counts[key], or to overflow[reason], and returns.
func count(countsFD, overflowFD int, reason Reason) asm.Instructions {
	return seq(
		// counts[key] += 1.
		labelled("count", lookup(countsFD, stKey)),
		asm.JEq.Imm(asm.R0, 0, "insert"),
		addOne(),
		asm.Ja.Label("exit"),

		// A new key: insert it with 1, unless another CPU did first.
		asm.Mov.Imm(asm.R1, 1).WithSymbol("insert"),
		asm.StoreMem(asm.R10, stOne, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, countsFD),
		asm.Mov.Reg(asm.R2, asm.R10),
		asm.Add.Imm(asm.R2, stKey),
		asm.Mov.Reg(asm.R3, asm.R10),
		asm.Add.Imm(asm.R3, stOne),
		asm.Mov.Imm(asm.R4, bpfNoExist),
		asm.FnMapUpdateElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "exit"),
		asm.JNE.Imm(asm.R0, errEEXIST, "overflow"), // full (E2BIG) or out of memory
		// Another CPU inserted the key between our lookup and update.
		lookup(countsFD, stKey),
		asm.JEq.Imm(asm.R0, 0, "overflow"),
		addOne(),
		asm.Ja.Label("exit"),

		// overflow[reason] += 1.
		asm.StoreImm(asm.R10, stOverflow, int64(reason), asm.Word).WithSymbol("overflow"),
		lookup(overflowFD, stOverflow),
		asm.JEq.Imm(asm.R0, 0, "exit"),
		addOne(),

		asm.Mov.Imm(asm.R0, 0).WithSymbol("exit"),
		asm.Return(),
	)
}

// probeRead is bpf_probe_read_kernel(fp+dst, size, src+off); R0 = result.
func probeRead(dst int16, size int32, src asm.Register, off int32) asm.Instructions {
	return asm.Instructions{
		asm.Mov.Reg(asm.R1, asm.R10),
		asm.Add.Imm(asm.R1, int32(dst)),
		asm.Mov.Imm(asm.R2, size),
		asm.Mov.Reg(asm.R3, src),
		asm.Add.Imm(asm.R3, off),
		asm.FnProbeReadKernel.Call(),
	}
}

// addOne is lock *(u64 *)R0 += 1.
func addOne() asm.Instructions {
	return asm.Instructions{
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
	}
}

// lookup is R0 = bpf_map_lookup_elem(map fd, fp+key).
func lookup(fd int, key int16) asm.Instructions {
	return asm.Instructions{
		asm.LoadMapPtr(asm.R1, fd),
		asm.Mov.Reg(asm.R2, asm.R10),
		asm.Add.Imm(asm.R2, int32(key)),
		asm.FnMapLookupElem.Call(),
	}
}

// zero64 stores a zero u64 at fp+off (R1 is clobbered).
func zero64(off int16) asm.Instructions {
	return asm.Instructions{
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.R10, off, asm.R1, asm.DWord),
	}
}

// labelled puts symbol on the first instruction of is.
func labelled(symbol string, is asm.Instructions) asm.Instructions {
	is = slices.Clone(is)
	is[0] = is[0].WithSymbol(symbol)
	return is
}

// seq concatenates instructions and instruction lists.
func seq(parts ...any) asm.Instructions {
	var out asm.Instructions
	for _, p := range parts {
		switch p := p.(type) {
		case asm.Instruction:
			out = append(out, p)
		case asm.Instructions:
			out = append(out, p...)
		default:
			panic(fmt.Sprintf("kdrops: seq: %T", p))
		}
	}
	return out
}
