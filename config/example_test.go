package config_test

import (
	"fmt"
	"time"

	"github.com/authbgp/authbgpd/config"
)

func ExampleParse() {
	_, err := config.Parse("r1.toml", []byte(`[global]
asn = "65001"
router-id = "192.0.2.1"

[[peers]]
address = "192.0.2.2"
asn = 65002
pasword = "s3cret"
`))
	for _, e := range config.Errors(err) {
		fmt.Println(e)
	}

	c, err := config.Parse("r1.toml", []byte(`[global]
asn = 65001
router-id = "192.0.2.1"

[[peers]]
address = "192.0.2.2"
asn = 65002
password = "s3cret"
`))
	if err != nil {
		panic(err)
	}
	p := &c.Peers[0]
	fmt.Println(p.ID(), p.Auth().Mode, p.Auth().Source, p.Password, p.Families)
	for _, w := range c.Warnings {
		fmt.Println("warning:", w)
	}
	// Output:
	// r1.toml:2: asn: expected integer, got string
	// r1.toml:8: unknown key "pasword" in [[peers]]
	// 192.0.2.2 md5 password <redacted> [ipv4-unicast]
	// warning: r1.toml:8: password: inline secrets are discouraged; use password-file or password-env
}

func ExampleKeychain_Active() {
	kc := &config.Keychain{Name: "core", Keys: []config.Key{
		{ID: 1, Secret: config.Secret("old")},
		{ID: 2, Secret: config.Secret("new"), SendFrom: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
	}}
	now := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	k, _ := kc.Active(now)
	next, _ := kc.NextSwitch(now)
	fmt.Println(k.ID, next.Format(time.RFC3339))
	// Output: 1 2026-03-01T00:00:00Z
}

func ExampleDiff() {
	parse := func(pw string) *config.Config {
		c, err := config.Parse("r1.toml", []byte(`[global]
asn = 65001
router-id = "192.0.2.1"
[[peers]]
address = "192.0.2.2"
asn = 65002
password = "`+pw+`"
[[peers]]
address = "192.0.2.3"
asn = 65003
`))
		if err != nil {
			panic(err)
		}
		return c
	}
	ch := config.Diff(parse("old-key"), parse("new-key"))
	for _, pc := range ch.Changed {
		fmt.Println(pc.ID, pc.Fields, pc.KeyChanged, pc.KeyOnly())
	}
	fmt.Println(len(ch.Unchanged), ch.NeedsRestart())
	// Output:
	// 192.0.2.2 [secret] true true
	// 1 false
}

func ExampleConfig_vrfs() {
	c, err := config.Parse("r1.toml", []byte(`[global]
asn = 65001
router-id = "192.0.2.1"

# An unnumbered fabric link: the peer's link-local address is learnt.
[[peers]]
interface = "swp1"
asn = 65101

# A tenant's neighbors, in VRF blue.
[[peers]]
prefix = "10.0.0.0/16"
vrf = "blue"
asn = 65010

[[peers]]
address = "10.0.1.5"
vrf = "blue"
asn = 65011
`))
	if err != nil {
		panic(err)
	}
	for i := range c.Peers {
		p := &c.Peers[i]
		fmt.Printf("%s interface=%v vrf=%q %v\n", p.ID(), p.IsInterface(), p.VRF, p.Families)
	}

	// The same address in two VRFs: two peers, each named in its VRF.
	c, err = config.Parse("r1.toml", []byte(`[global]
asn = 65001
router-id = "192.0.2.1"

[[peers]]
address = "10.0.1.5"
vrf = "blue"
asn = 65011

[[peers]]
address = "10.0.1.5"
vrf = "red"
asn = 65012
`))
	if err != nil {
		panic(err)
	}
	for i := range c.Peers {
		fmt.Println(c.Peers[i].ID())
	}
	// Output:
	// swp1 interface=true vrf="" [ipv4-unicast ipv6-unicast]
	// blue/10.0.0.0/16 interface=false vrf="blue" [ipv4-unicast]
	// blue/10.0.1.5 interface=false vrf="blue" [ipv4-unicast]
	// blue/10.0.1.5
	// red/10.0.1.5
}
