package btf

// Types.Append is the tests' way to put units together: the encoder splices
// convert's fragments with Splicer, which numbers types as pahole does.

import "fmt"

// Append splices frag, a type section built on its own (typically one compile
// unit's types with local ids 1..frag.Len()), onto the end of t. In each of
// frag's types, every type id r is rewritten: 0 stays 0; an id of frag's base
// (when frag is split BTF on t's base) stays; an own id of frag moves by
// t.NextID()-frag.FirstID(); an id past frag's last is "external" and becomes
// external[r-last-1]. External ids are not checked here (they may name a type
// appended later); Marshal and Dedup check every id. Each of frag's own
// strings is added to t.Strings in frag's table order (unless both share the
// table) and string offsets are rewritten to match.
//
// On error t's types are unchanged (strings added so far remain).
func (t *Types) Append(frag *Types, external []TypeID) error {
	if err := t.Err(); err != nil {
		return err
	}
	if err := frag.Err(); err != nil {
		return fmt.Errorf("btf: appending fragment: %w", err)
	}
	if frag.Base != nil && frag.Base != t.Base {
		return fmt.Errorf("btf: appending split types whose base is not the destination's base")
	}
	remapStrings := frag.Strings != t.Strings
	var strMap []uint32 // new offset of each byte of frag's own strings
	if remapStrings {
		strMap = t.Strings.remapBytes(frag.Strings, nil)
		if err := t.Strings.Err(); err != nil {
			return err
		}
	}

	fragFirst := uint32(frag.FirstID())
	fragNext := fragFirst + uint32(frag.Len())
	shift := uint32(t.NextID()) - fragFirst
	strStart := frag.Strings.start
	oldWords, oldTypes := len(t.words), len(t.offs)
	t.words = append(grow(t.words, len(frag.words)), frag.words...)
	t.offs = grow(t.offs, len(frag.offs))
	for _, o := range frag.offs {
		t.offs = append(t.offs, o+uint32(oldWords))
	}
	fail := func(err error) error {
		t.words, t.offs = t.words[:oldWords], t.offs[:oldTypes]
		return err
	}
	// mapID rewrites one type-id word; it returns false for an id past the
	// fragment's last and its externals.
	mapID := func(p *uint32) bool {
		switch r := *p; {
		case r == 0 || r < fragFirst:
		case r < fragNext:
			*p = r + shift
		case int(r-fragNext) < len(external):
			*p = uint32(external[r-fragNext])
		default:
			return false
		}
		return true
	}
	// mapStr rewrites one string-offset word; false for one past the table.
	mapStr := func(p *uint32) bool {
		if *p < strStart {
			return true // a base string (or "" in split tables): shared
		}
		rel := *p - strStart
		if int(rel) >= len(strMap) {
			return false
		}
		*p = strMap[rel]
		return true
	}
	for i := range frag.Len() {
		w := t.typeAt(oldTypes + i)
		k := infoKind(w[1])
		if typeWords(k, infoVlen(w[1])) != len(w) {
			return fail(fmt.Errorf("btf: fragment type %d has unknown kind %d", fragFirst+uint32(i), k))
		}
		l := idFields(k)
		bad := -1
		for _, f := range l.fixed[:l.nfixed] {
			if !mapID(&w[f]) {
				bad = int(f)
			}
		}
		if l.stride != 0 {
			for j := headerWords + int(l.elem); j < len(w); j += int(l.stride) {
				if !mapID(&w[j]) {
					bad = j
				}
			}
		}
		if bad >= 0 {
			return fail(fmt.Errorf("btf: fragment type %d refers to type %d: past its last type %d and its %d external ids",
				fragFirst+uint32(i), w[bad], fragNext-1, len(external)))
		}
		if !remapStrings {
			continue
		}
		l = strFields(k)
		for _, f := range l.fixed[:l.nfixed] {
			if !mapStr(&w[f]) {
				bad = int(f)
			}
		}
		if l.stride != 0 {
			for j := headerWords + int(l.elem); j < len(w); j += int(l.stride) {
				if !mapStr(&w[j]) {
					bad = j
				}
			}
		}
		if bad >= 0 {
			return fail(fmt.Errorf("btf: fragment type %d has string offset %d past its string table", fragFirst+uint32(i), w[bad]))
		}
	}
	return nil
}

// remapBytes adds every own string of from to s, in from's order, and
// returns (appended to buf) the new offset of every byte of from's own
// section, so that an offset into the middle of a string maps too.
func (s *Strings) remapBytes(from *Strings, buf []uint32) []uint32 {
	d := from.data
	if cap(buf) < len(d) {
		buf = make([]uint32, 0, len(d))
	}
	buf = buf[:len(d)]
	from.forEach(func(off uint32, str string) {
		n := s.Add(str)
		rel := off - from.start
		for j := range uint32(len(str)) + 1 {
			buf[rel+j] = n + j
		}
	})
	return buf
}

// grow makes room for n more elements, doubling the capacity when it must
// grow (append grows big slices by only a quarter, which costs many copies
// of the kernel's tens of megabytes of types).
func grow[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	return append(make([]T, 0, max(2*cap(s), len(s)+n, 256)), s...)
}
