package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfgate/btfgate/internal/corpus"
)

// TestBuiltInGuardOnTheCorpus: a deny list that hides migrate_disable
// (referenced from .BTF_ids, kept by pahole's rules) fails the encode
// with the built-in guard naming the function and the list, and nothing
// is written; --allow-hiding-btf-ids lets it through and the summary says
// the guard is off.
func TestBuiltInGuardOnTheCorpus(t *testing.T) {
	vmlinux := corpus.Vmlinux(t)
	dir := t.TempDir()
	rules := filepath.Join(dir, "r.yaml")
	if err := os.WriteFile(rules, []byte("data:\n  deny: [migrate_disable]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "o.btf")
	_, _, err := run(t, "encode", "--rules", rules, "-o", out, vmlinux)
	if err == nil || !strings.Contains(err.Error(), "hides_btf_id") || !strings.Contains(err.Error(), "migrate_disable") || !strings.Contains(err.Error(), "exclude.config_deny") {
		t.Fatalf("error %v, want the built-in guard naming migrate_disable and exclude.config_deny", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("output written")
	}
	_, stderr, err := run(t, "encode", "--rules", rules, "--allow-hiding-btf-ids", "-o", out, vmlinux)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "the guard is off") {
		t.Errorf("summary does not say the guard is off:\n%s", stderr)
	}
}
