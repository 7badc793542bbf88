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
	for _, r := range Reasons() {
		insns := program(offsets{sockNet: 48, netCookie: 40, skbHead: 200, skbNetworkHeader: 178}, cookie, r, 7, 8)
		symbols := map[string]int{}
		for _, ins := range insns {
			if s := ins.Symbol(); s != "" {
				symbols[s]++
			}
		}
		var cookieLoads, reasonStores, xadds int
		for i, ins := range insns {
			if ins.OpCode.JumpOp() != asm.InvalidJumpOp && ins.OpCode.JumpOp() != asm.Call && ins.OpCode.JumpOp() != asm.Exit {
				if ref := ins.Reference(); symbols[ref] != 1 {
					t.Errorf("%v: instruction %d (%v) jumps to %q, defined %d times", r, i, ins, ref, symbols[ref])
				}
			}
			if ins.OpCode == asm.LoadImmOp(asm.DWord) && ins.Constant == cookie {
				cookieLoads++
			}
			if ins.OpCode == asm.StoreImmOp(asm.Word) && ins.Constant == int64(r) && (ins.Offset == stReason || ins.Offset == stOverflow) {
				reasonStores++
			}
			if ins.OpCode == asm.StoreXAddOp(asm.DWord) {
				xadds++
			}
		}
		if cookieLoads != 1 || reasonStores != 2 || xadds != 3 {
			t.Errorf("%v: %d cookie loads, %d reason stores, %d atomic adds; want 1, 2, 3", r, cookieLoads, reasonStores, xadds)
		}
		if last := insns[len(insns)-1]; last.OpCode.JumpOp() != asm.Exit {
			t.Errorf("%v: last instruction %v is not exit", r, last)
		}
	}
}
