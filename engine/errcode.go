package engine

import "errors"

// Code classifies the engine's failures, as OPA's topdown.Error codes
// classify its own: callers and tests branch on the code, never on the
// message. Every error New, DecideFunctions, DecideVariables,
// SelectTrueSignature and RunTests return carries one (CodeOf), except
// a cancelled context's.
type Code string

const (
	// CodeParse: a module does not parse (PolicyErrors, file:line:col).
	CodeParse Code = "policy_parse"
	// CodeCompile: a module parses but does not compile: type errors,
	// forbidden builtins, a fact no subject has (PolicyErrors).
	CodeCompile Code = "policy_compile"
	// CodeData: data.btfgate.config holds an entry the rules cannot
	// read (*DataError).
	CodeData Code = "policy_data"
	// CodeEval: evaluation failed: a builtin's error, a rule with
	// conflicting values (PolicyErrors where OPA gives a place).
	CodeEval Code = "policy_eval"
	// CodeDocument: a rule document is malformed: a key that is not a
	// subject's id, an entry that is not a set, a bad decl tag.
	CodeDocument Code = "rule_document"
	// CodeConflict: keep and exclude rules both named a subject.
	CodeConflict Code = "rule_conflict"
	// CodeDenied: deny rules refused outcomes (*ViolationsError); the
	// decisions come with the error.
	CodeDenied Code = "denied"
	// CodeLimit: evaluation went past its time or memory limit
	// (*LimitError).
	CodeLimit Code = "limit"
	// CodeInput: the caller's subjects are not decidable (two with one id).
	CodeInput Code = "input"
	// CodeInternal: the engine's own queries answered in a shape it does
	// not know: a bug in btfgate or a module overriding its documents.
	CodeInternal Code = "internal"
)

// Error is an engine failure of a known kind; Err holds the detail.
type Error struct {
	Code Code
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ErrorCode is e's code.
func (e *Error) ErrorCode() Code { return e.Code }

// ErrorCode is CodeLimit.
func (e *LimitError) ErrorCode() Code { return CodeLimit }

// ErrorCode is CodeDenied.
func (e *ViolationsError) ErrorCode() Code { return CodeDenied }

// ErrorCode is CodeData.
func (e *DataError) ErrorCode() Code { return CodeData }

// CodeOf is the code of the first engine failure in err's chain, "" if
// it has none.
func CodeOf(err error) Code {
	var c interface{ ErrorCode() Code }
	if errors.As(err, &c) {
		return c.ErrorCode()
	}
	return ""
}

// coded gives err the code c, unless it is nil or already has a code
// (a *LimitError stays a limit whatever failed when it struck).
func coded(c Code, err error) error {
	if err == nil || CodeOf(err) != "" {
		return err
	}
	return &Error{Code: c, Err: err}
}
