package plugin

import (
	"sync/atomic"

	gobgplog "github.com/osrg/gobgp/v3/pkg/log"
	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/redact"
)

// logAdapter implements GoBGP's pkg/log.Logger on top of a logrus.Logger.
//
//   - It never exits or panics: GoBGP's "Fatal" and "Panic" (config errors,
//     a gRPC port already in use, "code logic bug") are logged at Error
//     level with gobgp_level=fatal|panic, counted, and passed to onFatal.
//   - GoBGP's Fields become logrus fields named as ours (fieldName: "Key",
//     the neighbor, is "peer"; "Topic" is "topic"; ...), with
//     component=gobgp, so one schema describes every line. Every field is
//     redacted first (by its GoBGP name):
//     a key that names a secret ("AuthPassword", "password", ...) loses its
//     value; struct values (GoBGP logs whole oc.Neighbor / oc.PeerGroup
//     configs, AuthPassword included, in pkg/config/oc UpdateNeighborConfig
//     and UpdatePeerGroupConfig) and protobuf messages are copied with their
//     secret fields redacted; and any password this package has handed to
//     GoBGP is scrubbed from the message and from the text of every value.
type logAdapter struct {
	l       *logrus.Logger
	secrets *redact.Set
	fatals  atomic.Uint64
	onFatal func(msg string, fields logrus.Fields)
}

var _ gobgplog.Logger = (*logAdapter)(nil)

func newLogAdapter(l *logrus.Logger, secrets *redact.Set) *logAdapter {
	if secrets == nil {
		secrets = &redact.Set{}
	}
	return &logAdapter{l: l, secrets: secrets}
}

func (a *logAdapter) emit(level logrus.Level, gobgpLevel string, msg string, fields gobgplog.Fields) logrus.Fields {
	if !a.l.IsLevelEnabled(level) && gobgpLevel == "" {
		return nil
	}
	lf := make(logrus.Fields, len(fields)+2)
	for k, v := range fields {
		lf[fieldName(k)] = a.secrets.Field(k, v)
	}
	if out, ok := a.secrets.Scrub(msg); ok {
		msg = out
	}
	lf["component"] = "gobgp"
	if gobgpLevel != "" {
		lf["gobgp_level"] = gobgpLevel
	}
	a.log(level, msg, lf)
	return lf
}

// log writes one line. GoBGP logs its packet types as fields (every
// received UPDATE's attributes, at debug), and the JSON formatter calls
// their MarshalJSON, which a malformed attribute can make panic (an SR
// Binding SID sub-TLV without a SID did, before the carry's patch 0020);
// encoding/json does not recover that, and the line is logged on GoBGP's
// main loop. A panic while formatting costs the line its fields, never
// the process.
func (a *logAdapter) log(level logrus.Level, msg string, lf logrus.Fields) {
	defer func() {
		if r := recover(); r != nil {
			a.l.WithFields(logrus.Fields{"component": "gobgp", "fields_dropped": true}).
				Log(level, msg+" (its fields could not be formatted)")
		}
	}()
	a.l.WithFields(lf).Log(level, msg)
}

func (a *logAdapter) fatal(kind, msg string, fields gobgplog.Fields) {
	a.fatals.Add(1)
	lf := a.emit(logrus.ErrorLevel, kind, msg, fields)
	if a.onFatal != nil {
		a.onFatal(msg, lf)
	}
}

// Panic logs at Error level and returns: GoBGP's callers continue.
func (a *logAdapter) Panic(msg string, fields gobgplog.Fields) { a.fatal("panic", msg, fields) }

// Fatal logs at Error level and returns: the process keeps running.
func (a *logAdapter) Fatal(msg string, fields gobgplog.Fields) { a.fatal("fatal", msg, fields) }

func (a *logAdapter) Error(msg string, fields gobgplog.Fields) {
	a.emit(logrus.ErrorLevel, "", msg, fields)
}

func (a *logAdapter) Warn(msg string, fields gobgplog.Fields) {
	a.emit(logrus.WarnLevel, "", msg, fields)
}

func (a *logAdapter) Info(msg string, fields gobgplog.Fields) {
	a.emit(logrus.InfoLevel, "", msg, fields)
}

func (a *logAdapter) Debug(msg string, fields gobgplog.Fields) {
	a.emit(logrus.DebugLevel, "", msg, fields)
}

// SetLevel is called by GoBGP's SetLogLevel API (`gobgp log-level`). Panic
// and Fatal are raised to Error so that errors are never silenced.
func (a *logAdapter) SetLevel(level gobgplog.LogLevel) {
	lv := logrus.Level(level)
	if lv < logrus.ErrorLevel {
		lv = logrus.ErrorLevel
	}
	a.l.SetLevel(lv)
}

func (a *logAdapter) GetLevel() gobgplog.LogLevel { return gobgplog.LogLevel(a.l.GetLevel()) }

// gobgpFields maps GoBGP's log field names to ours. Others are turned from
// CamelCase into snake_case by fieldName.
var gobgpFields = map[string]string{
	"Key":                  "peer", // the neighbor's address (GoBGP's "Key" of a peer)
	"Topic":                "topic",
	"State":                "state",
	"Error":                "error", // as logrus' WithError
	"Err":                  "error",
	"Data":                 "data",
	"Family":               "family",
	"Duration":             "duration",
	"Code":                 "code",
	"Subcode":              "subcode",
	gobgplog.FieldFacility: "facility",
}

// fieldName is our name of a GoBGP log field: from gobgpFields, else the
// CamelCase name in snake_case ("AdminState" -> "admin_state",
// "ReceivedRf" -> "received_rf", "VRF" -> "vrf").
func fieldName(k string) string {
	if n, ok := gobgpFields[k]; ok {
		return n
	}
	b := make([]byte, 0, len(k)+4)
	for i := 0; i < len(k); i++ {
		c := k[i]
		if 'A' <= c && c <= 'Z' {
			prevLower := i > 0 && k[i-1] >= 'a' && k[i-1] <= 'z'
			nextLower := i > 0 && i+1 < len(k) && k[i+1] >= 'a' && k[i+1] <= 'z' && k[i-1] >= 'A' && k[i-1] <= 'Z'
			if prevLower || nextLower {
				b = append(b, '_')
			}
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}
