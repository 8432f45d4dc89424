package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/btfgate/btfgate/internal/inputs"
)

// Place is where a data entry was written: a file and a line (0 when
// unknown).
type Place struct {
	File string
	Line int
}

func (p Place) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return p.File
}

// DataFileSpec parses a data file argument, like opa -d: "FILE" (a JSON
// or YAML mapping whose keys join the policies' data) or "KEY=FILE" (the
// file's content is the value of KEY: a list from a plain text file with
// one name or glob per line, or any JSON or YAML value). A path with an
// '=' in it needs the KEY= form.
func DataFileSpec(spec string) (key, file string) {
	if k, f, ok := strings.Cut(spec, "="); ok && k != "" && !strings.ContainsAny(k, "/\\") {
		return k, f
	}
	return "", spec
}

// isStructured says whether a data file is read as JSON or YAML (by its
// name) rather than as plain text.
func isStructured(file string) bool {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}

// AddDataFile reads a data file (see DataFileSpec) into r.Data. A list
// joins the list already there under its key (the rules file's data,
// earlier files), after it; any other value may not replace one. Every
// error names the file and line.
func (r *Rules) AddDataFile(spec string) error {
	key, file := DataFileSpec(spec)
	if file == "" {
		return fmt.Errorf("data file %q: no file name", spec)
	}
	data, err := inputs.ReadFile(file, inputs.DataCap, "data file")
	if err != nil {
		return fmt.Errorf("data file: %w", err)
	}
	r.dataFilesRead = append(r.dataFilesRead, file)
	if !isStructured(file) {
		if key == "" {
			return fmt.Errorf("%s: a plain text data file needs a key: KEY=%s (e.g. deny=%s); .json, .yaml and .yml files may hold a mapping of keys", file, file, file)
		}
		vals, places := textList(file, data)
		return r.addData(file, key, vals, places, 0)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: empty data file", file)
		}
		return fmt.Errorf("%s%s", file, yamlMessage(err, data))
	}
	v, err := dataValue(file, &doc)
	if err != nil {
		return err
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	if key != "" {
		return r.addData(file, key, v, nodePlaces(file, root), root.Line)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s:%d: want a mapping of keys (deny:, keep:, ...) to lists or values, or give the key: KEY=%s", file, root.Line, file)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, val := root.Content[i], root.Content[i+1]
		if err := r.addData(file, k.Value, m[k.Value], nodePlaces(file, val), k.Line); err != nil {
			return err
		}
	}
	return nil
}

// textList reads one entry per line; blank lines and lines starting with
// '#' are skipped, and spaces around an entry trimmed.
func textList(file string, data []byte) ([]any, []Place) {
	vals := []any{}
	var places []Place
	for i, line := range strings.Split(string(data), "\n") {
		s := strings.TrimSpace(line)
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		vals = append(vals, s)
		places = append(places, Place{file, i + 1})
	}
	return vals, places
}

// nodePlaces are the lines of a sequence node's entries, nil for other
// nodes.
func nodePlaces(file string, n *yaml.Node) []Place {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]Place, len(n.Content))
	for i, e := range n.Content {
		out[i] = Place{file, e.Line}
	}
	return out
}

// addData sets or extends r.Data[key] with v from file.
func (r *Rules) addData(file, key string, v any, places []Place, line int) error {
	if r.Data == nil {
		r.Data = map[string]any{}
	}
	if r.extra == nil {
		r.extra = map[string][]Place{}
	}
	old, exists := r.Data[key]
	if !exists {
		r.Data[key] = v
		r.extra[key] = places
		r.keyPlace(key, Place{file, line})
		return nil
	}
	oldList, ok1 := old.([]any)
	newList, ok2 := v.([]any)
	if !ok1 || !ok2 {
		return fmt.Errorf("%s: %q is already set at %s; only lists can be given in several places", Place{file, line}, key, r.firstPlace(key))
	}
	r.Data[key] = append(slices.Clip(oldList), newList...)
	r.extra[key] = append(r.extra[key], places...)
	return nil
}

func (r *Rules) keyPlace(key string, p Place) {
	if r.keys == nil {
		r.keys = map[string]Place{}
	}
	if _, ok := r.keys[key]; !ok {
		r.keys[key] = p
	}
}

// firstPlace is where key was first given.
func (r *Rules) firstPlace(key string) Place {
	if line := r.DataLine(key, -1); line > 0 {
		return Place{r.File, line}
	}
	return r.keys[key]
}

// DataPlace returns where data[key] (its entry index when index >= 0)
// was written: the rules file's data or a data file. The File is "" when
// nothing says.
func (r *Rules) DataPlace(key string, index int) Place {
	inline := 0
	if l, ok := r.inlineData(key).([]any); ok {
		inline = len(l)
	}
	if index < 0 || index < inline {
		if line := r.DataLine(key, index); line > 0 {
			return Place{r.File, line}
		}
	}
	if index >= inline {
		if ps := r.extra[key]; index-inline < len(ps) {
			return ps[index-inline]
		}
	}
	if p, ok := r.keys[key]; ok {
		return p
	}
	return Place{}
}

// inlineData is the value the rules file's own data gives key.
func (r *Rules) inlineData(key string) any {
	if r.inline == nil {
		return nil
	}
	return r.inline[key]
}

// loadDataFiles reads the rules file's data_files, resolved against its
// directory.
func (r *Rules) loadDataFiles() error {
	for i, spec := range r.DataFiles {
		key, file := DataFileSpec(spec)
		if file == "" {
			return fmt.Errorf("%s: data_files[%d] is empty", r.File, i)
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(filepath.Dir(r.File), file)
		}
		if key != "" {
			file = key + "=" + file
		}
		if err := r.AddDataFile(file); err != nil {
			return err
		}
	}
	return nil
}

// InputFiles are the files the rules file made btfgate read besides
// itself: its policy modules and every data file (data_files and those
// added with AddDataFile). Outputs must be none of them.
func (r *Rules) InputFiles() []string {
	files, _ := r.PolicyFiles() // read already: an error was reported then
	return append(files, r.dataFilesRead...)
}
