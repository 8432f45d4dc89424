package btf

import (
	"sync/atomic"
	"unsafe"
)

// NameHints lets the goroutines that build fragments map their names to
// destination string offsets before the splicer does, from what the
// splicer has interned so far (its string-section caches, strSection).
//
// Contract: a cache slot, once filled, names for ever the destination
// offset of the string at its section offset, and Strings.Add gives one
// offset per content; so an offset read from a slot is the one the
// splicer's own lookup would give, whenever the read happens. A fragment
// built before the splicer interned a name simply finds no hint for it
// and the splicer interns it: the output does not depend on the timing.
// What moves is work: the splicer runs on one goroutine in unit order,
// the workers beside it.
type NameHints struct {
	secs atomic.Pointer[[]strSection]
}

// ShareNames makes h read s's string-section caches from now on.
func (s *Splicer) ShareNames(h *NameHints) {
	h.secs.Store(&s.secs)
}

// premap notes for each of f's names the destination offset the splicer
// gave it, when the splicer (whose caches secs are) has interned the same
// place of a string section already.
func (f *Fragment) premap(secs []strSection) {
	for _, str := range f.Strs {
		f.premapped = append(f.premapped, premapName(secs, str))
	}
}

// premapName returns 1 + the destination offset of str from the caches,
// 0 if they do not hold it.
func premapName(secs []strSection, str string) uint32 {
	if str == "" {
		return 0
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(str)))
	for i := range secs {
		sec := &secs[i]
		off, ok := sec.Offset(p)
		if !ok {
			continue
		}
		got := strSlot(sec.slots[sec.run(off)].Load())
		if got.off() == off {
			return got.val()
		}
		return 0
	}
	return 0
}
