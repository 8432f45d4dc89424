package btf

// pieceWriter hands what is appended to its buffer to out in pieces of
// about pieceBytes, so that a large encoding (a prepared base: 10 MB for a
// kernel's) is written without being held whole.
type pieceWriter struct {
	b       []byte
	out     func([]byte) error
	flushed int // bytes handed to out
	err     error
}

// pieceBytes is about how much a pieceWriter holds before handing it on:
// the size of the writes that keep a cache file in small page cache folios
// (atomicfile.Write).
const pieceBytes = 64 << 10

// at is how many bytes were appended.
func (p *pieceWriter) at() int { return p.flushed + len(p.b) }

// spill hands the buffer on once it holds pieceBytes.
func (p *pieceWriter) spill() {
	if len(p.b) >= pieceBytes {
		p.flush()
	}
}

// flush hands the buffer on; after an error, appending goes on and
// nothing more is handed on.
func (p *pieceWriter) flush() {
	if p.err == nil && len(p.b) > 0 {
		p.err = p.out(p.b)
	}
	p.flushed += len(p.b)
	p.b = p.b[:0]
}

// pad appends zeros up to a multiple of a, a power of two, a piece's room
// at a time.
func (p *pieceWriter) pad(a int) {
	for n := alignUp(p.at(), a) - p.at(); n > 0; {
		p.spill()
		k := min(n, pieceBytes-len(p.b))
		p.b = append(p.b, make([]byte, k)...)
		n -= k
	}
	p.spill()
}

// write appends b, handing it on in pieces of its own.
func (p *pieceWriter) write(b []byte) {
	p.flush()
	for len(b) > 0 {
		k := min(len(b), pieceBytes)
		if p.err == nil {
			p.err = p.out(b[:k])
		}
		p.flushed += k
		b = b[k:]
	}
}
