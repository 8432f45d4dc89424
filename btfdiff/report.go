package btfdiff

// Report is the difference between two Sets, A (old) and B (new).
type Report struct {
	A Side `json:"a"`
	B Side `json:"b"`
	// Kinds has one row per kind present on either side, in kind order.
	Kinds []KindCount `json:"kinds"`
	// Functions, Variables and Types group FUNC, VAR and the named types
	// (struct, union, enum, enum64, typedef, fwd, int, float, datasec) by
	// kind and name.
	Functions Changes `json:"functions"`
	Variables Changes `json:"variables"`
	Types     Changes `json:"types"`
	// OnlyA and OnlyB are the content keys with more types on one side
	// than on the other, sorted by kind and key; Count is the excess.
	OnlyA []KeyDiff `json:"only_a"`
	OnlyB []KeyDiff `json:"only_b"`
}

// Side describes one input.
type Side struct {
	Name  string `json:"name"`
	Base  string `json:"base,omitempty"`
	Types int    `json:"types"`
}

// KindCount compares the types of one kind.
type KindCount struct {
	Kind  Kind `json:"kind"`
	A     int  `json:"a"`
	B     int  `json:"b"`
	OnlyA int  `json:"only_a"` // types whose key has no counterpart in B
	OnlyB int  `json:"only_b"` // types whose key has no counterpart in A
}

// KeyDiff is a content key found Count more times on one side.
type KeyDiff struct {
	Kind  Kind   `json:"kind"`
	Name  string `json:"name,omitempty"` // set for functions, variables and named types
	Key   string `json:"key"`
	Count int    `json:"count"`
}

// Changes lists the functions, variables or named types that differ.
type Changes struct {
	Added   []Change `json:"added"`
	Removed []Change `json:"removed"`
	Changed []Change `json:"changed"`
}

// Change is one function, variable or named type that differs. Old holds
// its keys found only in A, New those found only in B (several types can
// share a name). Detail says what differs: with one old and one new key,
// the outer part and the list items (members, parameters, enumerators,
// entries) found on one side only, as "- " and "+ " lines; otherwise how
// many types of that name each side has, and the keys.
type Change struct {
	Kind   Kind     `json:"kind"`
	Name   string   `json:"name"`
	Old    []string `json:"old,omitempty"`
	New    []string `json:"new,omitempty"`
	Detail []string `json:"detail,omitempty"`
}

// Len returns the number of added, removed and changed entries.
func (c *Changes) Len() int { return len(c.Added) + len(c.Removed) + len(c.Changed) }

// Equal reports whether both sides hold the same multiset of content keys.
func (r *Report) Equal() bool { return len(r.OnlyA) == 0 && len(r.OnlyB) == 0 }
