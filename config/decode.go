package config

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"
)

// decoder turns the generic TOML tree into a Config, reporting unknown keys
// and wrong types with their lines, and resolving secrets.
type decoder struct {
	*problems
	pos *positions
	dir string
	env func(string) (string, bool)
}

// table is one TOML table being decoded.
type table struct {
	d     *decoder
	m     map[string]any
	path  []string
	name  string // for messages: "[global]", "[[peers]]", "" for the root
	line  int
	meta  *meta
	known map[string]bool
}

func (d *decoder) newTable(m map[string]any, path []string, name string, mt *meta) *table {
	line := d.pos.line(path)
	if line == 0 {
		line = 1
	}
	t := &table{d: d, m: m, path: path, name: name, line: line, meta: mt, known: map[string]bool{}}
	if mt != nil {
		mt.parsed = true
		for k := range m {
			mt.setLine(k, t.lineOf(k))
		}
	}
	return t
}

func (t *table) child(key string) []string {
	return append(append([]string(nil), t.path...), key)
}

// lineOf returns the line of key, or the table's line.
func (t *table) lineOf(key string) int {
	if l := t.d.pos.line(t.child(key)); l > 0 {
		return l
	}
	return t.line
}

// get returns the raw value of key, marking it known.
func (t *table) get(key string) (any, bool) {
	t.known[key] = true
	v, ok := t.m[key]
	return v, ok
}

func (t *table) has(key string) bool {
	t.known[key] = true
	_, ok := t.m[key]
	return ok
}

func (t *table) bad(key string) {
	if t.meta != nil {
		t.meta.markBad(key)
	}
}

// typeErr reports a value of the wrong type.
func (t *table) typeErr(key, want string, v any) {
	t.bad(key)
	t.d.errorf(t.lineOf(key), "%s: expected %s, got %s", key, want, typeName(v))
}

// invalid reports a value of the right type that is not acceptable.
func (t *table) invalid(key, format string, args ...any) {
	t.bad(key)
	t.d.errorf(t.lineOf(key), "%s: %s", key, fmt.Sprintf(format, args...))
}

// finish reports keys that the schema does not know.
func (t *table) finish() {
	var unknown []string
	for k := range t.m {
		if !t.known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Slice(unknown, func(i, j int) bool {
		li, lj := t.lineOf(unknown[i]), t.lineOf(unknown[j])
		if li != lj {
			return li < lj
		}
		return unknown[i] < unknown[j]
	})
	for _, k := range unknown {
		if t.name == "" {
			t.d.errorf(t.lineOf(k), "unknown key %q", k)
		} else {
			t.d.errorf(t.lineOf(k), "unknown key %q in %s", k, t.name)
		}
	}
}

func (t *table) str(key string) (string, bool) {
	v, ok := t.get(key)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		t.typeErr(key, "string", v)
		return "", false
	}
	return s, true
}

// integer returns the value of key if it is an integer in [min, max].
func (t *table) integer(key string, min, max int64) (int64, bool) {
	v, ok := t.get(key)
	if !ok {
		return 0, false
	}
	n, ok := v.(int64)
	if !ok {
		t.typeErr(key, "integer", v)
		return 0, false
	}
	if n < min || n > max {
		t.invalid(key, "%d is out of range %d..%d", n, min, max)
		return 0, false
	}
	return n, true
}

func (t *table) boolean(key string) (bool, bool) {
	v, ok := t.get(key)
	if !ok {
		return false, false
	}
	b, ok := v.(bool)
	if !ok {
		t.typeErr(key, "boolean", v)
		return false, false
	}
	return b, true
}

// strings returns an array of strings; elements of other types are
// reported (at their own line) and skipped, making ok false.
func (t *table) strings(key string) ([]string, []int, bool) {
	v, ok := t.get(key)
	if !ok {
		return nil, nil, false
	}
	arr, ok := v.([]any)
	if !ok {
		t.typeErr(key, "array of strings", v)
		return nil, nil, false
	}
	out := make([]string, 0, len(arr))
	lines := make([]int, 0, len(arr))
	good := true
	for i, e := range arr {
		line := t.d.pos.line(append(t.child(key), strconv.Itoa(i)))
		if line == 0 {
			line = t.lineOf(key)
		}
		s, ok := e.(string)
		if !ok {
			t.bad(key)
			t.d.errorf(line, "%s[%d]: expected string, got %s", key, i, typeName(e))
			good = false
			continue
		}
		out = append(out, s)
		lines = append(lines, line)
	}
	return out, lines, good
}

