package functions

import (
	"testing"

	"github.com/btfgate/btfgate/btf"
	"github.com/btfgate/btfgate/features"
)

// TestPrototypeDeclarators prints C declarations for the type shapes
// parameters take: qualified pointers, function pointers, pointers to
// arrays, functions returning function pointers, varargs.
func TestPrototypeDeclarators(t *testing.T) {
	ts := btf.NewTypes(btf.NewStrings())
	s := ts.Strings.Add
	intT := ts.AddInt(s("int"), 4, btf.IntSigned, 0, 32)
	char := ts.AddInt(s("char"), 1, btf.IntChar|btf.IntSigned, 0, 8)
	constChar := ts.AddRef(btf.KindConst, 0, char)
	strT := ts.AddRef(btf.KindPtr, 0, constChar)      // const char *
	constStr := ts.AddRef(btf.KindConst, 0, strT)     // const char *const
	skb := ts.AddFwd(s("sk_buff"), false)             // struct sk_buff
	skbPtr := ts.AddRef(btf.KindPtr, 0, skb)          // struct sk_buff *
	skbPP := ts.AddRef(btf.KindPtr, 0, skbPtr)        // struct sk_buff **
	u32 := ts.AddRef(btf.KindTypedef, s("u32"), intT) // u32
	cbProto := ts.AddFuncProto(0, []btf.Param{{Type: intT}, {Name: s("data"), Type: skbPtr}})
	cb := ts.AddRef(btf.KindPtr, 0, cbProto) // void (*)(int, struct sk_buff *data)
	arr := ts.AddArray(intT, intT, 4)        // int [4]
	arrPtr := ts.AddRef(btf.KindPtr, 0, arr) // int (*)[4]
	vaProto := ts.AddFuncProto(intT, []btf.Param{{Type: intT}, {}})
	vaPtr := ts.AddRef(btf.KindPtr, 0, vaProto)           // int (*)(int, ...)
	voidPtr := ts.AddRef(btf.KindPtr, 0, 0)               // void *
	anon := ts.AddStruct(false, 0, 4, nil)                // struct (anon)
	volInt := ts.AddRef(btf.KindVolatile, 0, u32)         // volatile u32
	volPtr := ts.AddRef(btf.KindPtr, 0, volInt)           // volatile u32 *
	restrictPtr := ts.AddRef(btf.KindRestrict, 0, volPtr) // volatile u32 *restrict
	noParams := ts.AddFuncProto(0, nil)
	retFn := ts.AddRef(btf.KindPtr, 0, noParams) // void (*)(void)
	if err := ts.Err(); err != nil {
		t.Fatal(err)
	}
	state := func(ret btf.TypeID, params ...stateParam) *State { return &State{ret: ret, params: params} }
	param := func(name string, typ btf.TypeID) stateParam { return stateParam{nameOff: s(name), typ: typ} }
	p := &protoPrinter{types: ts}
	for _, tc := range []struct {
		s    *State
		want string
	}{
		{state(intT, param("skb", skbPtr), param("len", u32)), "int f(struct sk_buff *skb, u32 len)"},
		{state(0), "void f(void)"},
		{state(strT, param("name", constStr), param("pp", skbPP)), "const char *f(const char *const name, struct sk_buff **pp)"},
		{state(0, param("cb", cb), param("a", arrPtr), param("va", vaPtr)),
			"void f(void (*cb)(int, struct sk_buff *data), int (*a)[4], int (*va)(int, ...))"},
		{state(voidPtr, param("x", anon), param("r", restrictPtr), param("n", intT), stateParam{}),
			"void *f(struct (anon) x, volatile u32 *restrict r, int n, ...)"},
		{state(retFn, param("n", intT)), "void (*f(int n))(void)"},
	} {
		if got := p.prototype("f", tc.s); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// TestPrototypeFacts: every instance's prototype is its FUNC_PROTO as it
// would be emitted, printed as C.
func TestPrototypeFacts(t *testing.T) {
	set := features.Default()
	gs := save(t, "types.gcc-dwarf5.o", set).group(set)
	fns := gs.Facts(func(uint32) string { return "" }, true)
	gs.AddPrototypes(fns)
	instances := gs.Instances()
	want := map[string]string{
		"fn_many_kinds":  "int fn_many_kinds(const char *const name, int *restrict out, volatile long unsigned int *reg, td_fnptr cb, enum enum_neg e, union u_plain u, v4si vec)",
		"fn_varargs":     "int fn_varargs(int count, ...)",
		"fn_returns_big": "struct s_big fn_returns_big(long int seed)",
	}
	for i, f := range fns {
		w, ok := want[f.Name]
		if !ok {
			continue
		}
		delete(want, f.Name)
		if f.Canonical.Prototype != w {
			t.Errorf("%s: canonical prototype %q, want %q", f.Name, f.Canonical.Prototype, w)
		}
		for _, in := range instances[i] {
			if in.Prototype != w {
				t.Errorf("%s: instance at DIE %#x has prototype %q, want %q", f.Name, in.DIE, in.Prototype, w)
			}
		}
	}
	for name := range want {
		t.Errorf("no function %s", name)
	}
}
