package encode

import (
	"fmt"

	"github.com/btfgate/btfgate/loader"
	"github.com/btfgate/btfgate/loader/elffile"
)

// elfSide is what an encode needs from the ELF file besides the DWARF: the
// symbols matched to functions (with .BTF_ids marks) and the variable
// sections. The unit walks do not need them, so they are read on a goroutine of
// their own while the first units are walked, and the workers wait for
// them only before filtering variables and saving function states.
type elfSide struct {
	ready chan struct{} // closed when the fields below are set
	vs    *varSections
	err   error
}

// readELFSide starts reading in's symbols; fo.elf is set when wait returns
// nil.
func readELFSide(in *loader.Input, opts Options, fo *cuFuncOptions) *elfSide {
	s := &elfSide{ready: make(chan struct{})}
	go func() {
		defer close(s.ready)
		defer elffile.GuardFaults(in.ELF.Path, &s.err)()
		syms, err := in.ELF.Symbols()
		if err != nil {
			s.err = fmt.Errorf("%w (functions are matched against .symtab)", err) // names the file
			return
		}
		elf := loader.CollectElfFuncs(syms)
		if err := loader.MarkBTFIDs(in.ELF, syms, elf); err != nil {
			s.err = err
			return
		}
		fo.elf = elf
		s.vs = newVarSections(in, syms, opts)
	}()
	return s
}

// readySide returns an elfSide already read, for callers that read the
// ELF themselves.
func readySide(vs *varSections) *elfSide {
	s := &elfSide{ready: make(chan struct{}), vs: vs}
	close(s.ready)
	return s
}

// wait waits for the reading to end and returns its error.
func (s *elfSide) wait() error {
	<-s.ready
	return s.err
}
