package config

// decoder turns the generic TOML tree into a Config, reporting unknown keys
// and wrong types with their lines, and resolving secrets. Each section's
// decoder is in decode_<section>.go; the table it reads through is in
// decode_table.go (keys, lines, errors), decode_values.go (typed values)
// and decode_arrays.go (sub-tables and arrays of tables).
type decoder struct {
	*problems
	pos *positions
	dir string
	env func(string) (string, bool)
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
	c.resolveGracefulRestart() // gr.go
	d.shadow(rt, &c.Shadow)
	d.srv6(rt, &c.SRv6)
	d.fib(rt, &c.FIB)            // fib.go
	d.configTable(rt, &c.Config) // watch.go
	d.networks(rt, c)            // decode_networks.go
	d.policies(rt, c)            // decode_policy.go
	rt.finish()
}
