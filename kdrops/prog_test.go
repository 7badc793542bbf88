package kdrops

import (
	"testing"

	"github.com/cilium/ebpf/asm"
)

func TestProgramShape(t *testing.T) {
	if stKey+keySize != stScratch || stOne+8 != stKey || stOverflow < -512 {
		t.Fatalf("stack layout overlaps: scratch %d key %d one %d overflow %d", stScratch, stKey, stOne, stOverflow)
	}
	const cookie = 0x1122334455667788
	for _, hasIif := range []bool{true, false} {
		for _, r := range Reasons() {
			checkProgram(t, offsets{sockNet: 48, netCookie: 40, skbHead: 200, skbNetworkHeader: 178, skbIif: 144, hasIif: hasIif}, cookie, r)
		}
	}
}

func checkProgram(t *testing.T, o offsets, cookie uint64, r Reason) {
	t.Helper()
	{
		insns := program(o, cookie, r, 7, 8)
		symbols := map[string]int{}
		for _, ins := range insns {
			if s := ins.Symbol(); s != "" {
				symbols[s]++
			}
		}
		var cookieLoads, reasonStores, xadds, iifReads int
		for i, ins := range insns {
			if ins.OpCode.JumpOp() != asm.InvalidJumpOp && ins.OpCode.JumpOp() != asm.Call && ins.OpCode.JumpOp() != asm.Exit {
				if ref := ins.Reference(); symbols[ref] != 1 {
					t.Errorf("%v: instruction %d (%v) jumps to %q, defined %d times", r, i, ins, ref, symbols[ref])
				}
			}
			if ins.OpCode == asm.LoadImmOp(asm.DWord) && ins.Constant == int64(cookie) {
				cookieLoads++
			}
			if ins.OpCode == asm.StoreImmOp(asm.Word) && ins.Constant == int64(r) && (ins.Offset == stReason || ins.Offset == stOverflow) {
				reasonStores++
			}
			if ins.OpCode == asm.StoreXAddOp(asm.DWord) {
				xadds++
			}
			// probeRead(stIfIndex, 4, R8, skbIif): R3 = R8 + skbIif.
			if ins.OpCode == asm.Add.Imm(asm.R3, 0).OpCode && ins.Dst == asm.R3 && ins.Constant == int64(o.skbIif) &&
				insns[i-1].OpCode == asm.Mov.Reg(asm.R3, asm.R8).OpCode && insns[i-1].Src == asm.R8 &&
				insns[i-3].Constant == stIfIndex {
				iifReads++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[o.hasIif]; iifReads != want {
			t.Errorf("%v (hasIif %v): %d reads of skb_iif into the key, want %d", r, o.hasIif, iifReads, want)
		}
		if cookieLoads != 1 || reasonStores != 2 || xadds != 3 {
			t.Errorf("%v: %d cookie loads, %d reason stores, %d atomic adds; want 1, 2, 3", r, cookieLoads, reasonStores, xadds)
		}
		if last := insns[len(insns)-1]; last.OpCode.JumpOp() != asm.Exit {
			t.Errorf("%v: last instruction %v is not exit", r, last)
		}
	}
}
