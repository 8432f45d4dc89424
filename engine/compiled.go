package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"maps"
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"
)

// compiledSet is a policy set as the compiler leaves it, with what New
// derives from the parsed modules (derive), so that a process can load
// it instead of parsing and compiling the set again (see policyCache).
type compiledSet struct {
	modules     []*ast.Module // compiled, by module name
	names       []string      // the modules' names, as the compiler keys them
	rewritten   map[ast.Var]ast.Var
	mentions    []string          // the string constants of the parsed modules
	origins     map[string]string // ruleOrigins of the parsed modules
	variables   map[string]string // packageRuleOrigins(parsed, "variables")
	lint        []string          // lintModules of the parsed modules
	computed    bool              // a module reads a fact through a computed key
	trueSigRule bool              // definesTrueSignature of the parsed modules
	// indexed is whether the compile indexed a comprehension: loading
	// the set builds the comprehension indices only then (the default
	// set has none, and the stage walked every rule for nothing).
	indexed bool
	// queries are New's queries as compiled on the set (compiledQueries),
	// by query text: a loaded set's are not parsed and compiled again.
	queries map[string]ast.Body
	// builtins are the names of the builtins the compiled modules refer
	// to (calls, with modifiers' targets and values), and eq, which the
	// queries call; features and futureKeywords are the capabilities'.
	// They are the capabilities loadedCapabilities gives a loaded set.
	builtins       []string
	features       []string
	futureKeywords []string
}

// compiled sets the compiled modules and rewritten variables of s from
// compiler c.
func (s *compiledSet) compiled(c *ast.Compiler) {
	s.rewritten = c.RewrittenVars
	s.names = s.names[:0]
	for name := range c.Modules {
		s.names = append(s.names, name)
	}
	slices.Sort(s.names)
	s.modules = s.modules[:0]
	for _, name := range s.names {
		s.modules = append(s.modules, c.Modules[name])
	}
	s.indexed = len(comprehensionIndices(c)) > 0
	caps := c.Capabilities()
	s.builtins = builtinRefs(c.Modules, caps)
	s.features, s.futureKeywords = caps.Features, caps.FutureKeywords
}

// builtinRefs returns the names of the builtins of caps that modules
// refer to, with eq, sorted.
func builtinRefs(modules map[string]*ast.Module, caps *ast.Capabilities) []string {
	known := make(map[string]bool, len(caps.Builtins))
	for _, b := range caps.Builtins {
		known[b.Name] = true
	}
	used := map[string]bool{ast.Equality.Name: true}
	for _, m := range modules {
		ast.WalkRefs(m, func(r ast.Ref) bool {
			if name := r.String(); known[name] {
				used[name] = true
			}
			return false
		})
	}
	return slices.Sorted(maps.Keys(used))
}

// comprehensionIndices lists the comprehension indices c built, as text,
// module by module in name order.
func comprehensionIndices(c *ast.Compiler) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(c.Modules)) {
		ast.WalkTerms(c.Modules[name], func(t *ast.Term) bool {
			if ast.IsComprehension(t.Value) {
				if ci := c.ComprehensionIndex(t); ci != nil {
					out = append(out, ci.String())
				}
			}
			return false
		})
	}
	return out
}

// The encoding of a compiledSet: the magic and format, the key it was
// compiled for, then uvarints: a string table (every string and location
// text, each a length and its bytes), a location table, the nodeCounts,
// then the set, New's compiled queries last;
// last, the CRC-32C (Castagnoli, little-endian) of everything before it,
// so that a damaged file is refused whole instead of read as another set.
// Strings and locations are referred to by index, a location index
// being one more than its place (0 is no location); lists of terms and
// bodies, a location's text and tabs are written as their length (or
// index) plus one, 0 for nil. Terms are a
// tag byte (the term* constants), their parts, then their location.
// Every node's exported fields are kept, and shared locations stay
// shared (the unexported ones, such as the expressions an expression was
// rewritten from, serve only compile stages and their messages, which a
// loaded set does not run), but for the modules' comments, which only the
// compile's metadata stage reads (see loadedStages); a node the encoding
// does not cover (annotations, a value type the compiled set does not
// hold) fails the encode, and the set is then not cached.
const (
	compiledMagic  = "btfgate-policy\x00"
	compiledFormat = 9
)

