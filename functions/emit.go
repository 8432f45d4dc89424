package functions

import (
	"fmt"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/loader"
)

// kfunc flags (include/linux/btf.h).
const (
	kfFastcall  = 1 << 12
	kfArenaRet  = 1 << 13
	kfArenaArg1 = 1 << 14
	kfArenaArg2 = 1 << 15
)

// Emit appends to the groups' types a FUNC_PROTO, a FUNC and decl tags for
// every group include says goes in, in group (sorted name) order (spec
// §2.7 steps 6-7, §4): the true-signature state's under its clone's name
// where there is one, else the canonical state's. extra holds decl tags
// policies asked for, per group (may be nil).
func (gs *Groups) Emit(include []bool, extra [][]loader.FuncAnnot) error {
	types, set := gs.types, gs.set
	var params []btf.Param
	for gi := range gs.list {
		if !include[gi] {
			continue
		}
		g := &gs.list[gi]
		ef := &gs.elf.Funcs[g.elf]
		s := &g.states[g.canon]
		name := ef.Name
		trueSig := g.trueSig >= 0
		if trueSig {
			s = &g.states[g.trueSig]
			name = ef.Syms[s.trueSym].Name
		}
		kfunc := ef.PaholeKfunc && set.DeclTagKfuncs && !trueSig
		params = params[:0]
		for _, p := range s.params {
			params = append(params, btf.Param{Name: p.nameOff, Type: p.typ})
		}
		ret := s.ret
		if kfunc && set.Attributes {
			var err error
			if ef.KfuncFlags&kfArenaRet != 0 {
				if ret, err = arenaPtr(types, ret); err != nil {
					return fmt.Errorf("kfunc %s return type: %w", name, err)
				}
			}
			for i, flag := range []uint32{kfArenaArg1, kfArenaArg2} {
				if ef.KfuncFlags&flag == 0 {
					continue
				}
				if i >= len(params) {
					return fmt.Errorf("kfunc %s: arena flag for argument %d but it has %d", name, i+1, len(params))
				}
				if params[i].Type, err = arenaPtr(types, params[i].Type); err != nil {
					return fmt.Errorf("kfunc %s argument %d: %w", name, i+1, err)
				}
			}
		}
		proto := types.AddFuncProto(ret, params)
		fn := types.AddFunc(types.Strings.Add(name), proto, btf.FuncStatic)
		for _, a := range s.annots {
			types.AddDeclTag(types.Strings.Add(a.Value), fn, a.Component)
		}
		if kfunc && set.DeclTag {
			types.AddDeclTag(types.Strings.Add("bpf_kfunc"), fn, -1)
			if ef.KfuncFlags&kfFastcall != 0 {
				types.AddDeclTag(types.Strings.Add("bpf_fastcall"), fn, -1)
			}
		}
		if extra != nil {
			for _, a := range extra[gi] {
				types.AddDeclTag(types.Strings.Add(a.Value), fn, a.Component)
			}
		}
	}
	return nil
}

// arenaPtr replaces PTR -> T by PTR -> TYPE_TAG(kind_flag, "address_space(1)") -> T.
func arenaPtr(types *btf.Types, ptr btf.TypeID) (btf.TypeID, error) {
	if ptr == 0 || types.Kind(ptr) != btf.KindPtr {
		return 0, fmt.Errorf("type %d is not a pointer", ptr)
	}
	tag := types.AddTypeTag(types.Strings.Add("address_space(1)"), types.Ref(ptr), true)
	return types.AddRef(btf.KindPtr, 0, tag), nil
}
