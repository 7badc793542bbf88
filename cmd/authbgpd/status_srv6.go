package main

import (
	"fmt"
	"io"

	"github.com/authbgp/authbgpd/status"
)

func printSRv6(w io.Writer, s status.SRv6) {
	if len(s.HMACKeys) > 0 {
		table(w, func(tw io.Writer) {
			fmt.Fprintln(tw, "SRV6 HMAC KEY\tALGORITHM\tINSTALLED\tERROR")
			for _, k := range s.HMACKeys {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", k.ID, orDash(k.Algorithm), yesNo(k.Installed), oneLine(k.Error))
			}
		})
	}
	if len(s.Policies) > 0 {
		table(w, func(tw io.Writer) {
			fmt.Fprintln(tw, "SR POLICY\tADVERTISED\tINSTALLED\tREASON")
			for _, p := range s.Policies {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", orDash(p.Name), yesNo(p.Advertised), yesNo(p.Installed), oneLine(p.Reason))
			}
		})
	}
}