const (
	termNull byte = iota
	termFalse
	termTrue
	termNumber
	termString
	termVar
	termRef
	termArray
	termObject
	termSet
	termArrayCompr
	termSetCompr
	termObjectCompr
	termCall
	termAbsent // a nil *Term where one may be absent (Head.Key, Head.Value)
)

// Expr.Terms kinds.
const (
	exprTerm byte = iota
	exprCall
	exprSome
	exprEvery
)

// errStale is a file written for another key (another set, build or
// format).
var errStale = errors.New("policy cache: stale file")

// errNotEncodable is an AST node the encoding does not cover: the set is
// then compiled, not cached.
var errNotEncodable = errors.New("policy cache: AST node not covered by the encoding")

type setEncoder struct {
	strs    map[string]int
	strList []string
	locs    map[*ast.Location]int
	locList []*ast.Location
	out     []byte
	err     error
	nodes   nodeCounts
}

// nodeCounts are how many nodes of each kind an encoded set holds, for
// the decoder to allocate them at once.
type nodeCounts struct {
	terms     int // terms
	termLists int // elements of lists of terms (refs, calls, arguments)
	exprs     int // expressions
	bodies    int // elements of bodies
	rules     int // rules and heads (an else is one)
}

// encodeCompiled encodes s under key.
func encodeCompiled(key []byte, s *compiledSet) ([]byte, error) {
	e := &setEncoder{strs: map[string]int{}, locs: map[*ast.Location]int{}}
	e.uint(uint64(len(s.modules)))
	for i, m := range s.modules {
		e.str(s.names[i])
		e.module(m)
	}
	e.uint(uint64(len(s.rewritten)))
	vars := make([]ast.Var, 0, len(s.rewritten))
	for k := range s.rewritten {
		vars = append(vars, k)
	}
	slices.Sort(vars)
	for _, k := range vars {
		e.str(string(k))
		e.str(string(s.rewritten[k]))
	}
	e.strings(s.mentions)
	e.stringMap(s.origins)
	e.stringMap(s.variables)
	e.strings(s.lint)
	e.flag(s.computed)
	e.flag(s.trueSigRule)
	e.flag(s.indexed)
	queries := slices.Sorted(maps.Keys(s.queries))
	e.uint(uint64(len(queries)))
	for _, q := range queries {
		e.str(q)
		e.body(s.queries[q])
	}
	e.strings(s.builtins)
	e.strings(s.features)
	e.strings(s.futureKeywords)
	if e.err != nil {
		return nil, e.err
	}
	var out []byte
	out = append(out, compiledMagic...)
	out = append(out, compiledFormat)
	out = binary.AppendUvarint(out, uint64(len(key)))
	out = append(out, key...)
	out = binary.AppendUvarint(out, uint64(len(e.strList)))
	for _, str := range e.strList {
		out = binary.AppendUvarint(out, uint64(len(str)))
		out = append(out, str...)
	}
	out = binary.AppendUvarint(out, uint64(len(e.locList)))
	for _, l := range e.locList {
		out = binary.AppendUvarint(out, uint64(e.strs[l.File]))
		text := uint64(0) // nil
		if l.Text != nil {
			text = uint64(e.strs[string(l.Text)]) + 1
		}
		out = binary.AppendUvarint(out, text)
		for _, n := range []int{l.Row, l.Col, l.Offset} {
			out = binary.AppendVarint(out, int64(n))
		}
		tabs := uint64(0) // nil
		if l.Tabs != nil {
			tabs = uint64(len(l.Tabs)) + 1
		}
		out = binary.AppendUvarint(out, tabs)
		for _, n := range l.Tabs {
			out = binary.AppendVarint(out, int64(n))
		}
	}
	for _, n := range []int{e.nodes.terms, e.nodes.termLists, e.nodes.exprs, e.nodes.bodies, e.nodes.rules} {
		out = binary.AppendUvarint(out, uint64(n))
	}
	out = append(out, e.out...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crc32.MakeTable(crc32.Castagnoli))), nil
}

