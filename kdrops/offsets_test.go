package kdrops

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"
)

// Types shaped like the kernel's (6.x), at made-up offsets: the members
// sit inside anonymous unions and structs the way the real ones do.
var (
	tU8  = &btf.Int{Name: "unsigned char", Size: 1}
	tU16 = &btf.Int{Name: "__u16", Size: 2}
	tU32 = &btf.Int{Name: "unsigned int", Size: 4}
	tInt = &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	tU64 = &btf.Typedef{Name: "u64", Type: &btf.Typedef{Name: "__u64", Type: &btf.Int{Name: "long long unsigned int", Size: 8}}}
)

func fakeKernelTypes() (sock, net, skb *btf.Struct) {
	net = &btf.Struct{Name: "net", Size: 64, Members: []btf.Member{
		{Name: "passive", Type: tU32, Offset: 0},
		{Name: "net_cookie", Type: tU64, Offset: btf.Bits(40 * 8)},
	}}
	possible := &btf.Typedef{Name: "possible_net_t", Type: &btf.Struct{Size: 8, Members: []btf.Member{
		{Name: "net", Type: &btf.Pointer{Target: net}},
	}}}
	common := &btf.Struct{Name: "sock_common", Size: 64, Members: []btf.Member{
		{Type: &btf.Union{Size: 8, Members: []btf.Member{{Name: "skc_addrpair", Type: tU64}}}},
		{Name: "skc_family", Type: tU16, Offset: btf.Bits(8 * 8)},
		{Name: "skc_net", Type: possible, Offset: btf.Bits(48 * 8)},
	}}
	sock = &btf.Struct{Name: "sock", Size: 128, Members: []btf.Member{
		{Name: "__sk_common", Type: common, Offset: 0},
		{Name: "sk_rcvbuf", Type: tU32, Offset: btf.Bits(64 * 8)},
	}}
	// struct_group(headers, ...): an anonymous union of an anonymous
	// struct and a named one with the same members.
	hdrs := func(name string) btf.Member {
		return btf.Member{Name: name, Type: &btf.Struct{Size: 8, Members: []btf.Member{
			{Name: "transport_header", Type: tU16, Offset: 0},
			{Name: "network_header", Type: tU16, Offset: 16},
			{Name: "mac_header", Type: tU16, Offset: 32},
		}}}
	}
	skb = &btf.Struct{Name: "sk_buff", Size: 232, Members: []btf.Member{
		{Type: &btf.Union{Size: 24, Members: []btf.Member{{Name: "list", Type: tU64}}}},
		{Name: "len", Type: tU32, Offset: btf.Bits(112 * 8)},
		{Type: &btf.Union{Size: 8, Members: []btf.Member{hdrs(""), hdrs("headers")}}, Offset: btf.Bits(176 * 8)},
		{Name: "tail", Type: tU32, Offset: btf.Bits(184 * 8)},
		{Name: "head", Type: &btf.Pointer{Target: tU8}, Offset: btf.Bits(200 * 8)},
		{Name: "skb_iif", Type: tInt, Offset: btf.Bits(144 * 8)},
	}}
	return sock, net, skb
}

