package btfdiff

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/btfgate/btfgate/btf"
)

// Compare compares a (old) with b (new).
func Compare(a, b *Set) *Report {
	r := &Report{
		A: Side{a.name, a.base, a.total},
		B: Side{b.name, b.base, b.total},
	}
	var onlyA, onlyB [btf.NumKinds]int
	r.OnlyA = excess(a, b, &onlyA)
	r.OnlyB = excess(b, a, &onlyB)
	for k := btf.KindInt; k < btf.NumKinds; k++ {
		if a.counts[k] != 0 || b.counts[k] != 0 {
			r.Kinds = append(r.Kinds, KindCount{Kind: k, A: a.counts[k], B: b.counts[k], OnlyA: onlyA[k], OnlyB: onlyB[k]})
		}
	}
	compareEntities(r, a, b)
	return r
}

// excess returns the keys that x has more often than y, sorted by kind
// and key, and adds the number of types they stand for to perKind.
func excess(x, y *Set, perKind *[btf.NumKinds]int) []KeyDiff {
	var out []KeyDiff
	for i := range x.keys {
		ki := &x.keys[i]
		if n := ki.count - y.count(ki.fp); n > 0 {
			out = append(out, KeyDiff{Kind: ki.kind, Name: ki.name, Key: ki.key, Count: int(n)})
			perKind[ki.kind] += int(n)
		}
	}
	slices.SortFunc(out, func(p, q KeyDiff) int {
		return cmp.Or(cmp.Compare(p.Kind, q.Kind), cmp.Compare(p.Key, q.Key))
	})
	return out
}

// group returns the Changes that entities of kind k are reported in.
func (r *Report) group(k Kind) *Changes {
	switch k {
	case btf.KindFunc:
		return &r.Functions
	case btf.KindVar:
		return &r.Variables
	}
	return &r.Types
}

func compareEntities(r *Report, a, b *Set) {
	for i := range a.entities {
		ea := &a.entities[i]
		g := r.group(ea.kind)
		j, ok := b.entIndex[ea.fp]
		if !ok {
			g.Removed = append(g.Removed, Change{Kind: ea.kind, Name: ea.name, Old: keysOf(a, ea.keys)})
			continue
		}
		eb := &b.entities[j]
		if slices.Equal(ea.keys, eb.keys) {
			continue
		}
		old, cur := multisetDiff(ea.keys, eb.keys)
		c := Change{Kind: ea.kind, Name: ea.name, Old: keysOf(a, old), New: keysOf(b, cur)}
		c.Detail = describe(c, len(ea.keys), len(eb.keys))
		g.Changed = append(g.Changed, c)
	}
	for i := range b.entities {
		eb := &b.entities[i]
		if _, ok := a.entIndex[eb.fp]; !ok {
			g := r.group(eb.kind)
			g.Added = append(g.Added, Change{Kind: eb.kind, Name: eb.name, New: keysOf(b, eb.keys)})
		}
	}
	byName := func(p, q Change) int {
		return cmp.Or(cmp.Compare(p.Name, q.Name), cmp.Compare(p.Kind, q.Kind))
	}
	for _, g := range []*Changes{&r.Functions, &r.Variables, &r.Types} {
		slices.SortFunc(g.Added, byName)
		slices.SortFunc(g.Removed, byName)
		slices.SortFunc(g.Changed, byName)
	}
}

// keysOf returns the sorted keys of s with the given fingerprints.
func keysOf(s *Set, fps []fingerprint) []string {
	keys := make([]string, len(fps))
	for i, fp := range fps {
		keys[i] = s.keyOf(fp)
	}
	slices.SortFunc(keys, strings.Compare)
	return keys
}

// multisetDiff returns the elements of sorted x missing from sorted y, and
// those of y missing from x, counting repeats.
func multisetDiff(x, y []fingerprint) (onlyX, onlyY []fingerprint) {
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch c := x[i].compare(y[j]); {
		case c < 0:
			onlyX = append(onlyX, x[i])
			i++
		case c > 0:
			onlyY = append(onlyY, y[j])
			j++
		default:
			i++
			j++
		}
	}
	return append(onlyX, x[i:]...), append(onlyY, y[j:]...)
}

// describe summarises a change: the parts of the one old and one new key
// that differ, or else how many types of that name each side has and the
// keys found on one side only.
func describe(c Change, na, nb int) []string {
	if len(c.Old) == 1 && len(c.New) == 1 {
		return keyDetail(c.Old[0], c.New[0])
	}
	lines := []string{fmt.Sprintf("%d types named %s in A, %d in B", na, c.Name, nb)}
	for _, k := range c.Old {
		lines = append(lines, "- "+k)
	}
	for _, k := range c.New {
		lines = append(lines, "+ "+k)
	}
	return lines
}
