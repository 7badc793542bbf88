package srv6

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/authbgp/authbgpd/config"
	"github.com/authbgp/authbgpd/srv6policy"
)

// keyTable is the kernel's SEG6 HMAC key table as the Manager applied it.
type keyTable struct {
	kk    kernelKeys // nil until needed, or when it cannot be opened
	kkErr error
	keys  map[uint32]*kernelKey // by ID: the configured keys as applied
}

// kernelKey is one configured HMAC key as applied to the kernel.
type kernelKey struct {
	id      uint32
	algName string
	alg     srv6policy.Algorithm
	// secret is what the kernel holds (a copy, wiped when replaced or
	// removed), to tell a changed secret.
	secret    srv6policy.Secret
	installed bool
	owned     bool // we put it there (so Stop removes it)
	err       string
	// held is the key of this ID the kernel still holds when the
	// configured one is not installed (a change that failed): Stop still
	// removes it if we own it, and the SRH verifier still uses it.
	held *heldKey
}

type heldKey struct {
	alg    srv6policy.Algorithm
	secret srv6policy.Secret
}

// inKernel returns what the kernel holds of k's ID, as far as we know.
func (k *kernelKey) inKernel() *heldKey {
	switch {
	case k == nil:
		return nil
	case k.installed:
		return &heldKey{alg: k.alg, secret: k.secret}
	}
	return k.held
}

// take moves what the kernel holds of k's ID out of k (which is replaced).
func (k *kernelKey) take() *heldKey {
	h := k.inKernel()
	if k != nil {
		k.secret, k.held = nil, nil
	}
	return h
}

// client opens the SEG6 key client on first use.
func (t *keyTable) client(open func() (kernelKeys, error)) (kernelKeys, error) {
	if t.kk == nil && t.kkErr == nil {
		t.kk, t.kkErr = open()
		if t.kkErr != nil {
			t.kk = nil
		}
	}
	return t.kk, t.kkErr
}

// kernelDump is the kernel's key table, read on first use. It holds
// secrets: wipe it when done.
type kernelDump struct {
	kk   kernelKeys
	keys map[uint32]srv6policy.KernelKey
}

// has reports whether the kernel holds id with alg and secret.
func (d *kernelDump) has(id uint32, alg srv6policy.Algorithm, secret []byte) bool {
	if d.keys == nil {
		d.keys = map[uint32]srv6policy.KernelKey{}
		if dump, err := d.kk.Dump(); err == nil {
			for _, k := range dump {
				d.keys[k.ID] = k
			}
		}
	}
	e, ok := d.keys[id]
	return ok && e.Algorithm == alg && e.Secret.Equal(secret)
}

func (d *kernelDump) wipe() {
	for _, k := range d.keys {
		k.Secret.Wipe()
	}
}

// keyInUseLocked says what uses key id: configured policies (the running
// config's, before a reload applies) and installed headend routes.
func (s *Manager) keyInUseLocked(id uint32) []string {
	var users []string
	for _, name := range sortedKeys(s.adv) {
		if a := s.adv[name]; a.advertised && a.pol.KeyID == id {
			users = append(users, "policy "+name)
		}
	}
	if s.he != nil {
		for _, r := range s.he.routes.installed {
			if r.Route.KeyID == id && !slices.Contains(users, "installed "+r.Owner) {
				users = append(users, "installed "+r.Owner)
			}
		}
	}
	return users
}

