package kdrops

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf/btf"
)

// offsets are the kernel struct offsets (bytes) the BPF programs read, all
// taken from the running kernel's BTF.
type offsets struct {
	// sockNet: struct sock -> __sk_common.skc_net.net (struct net *).
	sockNet uint32
	// netCookie: struct net -> net_cookie (u64).
	netCookie uint32
	// skbHead: struct sk_buff -> head (unsigned char *).
	skbHead uint32
	// skbNetworkHeader: struct sk_buff -> network_header (u16, offset from head).
	skbNetworkHeader uint32
	// skbIif: struct sk_buff -> skb_iif (int): the ingress interface,
	// recorded for IPv6 link-local sources. Optional: hasIif false (the
	// kernel's BTF lacks it, or the verifier refused the read) records 0.
	skbIif uint32
	hasIif bool
}

// typeSource finds kernel types by name (a *btf.Spec).
type typeSource interface {
	TypeByName(name string, typ any) error
}

// member is one struct member a BPF program reads.
type member struct {
	out   *uint32
	strct string
	path  []string
	size  uint32
	isPtr bool
	ptrTo string // for pointers: the struct pointed to ("" = any)
}

// kernelOffsets resolves the offsets in spec: the required ones (an error
// fails), then the optional ingress ifindex, whose error is returned
// separately as ifErr with o.hasIif false (drops are then counted with
// ifindex 0).
func kernelOffsets(spec typeSource) (o offsets, ifErr error, err error) {
	if err := resolve(spec, []member{
		{&o.sockNet, "sock", []string{"__sk_common", "skc_net", "net"}, 8, true, "net"},
		{&o.netCookie, "net", []string{"net_cookie"}, 8, false, ""},
		{&o.skbHead, "sk_buff", []string{"head"}, 8, true, ""},
		{&o.skbNetworkHeader, "sk_buff", []string{"network_header"}, 2, false, ""},
	}); err != nil {
		return offsets{}, nil, err
	}
	if err := resolve(spec, []member{{&o.skbIif, "sk_buff", []string{"skb_iif"}, 4, false, ""}}); err != nil {
		o.skbIif = 0
		return o, err, nil
	}
	o.hasIif = true
	return o, nil, nil
}

// resolve fills every member's offset from spec.
func resolve(spec typeSource, members []member) error {
	for _, f := range members {
		var st *btf.Struct
		if err := spec.TypeByName(f.strct, &st); err != nil {
			return fmt.Errorf("kdrops: kernel BTF has no struct %s: %w (%w)", f.strct, ErrUnsupported, err)
		}
		off, typ, err := memberOffset(st, f.path...)
		if err != nil {
			return err
		}
		desc := f.strct + "." + strings.Join(f.path, ".")
		if err := checkMemberType(desc, typ, f.size, f.isPtr, f.ptrTo); err != nil {
			return err
		}
		*f.out = off
	}
	return nil
}

// checkMemberType checks that a member has the size (and pointer-ness) the
// BPF program assumes when it reads it.
func checkMemberType(desc string, typ btf.Type, size uint32, isPtr bool, ptrTo string) error {
	u := btf.UnderlyingType(typ)
	if isPtr {
		p, ok := u.(*btf.Pointer)
		if !ok {
			return fmt.Errorf("kdrops: kernel BTF: %s is %v, not a pointer: %w", desc, typ, ErrUnsupported)
		}
		if ptrTo != "" {
			if st, ok := btf.UnderlyingType(p.Target).(*btf.Struct); !ok || st.Name != ptrTo {
				return fmt.Errorf("kdrops: kernel BTF: %s points to %v, not struct %s: %w", desc, p.Target, ptrTo, ErrUnsupported)
			}
		}
		return nil
	}
	n, err := btf.Sizeof(u)
	if err != nil {
		return fmt.Errorf("kdrops: kernel BTF: size of %s: %w (%w)", desc, ErrUnsupported, err)
	}
	if uint32(n) != size {
		return fmt.Errorf("kdrops: kernel BTF: %s has %d bytes, want %d: %w", desc, n, size, ErrUnsupported)
	}
	return nil
}

