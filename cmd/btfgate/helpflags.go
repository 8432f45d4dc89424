package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// plainBool is a bool flag's value that does not say it is one, so that
// pflag's help shows "--json" rather than "--json[=true|false]". The flag
// keeps NoOptDefVal "true": "--json" alone still sets it, and
// "--json=false" still works.
type plainBool struct{ pflag.Value }

// plainBoolFlags rewraps the bool flags of c and of every command under
// it (cobra adds --help when the command runs, so call it then).
func plainBoolFlags(c *cobra.Command) {
	wrap := func(f *pflag.Flag) {
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() && f.NoOptDefVal == "true" {
			f.Value = plainBool{f.Value}
		}
	}
	c.Flags().VisitAll(wrap)
	c.PersistentFlags().VisitAll(wrap)
	for _, sub := range c.Commands() {
		plainBoolFlags(sub)
	}
}

// withPlainBoolHelp makes root's help show bool flags plainly.
func withPlainBoolHelp(root *cobra.Command) {
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		c.InitDefaultHelpFlag()
		plainBoolFlags(c)
		help(c, args)
	})
}

// oneInput accepts exactly one argument, the input file, and says so in
// words otherwise.
func oneInput(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return usageError(cmd, cmd.Name()+" needs an INPUT: vmlinux, a kernel module or an object file with DWARF")
	case len(args) > 1:
		return usageError(cmd, fmt.Sprintf("%s takes one INPUT, got %d arguments (%s)", cmd.Name(), len(args), strings.Join(args, " ")))
	}
	return nil
}

// noArgs refuses arguments, in words.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError(cmd, fmt.Sprintf("%s takes no arguments, got %s", cmd.Name(), strings.Join(args, " ")))
	}
	return nil
}