// applyKeysLocked installs new keys and changed keys that nothing uses; it
// refuses to change a key in use.
func (s *Manager) applyKeysLocked(cfg *config.Config) []error {
	if len(cfg.SRv6.HMACKeys) == 0 {
		return nil
	}
	kk, kerr := s.keys.client(s.openKeys)
	// Keys already in the kernel with the configured secret (an operator's,
	// or a previous run's) are left alone: re-setting one drops packets
	// meanwhile.
	dump := &kernelDump{kk: kk}
	defer dump.wipe()
	var errs []error
	for i := range cfg.SRv6.HMACKeys {
		if err := s.applyKeyLocked(&cfg.SRv6.HMACKeys[i], kk, kerr, dump); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func (s *Manager) applyKeyLocked(ck *config.HMACKey, kk kernelKeys, kerr error, dump *kernelDump) error {
	alg, aerr := srv6policy.ParseAlgorithm(ck.Algorithm)
	cur := s.keys.keys[ck.ID]
	if cur != nil && cur.alg == alg && ck.Secret.Equal(cur.secret) {
		if cur.err != "" && cur.installed {
			cur.err = "" // a refused change was undone
		}
		if cur.installed || kk == nil {
			return nil
		}
		// Not installed before (an error): try again below.
	}
	if cur != nil && cur.installed {
		if users := s.keyInUseLocked(ck.ID); len(users) > 0 {
			cur.err = fmt.Sprintf("the secret or algorithm of key %d changed while it is in use (%s): refused, the kernel keeps the old key; "+
				"rotate to a NEW key ID (add it, move the policies to it, then remove key %d)", ck.ID, strings.Join(users, ", "), ck.ID)
			return errors.New("srv6: " + cur.err)
		}
	}
	nk := &kernelKey{id: ck.ID, algName: ck.Algorithm, alg: alg}
	if cur != nil {
		nk.owned = cur.owned
	}
	s.keys.keys[ck.ID] = nk
	var err error
	switch {
	case aerr != nil:
		nk.err = aerr.Error()
	case kk == nil:
		nk.err = kerr.Error()
	default:
		err = program(nk, cur, ck.Secret, kk, dump, s.log.WithField("key_id", ck.ID))
	}
	if nk.installed {
		nk.secret = slices.Clone(ck.Secret)
		if h := cur.take(); h != nil {
			h.secret.Wipe()
		}
	} else {
		nk.held = cur.take() // the kernel still has it
	}
	return err
}

// program puts nk into the kernel, unless the kernel already has it.
func program(nk, cur *kernelKey, secret []byte, kk kernelKeys, dump *kernelDump, log *logrus.Entry) error {
	wasInstalled := cur != nil && cur.installed
	if !wasInstalled && dump.has(nk.id, nk.alg, secret) {
		nk.installed = true
		log.Info("srv6: HMAC key already in the kernel with the configured secret")
		return nil
	}
	if err := kk.Set(nk.id, nk.alg, secret); err != nil {
		nk.err = err.Error()
		return err
	}
	nk.installed, nk.owned = true, true
	if wasInstalled {
		log.Info("srv6: HMAC key changed in the kernel (it was not in use)")
	} else {
		log.Info("srv6: HMAC key installed in the kernel")
	}
	return nil
}

// removeKeysLocked removes the keys no longer configured (after the routes
// that used them).
func (s *Manager) removeKeysLocked(cfg *config.Config) []error {
	var errs []error
	for _, id := range sortedKeys(s.keys.keys) {
		if cfg.HMACKey(id) != nil {
			continue
		}
		if users := s.keyInUseLocked(id); len(users) > 0 && s.keys.deletes(id) {
			// Cannot happen: routes need a configured key.
			errs = append(errs, fmt.Errorf("srv6: key %d is still used (%s): kept in the kernel", id, strings.Join(users, ", ")))
			continue
		}
		if err := s.keys.remove(id, s.log); err != nil {
			errs = append(errs, err)
			continue
		}
		s.m.DeleteSRHKey(id)
	}
	return errs
}

// deletes reports whether removing key id deletes it from the kernel: we
// put it there and the kernel still holds it.
func (t *keyTable) deletes(id uint32) bool {
	k := t.keys[id]
	return k != nil && k.owned && k.inKernel() != nil && t.kk != nil
}

// remove deletes key id from the kernel if we put it there, and forgets it
// (not if the kernel refuses).
func (t *keyTable) remove(id uint32, log *logrus.Entry) error {
	if t.deletes(id) {
		if err := t.kk.Delete(id); err != nil && !errors.Is(err, srv6policy.ErrKeyNotFound) {
			return err
		}
		log.WithField("key_id", id).Info("srv6: HMAC key removed from the kernel")
	}
	if h := t.keys[id].take(); h != nil {
		h.secret.Wipe()
	}
	delete(t.keys, id)
	return nil
}

// removeAll removes every key we put into the kernel (Stop) and closes the
// client.
func (t *keyTable) removeAll(log *logrus.Entry) []error {
	var errs []error
	for _, id := range sortedKeys(t.keys) {
		if err := t.remove(id, log); err != nil {
			errs = append(errs, err)
		}
	}
	for _, k := range t.keys { // kept by a failed delete: forgotten anyway
		if h := k.take(); h != nil {
			h.secret.Wipe()
		}
	}
	t.keys = map[uint32]*kernelKey{}
	if t.kk != nil {
		t.kk.Close()
		t.kk = nil
	}
	return errs
}

// verifierKeys prepares the keys the kernel holds for the SRH verifier.
// Keys that cannot be prepared (FIPS 140-only mode refuses HMAC-SHA1) are
// left out, with an error each.
func (t *keyTable) verifierKeys() (map[uint32]*srv6policy.Key, []error) {
	keys := map[uint32]*srv6policy.Key{}
	var errs []error
	for _, id := range sortedKeys(t.keys) {
		h := t.keys[id].inKernel()
		if h == nil {
			continue
		}
		key, err := srv6policy.NewKey(id, h.alg, h.secret)
		if err != nil {
			errs = append(errs, fmt.Errorf("SRv6 HMAC key %d: %w", id, err))
			continue
		}
		keys[id] = key
	}
	return keys, errs
}

// SRHKeys prepares the configured SRv6 HMAC keys for verifying captured
// SRHs (verify-pcap). Keys that cannot be prepared (FIPS 140-only mode
// refuses HMAC-SHA1) are left out, with an error each.
func SRHKeys(cfg *config.Config) (map[uint32]*srv6policy.Key, []error) {
	keys := map[uint32]*srv6policy.Key{}
	var errs []error
	for _, k := range cfg.SRv6.HMACKeys {
		alg, err := srv6policy.ParseAlgorithm(k.Algorithm)
		if err == nil {
			var key *srv6policy.Key
			if key, err = srv6policy.NewKey(k.ID, alg, k.Secret); err == nil {
				keys[k.ID] = key
				continue
			}
		}
		errs = append(errs, fmt.Errorf("SRv6 HMAC key %d: %w", k.ID, err))
	}
	return keys, errs
}
