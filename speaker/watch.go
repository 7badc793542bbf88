package speaker

import (
	"context"
	"slices"
	"strings"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/filewatch"
	"github.com/authbgp/authbgpd/httpapi"
)

// fileWatch follows the config file and its secret files ([config] watch):
// a change reloads as SIGHUP does. Its fields belong to whoever holds the
// speaker's reloadMu.
type fileWatch struct {
	// files are the files of the running config (config.Files); last is
	// their states before the last reload, applied or refused, read, so a
	// change it did not see still differs, and a reload SIGHUP or the API
	// already did (or a file the last reload refused, unchanged since) is
	// not done again.
	files []string
	last  filewatch.Snapshot
	w     *filewatch.Watcher // nil when [config] watch = false
	stop  chan struct{}      // closes the goroutine of w
}

// before is the snapshot a reload takes before it reads anything.
func (fw *fileWatch) before(configFile string) filewatch.Snapshot {
	return filewatch.Stat(append(slices.Clone(fw.files), configFile))
}

// settle records a reload: the states before it of the files of the config
// now running (cfg), those it had not seen stat'ed now.
func (fw *fileWatch) settle(before filewatch.Snapshot, cfg *config.Config) {
	fw.files = cfg.Files()
	snap := filewatch.Snapshot{}
	var fresh []string
	for _, f := range fw.files {
		if st, ok := before[f]; ok {
			snap[f] = st
		} else {
			fresh = append(fresh, f)
		}
	}
	fw.last = snap.Merge(filewatch.Stat(fresh))
}

// startWatch turns the watcher on or off as cfg's [config] watch says, and
// hands it cfg's files. The caller holds reloadMu (or is Start).
func (s *Speaker) startWatch(ctx context.Context, cfg *config.Config) {
	fw := &s.watch
	switch {
	case cfg.Config.Watch && fw.w == nil:
		w, err := filewatch.New(fw.files, filewatch.Options{OnError: func(err error) {
			s.log.WithError(err).Warn("[config] watch: a change to these files may go unseen; reload with SIGHUP or `authbgpd reload`")
		}})
		if err != nil {
			s.log.WithError(err).Error("[config] watch: cannot watch the config and secret files; reload with SIGHUP or `authbgpd reload`")
			return
		}
		fw.w, fw.stop = w, make(chan struct{})
		go s.followFiles(ctx, w, fw.stop)
		s.log.WithField("files", len(fw.files)).Info("[config] watch: the config and secret files are watched; a change reloads")
	case cfg.Config.Watch:
		fw.w.Set(fw.files)
	case fw.w != nil:
		close(fw.stop)
		_ = fw.w.Close()
		fw.w, fw.stop = nil, nil
		s.log.Info("[config] watch = false: the files are no longer watched")
	}
}

// stopWatch stops the watcher at shutdown.
func (s *Speaker) stopWatch() {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	if fw := &s.watch; fw.w != nil {
		close(fw.stop)
		_ = fw.w.Close()
		fw.w, fw.stop = nil, nil
	}
}

// followFiles reloads after each notification of w whose files really
// changed since the last reload.
func (s *Speaker) followFiles(ctx context.Context, w *filewatch.Watcher, stop chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-w.C():
		}
		s.reloadMu.Lock()
		select {
		case <-stop: // turned off meanwhile
			s.reloadMu.Unlock()
			return
		default:
		}
		fw := &s.watch
		changed := filewatch.Stat(fw.files).Changed(fw.last)
		if len(changed) == 0 {
			s.reloadMu.Unlock()
			continue
		}
		s.log.WithField("files", strings.Join(changed, ",")).Info("[config] watch: files changed: reloading " + s.opts.ConfigFile)
		p := s.reload(ctx, httpapi.ReloadRequest{})
		s.reloadMu.Unlock()
		if !p.OK() {
			var why []string
			for _, r := range p.Refused {
				why = append(why, r.Message)
			}
			// Config errors name files and lines, never secrets.
			s.log.WithField("reason", strings.Join(why, "; ")).Error("[config] watch: reload refused; the running config and its keys stay")
		}
	}
}
