package btf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// appendFuncTypes appends to t what the function phase of an encode
// appends after the units: per some existing type, a prototype returning it,
// a FUNC, a pointer, a type tag and a decl tag, then a DATASEC-free tail.
func appendFuncTypes(t *Types, every int) {
	n := t.Len()
	for id := t.FirstID(); int(id) < int(t.FirstID())+n; id += TypeID(every) {
		k := t.Kind(id)
		if k == KindVar || k == KindDatasec || k == KindDeclTag || k == KindFunc {
			continue
		}
		proto := t.AddFuncProto(id, []Param{{Name: t.Strings.Add("p"), Type: id}})
		fn := t.AddFunc(t.Strings.Add("f"), proto, FuncStatic)
		t.AddDeclTag(t.Strings.Add("tag"), fn, -1)
		tag := t.AddTypeTag(t.Strings.Add("address_space(1)"), id, true)
		t.AddRef(KindPtr, 0, tag)
	}
}

// TestDedupStagedMatchesDedup checks the contract of Deduplication: the
// struct pass run while reference types are appended (on another
// goroutine, so that -race checks the sharing), then Finish, gives Dedup's
// bytes on the grown types, for plain and split BTF.
func TestDedupStagedMatchesDedup(t *testing.T) {
	for seed := range uint64(60) {
		base := seedBase(t, seed)
		build := func() *Types {
			cus := randomUniverseCUs(seed, 6)
			if base == nil {
				return cus
			}
			split := NewSplitTypes(base)
			if err := split.Append(cus, nil); err != nil {
				t.Fatal(err)
			}
			return split
		}
		full := build()
		want := dedupWithFuncs(t, seed, full)

		staged := build()
		s, err := StartDedup(staged)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- s.Structs() }()
		appendFuncTypes(staged, 1+int(seed%4))
		if err := <-done; err != nil {
			t.Fatalf("seed %d: structs: %v", seed, err)
		}
		got, err := s.Finish()
		if err != nil {
			t.Fatalf("seed %d: finish: %v", seed, err)
		}
		sameBTF(t, fmt.Sprintf("seed %d: staged dedup", seed), got, want)
	}
}

