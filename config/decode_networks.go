package config

import "net/netip"

// networks decodes the [[networks]] entries (networks.go).
func (d *decoder) networks(rt *table, c *Config) {
	c.Networks = appendTables(c.Networks, rt, "networks", "[[networks]]", Network{}, func(t *table, n *Network) {
		d.networkPrefix(t, n)
		decodeStr(t, "vrf", &n.VRF)
		n.Communities = parsedStrings(t, "communities", ParseCommunity)
		n.LargeCommunities = parsedStrings(t, "large-communities", ParseLargeCommunity)
	})
}

// parsedStrings decodes the array of strings key with parse; each string
// it refuses is an error at its own line.
func parsedStrings[T any](t *table, key string, parse func(string) (T, error)) []T {
	ss, lines, _ := t.strings(key)
	var out []T
	for i, s := range ss {
		v, err := parse(s)
		if err != nil {
			t.bad(key)
			t.d.errorf(lines[i], "%s: %v", key, err)
			continue
		}
		out = append(out, v)
	}
	return out
}

// networkPrefix decodes prefix, or prefix-env (the name of the environment
// variable that holds it: a prefix that differs per node).
func (d *decoder) networkPrefix(t *table, n *Network) {
	set := d.exclusive(t, "prefix", "prefix-env")
	if len(set) == 0 {
		return
	}
	key := set[0]
	var s string
	if key == "prefix" {
		var ok bool
		if s, ok = t.str(key); !ok {
			return
		}
	} else {
		val, name, ok := d.fromEnv(t, key)
		if !ok {
			return
		}
		s, n.PrefixEnv = val, name
	}
	p, err := parseNetworkPrefix(s)
	if err != nil {
		if n.PrefixEnv != "" {
			t.invalid(key, "environment variable %s: %v", n.PrefixEnv, err)
		} else {
			t.invalid(key, "%v", err)
		}
		return
	}
	n.Prefix = p
}

// fromEnv reads key (a string: the name of an environment variable) and
// returns the variable's value and name. An empty name, an unset or empty
// variable is an error at key's line naming the variable. The value is not
// in any message: a *-env key may name a secret.
func (d *decoder) fromEnv(t *table, key string) (val, name string, ok bool) {
	name, ok = t.str(key)
	if !ok {
		return "", "", false
	}
	if name == "" {
		t.invalid(key, "empty variable name")
		return "", "", false
	}
	val, set := d.env(name)
	switch {
	case !set:
		t.invalid(key, "environment variable %s is not set", name)
		return "", name, false
	case val == "":
		t.invalid(key, "environment variable %s is empty", name)
		return "", name, false
	}
	return val, name, true
}

// envAddr is fromEnv's value as an IP address (router-id-env).
func (d *decoder) envAddr(t *table, key string) (netip.Addr, string, bool) {
	val, name, ok := d.fromEnv(t, key)
	if !ok {
		return netip.Addr{}, name, false
	}
	a, err := netip.ParseAddr(val)
	if err != nil {
		t.invalid(key, "environment variable %s: %q is not an IP address", name, val)
		return netip.Addr{}, name, false
	}
	return a.Unmap(), name, true
}
