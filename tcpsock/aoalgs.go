package tcpsock

import (
	"errors"
	"fmt"
	"time"

	"github.com/authbgp/authbgpd/keys"
	"github.com/authbgp/authbgpd/tcpao"
)

// Which TCP-AO algorithms the running kernel accepts. Linux up to 7.1
// takes any "hmac(<hash>)" its crypto API has, and "cmac(aes128)"; Linux
// 7.2 reimplemented TCP-AO on the kernel's crypto library and keeps only
// HMAC-SHA-1, AES-128-CMAC and HMAC-SHA-256. A config may name the others
// (HMAC-SHA-224/384/512), so authbgpd asks the kernel: one throwaway
// socket per algorithm of tcpao.Algorithms, TCP_AO_ADD_KEY with the
// algorithm's kernel name and a throwaway key, then close
// (ProbeAOAlgorithms, aoalgs_linux.go). What the answers mean is decided
// here (probeAO), portable and tested with injected answers.

// ErrAOAlgorithm marks a TCP-AO algorithm the running kernel refuses (an
// AOAlgorithmError).
var ErrAOAlgorithm = errors.New("tcpsock: the kernel does not offer this TCP-AO algorithm")

// errAOProbe marks a probe that could not ask the kernel (no socket, no
// memory): it says nothing of the algorithm.
var errAOProbe = errors.New("tcpsock: TCP-AO algorithm probe failed")

// probeKeyID is the SendID and RecvID of the probe's throwaway key.
const probeKeyID = 1

// probeSecret is the probe's throwaway key: a constant, not a secret
// (the socket never connects).
var probeSecret = keys.Secret("authbgpd-probe")

// AOAlgorithms is what the kernel answered to a probe of every TCP-AO
// algorithm authbgpd offers.
type AOAlgorithms struct {
	// Kernel is the running kernel's release (uname -r); "" unknown.
	Kernel string
	// Err is set when the probe learnt nothing: ErrNoTCPAO (the kernel
	// has no TCP-AO at all, CheckTCPAO's verdict), or why it could not
	// ask. Accepted and Refused are then empty.
	Err error
	// Accepted are the algorithms the kernel took, in tcpao.Algorithms'
	// order.
	Accepted []tcpao.Algorithm
	// Refused are the algorithms the kernel refused, with its answer
	// (Linux 6.12: ENOENT, its crypto API has no such algorithm).
	Refused map[tcpao.Algorithm]error
	// Unknown are the algorithms the probe could not ask about (no
	// socket, no memory), with why: neither accepted nor refused.
	Unknown map[tcpao.Algorithm]error
	// Took is how long the probe took.
	Took time.Duration
}

// Probed reports whether the probe learnt something (Err is nil).
func (a AOAlgorithms) Probed() bool { return a.Err == nil }

// Offers reports whether the kernel accepted alg.
func (a AOAlgorithms) Offers(alg tcpao.Algorithm) bool {
	for _, x := range a.Accepted {
		if x == alg {
			return true
		}
	}
	return false
}

// Check says whether a key of algorithm name (a config's `algorithm`:
// "hmac-sha-512", ...) can be put on sockets here: an AOAlgorithmError
// (ErrAOAlgorithm) when the kernel refused it; nil when it accepted it, or
// when nothing is known of it (a failed probe: the install itself then
// fails or not); a tcpao.ErrAlgorithm error for a name that is none.
func (a AOAlgorithms) Check(name string) error {
	alg, err := tcpao.ParseAlgorithm(name)
	if err != nil {
		return err
	}
	if why, ok := a.Refused[alg]; ok {
		return &AOAlgorithmError{Name: name, Alg: alg, Kernel: a.Kernel, Err: why}
	}
	return nil
}

// AOAlgorithmError is a TCP-AO algorithm the running kernel refused. It
// names the algorithm, the kernel's release and the kernel's answer, and
// matches ErrAOAlgorithm and the answer (errors.Is).
type AOAlgorithmError struct {
	Name   string          // as the config names it ("hmac-sha-512")
	Alg    tcpao.Algorithm //
	Kernel string          // uname -r
	Err    error           // the kernel's answer to TCP_AO_ADD_KEY
}

func (e *AOAlgorithmError) Error() string {
	kernel := e.Kernel
	if kernel == "" {
		kernel = "release unknown"
	}
	return fmt.Sprintf("tcp-ao algorithm %s is not offered by this kernel (Linux %s): TCP_AO_ADD_KEY with %q: %v",
		e.Name, kernel, e.Alg.LinuxName(), e.Err)
}

// Unwrap gives ErrAOAlgorithm and the kernel's answer.
func (e *AOAlgorithmError) Unwrap() []error { return []error{ErrAOAlgorithm, e.Err} }

// probeAO asks try about every algorithm of tcpao.Algorithms by its
// kernel name and sorts the answers: nil is accepted; ErrNoTCPAO (the
// kernel does not know TCP_AO_ADD_KEY) ends the probe with nothing known;
// errAOProbe (the question could not be asked) is unknown; any other
// answer is the kernel refusing the algorithm, which is what an install
// of a key of it would meet, since the probe makes the same call.
func probeAO(kernel string, try func(linuxName string) error) AOAlgorithms {
	a := AOAlgorithms{Kernel: kernel}
	for _, alg := range tcpao.Algorithms {
		err := try(alg.LinuxName())
		switch {
		case err == nil:
			a.Accepted = append(a.Accepted, alg)
		case errors.Is(err, ErrNoTCPAO):
			return AOAlgorithms{Kernel: kernel, Err: err}
		case errors.Is(err, errAOProbe):
			if a.Unknown == nil {
				a.Unknown = map[tcpao.Algorithm]error{}
			}
			a.Unknown[alg] = err
		default:
			if a.Refused == nil {
				a.Refused = map[tcpao.Algorithm]error{}
			}
			a.Refused[alg] = err
		}
	}
	return a
}

// AOAlgorithms probes the running kernel's TCP-AO algorithms
// (ProbeAOAlgorithms): the peers manager asks at start and on every
// reload.
func (ProcessSockets) AOAlgorithms() AOAlgorithms { return ProbeAOAlgorithms() }
