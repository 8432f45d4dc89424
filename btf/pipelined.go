package btf

// A pipelined dedup (StartPipelinedDedup, Deduplication.Advance) runs
// libbpf's primitive and struct passes batch by batch, while libbpf runs
// the primitive pass over all types and then the struct pass. The map
// they build is the same for the following reasons, and where one does not
// hold for an input, the dedup records it (pipe.unsure) and Finish starts
// over in libbpf's order.
//
//   - The primitive pass decides each type from earlier types only and
//     reads nothing the struct pass writes, so running it per batch gives
//     the same decisions, provided its candidate table sees the same
//     sequence of insertions. libbpf's table is one hashmap for all passes,
//     and the order in which it lists a key's candidates depends on how
//     often it has grown, so on every insertion before; here the primitive
//     pass gets a table of its own holding the base and the primitive
//     types in libbpf's order, and the struct pass another holding the base
//     and the structs (those of the base only: the struct pass looks for
//     nothing else). After the two passes, the struct pass's insertions are
//     replayed into the primitive pass's table, which then holds what
//     libbpf's holds at that point, in the same order, for the reference
//     pass.
//   - The struct pass's table lists candidates in another order than
//     libbpf's; the order matters only when two candidates are equivalent
//     to the type, since the first one wins. So the pass tries every
//     candidate of equal shallow signature: with one equivalent, it is
//     libbpf's choice; with two, the dedup is unsure. (The corpus kernel
//     has 1,316 lookups with several candidates and none with two
//     equivalent ones.)
//   - A batch's struct pass runs before later batches' primitive types are
//     deduplicated, where libbpf has them all done. Those can change an
//     earlier type's mapping in one way: a full enum taking over the
//     canonical declaration of its name. When the declaration was still
//     canonical, the new mapping extends the chain every type mapped to
//     the declaration shares, and the struct pass compares resolved types
//     only for equality, so it decides the same. When the declaration had
//     been taken over already, the change could decide differently: the
//     dedup is unsure.
type pipe struct {
	piped   bool
	logging bool   // record table insertions (the struct pass's)
	unsure  string // why the result might differ from libbpf's, "" if it cannot

	primTab, structTab *candTable
	log                []candAdd // the struct pass's insertions, in order
	scratchPairs       []uint32
}

// candAdd is one insertion into the candidate table.
type candAdd struct {
	h  uint64
	id uint32
}

// addEntry adds candidate id under h to the current table, recording the
// struct pass's insertions for joinTables.
func (d *deduper) addEntry(h uint64, id uint32) int32 {
	if d.logging {
		d.log = append(d.log, candAdd{h, id})
	}
	return d.table.add(h, id)
}

// splitTables gives the struct pass its own table, holding the base's
// structs, unions and typedefs (its only possible candidates among what
// prep inserted; prep filled it, hashing each base type once); the
// primitive pass keeps prep's, whose insertion sequence (base, then
// primitive types) is libbpf's.
func (d *deduper) splitTables() {
	d.primTab = d.table
}

func (d *deduper) usePrimTable() {
	if d.piped {
		d.table, d.logging = d.primTab, false
	}
}

func (d *deduper) useStructTable() {
	if d.piped {
		d.table, d.logging = d.structTab, true
	}
}

// joinTables continues the primitive pass's table with the struct pass's
// insertions, in order: libbpf's table after both passes.
func (d *deduper) joinTables() {
	if !d.piped || d.primTab == nil {
		return // one table all along, or joined already
	}
	d.table = d.primTab
	for _, a := range d.log {
		d.table.add(a.h, a.id)
	}
	d.primTab, d.structTab, d.log, d.logging = nil, nil, nil, false
}

// beUnsure records the first reason the pipelined result might differ.
func (d *deduper) beUnsure(why string) {
	if d.unsure == "" {
		d.unsure = why
	}
}
