package config

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
