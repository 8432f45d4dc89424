package engine

// Decision is what the policies decided about one function group.
type Decision struct {
	ID   int    // facts.Function.ID
	Name string // facts.Function.Name
	// Include: the group goes into BTF.
	Include bool
	// Reasons lists every skip and exclude rule that applied: pahole's in
	// its precedence order (A, O, R, C, I, U), then the others by kind
	// (exclude before skip), rule and message. A kept function can have
	// reasons: they are what keep rules overrode.
	Reasons []Reason
	// Final is the reason pahole logs for the group (the first of its six
	// that applied, e.g. "optimized parameters"), or "" if pahole would
	// emit it. It does not change when a keep rule overrides the skip.
	Final string
	// Kept lists the keep rules that applied, by rule and message.
	Kept []Reason
	// Annotations are extra decl tags for the FUNC, by rule and value;
	// only for included functions.
	Annotations []Annotation
	// TrueSignature lists the true_signature rules that selected the
	// group, by rule and message: SelectTrueSignature's answer, which the
	// encoder copies here (DecideFunctions leaves it nil).
	TrueSignature []Reason
}

// Reason is one rule's verdict on a function.
type Reason struct {
	Rule    string // e.g. "ambiguous_address"
	Message string // e.g. "ambiguous address"
	// Module names the file defining the rule; several files are joined
	// with ", ". Empty if the rule's name is computed.
	Module string
}

// Annotation is a decl tag a policy attaches to a function.
type Annotation struct {
	Value string
	// Component is the decl tag's component_idx: -1 for the function
	// itself, i for its i-th parameter.
	Component int
	Rule      string // the annotate rule that asked for it
}
