package engine

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/btfgate/btfgate/internal/inputs"
	"github.com/btfgate/btfgate/policies"
)

// TestResult is the outcome of one policy test (a test_ rule).
type TestResult struct {
	Name    string // package and rule, e.g. data.btfgate.functions_test.test_ambiguous
	File    string
	Line    int
	Pass    bool
	Skipped bool   // a todo_test_ rule
	Failure string // why it did not pass: the failing expression or the error
	Output  string // what the test printed with print()
	Elapsed time.Duration
}

// RunTests runs the policy tests (test_ rules) of the default set, then
// those of the modules found at paths (.rego files, or directories
// searched recursively) loaded over the default rules, all compiled in
// New's sandbox. Results are sorted by file and line. An error means the
// tests could not run (a module does not parse or compile); failing tests
// are results.
func RunTests(ctx context.Context, paths ...string) ([]TestResult, error) {
	defaults, err := defaultModules(true)
	if err != nil {
		return nil, err
	}
	// The default tests check the default rules alone, so that a user's
	// rule (a deny list, say) cannot fail them; the user's tests check
	// their rules together with the default ones, as New runs them.
	out, err := runTests(ctx, defaults)
	if err != nil || len(paths) == 0 {
		return out, err
	}
	var modules []Module
	for _, m := range defaults {
		if !policies.IsTest(m.Name) {
			modules = append(modules, m)
		}
	}
	for _, p := range paths {
		found, err := readModules(p)
		if err != nil {
			return nil, err
		}
		modules = append(modules, found...)
	}
	more, err := runTests(ctx, modules)
	if err != nil {
		return nil, err
	}
	return sortResults(append(out, more...)), nil
}

// runTests compiles the modules in the sandbox and runs their tests.
func runTests(ctx context.Context, modules []Module) ([]TestResult, error) {
	caps, forbidden := sandbox()
	parsed, err := parseModules(modules, caps, forbidden)
	if err != nil {
		return nil, err
	}
	byName := make(map[string]*ast.Module, len(parsed))
	for i, m := range parsed {
		if _, dup := byName[modules[i].Name]; dup {
			return nil, coded(CodeInput, fmt.Errorf("policy tests: module %s given twice", modules[i].Name))
		}
		byName[modules[i].Name] = m
	}
	compiler := testCompiler(caps)
	if compiler.Compile(byName); compiler.Failed() {
		return nil, coded(CodeCompile, fmt.Errorf("compiling policy tests: %w", policyErrors(compiler.Errors, forbidden)))
	}
	return sortResults(runCompiledTests(ctx, compiler, inmem.New())), nil
}

// sortResults orders results by file, line and name.
func sortResults(rs []TestResult) []TestResult {
	slices.SortFunc(rs, func(a, b TestResult) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Name, b.Name))
	})
	return rs
}

// readModules reads the .rego file at path, or every .rego file under the
// directory at path. Module names are the file paths.
func readModules(path string) ([]Module, error) {
	var out []Module
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || (p != path && !strings.HasSuffix(p, ".rego")) {
			return nil
		}
		src, err := inputs.ReadFile(p, inputs.PolicyCap, "policy module")
		if err != nil {
			return err
		}
		out = append(out, Module{Name: p, Source: string(src)})
		return nil
	})
	if err != nil {
		return nil, coded(CodeInput, fmt.Errorf("reading policies: %w", err))
	}
	return out, nil
}