// specOf builds a real BTF spec from types, as the kernel's would load.
func specOf(t *testing.T, types ...btf.Type) *btf.Spec {
	t.Helper()
	b, err := btf.NewBuilder(types, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := b.Marshal(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := btf.LoadSpecFromReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func TestKernelOffsets(t *testing.T) {
	sock, net, skb := fakeKernelTypes()
	got, ifErr, err := kernelOffsets(specOf(t, sock, net, skb))
	if err != nil || ifErr != nil {
		t.Fatal(err, ifErr)
	}
	want := offsets{sockNet: 48, netCookie: 40, skbHead: 200, skbNetworkHeader: 178, skbIif: 144, hasIif: true}
	if got != want {
		t.Fatalf("kernelOffsets = %+v, want %+v", got, want)
	}
}

// TestKernelOffsetsIfIndex: sk_buff.skb_iif is optional: without it, or
// with a shape the program cannot read, the other offsets still resolve,
// hasIif is false and ifErr says why.
func TestKernelOffsetsIfIndex(t *testing.T) {
	for name, c := range map[string]struct {
		mut  func(skb *btf.Struct)
		want string
	}{
		"no skb_iif":       {func(skb *btf.Struct) { skb.Members = skb.Members[:5] }, `no member "skb_iif"`},
		"skb_iif not int":  {func(skb *btf.Struct) { skb.Members[5].Type = tU16 }, "sk_buff.skb_iif has 2 bytes, want 4"},
		"skb_iif bitfield": {func(skb *btf.Struct) { skb.Members[5].BitfieldSize = 20 }, "bitfield"},
		"skb_iif pointer":  {func(skb *btf.Struct) { skb.Members[5].Type = &btf.Pointer{Target: tU8} }, "has 8 bytes, want 4"},
	} {
		t.Run(name, func(t *testing.T) {
			sock, net, skb := fakeKernelTypes()
			c.mut(skb)
			got, ifErr, err := kernelOffsets(specOf(t, sock, net, skb))
			if err != nil {
				t.Fatalf("kernelOffsets failed: %v, want only the ifindex left out", err)
			}
			if ifErr == nil || !strings.Contains(ifErr.Error(), c.want) || !errors.Is(ifErr, ErrUnsupported) {
				t.Fatalf("ifErr = %v, want ErrUnsupported with %q", ifErr, c.want)
			}
			want := offsets{sockNet: 48, netCookie: 40, skbHead: 200, skbNetworkHeader: 178}
			if got != want {
				t.Fatalf("kernelOffsets = %+v, want %+v", got, want)
			}
		})
	}
}

func TestKernelOffsetsRejects(t *testing.T) {
	for name, c := range map[string]struct {
		mut  func(sock, net, skb *btf.Struct)
		want string
	}{
		"no network_header":  {func(_, _, skb *btf.Struct) { skb.Members = append(skb.Members[:2:2], skb.Members[3:]...) }, `no member "network_header"`},
		"cookie not u64":     {func(_, net, _ *btf.Struct) { net.Members[1].Type = tU32 }, "net.net_cookie has 4 bytes, want 8"},
		"head not a pointer": {func(_, _, skb *btf.Struct) { skb.Members[4].Type = tU64 }, "not a pointer"},
		"net to wrong struct": {func(sock, _, _ *btf.Struct) {
			sock.Members[0].Type = &btf.Struct{Name: "sock_common", Size: 64, Members: []btf.Member{
				{Name: "skc_net", Type: &btf.Struct{Size: 8, Members: []btf.Member{
					{Name: "net", Type: &btf.Pointer{Target: &btf.Struct{Name: "other", Size: 8}}}}}}}}
		}, "not struct net"},
		"bitfield": {func(_, _, skb *btf.Struct) {
			skb.Members[4] = btf.Member{Name: "head", Type: tU32, Offset: 200 * 8, BitfieldSize: 3}
		}, "bitfield"},
		"unaligned": {func(_, net, _ *btf.Struct) { net.Members[1].Offset = 41*8 + 1 }, "not byte aligned"},
		"skc_net not a struct": {func(sock, _, _ *btf.Struct) {
			sock.Members[0].Type = &btf.Struct{Name: "sock_common", Size: 64, Members: []btf.Member{{Name: "skc_net", Type: tU64}}}
		}, "not a struct or union"},
	} {
		t.Run(name, func(t *testing.T) {
			sock, net, skb := fakeKernelTypes()
			c.mut(sock, net, skb)
			_, _, err := kernelOffsets(specOf(t, sock, net, skb))
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrUnsupported) {
				t.Fatalf("kernelOffsets = %v, want ErrUnsupported with %q", err, c.want)
			}
		})
	}
	t.Run("no struct net", func(t *testing.T) {
		sock, _, skb := fakeKernelTypes()
		// sock still refers to net through skc_net, so only remove the name.
		sock.Members[0].Type.(*btf.Struct).Members[2].Type = &btf.Struct{Size: 8, Members: []btf.Member{
			{Name: "net", Type: &btf.Pointer{Target: &btf.Struct{Name: "net", Size: 8}}}}}
		_, _, err := kernelOffsets(specOf(t, sock, skb))
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "no member \"net_cookie\"") {
			t.Fatalf("kernelOffsets = %v", err)
		}
	})
}

// traceTypedef is the kernel's btf_trace_<name>: a pointer to
// void (*)(void *__data, args...).
func traceTypedef(name string, args ...btf.FuncParam) *btf.Typedef {
	params := append([]btf.FuncParam{{Name: "__data", Type: &btf.Pointer{Target: &btf.Void{}}}}, args...)
	return &btf.Typedef{Name: "btf_trace_" + name, Type: &btf.Pointer{Target: &btf.FuncProto{Return: &btf.Void{}, Params: params}}}
}

func TestCheckTracepoint(t *testing.T) {
	sock, _, skb := fakeKernelTypes()
	cptr := func(s *btf.Struct) btf.Type { return &btf.Pointer{Target: &btf.Const{Type: s}} }
	spec := specOf(t,
		traceTypedef("tcp_hash_md5_mismatch", btf.FuncParam{Name: "sk", Type: cptr(sock)}, btf.FuncParam{Name: "skb", Type: cptr(skb)}),
		traceTypedef("tcp_ao_mismatch", btf.FuncParam{Name: "sk", Type: cptr(sock)}, btf.FuncParam{Name: "skb", Type: cptr(skb)},
			btf.FuncParam{Name: "keyid", Type: &btf.Const{Type: tU8}}),
		traceTypedef("swapped", btf.FuncParam{Name: "skb", Type: cptr(skb)}, btf.FuncParam{Name: "sk", Type: cptr(sock)}),
		traceTypedef("only_sk", btf.FuncParam{Name: "sk", Type: cptr(sock)}),
		traceTypedef("int_arg", btf.FuncParam{Name: "sk", Type: tU64}, btf.FuncParam{Name: "skb", Type: cptr(skb)}),
		&btf.Typedef{Name: "btf_trace_not_fn", Type: &btf.Pointer{Target: tU32}},
	)
	for _, name := range []string{"tcp_hash_md5_mismatch", "tcp_ao_mismatch"} {
		if err := checkTracepoint(spec, name); err != nil {
			t.Errorf("checkTracepoint(%s) = %v", name, err)
		}
	}
	if err := checkTracepoint(spec, "tcp_hash_md5_required"); !errors.Is(err, errNoTracepoint) {
		t.Errorf("checkTracepoint(missing) = %v, want errNoTracepoint", err)
	}
	for _, name := range []string{"swapped", "only_sk", "int_arg", "not_fn"} {
		err := checkTracepoint(spec, name)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), name) {
			t.Errorf("checkTracepoint(%s) = %v, want ErrUnsupported naming it", name, err)
		}
	}
}

