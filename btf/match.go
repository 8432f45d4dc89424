package btf

// protoKind is a FWD's STRUCT or UNION, other kinds as they are.
func protoKind(v Type) Kind {
	if v.Kind() == KindFwd {
		if v.KindFlag() {
			return KindUnion
		}
		return KindStruct
	}
	return v.Kind()
}

// TypesMatch reports whether types a and b of t are compatible the way
// pahole's types__match compares function prototypes across instances
// (spec §2.7 step 3): a const on one side is ignored; integers compare
// size, encoding word and name; typedefs, structs, unions and enums
// compare names only; pointers, qualifiers and type tags compare what they
// point to; arrays compare element counts and types; prototypes compare
// return and parameter types.
func (t *Types) TypesMatch(a, b TypeID) bool {
	for n := 0; n < 1<<16; n++ {
		if a == b {
			return true
		}
		if a == 0 || b == 0 {
			return false
		}
		ta, tb := t.Type(a), t.Type(b)
		ka, kb := protoKind(ta), protoKind(tb)
		if ka != kb {
			if ka == KindConst {
				a = ta.Ref()
				continue
			}
			if kb == KindConst {
				b = tb.Ref()
				continue
			}
			return false
		}
		switch ka {
		case KindInt:
			return ta.Size() == tb.Size() && ta.extra(0) == tb.extra(0) && t.namesMatch(ta, tb)
		case KindFloat:
			return ta.Size() == tb.Size() && t.namesMatch(ta, tb)
		case KindTypedef, KindStruct, KindUnion, KindEnum, KindEnum64:
			return t.namesMatch(ta, tb)
		case KindPtr, KindVolatile, KindConst, KindRestrict, KindTypeTag:
			a, b = ta.Ref(), tb.Ref()
		case KindArray:
			ea, _, na := ta.Array()
			eb, _, nb := tb.Array()
			if na != nb {
				return false
			}
			a, b = ea, eb
		case KindFuncProto:
			if ta.Vlen() != tb.Vlen() || !t.TypesMatch(ta.Ref(), tb.Ref()) {
				return false
			}
			for i := 0; i < ta.Vlen(); i++ {
				if !t.TypesMatch(ta.Param(i).Type, tb.Param(i).Type) {
					return false
				}
			}
			return true
		default:
			return false
		}
	}
	return false
}

// namesMatch compares two types' names (pahole's names__match): both
// anonymous, or the same string.
func (t *Types) namesMatch(a, b Type) bool {
	if a.NameOff() == b.NameOff() {
		return true
	}
	return t.Strings.String(a.NameOff()) == t.Strings.String(b.NameOff())
}
