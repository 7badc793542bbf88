package config

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
