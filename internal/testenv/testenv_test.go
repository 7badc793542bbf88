package testenv

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// TestReadKernelConfig: built-in and module options are set, "is not set"
// ones are known and unset, absent ones unset; an unreadable file is not
// known at all.
func TestReadKernelConfig(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.gz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	_, _ = zw.Write([]byte("#\n# Automatically generated file\n#\nCONFIG_IPV6_SEG6_LWTUNNEL=y\nCONFIG_TUN=m\n# CONFIG_IPV6_SEG6_HMAC is not set\nCONFIG_LOCALVERSION=\"-x\"\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	opts := readKernelConfig(p)
	for opt, want := range map[string]string{
		"CONFIG_IPV6_SEG6_LWTUNNEL": "y", "CONFIG_TUN": "m", "CONFIG_IPV6_SEG6_HMAC": "n", "CONFIG_LOCALVERSION": `"-x"`, "CONFIG_NET_VRF": "",
	} {
		if got := opts[opt]; got != want {
			t.Errorf("%s = %q, want %q", opt, got, want)
		}
	}
	if readKernelConfig(filepath.Join(t.TempDir(), "none.gz")) != nil {
		t.Error("a missing file gave options")
	}
	if err := os.WriteFile(p, []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if readKernelConfig(p) != nil {
		t.Error("a file that is not gzip gave options")
	}
}
