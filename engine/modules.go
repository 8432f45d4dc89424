package engine

import (
	"cmp"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/policies"
)

// loadModules lists the modules an engine evaluates, in load order: the
// framework, the default rule families unless cfg.NoDefault, then the
// user's. Test files are left out.
func loadModules(cfg Config) ([]Module, error) {
	defaults, err := defaultModules(false)
	if err != nil {
		return nil, err
	}
	var out []Module
	for _, m := range defaults {
		if !cfg.NoDefault || slices.Contains(policies.Framework(), m.Name) {
			out = append(out, m)
		}
	}
	seen := map[string]bool{}
	for _, m := range out {
		seen[m.Name] = true
	}
	for _, m := range cfg.Modules {
		switch {
		case m.Name == "":
			return nil, coded(CodeInput, fmt.Errorf("policy module with no name (source starts %q)", head(m.Source)))
		case seen[m.Name]:
			return nil, coded(CodeInput, fmt.Errorf("policy module %s: loaded twice (names must be unique, and may not repeat the default set's)", m.Name))
		}
		seen[m.Name] = true
		if !policies.IsTest(m.Name) {
			out = append(out, m)
		}
	}
	return out, nil
}

// defaultModules reads the embedded default set, with or without its
// test files, sorted by name.
func defaultModules(tests bool) ([]Module, error) {
	fsys := policies.Default()
	var names []string
	// The names fs.Glob(fsys, "*.rego") and "variables/*.rego" return,
	// without the pattern matching, which took half of the read.
	for _, dir := range []string{"", "variables/"} {
		entries, err := fs.ReadDir(fsys, cmp.Or(strings.TrimSuffix(dir, "/"), "."))
		if err != nil {
			return nil, coded(CodeInternal, fmt.Errorf("default policies: %w", err))
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".rego") {
				names = append(names, dir+e.Name())
			}
		}
	}
	var out []Module
	for _, name := range names {
		if policies.IsTest(name) && !tests {
			continue
		}
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, coded(CodeInternal, fmt.Errorf("default policies: %w", err))
		}
		out = append(out, Module{Name: name, Source: string(src)})
	}
	return out, nil
}

func head(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// parseModules parses every module as Rego v1 against the sandbox's
// capabilities.
func parseModules(modules []Module, caps *ast.Capabilities, forbidden map[string]bool) ([]*ast.Module, error) {
	opts := ast.ParserOptions{RegoVersion: ast.RegoV1, Capabilities: caps, ProcessAnnotation: true}
	var errs PolicyErrors
	out := make([]*ast.Module, 0, len(modules))
	for _, m := range modules {
		parsed, err := ast.ParseModuleWithOpts(m.Name, m.Source, opts)
		if err != nil {
			if pe, ok := policyErrors(err, forbidden).(PolicyErrors); ok {
				errs = append(errs, pe...)
				continue
			}
			return nil, coded(CodeParse, fmt.Errorf("parsing policy %s: %w", m.Name, err))
		}
		if parsed == nil {
			errs = append(errs, PolicyError{File: m.Name, Message: "empty module (no package declaration)"})
			continue
		}
		out = append(out, parsed)
	}
	if len(errs) > 0 {
		return nil, coded(CodeParse, fmt.Errorf("parsing policies: %w", errs))
	}
	return out, nil
}
