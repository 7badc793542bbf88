package tcpsock

import "errors"

// KernelFeatures says what the kernel offers for keyed BGP, so that an
// operator sees at start-up why, say, TCP-AO or VRF-scoped keys are not
// available: "tcp_md5" (CheckKernelMD5), "tcp_ao" (CheckTCPAO) and "vrf"
// (CheckVRF), each "yes", "no" or "unknown (<why the probe failed>)".
func KernelFeatures() map[string]any {
	f := map[string]any{}
	say := func(name string, err, missing error) {
		switch {
		case err == nil:
			f[name] = "yes"
		case errors.Is(err, missing):
			f[name] = "no"
		default:
			f[name] = "unknown (" + err.Error() + ")"
		}
	}
	say("tcp_md5", CheckKernelMD5(), ErrNotSupported)
	say("tcp_ao", CheckTCPAO(), ErrNoTCPAO)
	say("vrf", CheckVRF(), ErrNoVRF)
	return f
}
