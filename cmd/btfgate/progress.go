package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progressEvery is how often the progress line is redrawn at most.
const progressEvery = 100 * time.Millisecond

// newProgress returns a hook that shows an encode's progress as one
// updating line on stderr, "CU 1234/2352 (52%)", and a function that
// erases the line; call it before writing anything else to stderr. When
// stderr is not a terminal (a pipe, a file, /dev/null) the hook is nil and
// stop does nothing, so that nothing reaches logs.
//
// The hook is meant for encode.Options.Progress: the encoder calls it as
// compile units are done, with done and total counting units.
func newProgress(stderr io.Writer) (hook func(done, total int), stop func()) {
	if !isTerminal(stderr) {
		return nil, func() {}
	}
	p := newProgressLine(stderr, "CU", time.Now, progressEvery)
	return p.update, p.stop
}

// isTerminal reports whether w is a terminal: an *os.File on a character
// device other than the null device.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(st, null) {
		return false
	}
	return true
}

// progressLine draws "LABEL done/total (pct%)" over itself with carriage
// returns, at most once per interval, and always the last step.
type progressLine struct {
	w     io.Writer
	label string
	now   func() time.Time
	every time.Duration

	mu    sync.Mutex
	last  time.Time // when the line was last drawn
	width int       // length of the line on screen, 0 if none
	done  bool      // stopped: draw nothing more
}

func newProgressLine(w io.Writer, label string, now func() time.Time, every time.Duration) *progressLine {
	return &progressLine{w: w, label: label, now: now, every: every}
}

// update draws the line for done of total, unless it was drawn less than
// an interval ago and this is not the last step. It is safe for
// concurrent use.
func (p *progressLine) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	t := p.now()
	if p.width > 0 && done < total && t.Sub(p.last) < p.every {
		return
	}
	p.last = t
	line := fmt.Sprintf("%s %d/%d", p.label, done, total)
	if total > 0 {
		line += fmt.Sprintf(" (%d%%)", done*100/total)
	}
	pad := ""
	if n := p.width - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprintf(p.w, "\r%s%s", line, pad)
	p.width = len(line)
}

// stop erases the line and leaves the cursor at the start of it.
func (p *progressLine) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
	}
	p.width, p.done = 0, true
}

// newSteps returns a function that shows the step a command is at as one
// line on stderr ("diff: comparing"), replacing the previous step, and a
// function that erases it; both do nothing when stderr is not a terminal.
// For commands without units to count.
func newSteps(stderr io.Writer) (step func(string), stop func()) {
	if !isTerminal(stderr) {
		return func(string) {}, func() {}
	}
	return stepsOn(stderr)
}

// stepsOn is newSteps on any writer.
func stepsOn(stderr io.Writer) (step func(string), stop func()) {
	var mu sync.Mutex
	width := 0
	step = func(s string) {
		mu.Lock()
		defer mu.Unlock()
		pad := ""
		if n := width - len(s); n > 0 {
			pad = strings.Repeat(" ", n)
		}
		fmt.Fprintf(stderr, "\r%s%s", s, pad)
		width = len(s)
	}
	stop = func() {
		mu.Lock()
		defer mu.Unlock()
		if width > 0 {
			fmt.Fprintf(stderr, "\r%s\r", strings.Repeat(" ", width))
		}
		width = 0
	}
	return step, stop
}
