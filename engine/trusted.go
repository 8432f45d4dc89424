package engine

import (
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/btfgate/btfgate/policies"
)

// embeddedOnly reports whether New compiles nothing but the embedded
// default set for cfg: Config.Modules holds no module other than test
// files, which New leaves out.
func embeddedOnly(cfg Config) bool {
	for _, m := range cfg.Modules {
		if !policies.IsTest(m.Name) {
			return false
		}
	}
	return true
}

// checkOnlyStages are the compiler stages New skips when it compiles the
// embedded set alone: each only looks for errors, none rewrites a module
// or builds what evaluation reads, except CheckTypes, whose type
// environment evaluation reads only for a with modifier that replaces a
// function (the embedded set has none) and to type a query that calls a
// function (New's queries are refs). TestTrustedCompile compiles the
// embedded sets with every stage, finds no error, and finds the compiled
// modules identical with and without these stages; user modules always
// get every stage.
func checkOnlyStages() []ast.StageID {
	return []ast.StageID{
		ast.StageCheckUnusedImports,
		ast.StageCheckKeywordOverrides,
		ast.StageCheckDuplicateImports,
		ast.StageCheckVoidCalls,
		ast.StageCheckRuleConflicts,
		ast.StageCheckUndefinedFuncs,
		ast.StageCheckSafetyRuleHeads,
		ast.StageCheckRecursion,
		ast.StageCheckTypes,
		ast.StageCheckUnsafeBuiltins,
		ast.StageCheckDeprecatedBuiltins,
		ast.StageBuildRequiredCapabilities,
	}
}
