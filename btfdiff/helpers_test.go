package btfdiff

import (
	"encoding/binary"
	"os"
	"testing"
)

// btfMagic starts every BTF blob (struct btf_header.magic).
const btfMagic = 0xeb9f

// testBTF builds raw BTF by hand for tests that need inputs no encoder
// writes: cycles, malformed data, every kind with every flag.
type testBTF struct {
	words []uint32
	strs  []byte
	n     uint32
}

func newTestBTF() *testBTF { return &testBTF{strs: []byte{0}} }

// str adds s to the string section and returns its offset ("" is 0).
func (b *testBTF) str(s string) uint32 {
	if s == "" {
		return 0
	}
	off := uint32(len(b.strs))
	b.strs = append(append(b.strs, s...), 0)
	return off
}

// add appends a type and returns its id.
func (b *testBTF) add(k Kind, name string, kflag bool, vlen int, sizeType uint32, extra ...uint32) uint32 {
	info := uint32(k)<<24 | uint32(vlen)
	if kflag {
		info |= 1 << 31
	}
	b.words = append(b.words, b.str(name), info, sizeType)
	b.words = append(b.words, extra...)
	b.n++
	return b.n
}

// bytes returns the blob with a header of hdrLen (24 or 32) bytes.
// byteOrder is what binary.LittleEndian and binary.BigEndian both are.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

func (b *testBTF) bytes(order byteOrder, hdrLen int) []byte {
	typeLen := 4 * len(b.words)
	out := make([]byte, hdrLen, hdrLen+typeLen+len(b.strs))
	order.PutUint16(out, btfMagic)
	out[2] = 1
	order.PutUint32(out[4:], uint32(hdrLen))
	order.PutUint32(out[8:], 0)
	order.PutUint32(out[12:], uint32(typeLen))
	order.PutUint32(out[16:], uint32(typeLen))
	order.PutUint32(out[20:], uint32(len(b.strs)))
	for _, w := range b.words {
		out = order.AppendUint32(out, w)
	}
	return append(out, b.strs...)
}

// toBigEndian rewrites a little-endian BTF blob in big-endian order. Every
// field of the header past the magic and of the type section is a 32-bit
// word, so swapping each word is enough; strings are bytes.
func toBigEndian(t *testing.T, le []byte) []byte {
	t.Helper()
	if len(le) < 24 || binary.LittleEndian.Uint16(le) != btfMagic {
		t.Fatal("input is not little-endian BTF")
	}
	hdrLen := int(binary.LittleEndian.Uint32(le[4:]))
	types := hdrLen + int(binary.LittleEndian.Uint32(le[8:]))
	typeLen := int(binary.LittleEndian.Uint32(le[12:]))
	be := append([]byte(nil), le...)
	binary.BigEndian.PutUint16(be, btfMagic)
	swap := func(from, to int) {
		for i := from; i+4 <= to; i += 4 {
			binary.BigEndian.PutUint32(be[i:], binary.LittleEndian.Uint32(le[i:]))
		}
	}
	swap(4, hdrLen)
	swap(types, types+typeLen)
	return be
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustLoad(t testing.TB, path, base string) *Set {
	t.Helper()
	s, err := Load(path, base)
	if err != nil {
		t.Fatalf("Load(%s, %q): %v", path, base, err)
	}
	return s
}
