package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
)

// The manual's examples are run: every "$ btfgate ..." line of a fenced
// block in docs/**/*.md (or every line starting "btfgate " in a fenced
// block without "$ " prompts), in document order, in one temporary
// directory per page. docs/README.md states the conventions:
//
//   - VMLINUX, MODULE.ko, PAHOLE.btf and PAHOLE_MODULE.btf stand for the
//     corpus kernel, the ext4 module and pahole's BTF of both;
//   - a block whose info string has file=NAME is written to NAME;
//   - "$ echo $?" and a number on the next line give the exit status the
//     command before it must end with (0 otherwise);
//   - "> FILE" sends stdout to FILE; "2>&1", "2> FILE" and a "| ..." tail
//     are accepted, and a pipeline's tail is not run.

// docsDir is the manual, relative to this package.
const docsDir = "../../docs"

// docStep is one thing a page asks for: write a file, or run btfgate.
type docStep struct {
	line   int
	file   string // write content to file
	body   string
	args   []string // run btfgate with args
	stdout string   // redirect target, "" for none
	status int      // expected exit status
}

// isPlaceholder reports whether s is one of the words the manual uses
// for corpus files.
func isPlaceholder(s string) bool {
	switch s {
	case "VMLINUX", "MODULE.ko", "PAHOLE.btf", "PAHOLE_MODULE.btf":
		return true
	}
	return false
}

// argPart is a part of an argument that a placeholder can fill: the
// argument itself, or what "=", "," or ":" separate in it.
var argPart = regexp.MustCompile(`[^=,:]+`)

// substitute replaces the placeholders in arg by files' paths; it
// reports whether there were any.
func substitute(arg string, files map[string]string) (string, bool) {
	found := false
	out := argPart.ReplaceAllStringFunc(arg, func(p string) string {
		if isPlaceholder(p) {
			found = true
			return files[p]
		}
		return p
	})
	return out, found
}

// parseDoc extracts the steps of one page.
func parseDoc(name string, src []byte) ([]docStep, error) {
	var steps []docStep
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		fence, info, ok := fenceOpen(lines[i])
		if !ok {
			continue
		}
		start := i + 1
		indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " \t"))
		var body []string
		for i++; i < len(lines) && !isFenceClose(lines[i], fence); i++ {
			l := lines[i]
			if len(l) >= indent && strings.TrimSpace(l[:indent]) == "" {
				l = l[indent:]
			}
			body = append(body, l)
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: unclosed code block", name, start)
		}
		if f := infoFile(info); f != "" {
			steps = append(steps, docStep{line: start, file: f, body: strings.Join(body, "\n") + "\n"})
			continue
		}
		block, err := blockSteps(name, start, body)
		if err != nil {
			return nil, err
		}
		steps = append(steps, block...)
	}
	return steps, nil
}

func fenceOpen(l string) (fence, info string, ok bool) {
	t := strings.TrimLeft(l, " \t")
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			n := len(t) - len(strings.TrimLeft(t, f[:1]))
			return t[:n], strings.TrimSpace(t[n:]), true
		}
	}
	return "", "", false
}

func isFenceClose(l, fence string) bool {
	t := strings.TrimSpace(l)
	return strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == ""
}

// infoFile returns NAME from an info string "lang file=NAME".
func infoFile(info string) string {
	for _, f := range strings.Fields(info) {
		if v, ok := strings.CutPrefix(f, "file="); ok {
			return v
		}
	}
	return ""
}

// blockSteps returns the btfgate commands of one fenced block.
func blockSteps(name string, start int, body []string) ([]docStep, error) {
	prompted := false
	for _, l := range body {
		if strings.HasPrefix(l, "$ ") {
			prompted = true
		}
	}
	var steps []docStep
	for j := 0; j < len(body); j++ {
		l := body[j]
		line := start + j + 1
		if prompted {
			var ok bool
			if l, ok = strings.CutPrefix(l, "$ "); !ok {
				continue
			}
		}
		for strings.HasSuffix(l, "\\") && j+1 < len(body) {
			j++
			l = strings.TrimSuffix(l, "\\") + " " + strings.TrimSpace(body[j])
		}
		l = strings.TrimSpace(l)
		switch {
		case l == "echo $?":
			if len(steps) == 0 || j+1 >= len(body) {
				return nil, fmt.Errorf("%s:%d: echo $? without a btfgate command before it and a status after it", name, line)
			}
			n, err := strconv.Atoi(strings.TrimSpace(body[j+1]))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: echo $? must be followed by the exit status: %v", name, line, err)
			}
			steps[len(steps)-1].status = n
			j++
		case strings.HasPrefix(l, "btfgate "):
			s, err := commandStep(l)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, line, err)
			}
			s.line = line
			steps = append(steps, s)
		}
	}
	return steps, nil
}

