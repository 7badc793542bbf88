//go:build !linux

package peers

import (
	"errors"

	"github.com/sirupsen/logrus"
)

var errNoScopes = errors.New("interface and VRF peers need Linux")

type noScopes struct{}

func defaultScopes() ScopeObserver { return noScopes{} }

func (noScopes) Link(string) Link { return Link{MasterErr: errNoScopes} }
func (noScopes) VRF(string) VRF   { return VRF{Err: errNoScopes} }

func observeL3mdev(map[string]VRF, uint16) l3mdevView { return l3mdevView{} }

func setL3mdevAccept() error { return errNoScopes }

// KernelAdvertiser sends nothing here (no ndp).
type KernelAdvertiser struct{}

// NewKernelAdvertiser returns an Advertiser that does nothing.
func NewKernelAdvertiser(*logrus.Logger) *KernelAdvertiser { return &KernelAdvertiser{} }

// Set implements Advertiser.
func (*KernelAdvertiser) Set([]string) {}

// Close does nothing.
func (*KernelAdvertiser) Close() error { return nil }