// TestDedupPipelinedMatchesDedup checks Advance per compile unit, as an
// encode runs it: units appended one by one, each batch taken in from a
// View on another goroutine while the next units are appended, then the
// function types, then Finish. The units are drawn from random C-like
// types over a tiny pool of names, so that enum declarations meet their
// full enums in later units, forward declarations meet structs, and
// same-named structs differ: the cases where doing the primitive and struct
// passes per batch could differ from libbpf's order.
func TestDedupPipelinedMatchesDedup(t *testing.T) {
	const seeds = 300
	restarts := map[string]int{}
	stoppedEarly := 0 // seeds that became unsure before their last batch
	defer func() {
		t.Logf("%d seeds, restarted: %v, %d of them before the last batch", seeds, restarts, stoppedEarly)
		if len(restarts) > 0 && stoppedEarly == 0 {
			t.Error("no seed became unsure before its last batch: the batches skipped after it are not tested")
		}
		n := 0
		for _, c := range restarts {
			n += c
		}
		if n > seeds/2 {
			t.Errorf("%d of %d seeds restarted: the pipelined path is hardly tested", n, seeds)
		}
	}()
	for seed := range uint64(seeds) {
		base := seedBase(t, seed)
		units := seedUnits(seed, 0xd1ce)
		empty := func() *Types {
			if base == nil {
				return NewTypes(NewStrings())
			}
			return NewSplitTypes(base)
		}

		full := empty()
		for _, u := range units {
			if err := full.Append(u, nil); err != nil {
				t.Fatal(err)
			}
		}
		want := dedupWithFuncs(t, seed, full)

		piped := empty()
		// For odd seeds the dedup is set up on its goroutine from a View, as
		// an encode does, while units are appended: Finish must still take
		// in everything piped holds then.
		var s *Deduplication
		if seed%2 == 0 {
			var err error
			if s, err = StartPipelinedDedup(piped, 0, 0); err != nil {
				t.Fatal(err)
			}
		}
		start := piped.View()
		views := make(chan *Types, 2)
		done := make(chan error, 1)
		unsureDone := uint32(0) // the passes' progress when the dedup became unsure
		go func() {
			var err error
			if s == nil {
				s, err = StartPipelinedDedup(start, 0, 0)
			}
			for v := range views {
				if err == nil {
					err = s.Advance(v)
				}
				// Once unsure, the batches are not deduplicated: Finish
				// starts over anyway.
				switch {
				case err != nil || s.d.unsure == "":
				case unsureDone == 0:
					unsureDone = s.done
				case s.done != unsureDone:
					err = fmt.Errorf("the passes went on from %d to %d after the dedup became unsure", unsureDone, s.done)
				}
			}
			if err == nil && seed%2 == 0 { // as an encode does; else Finish does it
				err = s.StartRefs()
			}
			done <- err
		}()
		for _, u := range units {
			if err := piped.Append(u, nil); err != nil {
				t.Fatal(err)
			}
			views <- piped.View()
		}
		close(views)
		if err := <-done; err != nil {
			t.Fatalf("seed %d: advance: %v", seed, err)
		}
		batched := uint32(piped.NextID()) // the ids the batches brought
		appendFuncTypes(piped, 1+int(seed%4))
		got, err := s.Finish()
		if err != nil {
			t.Fatalf("seed %d: finish: %v", seed, err)
		}
		if s.Restarted != "" {
			restarts[s.Restarted]++
			if unsureDone != 0 && unsureDone < batched {
				stoppedEarly++
			}
		}
		sameBTF(t, fmt.Sprintf("seed %d: pipelined dedup", seed), got, want)
	}
}

// seedUnits returns the eight units of a pipelined dedup's test for seed:
// for even seeds, units that share types and names as a kernel's do
// (newCUSynth), for odd ones random units drawn with salt.
func seedUnits(seed, salt uint64) []*Types {
	var units []*Types
	if seed%2 == 0 {
		s := newCUSynth(randomCUs(seed, 3), seed)
		for range 8 {
			units = append(units, s.unit())
		}
		return units
	}
	rng := rand.New(rand.NewPCG(seed, salt))
	for range 8 {
		units = append(units, randomCU(rng))
	}
	return units
}

// seedBase returns, for one seed in three, a random deduplicated base for
// split BTF, else nil.
func seedBase(t *testing.T, seed uint64) *Types {
	if seed%3 != 2 {
		return nil
	}
	b, err := Dedup(randomCUs(seed+1000, 3))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dedupWithFuncs appends the function types to full and returns its Dedup.
func dedupWithFuncs(t *testing.T, seed uint64, full *Types) *Types {
	appendFuncTypes(full, 1+int(seed%4))
	want, err := Dedup(full)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return want
}

// sameBTF fails t unless got and want marshal to the same bytes.
func sameBTF(t *testing.T, what string, got, want *Types) {
	t.Helper()
	wb, err := want.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := got.Marshal(binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(wb, gb) {
		t.Fatalf("%s differs:\n%s\nwant\n%s", what, formatTypes(got), formatTypes(want))
	}
}

// TestDedupStagedRefusesLateStructs: a typedef (deduplicated in the struct
// pass) appended after the struct pass would escape it; Finish says so
// instead of deduplicating wrongly.
func TestDedupStagedRefusesLateStructs(t *testing.T) {
	ty := randomCUs(7, 3)
	s, err := StartDedup(ty)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Structs(); err != nil {
		t.Fatal(err)
	}
	id := ty.AddRef(KindTypedef, ty.Strings.Add("late"), 1)
	_, err = s.Finish()
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("type %d (TYPEDEF) was added after the struct pass", id)) {
		t.Fatalf("Finish = %v, want an error naming the late typedef %d", err, id)
	}
}