func (e *setEncoder) uint(n uint64) { e.out = binary.AppendUvarint(e.out, n) }

func (e *setEncoder) flag(b bool) {
	if b {
		e.out = append(e.out, 1)
	} else {
		e.out = append(e.out, 0)
	}
}

// strIndex interns s.
func (e *setEncoder) strIndex(s string) int {
	i, ok := e.strs[s]
	if !ok {
		i = len(e.strList)
		e.strs[s] = i
		e.strList = append(e.strList, s)
	}
	return i
}

func (e *setEncoder) str(s string) { e.uint(uint64(e.strIndex(s))) }

func (e *setEncoder) strings(ss []string) {
	e.uint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

func (e *setEncoder) stringMap(m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.uint(uint64(len(keys)))
	for _, k := range keys {
		e.str(k)
		e.str(m[k])
	}
}

func (e *setEncoder) loc(l *ast.Location) {
	if l == nil {
		e.uint(0)
		return
	}
	i, ok := e.locs[l]
	if !ok {
		i = len(e.locList)
		e.locs[l] = i
		e.locList = append(e.locList, l)
		e.strIndex(l.File)
		if l.Text != nil {
			e.strIndex(string(l.Text))
		}
	}
	e.uint(uint64(i + 1))
}

func (e *setEncoder) fail() {
	if e.err == nil {
		e.err = errNotEncodable
	}
}

func (e *setEncoder) module(m *ast.Module) {
	if len(m.Annotations) > 0 {
		e.fail()
	}
	v := m.RegoVersionSpan()
	e.uint(uint64(v.Min()))
	e.uint(uint64(v.Max()))
	e.terms(m.Package.Path)
	e.loc(m.Package.Location)
	e.uint(uint64(len(m.Imports)))
	for _, imp := range m.Imports {
		e.term(imp.Path)
		e.str(string(imp.Alias))
		e.loc(imp.Location)
		e.loc(imp.AliasLocation)
	}
	e.uint(uint64(len(m.Rules)))
	for _, r := range m.Rules {
		e.rule(r)
	}
}

func (e *setEncoder) rule(r *ast.Rule) {
	if len(r.Annotations) > 0 {
		e.fail()
	}
	e.nodes.rules++
	e.flag(r.Default)
	e.loc(r.Location)
	h := r.Head
	e.str(string(h.Name))
	e.terms(h.Reference)
	e.terms(h.Args)
	e.term(h.Key)
	e.term(h.Value)
	e.flag(h.Assign)
	e.loc(h.Location)
	e.body(r.Body)
	e.flag(r.Else != nil)
	if r.Else != nil {
		e.rule(r.Else)
	}
}

// body writes a body as terms writes a list.
func (e *setEncoder) body(b ast.Body) {
	if b == nil {
		e.uint(0)
		return
	}
	e.uint(uint64(len(b)) + 1)
	e.nodes.bodies += len(b)
	for _, x := range b {
		e.expr(x)
	}
}

func (e *setEncoder) expr(x *ast.Expr) {
	e.nodes.exprs++
	e.uint(uint64(x.Index))
	e.flag(x.Negated)
	e.flag(x.Generated)
	e.loc(x.Location)
	e.uint(uint64(len(x.With)))
	for _, w := range x.With {
		e.term(w.Target)
		e.term(w.Value)
		e.loc(w.Location)
	}
	switch t := x.Terms.(type) {
	case *ast.Term:
		e.out = append(e.out, exprTerm)
		e.term(t)
	case []*ast.Term:
		e.out = append(e.out, exprCall)
		e.terms(t)
	case *ast.SomeDecl:
		e.out = append(e.out, exprSome)
		e.terms(t.Symbols)
		e.loc(t.Location)
	case *ast.Every:
		e.out = append(e.out, exprEvery)
		e.term(t.Key)
		e.term(t.Value)
		e.term(t.Domain)
		e.body(t.Body)
		e.loc(t.Location)
	default:
		e.fail()
	}
}

// terms writes a list of terms as its length plus one, 0 for nil: an
// empty list and none differ (Head.Args of a rule is empty, not nil).
func (e *setEncoder) terms(ts []*ast.Term) {
	if ts == nil {
		e.uint(0)
		return
	}
	e.uint(uint64(len(ts)) + 1)
	e.nodes.termLists += len(ts)
	for _, t := range ts {
		if t == nil {
			e.fail()
			return
		}
		e.term(t)
	}
}

func (e *setEncoder) term(t *ast.Term) {
	if t == nil {
		e.out = append(e.out, termAbsent)
		return
	}
	e.nodes.terms++
	switch v := t.Value.(type) {
	case ast.Null:
		e.out = append(e.out, termNull)
	case ast.Boolean:
		if v {
			e.out = append(e.out, termTrue)
		} else {
			e.out = append(e.out, termFalse)
		}
	case ast.Number:
		e.out = append(e.out, termNumber)
		e.str(string(v))
	case ast.String:
		e.out = append(e.out, termString)
		e.str(string(v))
	case ast.Var:
		e.out = append(e.out, termVar)
		e.str(string(v))
	case ast.Ref:
		e.out = append(e.out, termRef)
		e.terms(v)
	case *ast.Array:
		e.out = append(e.out, termArray)
		e.uint(uint64(v.Len()))
		for i := range v.Len() {
			e.term(v.Elem(i))
		}
	case ast.Object:
		e.out = append(e.out, termObject)
		e.uint(uint64(v.Len()))
		v.Foreach(func(k, x *ast.Term) {
			e.term(k)
			e.term(x)
		})
	case ast.Set:
		e.out = append(e.out, termSet)
		e.uint(uint64(v.Len()))
		v.Foreach(e.term)
	case *ast.ArrayComprehension:
		e.out = append(e.out, termArrayCompr)
		e.term(v.Term)
		e.body(v.Body)
	case *ast.SetComprehension:
		e.out = append(e.out, termSetCompr)
		e.term(v.Term)
		e.body(v.Body)
	case *ast.ObjectComprehension:
		e.out = append(e.out, termObjectCompr)
		e.term(v.Key)
		e.term(v.Value)
		e.body(v.Body)
	case ast.Call:
		e.out = append(e.out, termCall)
		e.terms(v)
	default:
		e.fail()
		return
	}
	e.loc(t.Location)
}

// setDecoder reads an encoded compiledSet. Its strings are substrings of
// one copy of the file, location texts slices of the file itself. The
// nodes it builds are handed out of slabs, and a scalar value (string,
// variable or number) is made once per string and shared by the terms
// that hold it, as Term.Copy shares it: the set's modules are the
// compiler's for as long as the engine lives, so no node is freed before
// the others.
type setDecoder struct {
	buf  []byte
	sbuf string
	pos  int
	strs []string
	offs []int // the offset in buf of each of strs
	locs []*ast.Location
	err  error

	// scalars[i] is the value a term made of strs[i] (an ast.String,
	// Var or Number), nil until a term needs it.
	scalars   []ast.Value
	termSlab  slab[ast.Term]
	termsSlab slab[*ast.Term] // lists of terms
	exprSlab  slab[ast.Expr]
	bodySlab  slab[*ast.Expr]
	ruleSlab  slab[ast.Rule]
	headSlab  slab[ast.Head]
}

// slab hands out elements, and runs of them, of an array allocated for
// the number of them the file says it holds; past that (a damaged file),
// it allocates each.
type slab[T any] struct{ free []T }

// reserve allocates n elements.
func (s *slab[T]) reserve(n int) { s.free = make([]T, n) }

// one returns a new zero element.
func (s *slab[T]) one() *T {
	if len(s.free) == 0 {
		return new(T)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}

// run returns n new zero elements, a slice whose capacity is its length,
// so that appending to it copies instead of writing over the next run.
func (s *slab[T]) run(n int) []T {
	if n > len(s.free) {
		return make([]T, n)
	}
	r := s.free[:n:n]
	s.free = s.free[n:]
	return r
}

// errCorrupt is an encoding that does not read back: the set is then
// compiled and the cache written again.
var errCorrupt = errors.New("policy cache: corrupt file")

// decodeCompiled reads a set encoded under key; a file under another key
// is errStale.
func decodeCompiled(key, b []byte) (*compiledSet, error) {
	if !bytes.HasPrefix(b, []byte(compiledMagic)) || len(b) <= len(compiledMagic) || b[len(compiledMagic)] != compiledFormat {
		return nil, errStale
	}
	if len(b) < len(compiledMagic)+1+4 {
		return nil, errCorrupt
	}
	b, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)) != sum {
		return nil, errCorrupt
	}
	d := &setDecoder{buf: b, sbuf: string(b), pos: len(compiledMagic) + 1}
	n := d.count()
	if d.err != nil || n != len(key) || d.pos+n > len(b) || !bytes.Equal(b[d.pos:d.pos+n], key) {
		return nil, errStale
	}
	d.pos += n
	n = d.count()
	d.strs = make([]string, 0, n)
	d.offs = make([]int, 0, n)
	for range n {
		l := d.count()
		if d.err != nil || d.pos+l > len(b) {
			return nil, errCorrupt
		}
		d.strs = append(d.strs, d.sbuf[d.pos:d.pos+l])
		d.offs = append(d.offs, d.pos)
		d.pos += l
	}
	d.scalars = make([]ast.Value, len(d.strs))
	n = d.count()
	locs := make([]ast.Location, n)
	d.locs = make([]*ast.Location, n)
	for i := range locs {
		l := &locs[i]
		l.File = d.str()
		if t := d.index(len(d.strs) + 1); t > 0 && d.err == nil {
			off, n := d.offs[t-1], len(d.strs[t-1])
			l.Text = b[off : off+n : off+n]
		}
		l.Row, l.Col, l.Offset = d.int(), d.int(), d.int()
		if tabs := d.count(); tabs > 0 {
			l.Tabs = make([]int, tabs-1)
			for j := range l.Tabs {
				l.Tabs[j] = d.int()
			}
		}
		d.locs[i] = l
	}
	d.termSlab.reserve(d.nodeCount())
	d.termsSlab.reserve(d.nodeCount())
	d.exprSlab.reserve(d.nodeCount())
	d.bodySlab.reserve(d.nodeCount())
	n = d.nodeCount()
	d.ruleSlab.reserve(n)
	d.headSlab.reserve(n)
	s := &compiledSet{}
	n = d.count()
	for range n {
		if d.err != nil {
			break
		}
		s.names = append(s.names, d.str())
		s.modules = append(s.modules, d.module())
	}
	n = d.count()
	s.rewritten = make(map[ast.Var]ast.Var, n)
	for range n {
		k := ast.Var(d.str())
		s.rewritten[k] = ast.Var(d.str())
	}
	s.mentions = d.strings()
	s.origins = d.stringMap()
	s.variables = d.stringMap()
	if s.lint = d.strings(); len(s.lint) == 0 {
		s.lint = nil
	}
	s.computed = d.flag()
	s.trueSigRule = d.flag()
	s.indexed = d.flag()
	n = d.count()
	s.queries = make(map[string]ast.Body, n)
	for range n {
		q, body := d.str(), d.body()
		if len(body) == 0 {
			d.err = errCorrupt // a query is never empty
		}
		s.queries[q] = body
	}
	s.builtins = d.strings()
	s.features = d.strings()
	s.futureKeywords = d.strings()
	if d.err == nil && d.pos != len(b) {
		d.err = errCorrupt
	}
	if d.err != nil {
		return nil, d.err
	}
	return s, nil
}

