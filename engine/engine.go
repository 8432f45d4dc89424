package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown/print"

	"github.com/btfgate/btfgate/features"
)

// Module is one Rego policy file.
type Module struct {
	Name   string // file name, used in error messages and Reason.Module
	Source string
}

// Config says which policies an engine runs and with what.
type Config struct {
	// Modules are policy files loaded after the default set. _test.rego
	// files are not evaluated; RunTests runs them.
	Modules []Module
	// NoDefault leaves out the default rule families (pahole's six skip
	// rules and the configuration lists); decision assembly is still
	// loaded, so every function goes in unless a rule in Modules says
	// otherwise. pahole's variable rules stay (policies.Framework).
	NoDefault bool
	// Data is mounted at data.btfgate.config (see the package doc for the
	// lists the default set reads). It must be JSON-like: maps with string
	// keys, slices, strings, numbers, booleans and nil.
	Data map[string]any
	// Features are the encode's features, input.features for policies.
	Features features.Set
	// Limits bound each evaluation (zero: the defaults).
	Limits Limits
	// Print, if set, receives what policies print(), a line per call
	// naming the module and line; nil drops print() calls.
	Print io.Writer
	// CacheDir, if set, is a directory where New keeps the policies
	// compiled, for the next process to load instead of compiling them
	// again. A file that cannot be written is reported by CacheError.
	CacheDir string
}

// Engine evaluates a compiled policy set. It is safe for concurrent use.
type Engine struct {
	query *preparedQuery
	// shapes is problemsQuery, evaluated on a batch whose verdicts are
	// not wellFormed.
	shapes *preparedQuery
	// trueSig is the true_signature selection query, prepared only when
	// some module or the configuration selects functions (see
	// SelectsTrueSignature).
	trueSig *preparedQuery
	// minBatch is the fewest items a batch of its own is given
	// (minBatch; tests lower it).
	minBatch int
	features *ast.Term
	input    *inputBuilder
	// origins maps "kind.rule" (e.g. "skip.ambiguous_address") to the
	// module or modules that define the rule.
	origins   map[string]string
	mentioned func(string) bool
	limits    Limits
	data      map[string]any // Config.Data, for Unmatched
	lint      []string       // see Lint
	vars      *variableRules // the variable decision query
	cacheErr  error          // see CacheError
	cached    bool           // the policies came from Config.CacheDir
}

// decisionQuery is decision.rego's verdict on a batch: the rule
// documents, the functions left out and the conflicts. The malformed
// rule entries are problemsQuery's, which the engine asks for only when
// its own check of the documents fails (wellFormed).
const decisionQuery = "data.btfgate.decision.verdicts"

// problemsQuery is decision.rego's list of malformed rule entries.
const problemsQuery = "data.btfgate.decision.problems"

// New compiles the policies once. Parse and compile errors are
// PolicyErrors naming the module, line and column.
func New(ctx context.Context, cfg Config) (*Engine, error) {
	modules, err := loadModules(cfg)
	if err != nil {
		return nil, err
	}
	trusted := embeddedOnly(cfg)
	prints := cfg.Print != nil
	store, err := configStore(cfg.Data)
	if err != nil {
		return nil, err
	}

	// Every query (decisions, variables, true_signature) is prepared on
	// one compiler: the modules are compiled once, the queries compile
	// only themselves against them.
	env := queryEnv{store: store, print: prints}
	if prints {
		env.hook = &printHook{w: cfg.Print}
	}
	var cache *policyCache
	if cfg.CacheDir != "" {
		cache = newPolicyCache(cfg.CacheDir, modules, userModules(cfg), prints)
	}
	set, c, query, cached := cache.prepare(env, prints, trusted)
	if !cached {
		caps, forbidden := sandbox()
		parsed, err := parseModules(modules, caps, forbidden)
		if err != nil {
			return nil, err
		}
		c = newCompiler(caps, prints, trusted)
		if err := compileModules(ctx, c, store, parsed); err != nil {
			return nil, coded(CodeCompile, fmt.Errorf("compiling policies: %w", policyErrors(err, forbidden)))
		}
		env.compiler = c
		if query, err = env.prepare(decisionQuery); err != nil {
			return nil, coded(CodeCompile, fmt.Errorf("compiling policies: %w", policyErrors(err, forbidden)))
		}
		if set, err = derive(parsed, userModules(cfg), trusted); err != nil {
			return nil, err
		}
		set.compiled(c)
	} else {
		env.queries = set.queries
	}
	env.compiler = c
	mentioned := mentionsOf(set.mentions)
	if set.computed {
		mentioned = everyField
	}
	input, err := newInputBuilder(mentioned)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		query:     query,
		minBatch:  minBatch,
		features:  featuresTerm(cfg.Features),
		input:     input,
		origins:   set.origins,
		mentioned: mentioned,
		limits:    cfg.Limits,
		data:      cfg.Data,
		lint:      set.lint,
		cached:    cached,
	}
	if e.shapes, err = env.prepare(problemsQuery); err != nil {
		return nil, coded(CodeCompile, fmt.Errorf("compiling policies: %w", policyErrors(err, forbiddenBuiltins())))
	}
	if e.vars, err = prepareVariables(env, set.variables); err != nil {
		return nil, err
	}
	if set.trueSigRule || listsTrueSignature(cfg) {
		if e.trueSig, err = env.prepare(trueSignatureQuery); err != nil {
			return nil, coded(CodeCompile, fmt.Errorf("compiling policies: %w", policyErrors(err, forbiddenBuiltins())))
		}
	}
	if cache != nil && !cached {
		set.queries = compiledQueries(map[string]*preparedQuery{
			decisionQuery: e.query, variableQuery: e.vars.query, trueSignatureQuery: e.trueSig,
			problemsQuery: e.shapes, variableProblemsQuery: e.vars.shapes,
		})
		if err := cache.store(set); err != nil {
			e.cacheErr = fmt.Errorf("policy cache %s: %w", cache.dir, err)
		}
	}
	return e, nil
}

