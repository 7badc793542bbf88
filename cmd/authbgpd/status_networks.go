package main

import (
	"fmt"
	"io"

	"github.com/authbgp/authbgpd/status"
)

// printNetworks writes the [[networks]] and whether each is announced
// (nothing when the config has none).
func printNetworks(w io.Writer, nets []status.Network) {
	if len(nets) == 0 {
		return
	}
	table(w, func(tw io.Writer) {
		fmt.Fprintln(tw, "NETWORK\tVRF\tANNOUNCED\tERROR")
		for _, n := range nets {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", n.Prefix, vrfName(n.VRF), yesNo(n.Announced), orDash(oneLine(n.LastError)))
		}
	})
}
