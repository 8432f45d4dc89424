package elffile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestGuardFaultsTruncatedMapping: a file truncated while mapped faults on
// the next read of the lost pages; under GuardFaults that is a
// *FaultError naming the file, not the end of the process.
func TestGuardFaultsTruncatedMapping(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := MapFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer Unmap(data)
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	read := func() (sum byte, err error) {
		defer GuardFaults(p, &err)()
		for i := 0; i < len(data); i += 4096 {
			sum += data[i]
		}
		return sum, nil
	}
	_, err = read()
	var fe *FaultError
	if !errors.As(err, &fe) || fe.Path != p {
		t.Fatalf("read of a truncated mapping: %v, want a *FaultError naming %s", err, p)
	}
	t.Log(err)
}
