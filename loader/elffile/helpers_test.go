package elffile

import (
	"debug/dwarf"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// debugNames are the DWARF sections the tests ask for.
var debugNames = []string{
	".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_str_offsets",
	".debug_addr", ".debug_loclists", ".debug_loc", ".debug_rnglists", ".debug_ranges",
	".debug_line", ".debug_aranges", ".debug_frame",
}

// fixtures lists the committed objects built by testdata/Makefile.
func fixtures(tb testing.TB) []string {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*.o"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no test objects under testdata/ (run make there): %v", err)
	}
	slices.Sort(paths)
	return paths
}

// openTest opens path and closes it when the test ends.
func openTest(tb testing.TB, path string) *File {
	tb.Helper()
	f, err := Open(path)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { f.Close() })
	return f
}

// readFile reads a whole file or fails the test.
func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// dwarfData builds a stdlib dwarf.Data over sections returned by
// DebugSections, so the stdlib DWARF reader checks our bytes.
func dwarfData(tb testing.TB, secs map[string][]byte) *dwarf.Data {
	tb.Helper()
	d, err := dwarf.New(secs[".debug_abbrev"], secs[".debug_aranges"], secs[".debug_frame"],
		secs[".debug_info"], secs[".debug_line"], nil, secs[".debug_ranges"], secs[".debug_str"])
	if err != nil {
		tb.Fatalf("dwarf.New over our sections: %v", err)
	}
	for _, n := range []string{".debug_addr", ".debug_line_str", ".debug_str_offsets", ".debug_rnglists"} {
		if b, ok := secs[n]; ok {
			if err := d.AddSection(n, b); err != nil {
				tb.Fatalf("AddSection(%s): %v", n, err)
			}
		}
	}
	return d
}

// formatError asserts that err is a *FormatError and returns it.
func formatError(tb testing.TB, err error) *FormatError {
	tb.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) {
		tb.Fatalf("error %v (%T) is not a *FormatError", err, err)
	}
	return fe
}
