package config

// Secrets lists every secret of c (peer passwords, keychain keys of both
// mechanisms, SRv6 HMAC keys), each once, for the log scrubbers (the
// embedded GoBGP's log lines are scrubbed of them). It is the one place
// that hands secrets out as strings: never log or print what it returns.
func (c *Config) Secrets() []string {
	var out []string
	seen := map[string]bool{}
	add := func(s Secret) {
		if len(s) > 0 && !seen[string(s)] {
			seen[string(s)] = true
			out = append(out, string(s))
		}
	}
	for _, p := range c.Peers {
		add(p.Password)
	}
	for _, kc := range c.Keychains {
		for _, k := range kc.Keys {
			add(k.Secret)
		}
	}
	for _, k := range c.SRv6.HMACKeys {
		add(k.Secret)
	}
	return out
}
