package loader

import (
	"fmt"
	"strings"

	"github.com/btfgate/btfgate/loader/elffile"
)

const (
	btfIDsSection = ".BTF_ids"
	setPrefix     = "__BTF_ID__set8__"
	funcPrefix    = "__BTF_ID__func__"
	setKfuncs     = 1 << 0 // BTF_SET8_KFUNCS
)

// MarkBTFIDs reads .BTF_ids (spec §4): every __BTF_ID__func__NAME__N
// symbol marks NAME as referenced by BTF id; those inside a set8 (a kfunc
// id set, any flags) are kfuncs, with the flags word that follows their
// id, and pahole's kfuncs if the set's flags have BTF_SET8_KFUNCS. Without
// .BTF_ids nothing is marked.
func MarkBTFIDs(f *elffile.File, syms []elffile.Symbol, funcs *ElfFuncs) error {
	sec := f.Section(btfIDsSection)
	if sec == nil {
		return nil
	}
	data, err := f.SectionData(sec)
	if err != nil {
		return err
	}
	word := func(off uint64) (uint32, bool) {
		if off+4 > uint64(len(data)) || off+4 < off {
			return 0, false
		}
		return f.ByteOrder.Uint32(data[off:]), true
	}
	type span struct {
		lo, hi uint64
		kfuncs bool // BTF_SET8_KFUNCS
	}
	var sets []span
	for i := range syms {
		s := &syms[i]
		if int(s.Section) != sec.Index || !strings.HasPrefix(s.Name, setPrefix) {
			continue
		}
		flags, ok := word(s.Value - sec.Addr + 4)
		if !ok {
			return fmt.Errorf("%s: %s: set %s at 0x%x is outside the section", f.Path, btfIDsSection, s.Name, s.Value)
		}
		sets = append(sets, span{s.Value, s.Value + s.Size, flags&setKfuncs != 0})
	}
	for i := range syms {
		s := &syms[i]
		if int(s.Section) != sec.Index {
			continue
		}
		name, ok := btfIDFuncName(s.Name)
		if !ok {
			continue
		}
		fi := funcs.Find(name)
		if fi < 0 {
			continue
		}
		fn := &funcs.Funcs[fi]
		fn.BTFIDRef = true
		for _, r := range sets {
			if r.lo <= s.Value && s.Value < r.hi {
				flags, ok := word(s.Value - sec.Addr + 4)
				if !ok {
					return fmt.Errorf("%s: %s: kfunc %s at 0x%x is outside the section", f.Path, btfIDsSection, name, s.Value)
				}
				fn.Kfunc = true
				fn.KfuncFlags = flags
				fn.PaholeKfunc = r.kfuncs
				break
			}
		}
	}
	return nil
}

// btfIDFuncName extracts NAME from __BTF_ID__func__NAME__N, as pahole's
// get_func_name does (the text before the last "__").
func btfIDFuncName(sym string) (string, bool) {
	if !strings.HasPrefix(sym, funcPrefix) {
		return "", false
	}
	rest := sym[len(funcPrefix):]
	if !strings.Contains(rest, "__") {
		return "", false
	}
	end := strings.LastIndexByte(rest, '_')
	if end < 1 || rest[end-1] != '_' {
		return "", false
	}
	return rest[:end-1], true
}
