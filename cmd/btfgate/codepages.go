package main

import "os"

// decodedRelease returns what an encode of input calls once its units are
// decoded (encode.Options.Decoded): for an input from releaseDecodedFrom
// up to collectAtLimitBelow, releaseInitCode again, nil otherwise. Such an
// encode runs no collection, so its peak is at its end, and the code the
// walk, the conversion and the policies' loading ran, resident since
// main let the initialisation's go, is little of what the rest runs:
// scsi_transport_iscsi.ko and cnic.ko (1.6 MB) peak 1.3-1.9 MiB lower for
// about 0.6 ms of CPU, the faults that bring back what the decisions, the
// dedup and the write run (docs/performance.md, "Session 18: the code
// pages after the decode"). Below a MiB the peak is far under pahole's,
// and a module's 10 ms would pay 5 % for it.
func decodedRelease(input string) func() {
	st, err := os.Stat(input)
	if err != nil || st.Size() < releaseDecodedFrom || st.Size() >= collectAtLimitBelow {
		return nil
	}
	return releaseInitCode
}

// releaseDecodedFrom is the input size from which decodedRelease lets the
// code pages go after the decode.
const releaseDecodedFrom = 1 << 20
