package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/internal/atomicfile"
)

// policyCache keeps policy sets compiled (compiledSet) in a directory, so
// that the processes of a kernel build, one per module, load the set
// instead of parsing and compiling the same policies each. A file is
// named by its key and holds the key whole; the key covers everything the
// compile reads: the modules' names and sources (and which are the
// user's), print statements, the encoding's format, and the build (Go,
// module and OPA versions, VCS revision) and executable (path, size,
// modification time): the OPA compiler and btfgate's use of it are part
// of the compile, and so are the capabilities the sandbox leaves (this
// OPA's, less what sandbox removes), which New computes only on a miss.
// A file that does not read back under its key is compiled and written
// again. Writes go to a temporary file renamed into place; the newest
// KeepPolicyFiles files are kept.
type policyCache struct {
	dir string
	key []byte
}

// KeepPolicyFiles is how many compiled sets a cache directory keeps.
const KeepPolicyFiles = 8

// policyFileSuffix ends the names of a policy cache's files.
const policyFileSuffix = ".btfpolicy"

// newPolicyCache returns the cache in dir for the modules compiled in the
// sandbox with print statements if print; user names the user's modules.
func newPolicyCache(dir string, modules []Module, user map[string]bool, print bool) *policyCache {
	h := sha256.New()
	field := func(s string) {
		h.Write(binary.AppendUvarint(nil, uint64(len(s))))
		h.Write([]byte(s))
	}
	field(compiledMagic)
	field(string(rune(compiledFormat)))
	if bi, ok := debug.ReadBuildInfo(); ok {
		field(bi.GoVersion)
		field(bi.Main.Version)
		for _, st := range bi.Settings {
			if strings.HasPrefix(st.Key, "vcs.") {
				field(st.Key + "=" + st.Value)
			}
		}
		for _, dep := range bi.Deps {
			if strings.HasPrefix(dep.Path, "github.com/open-policy-agent/") {
				field(dep.Path + "@" + dep.Version)
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		field(exe)
		if st, err := os.Stat(exe); err == nil {
			field(st.ModTime().UTC().String())
			field(string(binary.AppendVarint(nil, st.Size())))
		}
	}
	if print {
		field("print")
	}
	for _, m := range modules {
		field(m.Name)
		field(m.Source)
		if user[m.Name] {
			field("user")
		}
	}
	return &policyCache{dir: dir, key: h.Sum(nil)}
}

func (c *policyCache) path() string {
	return filepath.Join(c.dir, hex.EncodeToString(c.key[:12])+policyFileSuffix)
}

// load returns the compiled set the cache holds, nil if none loads.
func (c *policyCache) load() *compiledSet {
	b, err := os.ReadFile(c.path())
	if err != nil {
		return nil
	}
	s, err := decodeCompiled(c.key, b)
	if err != nil {
		return nil
	}
	return s
}

// store writes s, then removes all but the newest KeepPolicyFiles files.
func (c *policyCache) store(s *compiledSet) error {
	data, err := encodeCompiled(c.key, s)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(c.path(), data, 0o644); err != nil {
		return err
	}
	atomicfile.KeepNewest(c.dir, policyFileSuffix, KeepPolicyFiles)
	return nil
}

// loadedStages are the stages a compiler runs on a compiledSet's modules,
// which the other stages have already rewritten and checked: those that
// build what evaluation reads (the module and rule trees, the annotation
// set, the rule indices, the comprehension indices if the compile built
// any). A set that is not trusted also gets CheckTypes, for the type
// environment evaluation reads (see checkOnlyStages), and the graph and
// local variable generator CheckTypes reads; a trusted one needs neither:
// nothing but the compile stages reads them. ParseMetadataBlocks is not
// run: it only turns the comments of a module that calls rego.metadata
// into annotations, and a loaded module has neither (the compile rewrote
// the calls, a module with annotations is not cached, and the cache keeps
// no comments).
func loadedStages(trusted, indexed bool) []ast.StageID {
	keep := []ast.StageID{
		ast.StageRemoveImports,
		ast.StageSetModuleTree,
		ast.StageSetRuleTree,
		ast.StageSetAnnotationSet,
		ast.StageBuildRuleIndices,
	}
	if indexed {
		keep = append(keep, ast.StageBuildComprehensionIndices)
	}
	if !trusted {
		keep = append(keep, ast.StageInitLocalVarGen, ast.StageSetGraph, ast.StageCheckTypes)
	}
	return keep
}

// loadedCapabilities returns the capabilities a compiler loading s gets:
// those of the compile, but for the builtins, of which it has only those
// the set refers to (compiledSet.builtins): nothing after the compile
// reads the others, and the compiler builds a type for each builtin it
// has. A name that is no builtin of this OPA, or one the sandbox
// forbids, is an error.
func loadedCapabilities(s *compiledSet) (*ast.Capabilities, error) {
	caps := &ast.Capabilities{
		Builtins:       make([]*ast.Builtin, 0, len(s.builtins)),
		Features:       s.features,
		FutureKeywords: s.futureKeywords,
		AllowNet:       []string{},
	}
	for _, name := range s.builtins {
		b, ok := ast.BuiltinMap[name]
		if !ok || forbiddenBuiltin(b) {
			return nil, fmt.Errorf("policy cache: builtin %q not allowed", name)
		}
		caps.Builtins = append(caps.Builtins, b)
	}
	return caps, nil
}

// prepare loads the set the cache holds into a compiler and prepares the
// decision query in env on it; ok is false if no set loads, or when c is
// nil.
func (c *policyCache) prepare(env queryEnv, print, trusted bool) (s *compiledSet, comp *ast.Compiler, q *preparedQuery, ok bool) {
	if c == nil {
		return nil, nil, nil, false
	}
	if s = c.load(); s == nil {
		return nil, nil, nil, false
	}
	comp, err := loadCompiler(print, trusted, s)
	if err != nil {
		return nil, nil, nil, false
	}
	env.compiler, env.queries = comp, s.queries
	if q, err = env.prepare(decisionQuery); err != nil {
		return nil, nil, nil, false
	}
	return s, comp, q, true
}

// loadCompiler returns a compiler holding s as newCompiler(caps, print,
// trusted) leaves the set after compiling it with the sandbox's
// capabilities, for evaluation (TestPolicyCacheLoadsTheCompile compares
// them): it runs loadedStages, with the capabilities loadedCapabilities
// makes of s. The compiler takes s's modules as they are, not copies,
// when trusted; s must not be used again.
func loadCompiler(print, trusted bool, s *compiledSet) (*ast.Compiler, error) {
	caps, err := loadedCapabilities(s)
	if err != nil {
		return nil, err
	}
	keep := loadedStages(trusted, s.indexed)
	var skip []ast.StageID
	for _, st := range ast.AllStages() {
		if !slices.Contains(keep, st) {
			skip = append(skip, st)
		}
	}
	c := newCompiler(caps, print, trusted).WithSkipStages(skip...)
	modules := make(map[string]*ast.Module, len(s.modules))
	for i, m := range s.modules {
		modules[s.names[i]] = m
	}
	if trusted {
		// Compile copies the modules it is given, a copy as costly as
		// decoding them: it is given empty modules under the same names
		// instead, and the first stage it runs on them, RemoveImports
		// (which leaves them as empty as it finds them, and the loaded
		// modules, whose imports the compile removed, too), is followed by
		// one that puts the loaded modules in their place. The stages
		// before RemoveImports, which would see the empty modules, are
		// not run for a trusted set (loadedStages).
		loaded := modules
		stub := &ast.Module{Package: &ast.Package{}}
		stubs := make(map[string]*ast.Module, len(loaded))
		for name := range loaded {
			stubs[name] = stub
		}
		c.WithStageAfterID(ast.StageRemoveImports, ast.CompilerStageDefinition{
			Name:       "btfgate.LoadCompiled",
			MetricName: "btfgate_load_compiled",
			Stage: func(c *ast.Compiler) *ast.Error {
				maps.Copy(c.Modules, loaded)
				return nil
			},
		})
		modules = stubs
	}
	if c.Compile(modules); c.Failed() {
		return nil, c.Errors
	}
	for k, v := range s.rewritten {
		c.RewrittenVars[k] = v
	}
	return c, nil
}
