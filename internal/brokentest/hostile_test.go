package brokentest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/engine"
)

// hostileCase is one misuse of the btfgate command, as an attacker or a
// careless user would try it (the classes of issue 16).
type hostileCase struct {
	class, name string
	// setup writes what the case needs into dir and returns the
	// arguments; x.o in dir is a copy of the fixture.
	setup func(t *testing.T, dir string) []string
	// want is a part of the error message that names the file or place.
	want string
	// accept: the command may succeed, if what it writes is valid BTF.
	accept bool
	// env is added to the command's environment.
	env []string
}

func writeFile(t *testing.T, path, data string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func mkfifo(t *testing.T, path string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const spinPolicy = "package btfgate.functions\n\nexclude.spin[id] contains \"never\" if {\n\tsome id, _ in input.functions\n\tcount([x | some a in numbers.range(1, 100000); some b in numbers.range(1, 100000); x := a * b]) < 0\n}\n"

const rangePolicy = "package btfgate.functions\n\nexclude.big[id] contains \"never\" if {\n\tsome id, _ in input.functions\n\tcount(numbers.range(1, 1e9)) < 0\n}\n"

const rangeVarPolicy = "package btfgate.variables\n\nexclude.big[id] contains \"never\" if {\n\tsome id, _ in input.variables\n\tcount(numbers.range(1, 1e9)) < 0\n}\n"

func hostileCases() []hostileCase {
	in := func(dir string) string { return filepath.Join(dir, "x.o") }
	out := func(dir string) string { return filepath.Join(dir, "out.btf") }
	return []hostileCase{
		// 1. An output can destroy an input.
		{"output is an input", "encode -o INPUT INPUT", func(t *testing.T, d string) []string {
			return []string{"encode", "-o", in(d), in(d)}
		}, "refusing to overwrite an input", false, nil},
		{"output is an input", "--report INPUT", func(t *testing.T, d string) []string {
			return []string{"encode", "-o", out(d), "--report", in(d), in(d)}
		}, "refusing to overwrite an input", false, nil},
		{"output is an input", "facts -o INPUT", func(t *testing.T, d string) []string {
			return []string{"facts", "-o", in(d), in(d)}
		}, "refusing to overwrite an input", false, nil},
		{"output is an input", "--cpuprofile INPUT", func(t *testing.T, d string) []string {
			return []string{"encode", "-o", out(d), "--cpuprofile", in(d), in(d)}
		}, "refusing to overwrite an input", false, nil},
		{"output is an input", "-o through a symlink", func(t *testing.T, d string) []string {
			os.Symlink("x.o", filepath.Join(d, "l.o"))
			return []string{"encode", "-o", filepath.Join(d, "l.o"), in(d)}
		}, "refusing to overwrite an input", false, nil},
		// 2. Policy evaluation is unbounded.
		// The comprehension grows too: the memory limit would stop it
		// first, so it is raised to see the timeout.
		{"unbounded policy", "nested range comprehensions", func(t *testing.T, d string) []string {
			return []string{"encode", "--policy", writeFile(t, filepath.Join(d, "spin.rego"), spinPolicy), "--policy-timeout", "2s", "--policy-memory", "1GiB", "-o", out(d), in(d)}
		}, "--policy-timeout", false, nil},
		{"unbounded policy", "count(numbers.range(1, 1e9))", func(t *testing.T, d string) []string {
			return []string{"encode", "--policy", writeFile(t, filepath.Join(d, "range.rego"), rangePolicy), "-o", out(d), in(d)}
		}, "--policy-memory", false, nil},
		{"unbounded policy", "count(numbers.range(1, 1e9)) over variables", func(t *testing.T, d string) []string {
			return []string{"encode", "--policy", writeFile(t, filepath.Join(d, "range.rego"), rangeVarPolicy), "-o", out(d), in(d)}
		}, "--policy-memory", false, nil},
		{"unbounded policy", "count(numbers.range(1, 1e9)) with --policy-memory 128MiB", func(t *testing.T, d string) []string {
			return []string{"encode", "--policy", writeFile(t, filepath.Join(d, "range.rego"), rangePolicy), "--policy-memory", "128MiB", "-o", out(d), in(d)}
		}, "--policy-memory", false, nil},
		// 3. BTF the kernel refuses.
		{"kernel-refused BTF", "empty decl tag from a policy", func(t *testing.T, d string) []string {
			pol := "package btfgate.functions\n\nannotate.t[id] contains \"\" if some id, _ in input.functions\n"
			return []string{"encode", "--policy", writeFile(t, filepath.Join(d, "tag.rego"), pol), "-o", out(d), in(d)}
		}, "empty value", false, nil},
		{"kernel-refused BTF", "decl tag component 4294967296", func(t *testing.T, d string) []string {
			pol := "package btfgate.functions\n\nannotate.t[id] contains {\"value\": \"x\", \"component\": 4294967296} if some id, _ in input.functions\n"
			return []string{"encode", "--policy", writeFile(t, filepath.Join(d, "tag.rego"), pol), "-o", out(d), in(d)}
		}, "past any parameter", false, nil},
		{"kernel-refused BTF", "empty tag from a rules file", func(t *testing.T, d string) []string {
			r := writeFile(t, filepath.Join(d, "r.yaml"), "data:\n  tags:\n    - {name: \"*\", tag: \"\"}\n")
			return []string{"encode", "--rules", r, "-o", out(d), in(d)}
		}, "r.yaml:3:", false, nil},
		// 4. Memory amplification.
		{"amplification", "-j 10000000", func(t *testing.T, d string) []string {
			return []string{"encode", "-j", "10000000", "-o", out(d), in(d)}
		}, "", true, nil},
		{"amplification", "-j -5", func(t *testing.T, d string) []string {
			return []string{"encode", "-j", "-5", "-o", out(d), in(d)}
		}, "-j -5", false, nil},
		{"amplification", "--rules /dev/zero", func(t *testing.T, d string) []string {
			return []string{"encode", "--rules", "/dev/zero", "-o", out(d), in(d)}
		}, "/dev/zero", false, nil},
		{"amplification", "--policy /dev/zero", func(t *testing.T, d string) []string {
			return []string{"encode", "--policy", "/dev/zero", "-o", out(d), in(d)}
		}, "/dev/zero", false, nil},
		{"amplification", "zlib .debug_str claiming 384 MiB", func(t *testing.T, d string) []string {
			orig, err := os.ReadFile(in(d))
			if err != nil {
				t.Fatal(err)
			}
			bomb := filepath.Join(d, "bomb.o")
			if err := os.WriteFile(bomb, zlibBomb(t, orig, 384<<20), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"encode", "-o", out(d), bomb}
		}, "bomb.o: section .debug_str", false, nil},
		// 5. Hangs.
		{"hang", "FIFO as rules", func(t *testing.T, d string) []string {
			return []string{"encode", "--rules", mkfifo(t, filepath.Join(d, "r.yaml")), "-o", out(d), in(d)}
		}, "a FIFO", false, nil},
		{"hang", "FIFO as input", func(t *testing.T, d string) []string {
			return []string{"encode", "-o", out(d), mkfifo(t, filepath.Join(d, "f.o"))}
		}, "a FIFO", false, nil},
		{"hang", "FIFO as base", func(t *testing.T, d string) []string {
			return []string{"encode", "--btf_base", mkfifo(t, filepath.Join(d, "b.btf")), "-o", out(d), in(d)}
		}, "a FIFO", false, nil},
		{"hang", "FIFO as a diff argument", func(t *testing.T, d string) []string {
			return []string{"diff", mkfifo(t, filepath.Join(d, "a.btf")), in(d)}
		}, "a FIFO", false, nil},
		{"hang", "rules of 100k keys", func(t *testing.T, d string) []string {
			return []string{"encode", "--rules", writeFile(t, filepath.Join(d, "r.yaml"), manyKeys(false)), "-o", out(d), in(d)}
		}, "", true, nil},
		// 6. -J replaces files by rename.
		{"-J in place", "-J through a symlink", func(t *testing.T, d string) []string {
			os.Symlink("x.o", filepath.Join(d, "l.o"))
			return []string{"-J", filepath.Join(d, "l.o")}
		}, "", true, nil},
		// 7. The sandbox reads the environment.
		{"environment", "time.clock with Local under TZ=Asia/Tokyo", func(t *testing.T, d string) []string {
			pol := "package btfgate.functions\n\nexclude.tz[id] contains \"zone\" if {\n\tsome id, _ in input.functions\n\ttime.clock([0, \"Local\"])[0] != 0\n}\n"
			return []string{"encode", "--policy", writeFile(t, filepath.Join(d, "tz.rego"), pol), "-o", out(d), in(d)}
		}, "", true, []string{"TZ=Asia/Tokyo"}},
		// 8. Leftovers.
		{"leftovers", "--report beside -o in a missing directory", func(t *testing.T, d string) []string {
			return []string{"encode", "--report", filepath.Join(d, "r.ndjson"), "-o", filepath.Join(d, "missing", "o.btf"), in(d)}
		}, "does not exist", false, nil},
		// 11. Errors without a place.
		{"errors without a place", "rules data of the wrong shape", func(t *testing.T, d string) []string {
			r := writeFile(t, filepath.Join(d, "r.yaml"), "data:\n  deny: 3\n")
			return []string{"encode", "--rules", r, "-o", out(d), in(d)}
		}, "r.yaml:2:", false, nil},
	}
}

// manyKeys is a rules file whose data is a mapping of 100,000 keys or,
// honest, a list of as many strings, a file of about the same size (as
// data no policy reads: a deny list of as many names takes the default
// policies minutes).
func manyKeys(honest bool) string {
	var b strings.Builder
	b.WriteString("data:\n  big:\n")
	for i := range 100_000 {
		if honest {
			fmt.Fprintf(&b, "    - k%d%d\n", i, i)
		} else {
			fmt.Fprintf(&b, "    k%d: %d\n", i, i)
		}
	}
	return b.String()
}

// honestWork is, for the hostile cases whose input is not x.o alone, the
// honest command of the same size the case's peak RSS is measured against;
// the others are measured against the plain encode of x.o.
var honestWork = map[string]func(t *testing.T, dir string) []string{
	"rules of 100k keys": func(t *testing.T, d string) []string {
		return []string{"encode", "--rules", writeFile(t, filepath.Join(d, "honest.yaml"), manyKeys(true)),
			"-o", filepath.Join(d, "honest.btf"), filepath.Join(d, "x.o")}
	},
}

// policyBudget is the heap growth a policy evaluation of the command
// args may reach: the --policy-memory given, else 0 (relative to the work).
func policyBudget(t *testing.T, args []string) int64 {
	for i, a := range args {
		if a == "--policy-memory" && i+1 < len(args) {
			n, err := engine.ParseBytes(args[i+1])
			if err != nil {
				t.Fatal(err)
			}
			return int64(n)
		}
	}
	return 0
}

// TestHostileCLI runs every hostile case against the built command: a
// non-zero exit with an error naming the file or place, or (where the case
// may succeed) BTF that btf.Parse and the validator accept; never a panic
// or a hang; the input untouched; nothing left in the directory but the
// inputs and, on success, the output; peak RSS within twice the honest
// work's (honestWork) plus rssSlack, or for a runaway policy, within the
// honest work's plus the policy's memory budget.
func TestHostileCLI(t *testing.T) {
	src := fixturePath("types.gcc-dwarf5.o")
	orig := readFixture(t, "types.gcc-dwarf5.o")
	honest := baselineOf(t, src, false)
	for _, c := range hostileCases() {
		t.Run(c.class+"/"+c.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "x.o")
			if err := os.WriteFile(in, orig, 0o644); err != nil {
				t.Fatal(err)
			}
			args := c.setup(t, dir)
			before := listDir(t, dir)
			r := runCLIEnv(t, time.Minute, c.env, args...)
			if hostileClass[c.class] == 0 {
				t.Errorf("class %q is none of issue 16's (hostileClass)", c.class)
			}
			summary.addClass("hostile CLI", hostileClass[c.class], r.exit != 0)
			if r.timedOut {
				t.Fatalf("%v: still running after a minute", args)
			}
			if strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "goroutine ") || r.exit > 2 {
				t.Fatalf("%v: exit %d, a crash:\n%s", args, r.exit, r.stderr)
			}
			if got, _ := os.ReadFile(in); !bytes.Equal(got, orig) && !(c.accept && r.exit == 0 && args[0] == "-J") {
				t.Errorf("%v: the input changed", args)
			}
			after := listDir(t, dir)
			if r.exit != 0 {
				if c.accept && c.want == "" {
					t.Errorf("%v: exit %d: %s", args, r.exit, r.stderr)
				}
				if !strings.Contains(r.stderr, c.want) {
					t.Errorf("%v: error %q does not say %q", args, strings.TrimSpace(r.stderr), c.want)
				}
				if after != before {
					t.Errorf("%v: failed, but the directory changed:\n before %s\n after  %s", args, before, after)
				}
			} else {
				if !c.accept {
					t.Fatalf("%v: exit 0, want a refusal saying %q", args, c.want)
				}
				checkWrittenBTF(t, filepath.Join(dir, "out.btf"))
			}
			honestRSS := honest.maxRSS
			if h := honestWork[c.name]; h != nil {
				honestRSS = honestPeak(t, "hostile "+c.name, false, h(t, dir)...)
			}
			// The table's worst figures are the default settings': a budget
			// the user gives is the user's bound (below).
			if policyBudget(t, args) == 0 {
				summary.notePeak(hostileClass[c.class], "hostile CLI "+c.name, r.maxRSS, honestRSS)
			}
			// A runaway policy with the default --policy-memory is held to
			// the same bound as every case. With an absolute budget it grows
			// the heap up to that budget, and past it by what it allocates
			// before the watch sees it: that is its bound.
			limit := rssFactor*honestRSS + rssSlack
			if budget := policyBudget(t, args); budget != 0 {
				limit = honestRSS + budget + budget/4 + rssSlack
			}
			if r.maxRSS > limit {
				t.Errorf("%v: peak RSS %d MiB, over the bound %d MiB (honest work: %d MiB)", args, r.maxRSS>>20, limit>>20, honestRSS>>20)
			}
			t.Logf("exit %d, peak RSS %d MiB (honest %d MiB), %v", r.exit, r.maxRSS>>20, honestRSS>>20, r.duration.Round(time.Millisecond))
		})
	}
}

// listDir is the sorted names in dir, the temporary files staged by a
// command included.
func listDir(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

// checkWrittenBTF parses the raw BTF at path, if the command wrote one,
// and runs the kernel-rules validator on it.
func checkWrittenBTF(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return // the command wrote elsewhere (-J, diff)
	}
	types, err := btf.Parse(data, nil)
	if err != nil {
		t.Fatalf("%s: written with exit 0 but does not parse: %v", path, err)
	}
	if err := types.Validate(); err != nil {
		t.Errorf("%s: written with exit 0 but the kernel would refuse it: %v", path, err)
	}
}