func TestAvailableTracepoints(t *testing.T) {
	sock, _, skb := fakeKernelTypes()
	args := []btf.FuncParam{{Name: "sk", Type: &btf.Pointer{Target: sock}}, {Name: "skb", Type: &btf.Pointer{Target: skb}}}
	// A kernel with the MD5 tracepoints and one AO tracepoint.
	var types []btf.Type
	for _, n := range []string{"tcp_hash_md5_mismatch", "tcp_hash_md5_required", "tcp_hash_md5_unexpected", "tcp_hash_bad_header", "tcp_ao_mismatch", "tcp_ao_rnext_request"} {
		types = append(types, traceTypedef(n, args...))
	}
	got, err := availableTracepoints(specOf(t, types...))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tp := range got {
		names = append(names, tp.name)
	}
	if want := "tcp_hash_md5_mismatch tcp_hash_md5_required tcp_hash_md5_unexpected tcp_hash_bad_header tcp_ao_mismatch"; strings.Join(names, " ") != want {
		t.Errorf("availableTracepoints = %v, want %s", names, want)
	}

	// A kernel older than 6.7: the error names every missing one.
	_, err = availableTracepoints(specOf(t, types[0], types[4]))
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "tcp_hash_md5_required, tcp_hash_md5_unexpected, tcp_hash_bad_header") ||
		strings.Contains(err.Error(), "tcp_hash_md5_mismatch") || strings.Contains(err.Error(), "tcp_ao") {
		t.Errorf("availableTracepoints(old kernel) = %v", err)
	}

	// A changed prototype is an error, not a silent skip.
	types[1] = traceTypedef("tcp_hash_md5_required", args[1], args[0])
	if _, err := availableTracepoints(specOf(t, types...)); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "tcp_hash_md5_required") {
		t.Errorf("availableTracepoints(changed prototype) = %v", err)
	}
}