// derive computes from the parsed modules what New needs besides the
// compiler; user names the user's modules. It checks their fact
// references, which the embedded set's tests check for it
// (TestTrustedCompile: no problems, no computed key).
func derive(parsed []*ast.Module, user map[string]bool, trusted bool) (*compiledSet, error) {
	s := &compiledSet{
		mentions:    stringConstants(parsed),
		origins:     ruleOrigins(parsed),
		variables:   packageRuleOrigins(parsed, "variables"),
		lint:        lintModules(parsed, user),
		trueSigRule: definesTrueSignature(parsed),
	}
	if !trusted {
		refs, err := checkFactRefs(parsed)
		if err != nil {
			return nil, err
		}
		if len(refs.problems) > 0 {
			return nil, coded(CodeCompile, refs.problems)
		}
		s.computed = refs.computed
	}
	return s, nil
}

// CacheError is why New could not write the compiled policies to
// Config.CacheDir, nil if it did or had no need to.
func (e *Engine) CacheError() error { return e.cacheErr }

// newCompiler returns the compiler for the policies (capabilities caps,
// Rego v1, print statements if print), for the queries to share. A
// trusted compiler, for the embedded set alone, skips the stages that
// only check (checkOnlyStages).
func newCompiler(caps *ast.Capabilities, print, trusted bool) *ast.Compiler {
	c := ast.NewCompiler()
	if trusted {
		c = c.WithSkipStages(checkOnlyStages()...)
	}
	return c.
		WithCapabilities(caps).
		WithEnablePrintStatements(print).
		WithUseTypeCheckAnnotations(true).
		WithDefaultRegoVersion(ast.RegoV1)
}

// Lint returns what in Config.Modules does nothing, for people: fact
// names no function fact has, modules that define no rule and that no
// module reads; each names the module and line.
func (e *Engine) Lint() []string { return e.lint }

func userModules(cfg Config) map[string]bool {
	out := map[string]bool{}
	for _, m := range cfg.Modules {
		out[m.Name] = true
	}
	return out
}

// Mentions reports whether some loaded module names a fact (or any key)
// name as a string: the input builder passes only those facts, and the
// encoder builds costly facts (params, prototype) only when a policy can
// read them.
func (e *Engine) Mentions(name string) bool { return e.mentioned(name) }

// queryEnv is what the engine's queries are prepared with: the compiler
// holding the policies, the store holding the configuration, print
// statements kept (print) and where they go, and the queries a policy
// cache holds compiled for that compiler, by query text.
type queryEnv struct {
	compiler *ast.Compiler
	store    storage.Store
	print    bool
	hook     print.Hook
	queries  map[string]ast.Body
}

// prepare compiles query, a reference, for evaluation with strict builtin
// errors: a builtin's error fails the evaluation. A query env.queries
// holds is not compiled again.
func (env queryEnv) prepare(query string) (*preparedQuery, error) {
	if body, ok := env.queries[query]; ok {
		return &preparedQuery{compiler: env.compiler, body: body, result: resultVar, store: env.store, hook: env.hook, strict: true}, nil
	}
	return prepareQuery(env.compiler, env.store, query, env.print, env.hook, true)
}

// configStore holds Config.Data at data.btfgate.config. The store returns
// AST values, so policies read it without conversions.
func configStore(data map[string]any) (storage.Store, error) {
	root := map[string]any{}
	if data != nil {
		v, err := ast.InterfaceToValue(exactNumbers(data))
		if err != nil {
			return nil, coded(CodeData, fmt.Errorf("policy data (data.btfgate.config): %w", err))
		}
		plain, err := ast.JSON(v)
		if err != nil {
			return nil, coded(CodeData, fmt.Errorf("policy data (data.btfgate.config): %w", err))
		}
		if err := checkConfig(plain); err != nil {
			return nil, coded(CodeData, err)
		}
		root["btfgate"] = map[string]any{"config": plain}
	}
	return inmem.NewFromObjectWithOpts(root, inmem.OptReturnASTValuesOnRead(true)), nil
}

// exactNumbers copies v with every unsigned integer as a json.Number:
// ast.InterfaceToValue turns a uint64 above math.MaxInt64 (a kernel
// address such as 0xffffffff81000000 in a rules file) into a negative
// number.
func exactNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = exactNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = exactNumbers(e)
		}
		return out
	case uint64:
		return json.Number(strconv.FormatUint(v, 10))
	case uint:
		return json.Number(strconv.FormatUint(uint64(v), 10))
	}
	return v
}