// addrs decodes an array of IP addresses.
func (t *table) addrs(key string) ([]netip.Addr, bool) {
	ss, lines, ok := t.strings(key)
	if ss == nil && !ok {
		return nil, false
	}
	out := make([]netip.Addr, 0, len(ss))
	for i, s := range ss {
		a, err := netip.ParseAddr(s)
		if err != nil {
			t.bad(key)
			t.d.errorf(lines[i], "%s: %q is not an IP address", key, s)
			ok = false
			continue
		}
		out = append(out, a.Unmap())
	}
	return out, ok
}

// addr decodes one IP address.
func (t *table) addr(key string) (netip.Addr, bool) {
	s, ok := t.str(key)
	if !ok {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.invalid(key, "%q is not an IP address", s)
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// dateTime decodes an offset date-time (or an RFC 3339 string).
func (t *table) dateTime(key string) (time.Time, bool) {
	v, ok := t.get(key)
	if !ok {
		return time.Time{}, false
	}
	switch x := v.(type) {
	case time.Time:
		return x, true
	case string:
		tm, err := time.Parse(time.RFC3339Nano, x)
		if err != nil {
			t.invalid(key, "%q is not an RFC 3339 date-time with a time zone (e.g. 2026-01-01T00:00:00Z)", x)
			return time.Time{}, false
		}
		return tm, true
	case toml.LocalDateTime, toml.LocalDate:
		t.invalid(key, "%s has no time zone offset: write e.g. 2026-01-01T00:00:00Z", typeName(v))
		return time.Time{}, false
	default:
		t.typeErr(key, "date-time", v)
		return time.Time{}, false
	}
}

// subTable returns the table under key (a TOML table, or absent: empty).
func (t *table) subTable(key, name string, mt *meta) (*table, bool) {
	v, ok := t.get(key)
	if !ok {
		st := t.d.newTable(map[string]any{}, t.child(key), name, mt)
		st.line = t.lineOf(key)
		return st, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.typeErr(key, "table", v)
		st := t.d.newTable(map[string]any{}, t.child(key), name, mt)
		st.line = t.lineOf(key)
		if mt != nil {
			mt.broken = true
		}
		return st, false
	}
	return t.d.newTable(m, t.child(key), name, mt), true
}

// tables returns the elements of an array of tables under key.
func (t *table) tables(key, name string) []map[string]any {
	v, ok := t.get(key)
	if !ok {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		t.typeErr(key, "array of tables ([["+strings.Trim(name, "[]")+"]])", v)
		return nil
	}
	out := make([]map[string]any, 0, len(arr))
	for i, e := range arr {
		m, ok := e.(map[string]any)
		if !ok {
			line := t.d.pos.line(append(t.child(key), strconv.Itoa(i)))
			if line == 0 {
				line = t.lineOf(key)
			}
			t.bad(key)
			t.d.errorf(line, "%s[%d]: expected table, got %s", key, i, typeName(e))
			out = append(out, nil)
			continue
		}
		out = append(out, m)
	}
	return out
}

// elem returns the table for element i of the array of tables key.
func (t *table) elem(key string, i int, m map[string]any, name string, mt *meta) *table {
	return t.d.newTable(m, append(t.child(key), strconv.Itoa(i)), name, mt)
}

// entry is a pointer to one element type of an array of tables: it gives
// the element's meta and line for the decoder to fill.
type entry[E any] interface {
	*E
	header() (*meta, *int)
}

func (k *Keychain) header() (*meta, *int) { return &k.m, &k.Line }
func (k *Key) header() (*meta, *int)      { return &k.m, &k.Line }
func (p *Peer) header() (*meta, *int)     { return &p.m, &p.Line }
func (h *HMACKey) header() (*meta, *int)  { return &h.m, &h.Line }
func (p *Policy) header() (*meta, *int)   { return &p.m, &p.Line }

// appendTables decodes the array of tables key of t (name is its header,
// for errors) and appends its elements to out. Every element that is a
// table starts as a copy of zero, gets its meta and line, is filled by
// fill from its table, and has its unknown keys reported.
func appendTables[E any, P entry[E]](out []E, t *table, key, name string, zero E, fill func(*table, P)) []E {
	for i, m := range t.tables(key, name) {
		if m == nil {
			continue
		}
		e := zero
		mt, line := P(&e).header()
		et := t.elem(key, i, m, name, mt)
		*line = et.line
		fill(et, &e)
		et.finish()
		out = append(out, e)
	}
	return out
}

// exclusive returns the keys of t, among keys, that are set, first by line,
// and reports every one after the first: at most one may be set.
func (d *decoder) exclusive(t *table, keys ...string) []string {
	var set []string
	for _, k := range keys {
		if t.has(k) {
			set = append(set, k)
		}
	}
	sort.SliceStable(set, func(i, j int) bool { return t.lineOf(set[i]) < t.lineOf(set[j]) })
	for _, k := range set[min(1, len(set)):] {
		t.bad(k)
		d.errorf(t.lineOf(k), "%s: only one of %s may be set (%s is at line %d)",
			k, strings.Join(keys, ", "), set[0], t.lineOf(set[0]))
	}
	return set
}

// decode builds the Config; problems go to d.
func (d *decoder) decode(root map[string]any, c *Config) {
	rt := d.newTable(root, nil, "", nil)
	rt.line = 1

	d.global(rt, &c.Global)
	d.api(rt, &c.API)
	d.log(rt, &c.Log)
	d.keychains(rt, c)
	d.peers(rt, c)
	d.shadow(rt, &c.Shadow)
	d.srv6(rt, &c.SRv6)
	d.configTable(rt, &c.Config) // watch.go
	rt.finish()
}

func (d *decoder) global(rt *table, g *Global) {
	t, _ := rt.subTable("global", "[global]", &g.m)
	g.Line = t.line
	if n, ok := t.integer("asn", 0, math.MaxUint32); ok {
		g.ASN = uint32(n)
	}
	if t.has("router-id") {
		if a, ok := t.addr("router-id"); ok {
			g.RouterID = a
		}
	}
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
	t.finish()
}

func (d *decoder) api(rt *table, a *API) {
	t, _ := rt.subTable("api", "[api]", &a.m)
	a.Line = t.line
	a.GRPC, a.HTTP = DefaultGRPC, DefaultHTTP
	if t.has("grpc") {
		a.GRPC, _ = t.str("grpc")
	}
	if t.has("http") {
		a.HTTP, _ = t.str("http")
	}
	if t.has("grpc-allow-remote") {
		a.GRPCAllowRemote, _ = t.boolean("grpc-allow-remote")
	}
	if t.has("reload-allow-remote") {
		a.ReloadAllowRemote, _ = t.boolean("reload-allow-remote")
	}
	if t.has("pprof") {
		a.Pprof, _ = t.boolean("pprof")
	}
	t.finish()
}

func (d *decoder) log(rt *table, l *Log) {
	t, _ := rt.subTable("log", "[log]", &l.m)
	l.Line = t.line
	l.Level, l.Format = DefaultLogLevel, DefaultLogFormat
	if s, ok := t.str("level"); ok {
		l.Level = s
	}
	if s, ok := t.str("format"); ok {
		l.Format = s
	}
	t.finish()
}

func (d *decoder) keychains(rt *table, c *Config) {
	c.Keychains = appendTables(c.Keychains, rt, "keychains", "[[keychains]]", Keychain{}, func(t *table, kc *Keychain) {
		kc.Name, _ = t.str("name")
		kc.Type = KeychainMD5
		if v, ok := t.str("type"); ok {
			kc.Type = v
		}
		if v, ok := t.boolean("accept-icmps"); ok {
			kc.AcceptICMPs = v
		}
		kc.Keys = appendTables([]Key{}, t, "keys", "[[keychains.keys]]", Key{}, d.key)
		for i := range kc.Keys {
			if kc.Type == KeychainTCPAO && !kc.Keys[i].m.has("algorithm") {
				kc.Keys[i].Algorithm = AlgHMACSHA196
			}
			if kc.Type == KeychainTCPAO && !kc.Keys[i].m.has("mac-length") {
				kc.Keys[i].MACLen = DefaultTCPAOMACLen
			}
		}
	})
}

// key decodes one [[keychains.keys]] entry.
func (d *decoder) key(kt *table, k *Key) {
	if n, ok := kt.integer("id", 0, 255); ok {
		k.ID = uint8(n)
	}
	k.Secret, k.SecretSource, k.SecretRef = d.secret(kt, SourceSecret, nil)
	if tm, ok := kt.dateTime("send-from"); ok {
		k.SendFrom = tm
	}
	// TCP-AO fields (validation refuses them in a TCP-MD5 keychain).
	k.SendID, k.RecvID, k.IncludeTCPOptions = k.ID, k.ID, true
	if n, ok := kt.integer("send-id", 0, 255); ok {
		k.SendID = uint8(n)
	}
	if n, ok := kt.integer("recv-id", 0, 255); ok {
		k.RecvID = uint8(n)
	}
	if v, ok := kt.str("algorithm"); ok {
		k.Algorithm = v
	}
	if n, ok := kt.integer("mac-length", 0, 255); ok {
		k.MACLen = int(n)
	}
	if v, ok := kt.boolean("include-tcp-options"); ok {
		k.IncludeTCPOptions = v
	}
}

func (d *decoder) peers(rt *table, c *Config) {
	c.Peers = appendTables(c.Peers, rt, "peers", "[[peers]]", Peer{}, d.peer)
}

// peer decodes one [[peers]] entry.
func (d *decoder) peer(t *table, p *Peer) {
	if t.has("address") {
		if a, ok := t.addr("address"); ok {
			p.Address = a
		}
	}
	if s, ok := t.str("prefix"); ok {
		pfx, err := netip.ParsePrefix(s)
		if err != nil {
			t.invalid("prefix", "%q is not a prefix (e.g. 192.0.2.0/24)", s)
		} else {
			if pfx.Addr().Is4In6() && pfx.Bits() >= 96 {
				pfx = netip.PrefixFrom(pfx.Addr().Unmap(), pfx.Bits()-96)
			}
			p.Prefix = pfx
		}
	}
	if n, ok := t.integer("asn", 0, math.MaxUint32); ok {
		p.ASN = uint32(n)
	}
	// At most one key source: report the second and later ones.
	sources := d.exclusive(t, SourcePassword, SourcePasswordFile, SourcePasswordEnv, SourceKeychain)
	if len(sources) > 0 {
		if sources[0] == SourceKeychain {
			p.Keychain, _ = t.str(SourceKeychain)
		} else {
			p.Password, p.PasswordSource, p.PasswordRef = d.secret(t, SourcePassword, sources[:1])
		}
	}
	if t.has("local-address") {
		if a, ok := t.addr("local-address"); ok {
			p.LocalAddress = a
		}
	}
	if b, ok := t.boolean("passive"); ok {
		p.Passive = b
	}
	if p.Prefix.IsValid() && !t.meta.has("passive") {
		p.Passive = true // dynamic neighbors only accept
	}
	if n, ok := t.integer("multihop-ttl", 0, 255); ok {
		p.MultihopTTL = uint8(n)
	}
	if n, ok := t.integer("hold-time", 0, math.MaxUint16); ok {
		p.HoldTime = uint16(n)
	}
	if n, ok := t.integer("keepalive-interval", 0, math.MaxUint16); ok {
		p.KeepaliveInterval = uint16(n)
	}
	if t.has("families") {
		fs, _, _ := t.strings("families")
		p.Families = make([]Family, 0, len(fs))
		for _, f := range fs {
			p.Families = append(p.Families, Family(f))
		}
	} else {
		switch {
		case p.Address.Is6() || (p.Prefix.IsValid() && p.Prefix.Addr().Is6()):
			p.Families = []Family{IPv6Unicast}
		case p.Address.Is4() || (p.Prefix.IsValid() && p.Prefix.Addr().Is4()):
			p.Families = []Family{IPv4Unicast}
		}
	}
}

func (d *decoder) shadow(rt *table, s *Shadow) {
	t, _ := rt.subTable("shadow", "[shadow]", &s.m)
	s.Line = t.line
	enabled, hasEnabled := t.boolean("enabled")
	s.Mode = ShadowOff
	if hasEnabled && enabled {
		s.Mode = ShadowAlways
	}
	if m, ok := t.str("mode"); ok {
		switch mode := ShadowMode(m); {
		case !slices.Contains(ShadowModes, mode):
			t.invalid("mode", "%q is not one of always, on-demand, off", m)
		case hasEnabled && (mode == ShadowOnDemand || enabled != (mode == ShadowAlways)):
			// enabled = true is mode "always", false is "off".
			t.invalid("mode", "%q contradicts enabled = %v on line %d (enabled = true means mode = \"always\", false \"off\"): drop enabled", m, enabled, t.lineOf("enabled"))
			s.Mode = mode
		default:
			s.Mode = mode
		}
	}
	s.Enabled = s.Mode != ShadowOff
	if v, ok := t.str("on-demand-window"); ok {
		dur, err := time.ParseDuration(v)
		if err != nil {
			t.invalid("on-demand-window", "%q is not a duration (e.g. \"20s\", \"1m30s\")", v)
		} else {
			s.OnDemandWindow = dur
		}
	}
	if n, ok := t.integer("on-demand-segments", 1, MaxOnDemandSegments); ok {
		s.OnDemandSegments = int(n)
	}
	if s.Mode != ShadowOnDemand {
		for _, k := range []string{"on-demand-window", "on-demand-segments"} {
			if t.has(k) && !t.meta.isBad(k) && !t.meta.isBad("mode") {
				d.warnf(t.lineOf(k), "%s has no effect unless [shadow] mode = \"on-demand\"", k)
			}
		}
	}
	if t.has("interfaces") {
		s.Interfaces, _, _ = t.strings("interfaces")
	}
	if b, ok := t.boolean("follow-peer-rollover"); ok {
		s.FollowPeerRollover = b
	}
	if n, ok := t.integer("workers", 0, MaxShadowWorkers); ok {
		s.Workers = int(n)
	}
	t.finish()
}

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
