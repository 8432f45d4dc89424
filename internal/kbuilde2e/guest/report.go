package main

import (
	"fmt"
	"io"
	"strings"
)

// reporter writes one line per check, which the host parses:
// "E2E check NAME pass DETAIL" or "E2E check NAME fail ERROR", and at the
// end "E2E done PASSED/TOTAL".
type reporter struct {
	w             io.Writer
	passed, total int
}

// check reports a check that passed when err is nil.
func (r *reporter) check(name string, err error) {
	r.checkf(name, err, "")
}

// checkf reports a check with a detail for the pass case.
func (r *reporter) checkf(name string, err error, format string, args ...any) {
	r.total++
	if err != nil {
		fmt.Fprintf(r.w, "E2E check %s fail %s\n", name, oneLine(err.Error()))
		return
	}
	r.passed++
	fmt.Fprintf(r.w, "E2E check %s pass %s\n", name, oneLine(fmt.Sprintf(format, args...)))
}

func (r *reporter) done() {
	fmt.Fprintf(r.w, "E2E done %d/%d\n", r.passed, r.total)
}

// oneLine keeps a message on its line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