func (d *setDecoder) uint() uint64 {
	v, n := binary.Uvarint(d.buf[min(d.pos, len(d.buf)):])
	if n <= 0 {
		d.err = errCorrupt
		d.pos = len(d.buf)
		return 0
	}
	d.pos += n
	return v
}

func (d *setDecoder) int() int {
	v, n := binary.Varint(d.buf[min(d.pos, len(d.buf)):])
	if n <= 0 {
		d.err = errCorrupt
		d.pos = len(d.buf)
		return 0
	}
	d.pos += n
	return int(v)
}

// count reads a length, which no valid file has larger than itself.
func (d *setDecoder) count() int {
	v := d.uint()
	if v > uint64(len(d.buf)) {
		d.err = errCorrupt
		return 0
	}
	return int(v)
}

// nodeCount reads a count of nodes, which no valid file has larger than
// the bytes left in it (each node takes one at least): a file that says
// otherwise gets no more than that reserved, as if it told the truth.
func (d *setDecoder) nodeCount() int {
	return min(d.count(), len(d.buf)-d.pos)
}

// index reads an index below n.
func (d *setDecoder) index(n int) int {
	v := d.uint()
	if v >= uint64(n) {
		d.err = errCorrupt
		return 0
	}
	return int(v)
}

func (d *setDecoder) byte() byte {
	if d.pos >= len(d.buf) {
		d.err = errCorrupt
		return 0
	}
	d.pos++
	return d.buf[d.pos-1]
}

