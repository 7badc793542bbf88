package main

import (
	"fmt"
	"io"

	"github.com/authbgp/authbgpd/status"
)

// printFIB writes the forwarding table's routes per table, then each
// refused route with its reason (nothing when [fib] is off).
func printFIB(w io.Writer, f *status.FIB) {
	if f == nil {
		return
	}
	table(w, func(tw io.Writer) {
		fmt.Fprintln(tw, "FIB\tVRF\tROUTES\tREFUSED\tPENDING\tLAST-LOOK\tERROR")
		for _, t := range f.Tables {
			fmt.Fprintf(tw, "table %d\t%s\t%d\t%d\t%d\t%s\t%s\n", t.Table, vrfName(t.VRF), t.Routes, t.Refused, f.Pending, orDash(f.LastLook), oneLine(f.LastError))
		}
	})
	if len(f.Refused) == 0 {
		return
	}
	table(w, func(tw io.Writer) {
		fmt.Fprintln(tw, "REFUSED ROUTE\tVRF\tTABLE\tREASON\tSINCE\tERROR")
		for _, r := range f.Refused {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", r.Prefix, vrfName(r.VRF), r.Table, r.Reason, orDash(r.Since), oneLine(r.Error))
		}
	})
}

// vrfName names a VRF, "default" for the default VRF's "".
func vrfName(v string) string {
	if v == "" {
		return "default"
	}
	return v
}
