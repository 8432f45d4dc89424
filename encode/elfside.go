package encode

import (
	"fmt"

	"github.com/btfgate/btfgate/loader"
	"github.com/btfgate/btfgate/loader/elffile"
)

// elfSide is what an encode needs from the ELF file besides the DWARF: the
// symbols matched to functions (with .BTF_ids marks) and the variable
// sections. The unit walks do not need them, so they are read on a
// goroutine of their own while the first units are walked, and the workers
// wait for them only before filtering variables and saving function states.
type elfSide struct {
	elf *loader.ElfFuncs
	vs  *varSections
}

// readELFSide starts reading in's symbols and variable sections.
func readELFSide(in *loader.Input, opts Options) *future[elfSide] {
	return goFuture(func() (side elfSide, err error) {
		defer elffile.GuardFaults(in.ELF.Path, &err)()
		syms, err := in.ELF.Symbols()
		if err != nil {
			return side, fmt.Errorf("%w (functions are matched against .symtab)", err) // names the file
		}
		elf := loader.CollectElfFuncs(syms)
		if err := loader.MarkBTFIDs(in.ELF, syms, elf); err != nil {
			return side, err
		}
		return elfSide{elf: elf, vs: newVarSections(in, syms, opts)}, nil
	})
}
