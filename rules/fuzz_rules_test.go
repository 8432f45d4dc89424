package rules

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRules feeds arbitrary bytes to the rules parser: it must return
// rules or an error that starts with the file name, on one line.
func FuzzRules(f *testing.F) {
	for _, s := range []string{
		"features: default,+global_var\nfeatures_strict: true\npolicies: [a.rego, dir/]\n" +
			"data:\n  deny: [\"kmalloc_*\", {name: foo, reason: x}]\n  tags: [{name: \"vfs_*\", tag: vfs}]\n" +
			"output:\n  btf: out/vmlinux.btf\n  report: /abs/r.ndjson\nno_default_policies: false\n",
		"features: default\n",
		"data:\n  x: &a [1, 2]\n  y: *a\n",
		"features: [a\n",
		"\ufeff: : :\n",
		"features: *nope\n",
		"data:\n  1: x\n",
		"features: a\n---\nfeatures: b\n",
		"output:\n\tbtf: x\n",
		"",
	} {
		f.Add([]byte(s))
	}
	const name = "/etc/btfgate/rules.yaml"
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(name, data)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, name+":") && !strings.HasPrefix(msg, name+" ") {
				t.Fatalf("error does not start with the file name: %q", msg)
			}
			if strings.Contains(msg, "\n") {
				t.Fatalf("error spans lines: %q", msg)
			}
			return
		}
		if r.File != name {
			t.Fatalf("File = %q", r.File)
		}
		for _, p := range append(append([]string(nil), r.Policies...), nonEmpty(r.Output.BTF, r.Output.Report)...) {
			if !filepath.IsAbs(p) {
				t.Fatalf("path %q not resolved against the rules file's directory", p)
			}
		}
	})
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