func (d *setDecoder) flag() bool { return d.byte() != 0 }

func (d *setDecoder) str() string {
	i := d.index(len(d.strs))
	if d.err != nil {
		return ""
	}
	return d.strs[i]
}

func (d *setDecoder) strings() []string {
	n := d.count()
	out := make([]string, 0, n)
	for range n {
		out = append(out, d.str())
	}
	return out
}

func (d *setDecoder) stringMap() map[string]string {
	n := d.count()
	out := make(map[string]string, n)
	for range n {
		k := d.str()
		out[k] = d.str()
	}
	return out
}

func (d *setDecoder) loc() *ast.Location {
	i := d.index(len(d.locs) + 1)
	if i == 0 || d.err != nil {
		return nil
	}
	return d.locs[i-1]
}

func (d *setDecoder) module() *ast.Module {
	m := &ast.Module{}
	lo, hi := ast.RegoVersion(d.uint()), ast.RegoVersion(d.uint())
	v, err := ast.NewRegoVersionSpan(lo, hi)
	if err != nil || v.Min() != lo || v.Max() != hi {
		d.err = errCorrupt
	}
	m.SetRegoVersionSpan(v)
	m.Package = &ast.Package{Path: d.terms()}
	m.Package.Location = d.loc()
	if n := d.count(); n > 0 {
		m.Imports = make([]*ast.Import, n)
		for i := range m.Imports {
			imp := &ast.Import{Path: d.term()}
			imp.Alias = ast.Var(d.str())
			imp.Location = d.loc()
			imp.AliasLocation = d.loc()
			m.Imports[i] = imp
		}
	}
	if n := d.count(); n > 0 {
		m.Rules = make([]*ast.Rule, n)
		for i := range m.Rules {
			m.Rules[i] = d.rule(m)
		}
	}
	return m
}

