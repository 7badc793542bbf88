package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"github.com/authbgp/authbgpd/srv6policy"
)

const srv6Detail = `Prints the SRH HMAC (64 hex digits: the 32-byte HMAC field, HMAC-SHA1
zero-padded) exactly as Linux puts it in the HMAC TLV of an encap SRH:
flags 0x08, Last Entry = number of segments - 1, segments given first
hop first (as in "ip route ... encap seg6 mode encap segs A,B,C hmac N").
The key file holds the secret (1..64 bytes; one trailing newline is
removed). Exit 2: bad usage; exit 1: an invalid key, address or file.`

// srv6Usage is the usage of `authbgpd srv6`.
const srv6Usage = "usage:\n  authbgpd srv6 hmac --algorithm sha1|sha256 --key-file FILE --key-id N --source ADDR --segments A,B,C\n"

// cmdSRv6 runs `authbgpd srv6 SUBCOMMAND`.
func cmdSRv6(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, srv6Usage)
		return 2
	}
	switch args[0] {
	case "hmac":
		return cmdSRv6HMAC(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, srv6Usage)
		return 0
	}
	fmt.Fprintf(stderr, "authbgpd srv6: unknown subcommand %q\n%s", args[0], srv6Usage)
	return 2
}

// maxKeyFile bounds how much of a key file is read: a secret is at most 64
// bytes, so anything much longer is refused without reading it all.
const maxKeyFile = 4096

// hmacArgs are the parsed arguments of `authbgpd srv6 hmac`.
type hmacArgs struct {
	alg     srv6policy.Algorithm
	keyFile string
	id      uint32
	src     netip.Addr
	segs    []netip.Addr
}

// cmdSRv6HMAC prints the HMAC field for a key and an encap SRH. The secret
// never appears in any output.
func cmdSRv6HMAC(args []string, stdout, stderr io.Writer) int {
	a, code := parseHMACArgs(args, stderr)
	if code >= 0 {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "authbgpd srv6 hmac: %v\n", err)
		return 1
	}
	if !a.src.Is6() || a.src.Is4In6() || a.src.Zone() != "" {
		return fail(fmt.Errorf("--source %s is not an IPv6 address", a.src))
	}
	for _, s := range a.segs {
		if !s.Is6() || s.Zone() != "" {
			return fail(fmt.Errorf("segment %s is not an IPv6 address", s))
		}
	}
	secret, err := readKeyFile(a.keyFile)
	if err != nil {
		return fail(err)
	}
	defer clear(secret)
	key, err := srv6policy.NewKey(a.id, a.alg, secret)
	if err != nil {
		return fail(err)
	}
	srh, err := srv6policy.EncapSRH(a.segs, a.id)
	if err != nil {
		return fail(err)
	}
	mac := key.Sum(nil, a.src, srh.LastEntry(), srh.Flags, srh.Segments)
	if len(mac) != srv6policy.HMACFieldLen {
		return fail(srv6policy.ErrFIPS140Only)
	}
	fmt.Fprintln(stdout, hex.EncodeToString(mac))
	return 0
}

// hmacFlagValues are the flags of `srv6 hmac`, as given.
type hmacFlagValues struct{ algorithm, keyFile, keyID, source, segments *string }

// hmacFlags declares the flags of `srv6 hmac` on fs.
func hmacFlags(fs *flag.FlagSet) hmacFlagValues {
	return hmacFlagValues{
		algorithm: fs.String("algorithm", "", "sha1 or sha256"),
		keyFile:   fs.String("key-file", "", "file holding the secret"),
		keyID:     fs.String("key-id", "", "HMAC key ID (1..4294967295)"),
		source:    fs.String("source", "", "outer IPv6 source address"),
		segments:  fs.String("segments", "", "comma-separated segments, first hop first"),
	}
}

// parseHMACArgs parses the flags of `srv6 hmac`; code is the exit code
// when it is done (bad usage: 2, help: 0), else -1.
func parseHMACArgs(args []string, stderr io.Writer) (a hmacArgs, code int) {
	fs := flag.NewFlagSet("srv6 hmac", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, srv6Usage) }
	v := hmacFlags(fs)
	algName, keyFile, keyID, source, segments := v.algorithm, v.keyFile, v.keyID, v.source, v.segments
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return a, 0
		}
		return a, 2
	}
	usageErr := func(format string, v ...any) (hmacArgs, int) {
		fmt.Fprintf(stderr, "authbgpd srv6 hmac: "+format+"\n", v...)
		fmt.Fprint(stderr, srv6Usage)
		return a, 2
	}
	if fs.NArg() != 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	for _, f := range []struct{ name, val string }{
		{"algorithm", *algName}, {"key-file", *keyFile}, {"key-id", *keyID}, {"source", *source}, {"segments", *segments},
	} {
		if f.val == "" {
			return usageErr("--%s is required", f.name)
		}
	}
	var err error
	if a.alg, err = srv6policy.ParseAlgorithm(*algName); err != nil {
		return usageErr("--algorithm: %v", err)
	}
	id, err := strconv.ParseUint(*keyID, 10, 32)
	if err != nil {
		return usageErr("--key-id %q: not a number from 1 to 4294967295", *keyID)
	}
	a.id, a.keyFile = uint32(id), *keyFile
	if a.src, err = netip.ParseAddr(*source); err != nil {
		return usageErr("--source: %v", err)
	}
	for _, s := range strings.Split(*segments, ",") {
		seg, err := netip.ParseAddr(strings.TrimSpace(s))
		if err != nil {
			return usageErr("--segments: %v", err)
		}
		a.segs = append(a.segs, seg)
	}
	return a, -1
}

// readKeyFile reads a secret with one trailing "\n" or "\r\n" removed (as
// config secret files). Errors name the file, never its contents.
func readKeyFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("key file %s is a directory", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("key file %s: read error", path)
	}
	if len(data) > maxKeyFile {
		clear(data)
		return nil, fmt.Errorf("key file %s: %w (the file is over %d bytes)", path, srv6policy.ErrSecretTooLong, maxKeyFile)
	}
	switch {
	case bytes.HasSuffix(data, []byte("\r\n")):
		data = data[:len(data)-2]
	case bytes.HasSuffix(data, []byte("\n")):
		data = data[:len(data)-1]
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("key file %s: %w", path, srv6policy.ErrEmptySecret)
	}
	return data, nil
}
