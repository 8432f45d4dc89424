package btf

import "fmt"

// Splicer appends CU fragments to one Types in CU order, reproducing how
// pahole numbers types across CUs: each CU's types, then (once) the
// synthetic "int" used as array index type, then the CU's tail.
type Splicer struct {
	dst       *Types
	hasIndex  bool   // an index type id is known (pahole's has_index_type)
	needIndex bool   // some CU so far had arrays (pahole's need_index_type)
	indexID   TypeID // the array index type
	intName   uint32
	ext       []TypeID
}

// NewSplicer returns a Splicer appending to dst.
func NewSplicer(dst *Types) *Splicer { return &Splicer{dst: dst} }

// Add splices one CU's fragment and returns the shifts from its local type
// ids and its tail-local ids to global ones (global = local + shift).
func (s *Splicer) Add(f *Fragment) (types, tail TypeID, err error) {
	shift := s.dst.FirstID() + TypeID(s.dst.Len()) - 1
	n := TypeID(f.Types.Len())
	if !s.hasIndex {
		if f.IntID != 0 {
			s.indexID = shift + f.IntID
			s.hasIndex = true
		} else {
			s.indexID = shift + n + 1
		}
	}
	s.needIndex = s.needIndex || f.HasArray
	if err := s.dst.Append(f.Types, []TypeID{s.indexID}); err != nil {
		return 0, 0, fmt.Errorf("splice CU types: %w", err)
	}
	if s.needIndex && !s.hasIndex {
		if s.intName == 0 {
			s.intName = s.dst.Strings.Add("int")
		}
		id := s.dst.AddInt(s.intName, 4, IntSigned, 0, 32)
		if id != s.indexID {
			return 0, 0, fmt.Errorf("splice: synthetic int got id %d, arrays use %d", id, s.indexID)
		}
		s.hasIndex = true
	}
	tailShift := s.dst.FirstID() + TypeID(s.dst.Len()) - 1
	if f.Tail.Len() == 0 {
		return shift, tailShift, nil
	}
	s.ext = s.ext[:0]
	for id := TypeID(1); id <= n; id++ {
		s.ext = append(s.ext, shift+id)
	}
	if err := s.dst.Append(f.Tail, s.ext); err != nil {
		return 0, 0, fmt.Errorf("splice CU tail: %w", err)
	}
	return shift, tailShift, nil
}
