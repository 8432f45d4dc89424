// Package rules reads btfgate rules files: YAML documents that choose BTF
// features, add policy modules, feed data to policies (allow and deny
// lists, tags) and name outputs, so that a user can steer an encode
// without writing Go. Every error names the file and line.
package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/btfgate/btfgate/internal/inputs"
)

// Rules is one parsed rules file. Paths in it are resolved against the
// directory of the file.
type Rules struct {
	// File is the rules file's path.
	File string `yaml:"-"`
	// Features is a btf_features list ("default", "+name", "a,b").
	Features string `yaml:"features"`
	// FeaturesStrict makes unknown feature names an error.
	FeaturesStrict bool `yaml:"features_strict"`
	// Policies are Rego files or directories of them (their *.rego files,
	// _test.rego excluded), loaded after the default policies.
	Policies []string `yaml:"policies"`
	// NoDefaultPolicies drops the default (pahole) policy set.
	NoDefaultPolicies bool `yaml:"no_default_policies"`
	// Data is made available to policies as data.btfgate.config.
	Data map[string]any `yaml:"-"`
	// DataNode is the data mapping as parsed, with lines; Parse builds
	// Data from it (see dataValue).
	DataNode yaml.Node `yaml:"data"`
	// DataFiles are data files read into Data after the rules file's own
	// data, like opa -d: "FILE" (a JSON or YAML mapping) or "KEY=FILE"
	// (see DataFileSpec), relative to the rules file's directory. Load
	// reads them; Parse only lists them.
	DataFiles []string `yaml:"data_files"`
	// Output names where results go; flags on the command line win.
	Output Output `yaml:"output"`

	inline map[string]any     // the rules file's own data, before data files
	extra  map[string][]Place // per key, the places of list entries data files added
	// dataFilesRead are the data files read, for InputFiles.
	dataFilesRead []string
	keys          map[string]Place // where a data file first gave a key
}

// Output names the files an encode writes.
type Output struct {
	BTF    string `yaml:"btf"`
	Report string `yaml:"report"`
}

// Load reads and checks a rules file.
func Load(path string) (*Rules, error) {
	data, err := inputs.ReadFile(path, inputs.RulesCap, "rules file")
	if err != nil {
		return nil, fmt.Errorf("rules file: %w", err)
	}
	r, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	if err := r.loadDataFiles(); err != nil {
		return nil, err
	}
	return r, nil
}

// Parse reads a rules file's content; name labels errors.
func Parse(name string, data []byte) (*Rules, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var r Rules
	if err := dec.Decode(&r); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty rules file", name)
		}
		return nil, fmt.Errorf("%s%s", name, yamlMessage(err, data))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, fmt.Errorf("%s:%d: only one YAML document is allowed", name, extra.Line)
	} else if !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s%s", name, yamlMessage(err, data))
	}
	r.File = name
	dir := filepath.Dir(name)
	for i, p := range r.Policies {
		if p == "" {
			return nil, fmt.Errorf("%s: policies[%d] is empty", name, i)
		}
		if !filepath.IsAbs(p) {
			r.Policies[i] = filepath.Join(dir, p)
		}
	}
	for _, o := range []*string{&r.Output.BTF, &r.Output.Report} {
		if *o != "" && !filepath.IsAbs(*o) {
			*o = filepath.Join(dir, *o)
		}
	}
	if r.DataNode.Kind != 0 {
		v, err := dataValue(name, &r.DataNode)
		if err != nil {
			return nil, err
		}
		m, ok := v.(map[string]any)
		if !ok && v != nil {
			return nil, fmt.Errorf("%s:%d: data: want a mapping of names to lists or values, got %s", name, r.DataNode.Line, strings.TrimPrefix(r.DataNode.Tag, "!!"))
		}
		r.Data = m
		r.inline = make(map[string]any, len(m))
		for k, v := range m {
			r.inline[k] = v
		}
	}
	return &r, nil
}

