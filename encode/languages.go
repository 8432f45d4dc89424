package encode

import (
	"fmt"
	"strings"

	"github.com/btfgate/btfgate/loader/dwarf"
)

// languageCodes maps pahole's --lang_exclude names to DW_LANG values.
func languageCodes() map[string]dwarf.Lang {
	return map[string]dwarf.Lang{
		"c89": dwarf.LangC89, "c": dwarf.LangC, "ada83": dwarf.LangAda83, "c_plus_plus": dwarf.LangCPlusPlus,
		"cobol74": dwarf.LangCobol74, "cobol85": dwarf.LangCobol85, "fortran77": dwarf.LangFortran77,
		"fortran90": dwarf.LangFortran90, "pascal83": dwarf.LangPascal83, "modula2": dwarf.LangModula2,
		"java": dwarf.LangJava, "c99": dwarf.LangC99, "ada95": dwarf.LangAda95, "fortran95": dwarf.LangFortran95,
		"pli": dwarf.LangPLI, "objc": dwarf.LangObjC, "objc_plus_plus": dwarf.LangObjCPlusPlus, "upc": dwarf.LangUPC,
		"d": dwarf.LangD, "python": dwarf.LangPython, "opencl": dwarf.LangOpenCL, "go": dwarf.LangGo,
		"modula3": dwarf.LangModula3, "haskell": dwarf.LangHaskell, "c_plus_plus_03": dwarf.LangCPlusPlus03,
		"c_plus_plus_11": dwarf.LangCPlusPlus11, "ocaml": dwarf.LangOCaml, "rust": dwarf.LangRust,
		"c11": dwarf.LangC11, "swift": dwarf.LangSwift, "julia": dwarf.LangJulia, "dylan": dwarf.LangDylan,
		"c_plus_plus_14": dwarf.LangCPlusPlus14, "fortran03": dwarf.LangFortran03, "fortran08": dwarf.LangFortran08,
		"renderscript": dwarf.LangRenderScript, "bliss": dwarf.LangBLISS, "mips_assembler": dwarf.LangMipsAssembler,
	}
}

// languages resolves --lang_exclude names.
func languages(names []string) (map[uint64]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}
	codes := languageCodes()
	out := map[uint64]bool{}
	for _, n := range names {
		n = strings.TrimSpace(strings.ToLower(n))
		if n == "" {
			continue
		}
		c, ok := codes[n]
		if !ok {
			return nil, fmt.Errorf("unknown language %q in the language exclusion list", n)
		}
		out[uint64(c)] = true
	}
	return out, nil
}
