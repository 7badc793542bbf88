package srv6

import (
	"errors"
	"net/netip"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/srv6policy"
)

// routeTable is the headend's routes in the kernel: what it installed, and
// Set to converge on what it wants.
type routeTable struct {
	kr        kernelRoutes
	log       *logrus.Entry
	installed map[netip.Prefix]Planned
}

// Set makes the installed routes desired: it deletes the extra ones first
// (that may free a destination), then adds the missing ones and replaces
// the changed ones. A route that fails does not stop the others; the
// failures are returned by destination (a failed delete leaves the route
// installed, and a later Set tries again).
func (t *routeTable) Set(desired map[netip.Prefix]Planned) map[netip.Prefix]error {
	failed := map[netip.Prefix]error{}
	for _, dst := range sortedPrefixes(t.installed) {
		cur := t.installed[dst]
		if d, ok := desired[dst]; ok && d.Route.Kind == cur.Route.Kind {
			continue
		}
		if err := t.kr.Delete(dst); err != nil && !errors.Is(err, srv6policy.ErrRouteNotFound) {
			failed[dst] = err
			t.log.WithError(err).WithField("route", cur.Route.String()).Error("srv6: headend: cannot remove route")
			continue
		}
		delete(t.installed, dst)
		t.log.WithFields(logrus.Fields{"route": cur.Route.String(), "policy": cur.Owner}).Info("srv6: headend route removed")
	}
	for _, dst := range sortedPrefixes(desired) {
		if err := t.put(desired[dst]); err != nil {
			failed[dst] = err
			continue
		}
		delete(failed, dst)
	}
	return failed
}

// put adds d, or replaces the route installed for its destination unless
// it is the same.
func (t *routeTable) put(d Planned) error {
	cur, ok := t.installed[d.Route.Dst]
	var err error
	switch {
	case ok && cur.Route.Same(d.Route) && cur.Route.OIF == d.Route.OIF:
		t.installed[d.Route.Dst] = d // the owner's name may differ
		return nil
	case ok:
		err = t.kr.Replace(d.Route)
	default:
		err = t.kr.Add(d.Route)
	}
	if err != nil {
		t.log.WithError(err).WithField("route", d.Route.String()).Error("srv6: headend: cannot install route")
		return err
	}
	t.installed[d.Route.Dst] = d
	t.log.WithFields(logrus.Fields{"route": d.Route.String(), "policy": d.Owner}).Info("srv6: headend route installed")
	return nil
}

// clear deletes every installed route (the headend stops).
func (t *routeTable) clear() []error {
	var errs []error
	for _, dst := range sortedPrefixes(t.installed) {
		r := t.installed[dst]
		if err := t.kr.Delete(dst); err != nil && !errors.Is(err, srv6policy.ErrRouteNotFound) {
			errs = append(errs, err)
			continue
		}
		t.log.WithFields(logrus.Fields{"route": r.Route.String(), "policy": r.Owner}).Info("srv6: headend route removed")
	}
	t.installed = map[netip.Prefix]Planned{}
	return errs
}
