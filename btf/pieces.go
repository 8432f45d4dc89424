package btf

// pieceWriter hands what is appended to its buffer to out in pieces of
// about pieceBytes, so that a large encoding (a prepared base: 10 MB for a
// kernel's) is written without being held whole. With out nil it keeps
// everything, which is how the encodings build a slice (appendSnapshot).
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
	if p.out != nil && len(p.b) >= pieceBytes {
		p.flush()
	}
}

// flush hands the buffer on; after an error, appending goes on and
// nothing more is handed on.
func (p *pieceWriter) flush() {
	if p.out == nil {
		return
	}
	if p.err == nil && len(p.b) > 0 {
		p.err = p.out(p.b)
	}
	p.flushed += len(p.b)
	p.b = p.b[:0]
}

// pad appends zeros up to a multiple of a, a power of two.
func (p *pieceWriter) pad(a int) {
	for n := alignUp(p.at(), a) - p.at(); n > 0; {
		p.spill() // so that a piece has room
		k := n
		if p.out != nil { // up to a piece's end
			k = min(n, pieceBytes-len(p.b))
		}
		p.b = append(p.b, make([]byte, k)...)
		n -= k
	}
	p.spill()
}

// write appends b, handing a large b on in pieces of its own.
func (p *pieceWriter) write(b []byte) {
	if p.out == nil {
		p.b = append(p.b, b...)
		return
	}
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