func (d *setDecoder) rule(m *ast.Module) *ast.Rule {
	if d.err != nil {
		return &ast.Rule{Head: &ast.Head{}, Module: m}
	}
	r := d.ruleSlab.one()
	r.Module, r.Default = m, d.flag()
	r.Location = d.loc()
	h := d.headSlab.one()
	h.Name = ast.Var(d.str())
	h.Reference = d.terms()
	h.Args = d.terms()
	h.Key = d.optTerm()
	h.Value = d.optTerm()
	h.Assign = d.flag()
	h.Location = d.loc()
	r.Head = h
	r.Body = d.body()
	if d.flag() {
		r.Else = d.rule(m)
	}
	return r
}

func (d *setDecoder) body() ast.Body {
	n := d.count()
	if n == 0 || d.err != nil {
		return nil
	}
	b := ast.Body(d.bodySlab.run(n - 1))
	for i := range b {
		b[i] = d.expr()
	}
	return b
}

func (d *setDecoder) expr() *ast.Expr {
	x := d.exprSlab.one()
	x.Index, x.Negated, x.Generated = int(d.uint()), d.flag(), d.flag()
	x.Location = d.loc()
	if n := d.count(); n > 0 {
		x.With = make([]*ast.With, n)
		for i := range x.With {
			w := &ast.With{Target: d.term(), Value: d.term()}
			w.Location = d.loc()
			x.With[i] = w
		}
	}
	switch d.byte() {
	case exprTerm:
		x.Terms = d.term()
	case exprCall:
		x.Terms = []*ast.Term(d.terms())
	case exprSome:
		s := &ast.SomeDecl{Symbols: d.terms()}
		s.Location = d.loc()
		x.Terms = s
	case exprEvery:
		ev := &ast.Every{Key: d.optTerm(), Value: d.optTerm(), Domain: d.optTerm()}
		ev.Body = d.body()
		ev.Location = d.loc()
		x.Terms = ev
	default:
		d.err = errCorrupt
	}
	return x
}

