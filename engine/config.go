package engine

import (
	"fmt"
	"strings"

	"github.com/gobwas/glob"
)

// checkConfig checks the lists of data.btfgate.config that the default
// rules read, so that a mistyped entry fails loudly instead of matching
// nothing. Other keys belong to user modules and are not checked.
func checkConfig(cfg any) error {
	m, ok := cfg.(map[string]any)
	if !ok {
		return fmt.Errorf("policy data (data.btfgate.config): want an object, got %s", jsonKind(cfg))
	}
	for _, list := range []string{"deny", "keep", "true_signature"} {
		err := eachEntry(m, list, func(e any) error {
			switch e := e.(type) {
			case string:
				return checkGlob(e)
			case map[string]any:
				name, ok := e["name"].(string)
				if !ok {
					return fmt.Errorf("want a string \"name\" (a glob), got %s", jsonKind(e["name"]))
				}
				if err := checkGlob(name); err != nil {
					return err
				}
				if r, present := e["reason"]; present {
					if _, ok := r.(string); !ok {
						return fmt.Errorf("want a string \"reason\", got %s", jsonKind(r))
					}
				}
				return nil
			}
			return fmt.Errorf("want a glob string or {\"name\": glob, \"reason\": text}, got %s", jsonKind(e))
		})
		if err != nil {
			return err
		}
	}
	return eachEntry(m, "tags", func(e any) error {
		o, ok := e.(map[string]any)
		if !ok {
			return fmt.Errorf("want {\"name\": glob, \"tag\": text}, got %s", jsonKind(e))
		}
		for _, key := range []string{"name", "tag"} {
			if _, ok := o[key].(string); !ok {
				return fmt.Errorf("want a string %q, got %s", key, jsonKind(o[key]))
			}
		}
		if tag := o["tag"].(string); tag == "" || strings.IndexByte(tag, 0) >= 0 {
			return fmt.Errorf("tag %q: a decl tag must be non-empty text without NUL bytes", tag)
		}
		return checkGlob(o["name"].(string))
	})
}

// checkGlob compiles pattern as the policies' glob.match(pattern, null, x)
// does (OPA uses the same library), so a bad pattern fails here, naming
// its entry, rather than in the middle of an evaluation.
func checkGlob(pattern string) error {
	if _, err := glob.Compile(pattern); err != nil {
		return fmt.Errorf("bad glob %q: %w", pattern, err)
	}
	return nil
}

// DataError is an entry of data.btfgate.config that the default rules
// cannot read. Key is the list's name; Index is the entry (-1: the list
// itself).
type DataError struct {
	Key   string
	Index int
	Msg   string
}

func (e *DataError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("policy data: data.btfgate.config.%s: %s", e.Key, e.Msg)
	}
	return fmt.Sprintf("policy data: data.btfgate.config.%s[%d]: %s", e.Key, e.Index, e.Msg)
}

// eachEntry calls check on every entry of the list cfg[name], if present.
func eachEntry(cfg map[string]any, name string, check func(any) error) error {
	v, present := cfg[name]
	if !present {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return &DataError{Key: name, Index: -1, Msg: "want a list, got " + jsonKind(v)}
	}
	for i, e := range list {
		if err := check(e); err != nil {
			return &DataError{Key: name, Index: i, Msg: err.Error()}
		}
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	}
	return "a number"
}
