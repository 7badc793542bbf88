package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"

	"github.com/sirupsen/logrus"
)

// maxReloadBody bounds the JSON body of POST /-/reload.
const maxReloadBody = 4 << 10

// reloadHandler serves POST /-/reload: 200 with the preview when the reload
// is (or would be) accepted, 422 with it when refused; 403 from outside
// loopback unless allowed; 415 without a JSON body type, so a web page's
// plain form cannot trigger a reload.
type reloadHandler struct {
	r Reloader
	s *Server
}

func (h reloadHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.s.remoteReload && !fromLoopback(r.RemoteAddr) {
		h.s.log.WithField("remote", r.RemoteAddr).Warn("http api: reload refused: not from loopback ([api] reload-allow-remote is false)")
		http.Error(w, "reload is only allowed from loopback ([api] reload-allow-remote)", http.StatusForbidden)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, "want Content-Type: application/json", http.StatusUnsupportedMediaType)
		return
	}
	var req ReloadRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxReloadBody))
	if err == nil && len(body) > 0 {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("reload request: %v", err), http.StatusBadRequest)
		return
	}
	if req.File != "" && !req.DryRun {
		http.Error(w, "reload request: file is only for dry_run (a reload applies the daemon's own -f file)", http.StatusBadRequest)
		return
	}
	h.s.log.WithFields(logrus.Fields{"remote": r.RemoteAddr, "dry_run": req.DryRun}).Info("http api: reload requested")
	// A client that goes away must not cut a reload in half.
	p := h.r.Reload(context.WithoutCancel(r.Context()), req)
	out, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		http.Error(w, "cannot encode reload result", http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	if !p.OK() {
		w.WriteHeader(http.StatusUnprocessableEntity)
	}
	w.Write(append(out, '\n'))
}

// fromLoopback reports whether a request's RemoteAddr is a loopback address.
func fromLoopback(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return false
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}
