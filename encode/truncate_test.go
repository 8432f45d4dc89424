package encode

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/btfgate/btfgate/features"
	"github.com/btfgate/btfgate/internal/corpus"
	"github.com/btfgate/btfgate/loader/elffile"
)

// TestInputTruncatedWhileEncoded: the corpus kernel truncated to nothing
// right after it is opened (mapped) makes the encode fail with a
// *elffile.FaultError naming the file, instead of a SIGBUS that ends the
// process.
func TestInputTruncatedWhileEncoded(t *testing.T) {
	src := corpus.Vmlinux(t)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "vmlinux")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	data = nil
	_, err = Encode(path, Options{Features: features.Default(), Jobs: 2, Opened: func(bool, int) {
		if err := os.Truncate(path, 0); err != nil {
			t.Error(err)
		}
	}})
	var fe *elffile.FaultError
	if !errors.As(err, &fe) || fe.Path != path {
		t.Fatalf("error %v, want a *elffile.FaultError naming %s", err, path)
	}
	t.Log(err)
}
