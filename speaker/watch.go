package speaker

import (
	"context"
	"strings"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/filewatch"
	"github.com/authbgp/authbgpd/httpapi"
)

// startWatch turns the watcher of the config and secret files on or off as
// cfg's [config] watch says ([config] watch: a change reloads as SIGHUP
// does; filewatch.Follower keeps which changes a reload already took in).
// The caller holds reloadMu (or is Start).
func (s *Speaker) startWatch(ctx context.Context, cfg *config.Config) {
	o := filewatch.Options{OnError: func(err error) {
		s.log.WithError(err).Warn("[config] watch: a change to these files may go unseen; reload with SIGHUP or `authbgpd reload`")
	}}
	started, stopped, err := s.watch.Watch(cfg.Config.Watch, o, func(changed []string) { s.reloadChanged(ctx, changed) })
	switch {
	case err != nil:
		s.log.WithError(err).Error("[config] watch: cannot watch the config and secret files; reload with SIGHUP or `authbgpd reload`")
	case started:
		s.log.WithField("files", len(s.watch.Files())).Info("[config] watch: the config and secret files are watched; a change reloads")
	case stopped:
		s.log.Info("[config] watch = false: the files are no longer watched")
	}
}

// reloadChanged is the reload of a change of the files; the caller (the
// watcher's goroutine) holds reloadMu.
func (s *Speaker) reloadChanged(ctx context.Context, changed []string) {
	s.log.WithField("files", strings.Join(changed, ",")).Info("[config] watch: files changed: reloading " + s.opts.ConfigFile)
	if p := s.reload(ctx, httpapi.ReloadRequest{}); !p.OK() {
		var why []string
		for _, r := range p.Refused {
			why = append(why, r.Message)
		}
		// Config errors name files and lines, never secrets.
		s.log.WithField("reason", strings.Join(why, "; ")).Error("[config] watch: reload refused; the running config and its keys stay")
	}
}
