package srv6

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/srv6policy"
)

// advertised is one configured policy as advertised.
type advertised struct {
	pol        srv6policy.Policy
	uuid       []byte
	advertised bool
	err        string
}

// policyOf converts a configured policy.
func policyOf(p *config.Policy) srv6policy.Policy {
	return srv6policy.Policy{
		Name: p.Name, Color: p.Color, Endpoint: p.Endpoint, Distinguisher: p.Distinguisher,
		Preference: p.Preference, BindingSID: p.BindingSID, Segments: slices.Clone(p.Segments),
		KeyID: p.HMACKeyID, Headends: slices.Clone(p.Headends),
	}
}

// wanted is the set of policies a config advertises.
type wanted struct {
	byName    map[string]srv6policy.Policy
	nlriOwner map[string]string // NLRI key -> the first policy name with it
	dup       map[string]string // policy name -> the policy that has its NLRI
	order     []string
}

func wantedOf(cfg *config.Config) wanted {
	w := wanted{byName: map[string]srv6policy.Policy{}, nlriOwner: map[string]string{}, dup: map[string]string{}}
	for i := range cfg.SRv6.Policies {
		p := policyOf(&cfg.SRv6.Policies[i])
		if o, ok := w.nlriOwner[p.NLRIKey()]; ok {
			w.dup[p.Name] = o
		} else {
			w.nlriOwner[p.NLRIKey()] = p.Name
		}
		w.byName[p.Name] = p
		w.order = append(w.order, p.Name)
	}
	return w
}

// applyPoliciesLocked advertises cfg's policies: withdraws removed ones,
// adds new ones and replaces changed ones (GoBGP replaces a path with the
// same NLRI in place).
func (s *Manager) applyPoliciesLocked(ctx context.Context, cfg *config.Config) []error {
	w := wantedOf(cfg)
	errs := s.withdrawLocked(ctx, w)
	for _, name := range w.order {
		if err := s.advertiseLocked(ctx, w, name, cfg.Global.ASN); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// withdrawLocked withdraws what goes away or changes, unless a policy of
// the new config takes over its NLRI (then AddPath replaces it).
func (s *Manager) withdrawLocked(ctx context.Context, w wanted) []error {
	var errs []error
	for _, name := range sortedKeys(s.adv) {
		a := s.adv[name]
		np, keep := w.byName[name]
		if keep && np.SameRoute(&a.pol) && w.dup[name] == "" && a.advertised {
			continue
		}
		if a.advertised {
			if owner, taken := w.nlriOwner[a.pol.NLRIKey()]; !taken || w.dup[owner] != "" {
				if err := s.host.DeletePathByUUID(ctx, a.uuid); err != nil {
					errs = append(errs, fmt.Errorf("srv6: withdraw policy %q: %w", name, err))
				} else {
					s.log.WithField("policy", name).Info("srv6: policy withdrawn")
				}
			}
			a.advertised, a.uuid = false, nil
		}
		if !keep {
			delete(s.adv, name)
		}
	}
	return errs
}

// advertiseLocked advertises policy name unless it already is.
func (s *Manager) advertiseLocked(ctx context.Context, w wanted, name string, asn uint32) error {
	p := w.byName[name]
	a := s.adv[name]
	if a != nil && a.advertised && a.pol.SameRoute(&p) {
		return nil
	}
	a = &advertised{pol: p}
	s.adv[name] = a
	if o := w.dup[name]; o != "" {
		a.err = fmt.Sprintf("same NLRI (distinguisher %d, color %d, endpoint %s) as policy %q: not advertised", p.Distinguisher, p.Color, p.Endpoint, o)
		return errors.New("srv6: policy " + name + ": " + a.err)
	}
	path, err := p.Path(asn)
	if err == nil {
		a.uuid, err = s.host.AddPath(ctx, path)
	}
	if err != nil {
		a.err = err.Error()
		return fmt.Errorf("srv6: advertise policy %q: %w", name, err)
	}
	a.advertised = true
	s.log.WithFields(logrus.Fields{"policy": name, "color": p.Color, "endpoint": p.Endpoint, "key_id": p.KeyID}).Info("srv6: policy advertised")
	return nil
}