// yamlMessage turns yaml.v3's "yaml: line N: ..." into ":N: ..." so that
// after the file name it reads "FILE:N: ..." (": ..." when no line can be
// found, see errorLine).
func yamlMessage(err error, data []byte) string {
	one := func(msg string) string {
		msg = strings.TrimPrefix(msg, "yaml: ")
		if rest, ok := strings.CutPrefix(msg, "line "); ok {
			if n, tail, ok := strings.Cut(rest, ": "); ok {
				return ":" + n + ": " + humanYAML(tail)
			}
		}
		return ": " + humanYAML(msg)
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msgs := make([]string, len(te.Errors))
		for i, e := range te.Errors {
			msgs[i] = one(e)
			if i > 0 { // ":N: ..." reads "; line N: ..." after the first
				msgs[i] = "; line " + strings.TrimPrefix(msgs[i], ":")
			}
		}
		return oneLine.Replace(strings.Join(msgs, ""))
	}
	msg := one(err.Error())
	if strings.HasPrefix(msg, ": ") {
		if line := errorLine(err, data); line > 0 {
			msg = ":" + strconv.Itoa(line) + msg
		}
	}
	return oneLine.Replace(msg)
}

// oneLine escapes the line breaks of values that yaml.v3 quotes in its
// messages ("cannot unmarshal !!str `a\nb`"), so that an error is one line.
var oneLine = strings.NewReplacer("\n", `\n`, "\r", `\r`)

// yaml.v3's messages that errorLine reads (compiled there, see
// unknownField).
const (
	unknownAnchor = `^yaml: unknown anchor '(.*)' referenced$`
	selfAnchor    = `^yaml: anchor '(.*)' value contains itself$`
	yamlLine      = `^yaml: line [12]: (.*)$`
)

// errorLine finds the line of a yaml.v3 error that does not give one.
// yaml.v3 leaves the line out of syntax errors on the first line (it
// counts from 0 and prints only non-zero lines), and out of errors about
// anchors and aliases. It returns 0 if it cannot tell.
func errorLine(err error, data []byte) int {
	sigil := "*"
	m := regexp.MustCompile(unknownAnchor).FindStringSubmatch(err.Error())
	if m == nil {
		if m = regexp.MustCompile(selfAnchor).FindStringSubmatch(err.Error()); m != nil {
			sigil = "&"
		}
	}
	if m != nil {
		for i, line := range strings.Split(string(data), "\n") {
			for rest := line; ; {
				at := strings.Index(rest, sigil+m[1])
				if at < 0 {
					break
				}
				rest = rest[at+1+len(m[1]):]
				if rest == "" || strings.ContainsRune(" \t,]}#\r", rune(rest[0])) {
					return i + 1
				}
			}
		}
		return 0
	}
	// The other errors without a line are at yaml.v3's line 0, which is
	// line 1 (parser errors count from 0, scanner errors from 1). Confirm
	// that it is such an error by decoding again one line further down,
	// where it must get a line.
	shifted := append([]byte("\n"), data...)
	if bom := []byte("\ufeff"); bytes.HasPrefix(data, bom) {
		shifted = append(append(append([]byte(nil), bom...), '\n'), data[len(bom):]...)
	}
	dec := yaml.NewDecoder(bytes.NewReader(shifted))
	dec.KnownFields(true)
	var r Rules
	again := dec.Decode(&r)
	for again == nil { // the error was in a later document
		var extra yaml.Node
		again = dec.Decode(&extra)
	}
	want := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := regexp.MustCompile(yamlLine).FindStringSubmatch(again.Error()); m != nil && m[1] == want {
		return 1
	}
	return 0
}

// PolicyFiles expands Policies into the Rego files to load, in a stable
// order: a directory contributes its *.rego files (not *_test.rego),
// sorted by name.
func (r *Rules) PolicyFiles() ([]string, error) {
	return ExpandPolicies(r.Policies)
}

// ExpandPolicies expands files and directories into Rego module files.
func ExpandPolicies(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
		var names []string
		for _, e := range entries {
			n := e.Name()
			if !e.IsDir() && strings.HasSuffix(n, ".rego") && !strings.HasSuffix(n, "_test.rego") {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, filepath.Join(p, n))
		}
	}
	return out, nil
}
