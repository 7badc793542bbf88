package config

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
