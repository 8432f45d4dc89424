package btf

// dedupStrings is libbpf's btf_dedup_strings. A table grown only by Add holds
// each string once already and is left alone (libbpf: strs_deduped, true for
// BTF built from scratch, as pahole's is). Otherwise (a parsed table) the own
// string references are re-interned, in type order, into a new table, which
// drops unreferenced and duplicate strings; a string the base holds gets the
// base's offset.
func (d *deduper) dedupStrings() error {
	old := d.strs
	if old.deduped {
		return nil
	}
	var strs *Strings
	if old.base != nil {
		strs = NewSplitStrings(old.base)
	} else {
		strs = NewStrings()
	}
	for id := d.start; id < d.n; id++ {
		w := d.typ(id)
		forEachField(w, strFields(infoKind(w[1])), func(p *uint32) bool {
			if *p != 0 && *p >= old.start {
				*p = strs.Add(old.String(*p))
			}
			return true
		})
	}
	if err := strs.Err(); err != nil {
		return err
	}
	d.strs = strs
	return nil
}
