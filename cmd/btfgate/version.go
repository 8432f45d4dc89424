package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version describes this build of btfgate: its module version, the
// commit it was built from (with "+dirty" for uncommitted changes), the Go
// toolchain, and the pahole release it emulates (what "btfgate --version",
// the pahole front end, answers).
func version() string {
	v, commit, goVersion := "(devel)", "unknown", "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		dirty := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if dirty {
			commit += "+dirty"
		}
	}
	return fmt.Sprintf("btfgate %s (commit %s, %s); emulates pahole %s", v, commit, goVersion, paholeVersion)
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print btfgate's version, commit and the pahole version it emulates",
		Example: "  btfgate version",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := io.WriteString(cmd.OutOrStdout(), version()+"\n")
			return err
		},
	}
}