func (d *setDecoder) terms() []*ast.Term {
	n := d.count()
	if n == 0 || d.err != nil {
		return nil
	}
	ts := d.termsSlab.run(n - 1)
	for i := range ts {
		ts[i] = d.term()
	}
	return ts
}

// elems reads the elements of an array or set: a count and the terms.
func (d *setDecoder) elems() []*ast.Term {
	n := d.count()
	ts := make([]*ast.Term, 0, n)
	for range n {
		ts = append(ts, d.term())
	}
	return ts
}

// term reads a term that must be present.
func (d *setDecoder) term() *ast.Term {
	t := d.optTerm()
	if t == nil {
		d.err = errCorrupt
		return &ast.Term{Value: ast.Null{}}
	}
	return t
}

func (d *setDecoder) optTerm() *ast.Term {
	if d.err != nil {
		return nil
	}
	var v ast.Value
	switch tag := d.byte(); tag {
	case termAbsent:
		return nil
	case termNull:
		v = ast.Null{}
	case termFalse:
		v = ast.Boolean(false)
	case termTrue:
		v = ast.Boolean(true)
	case termNumber, termString, termVar:
		v = d.scalar(tag)
	case termRef:
		v = ast.Ref(d.terms())
	case termArray:
		v = ast.NewArray(d.elems()...)
	case termObject:
		n := d.count()
		pairs := make([][2]*ast.Term, n)
		for i := range pairs {
			pairs[i] = [2]*ast.Term{d.term(), d.term()}
		}
		v = ast.NewObject(pairs...)
	case termSet:
		v = ast.NewSet(d.elems()...)
	case termArrayCompr:
		c := &ast.ArrayComprehension{Term: d.term()}
		c.Body = d.body()
		v = c
	case termSetCompr:
		c := &ast.SetComprehension{Term: d.term()}
		c.Body = d.body()
		v = c
	case termObjectCompr:
		c := &ast.ObjectComprehension{Key: d.term(), Value: d.term()}
		c.Body = d.body()
		v = c
	case termCall:
		v = ast.Call(d.terms())
	default:
		d.err = errCorrupt
		return nil
	}
	t := d.termSlab.one()
	t.Value, t.Location = v, d.loc()
	return t
}

// scalar reads a string and returns it as the value of tag (termNumber,
// termString or termVar), made once for each string: a string some terms
// hold as a variable and others as a string is made once for the first.
func (d *setDecoder) scalar(tag byte) ast.Value {
	i := d.index(len(d.strs))
	if d.err != nil {
		return ast.Null{}
	}
	v := d.scalars[i]
	switch v.(type) {
	case ast.Number:
		if tag == termNumber {
			return v
		}
	case ast.String:
		if tag == termString {
			return v
		}
	case ast.Var:
		if tag == termVar {
			return v
		}
	}
	switch tag {
	case termNumber:
		v = ast.Number(d.strs[i])
	case termString:
		v = ast.String(d.strs[i])
	default:
		v = ast.Var(d.strs[i])
	}
	if d.scalars[i] == nil {
		d.scalars[i] = v
	}
	return v
}
