package loader

// The ABI walks over a function's parameters (spec §2.5): which register
// slot each parameter should sit in, and the verdicts optimized and
// unexpected register.

// abiSlots is pahole's parameter__abi_slots.
func abiSlots(p *FuncParam, arch Arch, addrSize int) int {
	if !arch.AggTwo || int(p.TypeSize) <= addrSize {
		return 1
	}
	s := (int(p.TypeSize) + addrSize - 1) / addrSize
	if s <= 0 {
		return 1
	}
	return s
}

// matchClangLocations is pahole's simple clang path (Path A, spec §2.5).
func matchClangLocations(params []FuncParam, arch Arch, addrSize int) {
	r := 0
	for i := range params {
		p := &params[i]
		slots := abiSlots(p, arch, addrSize)
		if p.InMemory {
			continue
		}
		if r >= arch.NrRegs {
			break
		}
		if p.LocReg >= 0 && !regInWindow(p, r, slots, arch) {
			p.UnexpectedReg = true
		}
		assignSlots(p, r, slots, arch)
		r += slots
	}
}

// assignSlots records that the walk gave p the register slots r..r+n-1
// (FuncParam.ABISlot), when r is a register slot at all.
func assignSlots(p *FuncParam, r, n int, arch Arch) {
	if r < arch.NrRegs {
		p.ABISlot, p.ABISlots = int8(r), int8(n)
	}
}

func regInWindow(p *FuncParam, r, slots int, arch Arch) bool {
	for i := 0; i < slots; i++ {
		idx := r + i
		if idx >= arch.NrRegs {
			break
		}
		if int(p.LocReg) == int(arch.RegMap[idx]) {
			return true
		}
	}
	return false
}

// nextPreservesSlots is pahole's ftype__next_parameter_preserves_slots.
func nextPreservesSlots(params []FuncParam, i, r, slots int, arch Arch) bool {
	if i+1 >= len(params) || params[i+1].LocReg < 0 {
		return false
	}
	next := r + slots
	return next < arch.NrRegs && int(params[i+1].LocReg) == int(arch.RegMap[next])
}

// analyzeLocations is pahole's function__analyze_parameter_locations for
// GCC and for clang functions whose signature changed (Path B, spec §2.5).
func analyzeLocations(params []FuncParam, arch Arch, addrSize int, trueSig, isClang bool) {
	r := 0
	for i := range params {
		p := &params[i]
		consumes := true
		avail := r < arch.NrRegs
		slots := abiSlots(p, arch, addrSize)
		expected := -1
		if avail && r < len(arch.RegMap) {
			expected = int(arch.RegMap[r])
		}
		regSlots := slots
		if p.InMemory {
			regSlots = 1
		}
		switch {
		case p.HasLoc:
			switch {
			case trueSig && p.LocConst:
				p.Optimized = true
				consumes = false
			case !avail:
				consumes = false
			case trueSig && p.LocStack:
				if p.InMemory {
					consumes = false
				} else {
					p.UnexpectedReg = true
				}
			case p.LocReg < 0:
				if trueSig {
					p.UnexpectedReg = true
				} else {
					p.Optimized = true
				}
			case expected >= 0 && expected != int(p.LocReg):
				p.UnexpectedReg = true
			case trueSig && (p.FirstFields != 0 || p.SecondFields != 0):
				if p.FirstFields != 0 && p.SecondFields != 0 {
					assignSlots(p, r, slots, arch)
					r += slots
					continue
				}
				if nextPreservesSlots(params, i, r, slots, arch) {
					// The next parameter sits after the whole struct:
					// the struct keeps its registers.
					p.TrueSigMember, p.TrueSigType = "", 0
					assignSlots(p, r, slots, arch)
					r += slots
					continue
				}
				if p.TrueSigMember != "" && p.TrueSigType != 0 {
					// Only the member is passed, in one register.
					p.Type = p.TrueSigType
					p.TrueSigApplied = true
					assignSlots(p, r, 1, arch)
					r++
					continue
				}
			}
		case p.HasConstValue && !isClang:
			p.Optimized = true
		case trueSig:
			if avail && nextPreservesSlots(params, i, r, slots, arch) {
				assignSlots(p, r, slots, arch)
				r += slots
				continue
			}
			p.Optimized = true
			consumes = false
		}
		if consumes {
			assignSlots(p, r, regSlots, arch)
			r += regSlots
		}
	}
}
