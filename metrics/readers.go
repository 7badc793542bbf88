package metrics

import "fmt"

// Readers are what the metrics read from the running daemon at each scrape
// (a nil one is not read: its metrics are absent).
type Readers struct {
	// KernelDrops: authbgpd_kernel_tcp_md5_drops_total and
	// authbgpd_kernel_tcp_ao_segments_total (ReadKernelDrops).
	KernelDrops func() (KernelMD5Drops, error)
	// Peers: authbgpd_peer_up and authbgpd_peer_prefixes (ReadPeers).
	Peers func() ([]PeerState, error)
	// PeerKernelDrops: authbgpd_peer_kernel_drops_total
	// (ReadPeerKernelDrops).
	PeerKernelDrops func() []PeerKernelDrops
	// CaptureRunning: authbgpd_shadow_capture_running
	// (ReadCaptureRunning; nil when [shadow] is off).
	CaptureRunning func() bool
	// ReconcilePasses: authbgpd_reconcile_passes_total and
	// authbgpd_reconcile_pass_seconds_total (ReadReconcilePasses).
	ReconcilePasses func() ReconcilePasses
	// AOAlgorithms: authbgpd_kernel_tcp_ao_algorithm (ReadAOAlgorithms).
	AOAlgorithms func() (accepted, refused []string)
	// GoBGPLoop: authbgpd_gobgp_loop_last_answer_age_seconds and
	// authbgpd_gobgp_loop_stalled (ReadGoBGPLoop).
	GoBGPLoop GoBGPLoop
	// FIB: the authbgpd_fib_* metrics (ReadFIB; nil when [fib] is off).
	FIB func() FIBState
}

// Read makes the metrics read r's readers at every scrape (call it once).
func (m *Metrics) Read(r Readers) error {
	var err error
	if r.KernelDrops != nil {
		err = m.ReadKernelDrops(r.KernelDrops)
	}
	if err == nil && r.Peers != nil {
		err = m.ReadPeers(r.Peers)
	}
	if err == nil && r.PeerKernelDrops != nil {
		err = m.ReadPeerKernelDrops(r.PeerKernelDrops)
	}
	if err == nil && r.CaptureRunning != nil {
		err = m.ReadCaptureRunning(r.CaptureRunning)
	}
	if err == nil && r.ReconcilePasses != nil {
		err = m.ReadReconcilePasses(r.ReconcilePasses)
	}
	if err == nil && r.AOAlgorithms != nil {
		err = m.ReadAOAlgorithms(r.AOAlgorithms)
	}
	if err == nil && r.GoBGPLoop != nil {
		err = m.ReadGoBGPLoop(r.GoBGPLoop.LoopAnswerAge, r.GoBGPLoop.LoopHealth)
	}
	if err == nil && r.FIB != nil {
		err = m.ReadFIB(r.FIB)
	}
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	return nil
}
