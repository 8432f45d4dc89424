// Command btfgate encodes BTF from DWARF, like pahole -J, with the
// decisions about what to keep made by Rego policies.
package main

import (
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"
)

func main() {
	// Policies may format times (time.clock, time.date, time.format with
	// the zone "Local"); outputs must not depend on the host's TZ or
	// zoneinfo, so the process's local zone is UTC.
	time.Local = time.UTC
	// Nothing reads the memory profiler's samples unless --memprofile asks
	// for them (it sets a rate of its own); taken by default, each one
	// costs a stack walk and a bucket in the profiler's table, a page of
	// which is read before it is written.
	runtime.MemProfileRate = 0
	releaseInitCode()
	fitThreads()
	if isPahole(os.Args[0]) || paholeStyle(os.Args[1:]) {
		if err := runPahole(os.Args[1:], os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "pahole (btfgate):", err)
			os.Exit(1)
		}
		return
	}
	if err := newRootCmd().Execute(); err != nil {
		os.Exit(exitStatus(os.Stderr, err))
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "btfgate",
		Short:         "Encode BTF from DWARF, with policy-driven selection",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newEncodeCmd(), newFeaturesCmd(), newFactsCmd(), newExplainCmd(), newPolicyCmd(), newDiffCmd(), newPaholeCmd(), newVersionCmd())
	withPlainBoolHelp(root)
	return root
}