// memberOffset returns the byte offset of the member at path inside st and
// its type. Each step looks for a member with that name in the composite,
// also inside anonymous structs and unions (struct_group and friends),
// summing their offsets.
func memberOffset(st *btf.Struct, path ...string) (uint32, btf.Type, error) {
	var cur btf.Type = st
	var bits uint32
	where := st.Name
	for _, name := range path {
		members, ok := compositeMembers(cur)
		if !ok {
			return 0, nil, fmt.Errorf("kdrops: kernel BTF: %s is %v, not a struct or union: %w", where, cur, ErrUnsupported)
		}
		m, off, found := findMember(members, name)
		if !found {
			return 0, nil, fmt.Errorf("kdrops: kernel BTF: %s has no member %q: %w", where, name, ErrUnsupported)
		}
		if m.BitfieldSize != 0 {
			return 0, nil, fmt.Errorf("kdrops: kernel BTF: %s.%s is a bitfield: %w", where, name, ErrUnsupported)
		}
		bits += off
		cur = m.Type
		where += "." + name
	}
	if bits%8 != 0 {
		return 0, nil, fmt.Errorf("kdrops: kernel BTF: %s is not byte aligned (bit %d): %w", where, bits, ErrUnsupported)
	}
	return bits / 8, cur, nil
}

// compositeMembers returns the members of t if it is (a typedef or
// qualifier of) a struct or union.
func compositeMembers(t btf.Type) ([]btf.Member, bool) {
	switch c := btf.UnderlyingType(t).(type) {
	case *btf.Struct:
		return c.Members, true
	case *btf.Union:
		return c.Members, true
	}
	return nil, false
}

// findMember finds name among members, depth first through anonymous
// members, and returns it with its offset in bits from the start of
// members' composite.
func findMember(members []btf.Member, name string) (btf.Member, uint32, bool) {
	for _, m := range members {
		if m.Name == name {
			return m, uint32(m.Offset), true
		}
	}
	for _, m := range members {
		if m.Name != "" {
			continue
		}
		inner, ok := compositeMembers(m.Type)
		if !ok {
			continue
		}
		if found, off, ok := findMember(inner, name); ok {
			return found, uint32(m.Offset) + off, true
		}
	}
	return btf.Member{}, 0, false
}

// errNoTracepoint: the kernel lacks a tracepoint.
var errNoTracepoint = errors.New("no such tracepoint")

// checkTracepoint checks that the kernel has tracepoint name (its BTF has
// the typedef btf_trace_<name>) and that its first two arguments are
// struct sock * and struct sk_buff *, which is what the BPF program reads
// from args[0] and args[1]. The typedef is a pointer to
// void (*)(void *__data, <the tracepoint's arguments>).
func checkTracepoint(spec typeSource, name string) error {
	var td *btf.Typedef
	if err := spec.TypeByName("btf_trace_"+name, &td); err != nil {
		if errors.Is(err, btf.ErrNotFound) {
			return fmt.Errorf("%s: %w", name, errNoTracepoint)
		}
		return fmt.Errorf("kdrops: kernel BTF: look up tracepoint %s: %w", name, err)
	}
	return checkTracepointProto(name, td.Type)
}

func checkTracepointProto(name string, t btf.Type) error {
	fail := func(why string) error {
		return fmt.Errorf("kdrops: tracepoint %s: %s: %w", name, why, ErrUnsupported)
	}
	p, ok := btf.UnderlyingType(t).(*btf.Pointer)
	if !ok {
		return fail(fmt.Sprintf("btf_trace_%s is %v, not a function pointer", name, t))
	}
	fp, ok := btf.UnderlyingType(p.Target).(*btf.FuncProto)
	if !ok {
		return fail(fmt.Sprintf("btf_trace_%s points to %v, not a function", name, p.Target))
	}
	if len(fp.Params) < 3 {
		return fail(fmt.Sprintf("has %d arguments, want (sk, skb, ...)", len(fp.Params)-1))
	}
	for i, want := range []string{"sock", "sk_buff"} {
		param := fp.Params[i+1]
		pp, ok := btf.UnderlyingType(param.Type).(*btf.Pointer)
		if !ok {
			return fail(fmt.Sprintf("argument %d (%s) is %v, want struct %s *", i, param.Name, param.Type, want))
		}
		st, ok := btf.UnderlyingType(pp.Target).(*btf.Struct)
		if !ok || st.Name != want {
			return fail(fmt.Sprintf("argument %d (%s) points to %v, want struct %s", i, param.Name, pp.Target, want))
		}
	}
	return nil
}

// availableTracepoints returns the tracepoints the kernel has, failing
// with ErrUnsupported, naming them, when a required one is missing.
func availableTracepoints(spec typeSource) ([]tracepoint, error) {
	var have []tracepoint
	var missing []string
	for _, tp := range tracepoints {
		err := checkTracepoint(spec, tp.name)
		switch {
		case err == nil:
			have = append(have, tp)
		case errors.Is(err, errNoTracepoint):
			if tp.required {
				missing = append(missing, tp.name)
			}
		default:
			return nil, err
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("kdrops: the kernel lacks the tracepoints %s (Linux 6.7 or later has them): %w",
			strings.Join(missing, ", "), ErrUnsupported)
	}
	return have, nil
}
