package inputs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("fifo", link); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "a FIFO", link: "a FIFO", dir: "a directory", "/dev/zero": "a device"} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(path, RulesCap, "rules file"); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
				t.Errorf("ReadFile(%s) = %v, want it named as %s", path, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%s) blocked", path)
		}
	}
}

func TestCaps(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(p, make([]byte, 1025), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p, 1024, "rules file"); err == nil || !strings.Contains(err.Error(), "rules file") {
		t.Errorf("over the cap: %v", err)
	}
	if b, err := ReadFile(p, 2048, "rules file"); err != nil || len(b) != 1025 {
		t.Errorf("within the cap: %d bytes, %v", len(b), err)
	}
}