// commandStep splits a shell line into btfgate's arguments and a stdout
// redirection.
func commandStep(l string) (docStep, error) {
	words, err := shellWords(l)
	if err != nil {
		return docStep{}, err
	}
	var s docStep
	for k := 1; k < len(words); k++ {
		w := words[k]
		switch {
		case w == "|":
			k = len(words)
		case w == ">" || w == "2>":
			if k+1 == len(words) {
				return s, fmt.Errorf("%s without a file", w)
			}
			k++
			if w == ">" {
				s.stdout = words[k]
			}
		case strings.HasPrefix(w, ">") && !strings.HasPrefix(w, ">&"):
			s.stdout = w[1:]
		case w == "2>&1" || strings.HasPrefix(w, "2>"):
		default:
			s.args = append(s.args, w)
		}
	}
	return s, nil
}

// shellWords splits a line as sh would, for quotes and backslashes only;
// an unquoted # starts a comment, an unquoted | is a word of its own.
func shellWords(l string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(l[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unclosed ' in %q", l)
			}
			cur.WriteString(l[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := i + 1
			for ; j < len(l) && l[j] != '"'; j++ {
				if l[j] == '\\' && j+1 < len(l) {
					j++
				}
				cur.WriteByte(l[j])
			}
			if j == len(l) {
				return nil, fmt.Errorf("unclosed \" in %q", l)
			}
			i = j
			inWord = true
		case c == '\\' && i+1 < len(l):
			i++
			cur.WriteByte(l[i])
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			i = len(l)
		case c == '|' && !inWord:
			words = append(words, "|")
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

func TestDocParsing(t *testing.T) {
	src := "text\n\n" +
		"```sh\n$ btfgate encode -o out.btf VMLINUX   # comment\nsummary line\n$ echo $?\n0\n" +
		"$ btfgate diff 'a b.btf' \"c\\\"d\" \\\n    --limit 3 > diff.txt\n$ echo $?\n1\n$ pahole -J x\n```\n\n" +
		"```yaml file=rules.yaml\ndata:\n  deny: [x]\n```\n\n" +
		"  ```\n  btfgate features | head -3\n  btfgate: not a command line\n  ```\n"
	steps, err := parseDoc("t.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(steps))
	for i, s := range steps {
		if s.file != "" {
			got[i] = fmt.Sprintf("%d write %s %q", s.line, s.file, s.body)
		} else {
			got[i] = fmt.Sprintf("%d run %q > %q status %d", s.line, s.args, s.stdout, s.status)
		}
	}
	want := []string{
		`4 run ["encode" "-o" "out.btf" "VMLINUX"] > "" status 0`,
		`8 run ["diff" "a b.btf" "c\"d" "--limit" "3"] > "diff.txt" status 1`,
		`15 write rules.yaml "data:\n  deny: [x]\n"`,
		`21 run ["features"] > "" status 0`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, bad := range []string{"```\n$ btfgate x\n", "```\n$ echo $?\n0\n```\n", "```\n$ btfgate 'x\n```\n"} {
		if _, err := parseDoc("bad.md", []byte(bad)); err == nil {
			t.Errorf("parseDoc(%q) gave no error", bad)
		}
	}
	files := map[string]string{"VMLINUX": "/v", "MODULE.ko": "/m", "PAHOLE.btf": "/p"}
	for in, want := range map[string]string{
		"--btf_base=VMLINUX": "--btf_base=/v", "MODULE.ko": "/m", "vmlinux.btf": "", "x=PAHOLE.btf,VMLINUX": "x=/p,/v",
		"MY_VMLINUX": "", "VMLINUX.btf": "",
	} {
		got, found := substitute(in, files)
		if found != (want != "") || (found && got != want) || (!found && got != in) {
			t.Errorf("substitute(%q) = %q, %v; want %q", in, got, found, want)
		}
	}
}

// corpusFiles maps the placeholders to corpus files, or explains why not.
func corpusFiles() (map[string]string, error) {
	vmlinux, err := corpus.VmlinuxPath()
	if err != nil {
		return nil, err
	}
	module, err := corpus.ModulePath("ext4")
	if err != nil {
		return nil, err
	}
	ref, err := corpus.Reference("amd64.default.btf")
	if err != nil {
		return nil, err
	}
	refMod, err := corpus.Reference("modules/ext4.default.btf")
	if err != nil {
		return nil, err
	}
	return map[string]string{"VMLINUX": vmlinux, "MODULE.ko": module, "PAHOLE.btf": ref, "PAHOLE_MODULE.btf": refMod}, nil
}

func TestDocsCommands(t *testing.T) {
	var pages []string
	err := filepath.WalkDir(docsDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatalf("no pages in %s", docsDir)
	}
	files, whyNot := corpusFiles()
	if testing.Short() {
		files, whyNot = nil, fmt.Errorf("-short")
	}
	total := 0
	for _, page := range pages {
		src, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(docsDir, page)
		steps, err := parseDoc(rel, src)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, s := range steps {
			if s.file == "" {
				total++
			}
		}
		t.Run(rel, func(t *testing.T) {
			t.Chdir(t.TempDir())
			// Files that a skipped command would have written (words with
			// a "." or "/" that name no file yet): later commands naming
			// them are skipped too.
			missing := map[string]bool{}
			for _, s := range steps {
				if s.file != "" {
					if err := os.WriteFile(s.file, []byte(s.body), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				words := append(append([]string(nil), s.args...), s.stdout)
				uses := func() (string, bool) {
					for _, w := range words {
						for _, part := range strings.Split(w, "=") {
							if missing[part] {
								return part, true
							}
						}
						if _, ph := substitute(w, nil); ph && files == nil {
							return "the corpus", true
						}
					}
					return "", false
				}
				if what, skip := uses(); skip {
					t.Logf("%s:%d: skipped, needs %s (%v)", rel, s.line, what, whyNot)
					for _, w := range words {
						for _, part := range strings.Split(w, "=") {
							if strings.ContainsAny(part, "./") && !strings.HasPrefix(part, "-") {
								if _, err := os.Stat(part); err != nil {
									missing[part] = true
								}
							}
						}
					}
					continue
				}
				args := make([]string, len(s.args))
				for i, a := range s.args {
					args[i], _ = substitute(a, files)
				}
				runDocStep(t, fmt.Sprintf("%s:%d", rel, s.line), args, s)
			}
		})
	}
	if total < 20 {
		t.Errorf("the manual has %d btfgate command lines; the parser probably missed some", total)
	}
}

// runDocStep runs one command in-process and checks its exit status.
func runDocStep(t *testing.T, where string, args []string, s docStep) {
	t.Helper()
	cmd := newRootCmd()
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(args)
	code := exitStatus(&errb, cmd.Execute())
	if s.stdout != "" {
		if err := os.WriteFile(s.stdout, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code != s.status {
		t.Errorf("%s: btfgate %s: exit status %d, the manual says %d\nstderr:\n%s\nstdout (start):\n%s",
			where, strings.Join(s.args, " "), code, s.status, errb.String(), head(out.String(), 20))
	}
}

func head(s string, n int) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	var b strings.Builder
	for i := 0; i < n && sc.Scan(); i++ {
		b.WriteString(sc.Text() + "\n")
	}
	return b.String()
}

// pendingPage reports whether rel is a page of the manual that others
// write; links to it are not checked until it exists.
func pendingPage(rel string) bool { return rel == "rules.md" || rel == "policies.md" }

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
)

// slug is GitHub's anchor for a heading: lower case, punctuation other
// than - and _ dropped, spaces as -.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 0x7f:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestDocsLinks checks that the manual's relative links lead to files
// that exist, and to headings that exist in them.
func TestDocsLinks(t *testing.T) {
	err := filepath.WalkDir(docsDir, func(page string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(page, ".md") {
			return err
		}
		src, err := os.ReadFile(page)
		if err != nil {
			return err
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(src), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			body, err := os.ReadFile(path)
			if err != nil {
				rel, _ := filepath.Rel(docsDir, path)
				if pendingPage(rel) {
					t.Logf("%s: link to %s, not written yet", page, rel)
					continue
				}
				t.Errorf("%s: link %s: %v", page, target, err)
				continue
			}
			if anchor == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			found := false
			for _, h := range mdHeading.FindAllStringSubmatch(string(body), -1) {
				found = found || slug(h[1]) == anchor
			}
			if !found {
				t.Errorf("%s: link %s: no heading with anchor #%s in %s", page, target, anchor, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := slug("Policies and the decision report"); got != "policies-and-the-decision-report" {
		t.Errorf("slug = %q", got)
	}
}
