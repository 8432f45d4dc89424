package btf

import "math/rand/v2"

// randomCUs builds a few small compile units of random, C-like types over a
// tiny pool of names, so that same-named structs differ, forward
// declarations meet definitions, enums meet their declarations and cycles
// cross units: the situations libbpf's dedup has special cases for.
func randomCUs(seed uint64, units int) *Types {
	rng := rand.New(rand.NewPCG(seed, 0xd1ce))
	all := NewTypes(NewStrings())
	for range units {
		if err := all.Append(randomCU(rng), nil); err != nil {
			panic(err) // fragments built here are always well-formed
		}
	}
	return all
}

// randomUniverseCUs cuts units out of one random "program" of a few
// random units, so that units overlap much more than randomCUs' do.
func randomUniverseCUs(seed uint64, units int) *Types {
	universe := randomCUs(seed, 3)
	all, err := synthUnits(universe, nil, units, seed)
	if err != nil {
		panic(err)
	}
	return all
}

func randomCU(rng *rand.Rand) *Types {
	ty := NewTypes(NewStrings())
	s := ty.Strings
	names := []uint32{s.Add("a"), s.Add("b"), s.Add("c")}
	fields := []uint32{s.Add("x"), s.Add("y")}
	pick := func(xs []uint32) uint32 { return xs[rng.IntN(len(xs))] }
	maybeName := func() uint32 {
		if rng.IntN(4) == 0 {
			return 0
		}
		return pick(names)
	}

	randomKinds := []Kind{
		KindInt, KindStruct, KindStruct, KindStruct, KindUnion, KindFwd, KindFwd, KindPtr, KindPtr, KindPtr,
		KindArray, KindTypedef, KindConst, KindVolatile, KindEnum, KindEnum64, KindFuncProto, KindFuncProto,
		KindVar, KindDeclTag, KindTypeTag, KindFloat, KindRestrict,
	}
	n := 4 + rng.IntN(12)
	kinds := make([]Kind, n+1)
	for i := 1; i <= n; i++ {
		kinds[i] = randomKinds[rng.IntN(len(randomKinds))]
	}
	// ref picks a type id for a reference from type i: any lower id, or any
	// struct or union (so that every cycle passes through one, as in C).
	// Only pointers may point to prototypes.
	ref := func(i int, allowVoid bool) TypeID {
		var cands []TypeID
		if allowVoid {
			cands = append(cands, 0)
		}
		for j := 1; j <= n; j++ {
			switch kinds[j] {
			case KindVar, KindDeclTag:
				continue
			case KindFuncProto:
				if kinds[i] != KindPtr {
					continue
				}
			}
			if j < i || kinds[j] == KindStruct || kinds[j] == KindUnion {
				cands = append(cands, TypeID(j))
			}
		}
		if len(cands) == 0 {
			return 0
		}
		return cands[rng.IntN(len(cands))]
	}
	var intID TypeID
	for i := 1; i <= n; i++ {
		if kinds[i] == KindInt {
			intID = TypeID(i)
		}
	}
	for i := 1; i <= n; i++ {
		switch k := kinds[i]; k {
		case KindInt:
			ty.AddInt(s.Add("int"), 4, IntSigned, 0, 32)
		case KindFloat:
			ty.AddFloat(s.Add("double"), 8)
		case KindStruct, KindUnion:
			ms := make([]Member, rng.IntN(3))
			for j := range ms {
				ms[j] = Member{Name: pick(fields), Type: ref(i, false)}
				if k == KindStruct {
					ms[j].BitOffset = uint32(32 * j)
				}
			}
			ty.AddStruct(k == KindUnion, maybeName(), uint32(4*len(ms)), ms)
		case KindFwd:
			ty.AddFwd(pick(names), rng.IntN(4) == 0)
		case KindPtr, KindConst, KindVolatile, KindRestrict:
			ty.AddRef(k, 0, ref(i, true))
		case KindTypedef:
			ty.AddRef(k, pick(names), ref(i, true))
		case KindTypeTag:
			ty.AddTypeTag(pick(fields), ref(i, true), false)
		case KindArray:
			ty.AddArray(ref(i, false), intID, uint32(1+rng.IntN(2)))
		case KindEnum, KindEnum64:
			vs := make([]EnumValue, rng.IntN(3))
			for j := range vs {
				vs[j] = EnumValue{Name: pick(fields), Value: int64(rng.IntN(2))}
			}
			if k == KindEnum {
				ty.AddEnum(pick(names), 4, false, vs)
			} else {
				ty.AddEnum64(pick(names), 8, false, vs)
			}
		case KindFuncProto:
			ps := make([]Param, rng.IntN(3))
			for j := range ps {
				ps[j] = Param{Name: pick(fields), Type: ref(i, false)}
			}
			ty.AddFuncProto(ref(i, true), ps)
		case KindVar:
			ty.AddVar(pick(names), ref(i, false), VarStatic)
		case KindDeclTag:
			ty.AddDeclTag(pick(fields), ref(i, false), -1)
		}
	}
	// FUNCs over the unit's prototypes.
	for i := 1; i <= n; i++ {
		if kinds[i] == KindFuncProto && rng.IntN(2) == 0 {
			ty.AddFunc(pick(names), TypeID(i), FuncStatic)
		}
	}
	return ty
}
