package rules

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// dataValue converts a rules file's data node into the JSON-like value
// policies see (maps with string keys, slices, strings, numbers, booleans,
// nil), in time linear in the document: duplicate keys are found with a
// map per mapping (yaml.v3's own check, when it decodes into a map, is
// quadratic in the keys), and aliases are expanded against a budget, so an
// alias bomb is an error instead of an exhausted memory. Errors name the
// file and line.
func dataValue(file string, n *yaml.Node) (any, error) {
	c := dataConv{file: file, budget: 4*countNodes(n) + 100_000}
	return c.value(n, 0)
}

type dataConv struct {
	file   string
	budget int // values still allowed, aliases expanded included
}

// maxDataDepth bounds the nesting of data values.
const maxDataDepth = 1000

func countNodes(n *yaml.Node) int {
	total := 1
	for _, c := range n.Content {
		total += countNodes(c)
	}
	return total
}

func (c *dataConv) fail(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", c.file, n.Line, fmt.Sprintf(format, args...))
}

func (c *dataConv) value(n *yaml.Node, depth int) (any, error) {
	c.budget--
	if c.budget < 0 {
		return nil, c.fail(n, "data: aliases expand to more values than the file holds many times over")
	}
	if depth > maxDataDepth {
		return nil, c.fail(n, "data: nested more than %d levels deep", maxDataDepth)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], depth)
	case yaml.AliasNode:
		return c.value(n.Alias, depth+1)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := c.value(e, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		lines := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.AliasNode {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
				return nil, c.fail(k, "data keys must be strings, got %s", strings.TrimPrefix(k.Tag, "!!"))
			}
			if k.Value == "<<" {
				return nil, c.fail(k, "data: merge keys (<<) are not supported")
			}
			if first, dup := lines[k.Value]; dup {
				return nil, c.fail(k, "data: key %q already defined at line %d", k.Value, first)
			}
			lines[k.Value] = k.Line
			v, err := c.value(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			out[k.Value] = v
		}
		return out, nil
	case yaml.ScalarNode:
		if v, ok := plainScalar(n); ok {
			return v, nil
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, c.fail(n, "data: %s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
		return v, nil
	}
	return nil, c.fail(n, "data: unexpected YAML node")
}

// plainScalar converts the common scalars the way yaml.v3 decodes them
// into an interface value, without a decoder per scalar: strings, decimal
// integers, true/false and null. It reports false for anything else, which
// yaml.v3 then decodes.
func plainScalar(n *yaml.Node) (any, bool) {
	switch n.Tag {
	case "!!str":
		return n.Value, true
	case "!!null":
		return nil, true
	case "!!bool":
		switch n.Value {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	case "!!int":
		if v, err := strconv.ParseInt(n.Value, 10, 0); err == nil && !strings.HasPrefix(n.Value, "+") {
			return int(v), true
		}
	}
	return nil, false
}

// DataLine returns the line of data[key] in the rules file (of its entry
// index when index >= 0), or 0 when the file does not hold it.
func (r *Rules) DataLine(key string, index int) int {
	n := &r.DataNode
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return 0
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != key {
			continue
		}
		v := n.Content[i+1]
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		if index >= 0 && v.Kind == yaml.SequenceNode && index < len(v.Content) {
			return v.Content[index].Line
		}
		return n.Content[i].Line
	}
	return 0
}
